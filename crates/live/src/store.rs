//! The rows the live view serves: every result row of the run so far, kept in memory, and the
//! description of its columns.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use master::time::TimeFormat;
use master::values::TypedValues;
use master::{Observer, ObserverError, OutputLayout};
use mastersim::Session;
use output::result_file::ResultTable;
use serde::Serialize;

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
}

#[derive(Debug)]
struct Data {
    meta: Meta,
    /// Row-major: each row is `[t, v_0, …, v_{n−1}]` with `n = meta.columns.len()`.
    rows: Vec<f64>,
    /// The outputs at the communication point where the run is held, `[t, v_0, …]`, when no
    /// row was written since (see [`Observer::held`]).
    held: Option<Vec<f64>>,
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
        })
    }

    /// The same store, its page printing times with `format` (the run's
    /// [`master::SimulationPlan::time_format`]) from the start, before the run's layout
    /// arrives.
    pub fn with_time_format(self, format: TimeFormat) -> Store {
        self.lock().meta.time_decimals = format.decimals();
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
        data.rows.reserve(table.time.len() * (found.len() + 1));
        for (i, t) in table.time.iter().enumerate() {
            data.rows.push(*t);
            data.rows.extend(
                found
                    .iter()
                    .map(|c| c.and_then(|c| c.get(i)).copied().unwrap_or(f64::NAN)),
            );
        }
    }

    fn with(meta: Meta) -> Store {
        Store(Arc::new(Mutex::new(Data {
            meta,
            rows: Vec::new(),
            held: None,
        })))
    }

    fn filled(self, rows: Vec<f64>) -> Store {
        self.lock().rows = rows;
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
        let data = self.lock();
        data.rows.len() / (data.meta.columns.len() + 1)
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
    /// `[t, v_0, …]`.
    pub fn rows(&self, from: usize, to: usize) -> Vec<Vec<f64>> {
        let data = self.lock();
        let width = data.meta.columns.len() + 1;
        let n = data.rows.len() / width;
        let from = from.min(n);
        let to = to.clamp(from, n);
        data.rows[from * width..to * width]
            .chunks_exact(width)
            .map(<[f64]>::to_vec)
            .collect()
    }
}

impl Observer for Store {
    fn start(&mut self, layout: &OutputLayout) -> Result<(), ObserverError> {
        let c = &layout.columns;
        let mut data = self.lock();
        data.meta.t_start = layout.t_start;
        data.meta.t_end = layout.t_end;
        data.meta.time_decimals = layout.time_format.decimals();
        data.meta.columns = [&c.boolean, &c.integer, &c.real]
            .into_iter()
            .flatten()
            .map(|c| Column::new(&c.name, &c.unit))
            .collect();
        data.rows.clear();
        data.held = None;
        Ok(())
    }

    fn output(&mut self, t: f64, values: &TypedValues) -> Result<(), ObserverError> {
        let mut data = self.lock();
        data.held = None;
        push_row(&mut data.rows, t, values);
        Ok(())
    }

    fn held(&mut self, t: f64, values: &TypedValues) {
        let mut data = self.lock();
        let last_t = data.rows.len().checked_sub(data.meta.columns.len() + 1);
        if last_t.is_some_and(|i| data.rows[i] == t) {
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
            store.rows(1, 9),
            vec![vec![0.5, 2.0, 0.1], vec![1.0, 3.0, f64::MAX]]
        );
        // Reversed, empty and out-of-range ranges give no rows (and no panic).
        for (from, to) in [(2, 1), (1, 1), (5, 9), (usize::MAX, 0), (9, usize::MAX)] {
            assert!(store.rows(from, to).is_empty(), "{from}..{to}");
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
        let rows = store.rows(0, 9);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0], vec![0.0, 1.0, 2.0]);
        assert_eq!(&rows[1][..2], &[0.5, 3.0]);
        assert_eq!(&rows[2][..2], &[1.0, 4.0]);
        assert!(rows[1][2].is_nan() && rows[2][2].is_nan(), "{rows:?}");
    }
}
