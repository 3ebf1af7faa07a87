//! The rows the live view serves: every result row of the run so far, and the description of
//! its columns.
//!
//! When the run writes a result file that holds every row, only the newest rows stay in
//! memory (a window of about [`WINDOW_BYTES`]); older ones are read back from that file
//! ([`crate::source`]): the MAT file written row by row, which holds each value bit for bit
//! from the moment the row is written, else `values.csv` (14 significant digits), once its
//! writer has passed the rows to the operating system. Otherwise (the output filter, only the
//! Signal Table; stored results) every row stays in memory.
//!
//! Spec: `docs/live.md` (what the server keeps in memory).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use master::time::TimeFormat;
use master::values::TypedValues;
use master::{Observer, ObserverError, OutputLayout};
use mastersim::Session;
use output::result_file::ResultTable;
use serde::Serialize;

use crate::source::{RowFile, RowSource};

/// About how many bytes of rows a live run keeps in memory when older rows can be read back
/// from its result files: the window holds between this and twice this (8 bytes per value, the
/// time included), at least [`MIN_WINDOW_ROWS`] rows.
pub const WINDOW_BYTES: usize = 8 << 20;

/// The fewest rows the window keeps (more than one `rows` event of the stream).
const MIN_WINDOW_ROWS: usize = 4096;

/// The environment variable that sets the window in rows instead (a whole number ≥ 1; for
/// tests and machines short of memory).
pub const WINDOW_VARIABLE: &str = "MASTERSIM_LIVE_WINDOW";

/// One numeric result column as the page groups it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Column {
    /// `<slave>.<variable>`.
    pub name: String,
    /// The part of the name before the first `.` (the whole name when there is none).
    pub slave: String,
    /// Unit (`-` when none).
    pub unit: String,
}

impl Column {
    /// The column `name` with `unit`; the slave is taken from the name.
    pub fn new(name: &str, unit: &str) -> Column {
        Column {
            name: name.to_string(),
            slave: name.split_once('.').map_or(name, |(s, _)| s).to_string(),
            unit: if unit.is_empty() { "-" } else { unit }.to_string(),
        }
    }
}

/// What the page is told about the data (`GET /api/meta`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Meta {
    /// `live` for a running co-simulation, `replay` for stored results.
    pub mode: &'static str,
    /// The project or result file name.
    pub title: String,
    /// Start and end time of the run, s.
    pub t_start: f64,
    /// End time, s.
    pub t_end: f64,
    /// The numeric columns: Booleans (0/1), Integers, Reals, in result-file order.
    pub columns: Vec<Column>,
    /// The slaves in project order (the order of their `simulator` lines, or of the SSP's
    /// components): the page orders its tree, its charts and its panels by it. For stored
    /// results, which do not record the project, the order in which each slave's first column
    /// appears.
    pub slaves: Vec<String>,
    /// How many decimals the page prints times with: as many as the run's time grid needs
    /// ([`master::time::TimeFormat`]), so that a communication point reads as on the grid
    /// (`17.9`, not `17.900000000000002`); `None` (JSON `null`): the shortest round-trip
    /// decimal. For stored results, from the start time, the end time and the first step.
    pub time_decimals: Option<usize>,
    /// The scene the page draws beside the charts (`null`: none), its variables resolved to
    /// row columns ([`crate::scene::Scene`]).
    pub scene: Option<crate::scene::Scene>,
}

#[derive(Debug)]
struct Data {
    meta: Meta,
    /// Rows `first..`, row-major: each row is `[t, v_0, …, v_{n−1}]` with
    /// `n = meta.columns.len()`.
    window: Vec<f64>,
    /// The number of the first row in `window` (the rows before are in `file`).
    first: usize,
    /// Where rows before `first` are read from; `None`: every row stays in `window`.
    file: Option<Backing>,
    /// The outputs at the communication point where the run is held, `[t, v_0, …]`, when no
    /// row was written since (see [`Observer::held`]).
    held: Option<Vec<f64>>,
}

/// The result file that holds every row the store is given, in the same order.
#[derive(Debug)]
struct Backing {
    file: RowFile,
    /// Opened when the window first sheds rows.
    rows: Option<Arc<RowSource>>,
    /// Rows the window keeps at least; it sheds this many when it holds twice as many.
    keep: usize,
}

impl Data {
    fn width(&self) -> usize {
        self.meta.columns.len() + 1
    }

    fn len(&self) -> usize {
        self.first + self.window.len() / self.width()
    }

