//! Reading rows back from a `values.csv` while it is being written.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use crate::result_file::csv::{parse_number, split_caption};
use crate::{Error, Result, TableProblem};

/// Data rows between two entries of the index of [`CsvRows`]: a read seeks to the entry at
/// or before its first row and skips at most this many lines less one.
pub const INDEX_STRIDE: usize = 1024;

/// Bytes read from the file at a time.
const CHUNK: usize = 64 * 1024;

/// The data rows of a `values.csv` (one header line, then one tab-separated line per row,
/// as [`ValuesCsvWriter`](super::ValuesCsvWriter) writes it), read by number without reading
/// the file as a whole, while the file grows.
///
/// Only the columns asked for at [`open`](Self::open) are parsed, matched to the header's
/// captions by name. Only complete lines count as rows: a last line without its newline
/// (one the writer has not finished passing to the operating system) is not read. A sparse
/// index holds the byte offset of every [`INDEX_STRIDE`]-th row (8 bytes each); it grows as
/// reads reach further into the file, so each byte is scanned for line ends once, and a read
/// parses only the lines it returns and those between its index entry and its first row.
///
/// Values come back as the file holds them: `%.14g` text, so 14 significant digits.
///
/// Spec: MasterSim reference §12.1 (values.csv).
#[derive(Debug)]
pub struct CsvRows {
    path: PathBuf,
    file: File,
    /// Fields per line, the time included (the header's count).
    fields: usize,
    /// The field that each value after the time comes from, in the order asked for.
    columns: Vec<usize>,
    /// The names asked for, for error messages.
    names: Vec<String>,
    index: Mutex<Index>,
}

/// How far the file has been scanned for line ends.
#[derive(Debug)]
struct Index {
    /// `offsets[k]`: byte offset of data row `k·INDEX_STRIDE`.
    offsets: Vec<u64>,
    /// Complete data rows found so far.
    rows: usize,
    /// Byte offset just after the last complete row found (where scanning goes on).
    end: u64,
}

impl CsvRows {
    /// Opens the `values.csv` at `path`, reads its header line and finds the column of each
    /// of `names` (captions `<name> [<unit>]`, the first of equal names).
    ///
    /// # Errors
    /// [`Error::Read`] when the file cannot be opened or read; [`Error::Table`] at line 1
    /// when the header line is not complete ([`TableProblem::NoHeader`]) or lacks one of
    /// `names` ([`TableProblem::MissingColumn`]).
    ///
    /// Spec: MasterSim reference §12.1 (header).
    pub fn open(path: &Path, names: &[&str]) -> Result<CsvRows> {
        let file = File::open(path).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let mut header = None;
        lines_from(&file, path, 0, |_, line| {
            header = Some((String::from_utf8_lossy(line).into_owned(), line.len()));
            Ok(false)
        })?;
        let at_header = |problem| Error::Table {
            path: path.to_path_buf(),
            line: 1,
            problem,
        };
        let (header, len) = header.ok_or_else(|| at_header(TableProblem::NoHeader))?;
        let captions: Vec<String> = header.split('\t').map(|c| split_caption(c).0).collect();
        let columns = names
            .iter()
            .map(|name| {
                captions
                    .iter()
                    .skip(1)
                    .position(|c| c == name)
                    .map(|i| i + 1)
                    .ok_or_else(|| {
                        at_header(TableProblem::MissingColumn {
                            name: (*name).to_string(),
                        })
                    })
            })
            .collect::<Result<Vec<usize>>>()?;
        let end = len as u64 + 1;
        Ok(CsvRows {
            path: path.to_path_buf(),
            file,
            fields: captions.len(),
            columns,
            names: names.iter().map(|n| (*n).to_string()).collect(),
            index: Mutex::new(Index {
                offsets: vec![end],
                rows: 0,
                end,
            }),
        })
    }

    /// Values per row, the time included (`1 +` the names given to [`open`](Self::open)).
    pub fn width(&self) -> usize {
        1 + self.columns.len()
    }

    /// The complete data rows in the file now.
    ///
    /// # Errors
    /// [`Error::Read`] when the file cannot be read.
    pub fn rows(&self) -> Result<usize> {
        let mut index = self.lock();
        self.scan(&mut index, usize::MAX)?;
        Ok(index.rows)
    }

