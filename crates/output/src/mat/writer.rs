//! The two MAT writers: [`MatWriter`] (streaming, one time axis) and [`write_series`].

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::fs::File;
use std::hash::Hasher as _;
use std::io::{BufWriter, Write as _};
#[cfg(not(unix))]
use std::io::{Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use super::{
    HEADER_LEN, MatAlias, MatParameter, MatSeries, MatSignal, TYPE_DOUBLE, dimension,
    leading_matrices, put_header,
};
use crate::{Error, Result};

/// Streaming writer of a MAT v4 result file with one time axis (`data_2`).
///
/// [`create`](Self::create) writes every matrix up to the header of `data_2`, which starts
/// with zero columns, followed by a *padding matrix*: an empty matrix (zero columns) whose
/// name field covers the rest of the file. Each [`write_row`](Self::write_row) appends one
/// column `(t, v₁, …, vₙ)` in front of the padding, in three writes that each leave a
/// complete MAT file behind:
///
/// 1. a new padding header right after where the column will go (inside the old padding's
///    name, so the file is unchanged for readers);
/// 2. the column count of `data_2`, one more than before: the new column's bytes are still
///    the old padding header, which reads as a time of NaN (the header is chosen so);
/// 3. the column itself.
///
/// When the padding runs out it is extended by appending complete empty matrices and then
/// widening the padding's name over them, again valid after each write.
///
/// # Crash safety
///
/// The file on disk is a complete MAT file at every moment: a process killed at any point
/// (even with `SIGKILL`, even inside `write_row`) leaves every row written so far, at
/// most one trailing time point whose time is NaN (killed between steps 2 and 3), and the
/// padding matrix (an empty matrix named `""`, which readers list as one more variable).
/// [`read`](super::read) drops both. [`finish`](Self::finish) removes the padding and
/// syncs the file to the disk (needed only for durability across power failures).
///
/// Cost per row: three `pwrite`s (20 bytes, 4 bytes, `8·(1 + n)` bytes) plus copying the
/// values into a reused buffer (no allocation), and an occasional extension.
///
/// Spec: OpenModelica user's guide, "The MATv4 Result File Format" (binTrans files are
/// written time step by time step); Otter, "Signal Tables" (2022) §2.2.
#[derive(Debug)]
pub struct MatWriter {
    path: PathBuf,
    file: File,
    signals: usize,
    rows: usize,
    /// Byte offset of the `ncols` field of the `data_2` header.
    ncols_offset: u64,
    /// Byte offset of the first column of `data_2`.
    data_start: u64,
    /// Where the next column goes: the end of `data_2`, where the padding starts.
    end: u64,
    /// Length of the file (the padding ends there).
    len: u64,
    /// The column being written, reused for every row.
    column: Vec<u8>,
    /// Empty filler matrices appended when the padding runs out, built once (every extension
    /// of one file appends the same amount).
    filler: Vec<u8>,
    /// Verifying ([`MatOpen::Verify`]): rows are compared with the file, which is read only.
    verify: Option<Vec<u8>>,
    /// Signal names, for naming a differing value while verifying.
    names: Vec<String>,
}

/// Where a [`MatWriter`] stands: what a resumed run needs to continue its file.
///
/// Spec: `docs/checkpoints.md` (result files of a resumed run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MatState {
    /// Time points written.
    pub rows: usize,
    /// Byte offset where the next time point goes.
    pub end: u64,
    /// Length of the file, padding included, bytes.
    pub len: u64,
}

/// How [`MatWriter::open`] opens its file.
///
/// Spec: `docs/checkpoints.md` (result files of a resumed run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatOpen {
    /// Create the file, as [`MatWriter::create`].
    Create,
    /// Continue an existing file as it was at `MatState`: later rows are cut off.
    Resume(MatState),
    /// Compare the leading matrices and every row with the existing file instead of writing
    /// ([`MatWriter::end_verify`] then continues it).
    Verify,
}

/// Type code of the padding matrix (little-endian doubles), and its row count, chosen so that
/// the first eight header bytes read as a NaN `f64`: a column announced but not yet written
/// shows the time NaN.
const PADDING_ROWS: i32 = 0x7FF8_0000;