    /// Drops the oldest rows of the window while it holds twice its bound, in steps of the
    /// bound, only rows the result file holds already (no I/O: the file says how many it
    /// holds); the file is opened (its columns matched to the store's) when rows are first
    /// dropped. When it cannot be read, every row stays in memory from then on (with one
    /// warning).
    fn shed(&mut self) {
        let width = self.width();
        let Some(file) = &mut self.file else { return };
        if self.window.len() < file.keep.saturating_mul(2 * width) {
            return;
        }
        let held = self.window.len() / width;
        let on_disk = file
            .file
            .rows_on_disk()
            .saturating_sub(self.first)
            .min(held);
        let shed = (held - file.keep).min(on_disk) / file.keep * file.keep;
        if shed == 0 {
            return;
        }
        if file.rows.is_none() {
            let names: Vec<&str> = self.meta.columns.iter().map(|c| c.name.as_str()).collect();
            match file.file.open(&names) {
                Ok(rows) => file.rows = Some(Arc::new(rows)),
                Err(why) => {
                    log::warn!(
                        "live view: the rows cannot be read back from '{}' ({why}); every row \
                         stays in memory",
                        file.file.path().display()
                    );
                    self.file = None;
                    return;
                }
            }
        }
        self.window.drain(..shed * width);
        self.first += shed;
    }
}

/// The rows of one run, shared by the stepping loop (which appends, never waiting for a
/// reader) and the HTTP handlers (which copy out slices). Clones share the data.
#[derive(Debug, Clone)]
pub struct Store(Arc<Mutex<Data>>);

impl Store {
    /// An empty store for a live run named `title`; the columns arrive with the layout when
    /// the run starts (as an [`Observer`]).
    pub fn live(title: &str) -> Store {
        Store::with(Meta {
            mode: "live",
            title: title.to_string(),
            t_start: 0.0,
            t_end: 0.0,
            columns: Vec::new(),
            slaves: Vec::new(),
            time_decimals: None,
            scene: None,
        })
    }

    /// The same store, its page printing times with `format` (the run's
    /// [`master::SimulationPlan::time_format`]) from the start, before the run's layout
    /// arrives.
    pub fn with_time_format(self, format: TimeFormat) -> Store {
        self.lock().meta.time_decimals = format.decimals();
        self
    }

    /// The same store, its page drawing `scene` (checked against the store's columns by
    /// [`crate::scene::Scene::load`]).
    pub fn with_scene(self, scene: Option<crate::scene::Scene>) -> Store {
        self.lock().meta.scene = scene;
        self
    }

    /// The same store, its slaves listed in `slaves`' order (project order) from the start.
    pub fn with_slaves(self, slaves: impl IntoIterator<Item = String>) -> Store {
        self.lock().meta.slaves = slaves.into_iter().collect();
        self
    }

    /// A store holding stored results: `time` (s, one entry per row) and `columns`
    /// (`(column, values)`, each `values.len() == time.len()`), titled `title`.
    pub fn replay(title: &str, time: &[f64], columns: Vec<(Column, Vec<f64>)>) -> Store {
        let width = columns.len() + 1;
        let mut rows = Vec::with_capacity(time.len() * width);
        for (i, t) in time.iter().enumerate() {
            rows.push(*t);
            rows.extend(columns.iter().map(|(_, v)| v[i]));
        }
        let columns: Vec<Column> = columns.into_iter().map(|(c, _)| c).collect();
        let mut slaves: Vec<String> = Vec::new();
        for c in &columns {
            if !slaves.contains(&c.slave) {
                slaves.push(c.slave.clone());
            }
        }
        Store::with(Meta {
            mode: "replay",
            title: title.to_string(),
            t_start: time.first().copied().unwrap_or(0.0),
            t_end: time.last().copied().unwrap_or(0.0),
            columns,
            slaves,
            time_decimals: stored_time_format(time).decimals(),
            scene: None,
        })
        .filled(rows)
    }

    /// A store for the live view of `session`, titled `title`, added to the session as an
    /// observer. When the session was resumed from a checkpoint, the store first holds the
    /// rows the interrupted run wrote up to the checkpoint, read back from its result files
    /// ([`Session::resumed_rows`]): the view shows the whole run, its first row first.
    ///
    /// # Errors
    /// The session refuses the observer, or the result files cannot be read back
    /// ([`mastersim::Error`], boxed, naming the file).
    ///
    /// Spec: `docs/live.md` (a resumed run).
    pub fn attach(session: &mut Session, title: &str) -> Result<Store, Box<mastersim::Error>> {
        let plan = session.plan();
        let store = Store::live(title)
            .with_time_format(plan.time_format())
            .with_slaves(plan.slaves.iter().map(|s| s.name.clone()));
        if let Some(file) = RowFile::of(session) {
            store.lock().file = Some(Backing {
                file,
                rows: None,
                keep: usize::MAX,
            });
        }
        session.add_observer(Box::new(store.clone()))?;
        if let Some(table) = session.resumed_rows()? {
            store.append(&table);
        }
        Ok(store)
    }