    /// Appends data rows `from..to` (counted from 0, the header not counted) to `out`, each
    /// `[t, v₁, …, vₙ]` with the values of the names given to [`open`](Self::open), in that
    /// order; time in the unit of the file's time column. Nothing when `from >= to`.
    ///
    /// # Errors
    /// [`Error::Read`] when the file cannot be read; [`Error::Table`] naming the line: a
    /// row `< to` that is not complete yet ([`TableProblem::Unwritten`]), a line with another
    /// number of fields than the header ([`TableProblem::FieldCount`]), a time or value that
    /// is not a number ([`TableProblem::Time`], [`TableProblem::Value`]).
    pub fn read(&self, from: usize, to: usize, out: &mut Vec<f64>) -> Result<()> {
        if from >= to {
            return Ok(());
        }
        let (mut row, offset) = {
            let mut index = self.lock();
            self.scan(&mut index, to)?;
            if index.rows < to {
                return Err(Error::Table {
                    path: self.path.clone(),
                    line: index.rows + 2,
                    problem: TableProblem::Unwritten {
                        rows: index.rows,
                        needed: to,
                    },
                });
            }
            let entry = from / INDEX_STRIDE;
            (entry * INDEX_STRIDE, index.offsets[entry])
        };
        out.reserve((to - from) * self.width());
        lines_from(&self.file, &self.path, offset, |_, line| {
            if row >= from {
                self.parse(line, row, out)?;
            }
            row += 1;
            Ok(row < to)
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Index> {
        self.index.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Scans on for line ends until `index` knows `needed` complete rows or the complete
    /// lines end, adding an index entry every [`INDEX_STRIDE`] rows.
    fn scan(&self, index: &mut Index, needed: usize) -> Result<()> {
        if index.rows >= needed {
            return Ok(());
        }
        let Index { offsets, rows, end } = index;
        lines_from(&self.file, &self.path, *end, |offset, line| {
            if *rows % INDEX_STRIDE == 0 && offsets.len() == *rows / INDEX_STRIDE {
                offsets.push(offset);
            }
            *rows += 1;
            *end = offset + line.len() as u64 + 1;
            Ok(*rows < needed)
        })
    }

    /// Appends the values of data row `row` (the text `line`) to `out`.
    fn parse(&self, line: &[u8], row: usize, out: &mut Vec<f64>) -> Result<()> {
        let bad = |problem| Error::Table {
            path: self.path.clone(),
            line: row + 2,
            problem,
        };
        let fields: Vec<&[u8]> = line.split(|&b| b == b'\t').collect();
        if fields.len() != self.fields {
            return Err(bad(TableProblem::FieldCount {
                found: fields.len(),
                expected: self.fields,
            }));
        }
        let number = |field: &[u8]| {
            std::str::from_utf8(field)
                .ok()
                .and_then(parse_number)
                .ok_or_else(|| String::from_utf8_lossy(field).into_owned())
        };
        out.push(number(fields[0]).map_err(|text| bad(TableProblem::Time { text }))?);
        for (&field, name) in self.columns.iter().zip(&self.names) {
            let value = number(fields[field]).map_err(|text| {
                bad(TableProblem::Value {
                    column: name.clone(),
                    text,
                })
            })?;
            out.push(value);
        }
        Ok(())
    }
}

/// Calls `each(offset, line)` for every complete line of `file` from byte `start` on (the
/// line without its newline, `offset` where it starts) until `each` returns `Ok(false)` or
/// the complete lines end; a last line without its newline is left out.
fn lines_from(
    file: &File,
    path: &Path,
    start: u64,
    mut each: impl FnMut(u64, &[u8]) -> Result<bool>,
) -> Result<()> {
    use std::os::unix::fs::FileExt as _;
    let mut pending: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; CHUNK];
    // The file offset of `pending[0]`.
    let mut at = start;
    loop {
        let n = match file.read_at(&mut chunk, at + pending.len() as u64) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(source) => {
                return Err(Error::Read {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        pending.extend_from_slice(&chunk[..n]);
        let mut used = 0;
        while let Some(len) = pending[used..].iter().position(|&b| b == b'\n') {
            if !each(at + used as u64, &pending[used..used + len])? {
                return Ok(());
            }
            used += len + 1;
        }
        pending.drain(..used);
        at += used as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a `values.csv` with `rows` rows `t = k/8`, `A.x = k`, `B.y = −k/3` (the
    /// writer's `%.14g`), and returns its directory and path.
    fn written(rows: usize) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("values.csv");
        let columns = [
            crate::Column::new("A.x", "-"),
            crate::Column::new("B.y", "m"),
        ];
        let mut w = crate::ValuesCsvWriter::create(&path, "s", &columns).expect("create");
        for k in 0..rows {
            let k = k as f64;
            w.write_row(k / 8.0, &[k, -k / 3.0]).expect("row");
        }
        w.flush().expect("flush");
        (dir, path)
    }

    fn read(rows: &CsvRows, from: usize, to: usize) -> Result<Vec<f64>> {
        let mut out = Vec::new();
        rows.read(from, to, &mut out).map(|()| out)
    }

    /// Rows across index entries come back in the order asked for, 14 significant digits;
    /// the index holds one offset per 1,024 rows scanned, and a read scans only as far as
    /// its last row.
    #[test]
    fn reads_any_range_through_the_sparse_index() {
        let (_dir, path) = written(3000);
        let rows = CsvRows::open(&path, &["B.y", "A.x"]).expect("open");
        assert_eq!(rows.width(), 3);
        assert_eq!(read(&rows, 1020, 1030).unwrap().len(), 30);
        assert_eq!(rows.lock().rows, 1030, "scanned beyond the rows read");
        assert_eq!(rows.lock().offsets.len(), 2);
        let all = read(&rows, 0, 3000).unwrap();
        assert_eq!(rows.lock().offsets.len(), 3);
        for (k, row) in all.chunks_exact(3).enumerate() {
            let kf = k as f64;
            assert_eq!(row[0], kf / 8.0, "row {k}");
            assert_eq!(row[2], kf, "row {k}");
            let expected: f64 = format!("{:.13e}", -kf / 3.0).parse().unwrap();
            assert_eq!(row[1], expected, "row {k}");
        }
        assert_eq!(read(&rows, 2047, 2049).unwrap(), all[2047 * 3..2049 * 3]);
        assert_eq!(read(&rows, 2048, 2049).unwrap(), all[2048 * 3..2049 * 3]);
        assert!(read(&rows, 5, 5).unwrap().is_empty());
        assert!(read(&rows, 9, 2).unwrap().is_empty());
        assert_eq!(rows.rows().unwrap(), 3000);
    }

    /// A last line without its newline is not a row yet: not counted, and a read that needs
    /// it is an error naming the file and the line; once completed, it is read.
    #[test]
    fn a_partial_last_line_is_not_served() {
        let (_dir, path) = written(3);
        let rows = CsvRows::open(&path, &["A.x"]).expect("open");
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        use std::io::Write as _;
        file.write_all(b"0.375\t3\t-").unwrap();
        assert_eq!(rows.rows().unwrap(), 3);
        assert_eq!(read(&rows, 2, 3).unwrap(), [0.25, 2.0]);
        let e = read(&rows, 2, 4).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Table {
                    line: 5,
                    problem: TableProblem::Unwritten { rows: 3, needed: 4 },
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("values.csv' line 5"), "{e}");
        file.write_all(b"1\n").unwrap();
        assert_eq!(rows.rows().unwrap(), 4);
        assert_eq!(read(&rows, 3, 4).unwrap(), [0.375, 3.0]);
    }

    /// A malformed line is an error naming the file, the line and the problem; a missing
    /// column or header is an error at line 1.
    #[test]
    fn bad_lines_and_headers_are_errors_naming_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("values.csv");
        std::fs::write(
            &path,
            "Time [s] \tA.x [-] \tB.y [m]\n0\t1\t2\n0.5\t1\tx\n1\t1\n1.5\t1\t2\nnope\t1\t2\n",
        )
        .unwrap();
        let rows = CsvRows::open(&path, &["B.y"]).unwrap();
        assert_eq!(read(&rows, 0, 1).unwrap(), [0.0, 2.0]);
        let message = |from: usize| read(&rows, from, from + 1).unwrap_err().to_string();
        let shown = path.display().to_string();
        for (from, says) in [
            (1, "line 3: 'x' in column 'B.y' is not a number"),
            (2, "line 4: 2 fields, but the header has 3"),
            (4, "line 6: time 'nope' is not a number"),
        ] {
            let text = message(from);
            assert!(text.contains(&shown) && text.contains(says), "{text}");
        }
        assert_eq!(read(&rows, 3, 4).unwrap(), [1.5, 2.0]);
        let e = CsvRows::open(&path, &["A.x", "C.z"]).unwrap_err();
        assert!(
            e.to_string()
                .contains("line 1: the header has no column 'C.z'"),
            "{e}"
        );
        std::fs::write(&path, "Time [s] \tA.x [-]").unwrap();
        let e = CsvRows::open(&path, &["A.x"]).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Table {
                    line: 1,
                    problem: TableProblem::NoHeader,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = CsvRows::open(&dir.path().join("none.csv"), &[]).unwrap_err();
        assert!(e.to_string().contains("none.csv"), "{e}");
    }
}