/// The header of a padding matrix with `namlen` name bytes.
fn padding_header(namlen: u64) -> [u8; HEADER_LEN] {
    let mut header = [0u8; HEADER_LEN];
    header[4..8].copy_from_slice(&PADDING_ROWS.to_le_bytes());
    let namlen = i32::try_from(namlen).expect("invariant: padding below 2 GiB");
    header[16..20].copy_from_slice(&namlen.to_le_bytes());
    header
}

/// Smallest padding kept after the data: a header and at least one name byte.
const MIN_PADDING: u64 = HEADER_LEN as u64 + 1;
/// One complete empty matrix with a one-byte name, used to extend the padding.
const FILLER_LEN: u64 = HEADER_LEN as u64 + 1;

impl MatWriter {
    /// Creates (truncates) the file at `path` and writes all matrices up to an empty `data_2`.
    ///
    /// Variables appear in the order `Time`, `signals`, `parameters`, `aliases`. Parameters
    /// go to `data_1` with their start and stop values; signals are rows `2..=n+1` of
    /// `data_2`. The returned writer expects rows of `signals.len()` values.
    ///
    /// Units: `t_start` and `t_stop` in seconds (the first column of `data_1`); parameter
    /// values in their units.
    /// Shapes: every `alias.of < signals.len()` (or `< parameters.len()` for parameter
    /// aliases).
    ///
    /// # Errors
    /// Checked before the file is created: [`Error::AliasTarget`] if an alias refers to a
    /// missing signal or parameter, [`Error::DuplicateName`] if two variables share a name
    /// (or one is called `Time`), [`Error::MatTooLarge`] if a matrix dimension exceeds
    /// `i32::MAX`. Then [`Error::Create`] if the file cannot be created and
    /// [`Error::Write`] if writing fails.
    ///
    /// Spec: Wolfram SystemModeler "Simulation Result Files" (matrix order and headers);
    /// OpenModelica user's guide, "The MATv4 Result File Format".
    pub fn create(
        path: impl AsRef<Path>,
        parameters: &[MatParameter],
        signals: &[MatSignal],
        aliases: &[MatAlias],
        t_start: f64,
        t_stop: f64,
    ) -> Result<Self> {
        Self::open(
            path,
            parameters,
            signals,
            aliases,
            (t_start, t_stop),
            MatOpen::Create,
        )
    }

    /// Opens the file at `path` in `mode`; the arguments are those of
    /// [`create`](Self::create), with `(t_start, t_stop)` in seconds, and must be the ones the
    /// file was created with.
    ///
    /// # Errors
    /// As [`create`](Self::create); [`Error::Read`] when an existing file cannot be opened;
    /// [`Error::Mismatch`] when the file is shorter than the state to resume, or (verifying)
    /// its leading matrices differ.
    ///
    /// Spec: `docs/checkpoints.md` (result files of a resumed run).
    pub fn open(
        path: impl AsRef<Path>,
        parameters: &[MatParameter],
        signals: &[MatSignal],
        aliases: &[MatAlias],
        (t_start, t_stop): (f64, f64),
        mode: MatOpen,
    ) -> Result<Self> {
        let path = path.as_ref();
        let (mrows, _) = dimension(path, "data_2", signals.len() + 1, 0)?;
        let refs: Vec<&MatSignal> = signals.iter().collect();
        // `mrows` fits an i32, so do the signal rows 2..=mrows.
        let locate = |i: usize| (2, i as i32 + 2);
        let mut bytes =
            leading_matrices(path, parameters, &refs, &locate, aliases, t_start, t_stop)?;
        let ncols_offset = (bytes.len() + 8) as u64;
        put_header(&mut bytes, TYPE_DOUBLE, mrows, 0, "data_2");
        let end = bytes.len() as u64;
        let column_len = 8 * (signals.len() as u64 + 1);
        let padding = Self::padding_for(column_len);
        let names = signals.iter().map(|s| s.name.clone()).collect();
        let mut writer = MatWriter {
            path: path.to_path_buf(),
            file: match mode {
                MatOpen::Create => File::create(path).map_err(|source| Error::Create {
                    path: path.to_path_buf(),
                    source,
                })?,
                MatOpen::Resume(_) => std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(path)
                    .map_err(|source| Error::Read {
                        path: path.to_path_buf(),
                        source,
                    })?,
                MatOpen::Verify => File::open(path).map_err(|source| Error::Read {
                    path: path.to_path_buf(),
                    source,
                })?,
            },
            signals: signals.len(),
            rows: 0,
            ncols_offset,
            data_start: end,
            end,
            len: end + padding,
            column: Vec::with_capacity(column_len as usize),
            filler: Vec::new(),
            verify: None,
            names,
        };
        match mode {
            MatOpen::Create => {
                bytes.extend_from_slice(&padding_header(padding - HEADER_LEN as u64));
                bytes.resize((end + padding) as usize, 0);
                (&writer.file)
                    .write_all(&bytes)
                    .map_err(|source| writer.write_error(source))?;
            }
            MatOpen::Resume(state) => writer.resume(state)?,
            MatOpen::Verify => {
                // The column count of data_2 differs (rows were written); compare the rest.
                let mut found = vec![0; bytes.len()];
                writer.read_at(0, &mut found)?;
                let at = ncols_offset as usize..ncols_offset as usize + 4;
                found[at.clone()].copy_from_slice(&bytes[at]);
                if found != bytes {
                    return Err(Error::Mismatch {
                        path: path.to_path_buf(),
                        line: 0,
                        column: None,
                        detail: "the variables, parameters or experiment differ".to_string(),
                    });
                }
                writer.verify = Some(Vec::with_capacity(column_len as usize));
            }
        }
        Ok(writer)
    }