    /// Appends the rows of `table` (time in s) after those the store holds, its columns
    /// matched to the store's by name: a store column that `table` lacks is NaN.
    fn append(&self, table: &ResultTable) {
        let mut data = self.lock();
        let found: Vec<Option<&Vec<f64>>> = data
            .meta
            .columns
            .iter()
            .map(|c| {
                table
                    .names
                    .iter()
                    .position(|n| *n == c.name)
                    .map(|i| &table.columns[i])
            })
            .collect();
        let mut rows = Vec::with_capacity(table.time.len() * (found.len() + 1));
        for (i, t) in table.time.iter().enumerate() {
            rows.push(*t);
            rows.extend(
                found
                    .iter()
                    .map(|c| c.and_then(|c| c.get(i)).copied().unwrap_or(f64::NAN)),
            );
        }
        drop(found);
        data.window.extend_from_slice(&rows);
        data.shed();
    }

    fn with(meta: Meta) -> Store {
        Store(Arc::new(Mutex::new(Data {
            meta,
            window: Vec::new(),
            first: 0,
            file: None,
            held: None,
        })))
    }

    fn filled(self, rows: Vec<f64>) -> Store {
        self.lock().window = rows;
        self
    }

    fn lock(&self) -> MutexGuard<'_, Data> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The description of the columns.
    pub fn meta(&self) -> Meta {
        self.lock().meta.clone()
    }

    /// The number of rows so far.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// The first row held in memory; rows before it are read from the run's result file.
    pub fn in_memory_from(&self) -> usize {
        self.lock().first
    }

    /// The number of rows held in memory (the held outputs not counted).
    pub fn in_memory(&self) -> usize {
        let data = self.lock();
        data.len() - data.first
    }

    /// Whether no row arrived yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The outputs at the communication point where the run is held, `[t, v_0, …]` in the
    /// columns' order, when no result row was written there (e.g. a single step shorter than
    /// `hOutputMin`); `None` otherwise.
    pub fn held(&self) -> Option<Vec<f64>> {
        self.lock().held.clone()
    }

    /// Rows `from..to` (clamped to the rows there are; none when `from >= to`), each
    /// `[t, v_0, …]`. Rows older than the window are read from the run's result file without
    /// holding the store, so the run is not held up meanwhile.
    ///
    /// # Errors
    /// The result file cannot be read (the message names it).
    pub fn rows(&self, from: usize, to: usize) -> Result<Vec<Vec<f64>>, String> {
        let mut out = Vec::new();
        let mut next = from;
        loop {
            let data = self.lock();
            let width = data.width();
            let to = to.min(data.len());
            if next >= to {
                return Ok(out);
            }
            let rows = data.file.as_ref().and_then(|f| f.rows.clone());
            let (first, rows) = match rows {
                Some(rows) if next < data.first => (data.first, rows),
                _ => {
                    let start = (next - data.first) * width;
                    let end = (to - data.first) * width;
                    out.extend(
                        data.window[start..end]
                            .chunks_exact(width)
                            .map(<[f64]>::to_vec),
                    );
                    return Ok(out);
                }
            };
            drop(data);
            let upto = first.min(to);
            let mut values = Vec::new();
            rows.read(next, upto, &mut values)
                .map_err(|e| format!("the rows before {first} cannot be read back: {e}"))?;
            out.extend(values.chunks_exact(width).map(<[f64]>::to_vec));
            next = upto;
        }
    }
}

/// The rows the window keeps for rows of `width` values: [`WINDOW_VARIABLE`] when set to a
/// whole number ≥ 1, else [`WINDOW_BYTES`] worth, at least [`MIN_WINDOW_ROWS`].
fn window_rows(width: usize) -> usize {
    match std::env::var(WINDOW_VARIABLE)
        .ok()
        .map(|v| v.trim().parse::<usize>())
    {
        Some(Ok(rows)) if rows >= 1 => rows,
        Some(_) => {
            log::warn!(
                "{WINDOW_VARIABLE} is not a whole number >= 1; the live view keeps about {} MiB \
                 of rows in memory",
                WINDOW_BYTES >> 20
            );
            (WINDOW_BYTES / (8 * width)).max(MIN_WINDOW_ROWS)
        }
        None => (WINDOW_BYTES / (8 * width)).max(MIN_WINDOW_ROWS),
    }
}