    fn write_error(&self, source: std::io::Error) -> Error {
        Error::Write {
            path: self.path.clone(),
            source,
        }
    }

    /// Reads `buf.len()` bytes at `offset`; a short file is a [`Error::Mismatch`].
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        use std::os::unix::fs::FileExt as _;
        self.file.read_exact_at(buf, offset).map_err(|source| {
            if source.kind() == std::io::ErrorKind::UnexpectedEof {
                Error::Mismatch {
                    path: self.path.clone(),
                    line: 0,
                    column: None,
                    detail: format!("the file ends before byte {}", offset + buf.len() as u64),
                }
            } else {
                Error::Read {
                    path: self.path.clone(),
                    source,
                }
            }
        })
    }

    /// What a resumed run needs to continue this file (see [`MatOpen::Resume`]).
    pub fn state(&self) -> MatState {
        MatState {
            rows: self.rows,
            end: self.end,
            len: self.len,
        }
    }

    /// Puts the file back as it was after `state.rows` rows: cut to `state.len`, an empty
    /// padding after the last row, the column count of `data_2`.
    fn resume(&mut self, state: MatState) -> Result<()> {
        let column_len = 8 * (self.signals as u64 + 1);
        if state.end != self.data_start + state.rows as u64 * column_len
            || state.len < state.end + MIN_PADDING
        {
            return Err(Error::Mismatch {
                path: self.path.clone(),
                line: 0,
                column: None,
                detail: format!(
                    "a state of {} rows ending at byte {} does not fit this layout",
                    state.rows, state.end
                ),
            });
        }
        let actual = self
            .file
            .metadata()
            .map_err(|source| self.write_error(source))?
            .len();
        if actual < state.end {
            return Err(Error::Mismatch {
                path: self.path.clone(),
                line: 0,
                column: None,
                detail: format!(
                    "the file has {actual} bytes, fewer than the {} of its {} rows",
                    state.end, state.rows
                ),
            });
        }
        let ncols = i32::try_from(state.rows).map_err(|_| Error::MatTooLarge {
            path: self.path.clone(),
            matrix: "data_2".to_string(),
            rows: self.signals + 1,
            columns: state.rows,
        })?;
        let mut padding = vec![0u8; (state.len - state.end) as usize];
        padding[..HEADER_LEN]
            .copy_from_slice(&padding_header(state.len - state.end - HEADER_LEN as u64));
        self.file
            .set_len(state.len)
            .and_then(|()| write_at(&self.file, state.end, &padding))
            .and_then(|()| write_at(&self.file, self.ncols_offset, &ncols.to_le_bytes()))
            .map_err(|source| self.write_error(source))?;
        self.rows = state.rows;
        self.end = state.end;
        self.len = state.len;
        Ok(())
    }

    /// Ends verifying: checks that the rows compared are those of `state` and continues the
    /// file from there (as [`MatOpen::Resume`]).
    ///
    /// # Errors
    /// [`Error::Mismatch`] when fewer or more rows were compared than `state` holds; the
    /// errors of [`MatOpen::Resume`].
    pub fn end_verify(&mut self, state: MatState) -> Result<()> {
        if self.verify.take().is_none() {
            return Ok(());
        }
        if self.rows != state.rows {
            return Err(Error::Mismatch {
                path: self.path.clone(),
                line: 0,
                column: None,
                detail: format!(
                    "{} rows were recomputed, but the file had {} at the checkpoint",
                    self.rows, state.rows
                ),
            });
        }
        self.file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.path)
            .map_err(|source| Error::Read {
                path: self.path.clone(),
                source,
            })?;
        self.resume(state)
    }

    /// Verifying: compares the column in `self.column` with the file at `self.end`.
    fn compare_row(&mut self) -> Result<()> {
        let mut found = self.verify.take().unwrap_or_default();
        found.resize(self.column.len(), 0);
        let read = self.read_at(self.end, &mut found);
        let differs = read.is_ok() && found != self.column;
        let first = (0..self.column.len() / 8)
            .find(|&i| found[8 * i..8 * i + 8] != self.column[8 * i..8 * i + 8]);
        let value = |b: &[u8], i: usize| {
            f64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap_or([0; 8]))
        };
        let time = value(&self.column, 0);
        let result = match (read, differs, first) {
            (Err(e), _, _) => Err(e),
            (Ok(()), true, Some(i)) => Err(Error::Mismatch {
                path: self.path.clone(),
                line: 0,
                column: (i > 0).then(|| self.names[i - 1].clone()),
                detail: format!(
                    "{} at time {time}: recomputed {}, the file has {} (time point {})",
                    if i == 0 { "Time" } else { &self.names[i - 1] },
                    value(&self.column, i),
                    value(&found, i),
                    self.rows + 1
                ),
            }),
            _ => Ok(()),
        };
        self.verify = Some(found);
        result?;
        self.rows += 1;
        self.end += self.column.len() as u64;
        Ok(())
    }

    /// Padding to reserve for columns of `column_len` bytes: room for about 64 KiB of
    /// columns (at least one) plus the padding header.
    fn padding_for(column_len: u64) -> u64 {
        let columns = (65_536 / column_len).max(1);
        columns * column_len + MIN_PADDING
    }

    /// Appends one time point and makes it part of the file (see [Crash safety](Self#crash-safety)).
    ///
    /// Units: `time` in seconds; values in their signals' units (Booleans and Integers as
    /// exact `f64`).
    /// Shapes: `values.len()` equals the number of signals given to [`create`](Self::create).
    ///
    /// # Errors
    /// [`Error::ColumnCount`] (nothing is written) if `values.len()` differs from the
    /// signal count; [`Error::MatTooLarge`] (nothing is written) when `data_2` already has
    /// `i32::MAX` columns; [`Error::Write`] if writing fails (the file stays a valid MAT file
    /// with the rows written before, possibly plus a NaN-time column).
    ///
    /// Spec: OpenModelica user's guide, "The MATv4 Result File Format" (`data_2`, one
    /// column per time step in binTrans).
    pub fn write_row(&mut self, time: f64, values: &[f64]) -> Result<()> {
        self.write_row_steps(time, values, 3)
    }

    /// [`write_row`](Self::write_row) performing only the first `steps` of its three writes
    /// (tests use this to check every intermediate file).
    pub(super) fn write_row_steps(
        &mut self,
        time: f64,
        values: &[f64],
        steps: usize,
    ) -> Result<()> {
        if values.len() != self.signals {
            return Err(Error::ColumnCount {
                path: self.path.clone(),
                expected: self.signals,
                found: values.len(),
            });
        }
        let Ok(ncols) = i32::try_from(self.rows + 1) else {
            return Err(Error::MatTooLarge {
                path: self.path.clone(),
                matrix: "data_2".to_string(),
                rows: self.signals + 1,
                columns: self.rows + 1,
            });
        };
        self.column.clear();
        self.column.extend_from_slice(&time.to_le_bytes());
        for value in values {
            self.column.extend_from_slice(&value.to_le_bytes());
        }
        if self.verify.is_some() {
            return self.compare_row();
        }
        let column_len = self.column.len() as u64;
        if self.len - self.end < column_len + MIN_PADDING {
            self.extend_padding(column_len)
                .map_err(|source| Error::Write {
                    path: self.path.clone(),
                    source,
                })?;
        }
        let next_padding = self.end + column_len;
        let header = padding_header(self.len - next_padding - HEADER_LEN as u64);
        let writes: [(u64, &[u8]); 3] = [
            (next_padding, &header),
            (self.ncols_offset, &ncols.to_le_bytes()),
            (self.end, &self.column),
        ];
        for (offset, bytes) in writes.into_iter().take(steps) {
            write_at(&self.file, offset, bytes).map_err(|source| Error::Write {
                path: self.path.clone(),
                source,
            })?;
        }
        if steps >= 3 {
            self.rows += 1;
            self.end = next_padding;
        }
        Ok(())
    }

    /// Grows the padding by at least one more column: first appends complete one-byte-name
    /// empty matrices (valid on their own), then widens the padding's name over them.
    fn extend_padding(&mut self, column_len: u64) -> std::io::Result<()> {
        let wanted = Self::padding_for(column_len);
        let fillers = wanted.div_ceil(FILLER_LEN);
        let size = (fillers * FILLER_LEN) as usize;
        if self.filler.len() != size {
            self.filler = vec![0u8; size];
            for chunk in self.filler.chunks_mut(FILLER_LEN as usize) {
                chunk[16..20].copy_from_slice(&1i32.to_le_bytes());
            }
        }
        write_at(&self.file, self.len, &self.filler)?;
        self.len += self.filler.len() as u64;
        let namlen = self.len - self.end - HEADER_LEN as u64;
        write_at(&self.file, self.end, &padding_header(namlen))
    }

    /// Number of time points written so far (the column count of `data_2`).
    ///
    /// Spec: OpenModelica user's guide, "The MATv4 Result File Format".
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of signals per row (the time excluded).
    ///
    /// Spec: OpenModelica user's guide, "The MATv4 Result File Format".
    pub fn signal_count(&self) -> usize {
        self.signals
    }

    /// Path of the file being written.
    ///
    /// Spec: OpenModelica user's guide, "The MATv4 Result File Format".
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the padding (the file then ends with `data_2`), asks the operating system to
    /// put the file on the disk (`fsync`) and closes it.
    ///
    /// # Errors
    /// [`Error::Write`] if the operating system reports an error.
    ///
    /// Spec: OpenModelica user's guide, "The MATv4 Result File Format".
    pub fn finish(self) -> Result<()> {
        self.file
            .set_len(self.end)
            .and_then(|()| self.file.sync_all())
            .map_err(|source| Error::Write {
                path: self.path.clone(),
                source,
            })
    }
}

/// Writes `bytes` at `offset` with a single positioned write.
#[cfg(unix)]
fn write_at(file: &File, offset: u64, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt as _;
    file.write_all_at(bytes, offset)
}

/// Writes `bytes` at `offset` (seek, then write).
#[cfg(not(unix))]
fn write_at(mut file: &File, offset: u64, bytes: &[u8]) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(offset))?;
    file.write_all(bytes)
}

/// Writes a whole MAT v4 result file of signals that each have their own time points.
///
/// Series whose time vectors are bit-identical share one data matrix; the matrices are
/// numbered `data_2`, `data_3`, … in the order in which their time axis first appears in
/// `series`, and hold their series in `series` order. Variables appear in the order
/// `Time`, `series`, `parameters`, `aliases`. Without any series the file has an empty
/// `data_2` (time only, no time points). The file is written through a buffer and not
/// synced to the disk.
///
/// Units: times and `t_start`/`t_stop` in seconds; values in their units.
/// Shapes: `series[i].values.len() == series[i].time.len()`; every `alias.of <
/// series.len()` (or `< parameters.len()` for parameter aliases).
///
/// # Errors
/// Checked before the file is created: [`Error::SeriesLength`] if a series has more or
/// fewer values than time points, [`Error::AliasTarget`], [`Error::DuplicateName`] and
/// [`Error::MatTooLarge`] as for [`MatWriter::create`]. Then [`Error::Create`] and
/// [`Error::Write`] for I/O failures.
///
/// Spec: Otter, "Signal Tables" (2022) §2.2 (several data matrices with their own time
/// axes); OpenModelica user's guide, "The MATv4 Result File Format".
pub fn write_series(
    path: impl AsRef<Path>,
    parameters: &[MatParameter],
    series: &[MatSeries],
    aliases: &[MatAlias],
    t_start: f64,
    t_stop: f64,
) -> Result<()> {
    let path = path.as_ref();
    for s in series {
        if s.values.len() != s.time.len() {
            return Err(Error::SeriesLength {
                path: path.to_path_buf(),
                name: s.signal.name.clone(),
                times: s.time.len(),
                values: s.values.len(),
            });
        }
    }
    let groups = group_by_time(series);
    // (matrix j, column k) of each series.
    let mut location = vec![(0, 0); series.len()];
    for (g, members) in groups.iter().enumerate() {
        let matrix = format!("data_{}", g + 2);
        let time_points = series[members[0]].time.len();
        dimension(path, &matrix, members.len() + 1, time_points)?;
        let (j, _) = dimension(path, "dataInfo", g + 2, 0)?;
        for (position, &i) in members.iter().enumerate() {
            // Fits: `members.len() + 1` was checked above.
            location[i] = (j, position as i32 + 2);
        }
    }
    let refs: Vec<&MatSignal> = series.iter().map(|s| &s.signal).collect();
    let locate = |i: usize| location[i];
    let header = leading_matrices(path, parameters, &refs, &locate, aliases, t_start, t_stop)?;

    let file = File::create(path).map_err(|source| Error::Create {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out = BufWriter::with_capacity(256 * 1024, file);
    let io = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    out.write_all(&header).map_err(io)?;
    let mut column = Vec::new();
    if groups.is_empty() {
        put_header(&mut column, TYPE_DOUBLE, 1, 0, "data_2");
        out.write_all(&column).map_err(io)?;
    }
    for (g, members) in groups.iter().enumerate() {
        let time = &series[members[0]].time;
        column.clear();
        // Dimensions checked above.
        put_header(
            &mut column,
            TYPE_DOUBLE,
            members.len() as i32 + 1,
            time.len() as i32,
            &format!("data_{}", g + 2),
        );
        out.write_all(&column).map_err(io)?;
        for (t, &time_point) in time.iter().enumerate() {
            column.clear();
            column.extend_from_slice(&time_point.to_le_bytes());
            for &i in members {
                column.extend_from_slice(&series[i].values[t].to_le_bytes());
            }
            out.write_all(&column).map_err(io)?;
        }
    }
    out.flush().map_err(io)
}

/// Groups series with bit-identical time vectors, in order of first appearance.
fn group_by_time(series: &[MatSeries]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    // Hash of the time bits → groups with that hash.
    let mut by_hash: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, s) in series.iter().enumerate() {
        let mut hasher = DefaultHasher::new();
        hasher.write_usize(s.time.len());
        for t in &s.time {
            hasher.write_u64(t.to_bits());
        }
        let candidates = by_hash.entry(hasher.finish()).or_default();
        let same = |g: &usize| {
            let other = &series[groups[*g][0]].time;
            other.len() == s.time.len()
                && other
                    .iter()
                    .zip(&s.time)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
        };
        match candidates.iter().find(|g| same(g)) {
            Some(&g) => groups[g].push(i),
            None => {
                candidates.push(groups.len());
                groups.push(vec![i]);
            }
        }
    }
    groups
}