impl Observer for Store {
    fn start(&mut self, layout: &OutputLayout) -> Result<(), ObserverError> {
        let c = &layout.columns;
        let mut guard = self.lock();
        let data = &mut *guard;
        data.meta.t_start = layout.t_start;
        data.meta.t_end = layout.t_end;
        data.meta.time_decimals = layout.time_format.decimals();
        data.meta.columns = [&c.boolean, &c.integer, &c.real]
            .into_iter()
            .flatten()
            .map(|c| Column::new(&c.name, &c.unit))
            .collect();
        data.window.clear();
        data.first = 0;
        data.held = None;
        let width = data.width();
        if let Some(file) = &mut data.file {
            file.keep = window_rows(width);
            let capacity = 2 * file.keep * width;
            data.window.reserve(capacity);
        }
        Ok(())
    }

    fn output(&mut self, t: f64, values: &TypedValues) -> Result<(), ObserverError> {
        let mut data = self.lock();
        data.held = None;
        push_row(&mut data.window, t, values);
        data.shed();
        Ok(())
    }

    fn held(&mut self, t: f64, values: &TypedValues) {
        let mut data = self.lock();
        let last_t = data.window.len().checked_sub(data.width());
        if last_t.is_some_and(|i| data.window[i] == t) {
            // A row was written at this communication point: the page shows it already.
            data.held = None;
            return;
        }
        let mut row = data.held.take().unwrap_or_default();
        row.clear();
        push_row(&mut row, t, values);
        data.held = Some(row);
    }
}

/// Appends `[t, booleans as 0/1, integers, reals]` (the page's column order) to `rows`.
fn push_row(rows: &mut Vec<f64>, t: f64, values: &TypedValues) {
    rows.push(t);
    rows.extend(values.boolean.iter().map(|&b| f64::from(u8::from(b))));
    rows.extend(values.integer.iter().map(|&i| i as f64));
    rows.extend_from_slice(&values.real);
}

/// The time format of stored results with the times `time` (s): the grid spanned by the
/// first and last time and the first step.
fn stored_time_format(time: &[f64]) -> TimeFormat {
    let first_step = match time {
        [t0, t1, ..] => Some(t1 - t0),
        _ => None,
    };
    TimeFormat::for_grid(
        time.first()
            .into_iter()
            .chain(time.last())
            .copied()
            .chain(first_step),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 28: stored results at 0.1 s steps print times with one decimal.
    #[test]
    fn stored_times_follow_their_grid() {
        let time: Vec<f64> = (0..=200).map(|k| f64::from(k) * 0.1).collect();
        let store = Store::replay("r", &time, Vec::new());
        assert_eq!(store.meta().time_decimals, Some(1));
        assert_eq!(
            Store::replay("r", &[0.0, 0.125], Vec::new())
                .meta()
                .time_decimals,
            Some(3)
        );
        assert_eq!(
            Store::replay("r", &[], Vec::new()).meta().time_decimals,
            Some(0)
        );
    }

    #[test]
    fn replay_rows_are_the_columns_side_by_side() {
        let store = Store::replay(
            "r",
            &[0.0, 0.5, 1.0],
            vec![
                (Column::new("A.x", ""), vec![1.0, 2.0, 3.0]),
                (Column::new("B.y.z", "m"), vec![-1.0, 0.1, f64::MAX]),
            ],
        );
        assert_eq!(store.len(), 3);
        assert_eq!(
            store.rows(1, 9).unwrap(),
            vec![vec![0.5, 2.0, 0.1], vec![1.0, 3.0, f64::MAX]]
        );
        // Reversed, empty and out-of-range ranges give no rows (and no panic).
        for (from, to) in [(2, 1), (1, 1), (5, 9), (usize::MAX, 0), (9, usize::MAX)] {
            assert!(store.rows(from, to).unwrap().is_empty(), "{from}..{to}");
        }
        let meta = store.meta();
        assert_eq!((meta.t_start, meta.t_end), (0.0, 1.0));
        assert_eq!(meta.columns[1].slave, "B");
        assert_eq!(meta.columns[0].unit, "-");
        assert_eq!(meta.slaves, ["A", "B"]);
    }

    #[test]
    fn appended_rows_follow_the_held_ones_matched_by_name() {
        let store = Store::replay(
            "r",
            &[0.0],
            vec![
                (Column::new("A.x", ""), vec![1.0]),
                (Column::new("B.y", ""), vec![2.0]),
            ],
        );
        // Another column order, an extra column, and B.y missing: matched by name, NaN.
        store.append(&ResultTable {
            time: vec![0.5, 1.0],
            names: vec!["C.z".into(), "A.x".into()],
            units: vec![String::new(), String::new()],
            columns: vec![vec![9.0, 9.0], vec![3.0, 4.0]],
        });
        let rows = store.rows(0, 9).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0], vec![0.0, 1.0, 2.0]);
        assert_eq!(&rows[1][..2], &[0.5, 3.0]);
        assert_eq!(&rows[2][..2], &[1.0, 4.0]);
        assert!(rows[1][2].is_nan() && rows[2][2].is_nan(), "{rows:?}");
    }
}
