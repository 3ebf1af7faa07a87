//! `results/values.csv` and `results/strings.csv`, byte-compatible with MasterSim 0.9.8.
//!
//! Both files are tab-separated text with one header line. Every column caption is
//! preceded by a space and a tab (`" \t"`), a MasterSim quirk kept for compatibility.
//! Rows hold the time and one value per column, all numbers in `%.14g`.
//!
//! The writers know nothing about slaves or variable types: the caller decides the column
//! order (MasterSim: all Booleans, then all Integers, then all Reals), passes Booleans and
//! Integers as exact `f64` (they print as integers) and converts time to the output unit.
//!
//! [`CsvRows`] reads the rows of a `values.csv` back by number while it is being written.
//!
//! Spec: MasterSim reference §12.1 (values.csv) and §12.2 (strings.csv).

use std::io::Write as _;
use std::path::Path;

use crate::file::{OpenMode, TextFile};
use crate::number::{VALUE_PRECISION, write_g_bytes};
use crate::{Error, Result};

mod rows;

pub use rows::{CsvRows, INDEX_STRIDE};

/// One column of `values.csv`: a caption and its unit.
///
/// Spec: MasterSim reference §12.1 (header).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Column {
    /// Caption, MasterSim uses `<slave>.<variable>`.
    pub name: String,
    /// Unit shown in brackets, written verbatim; MasterSim uses `-` for Booleans, Integers
    /// and Reals without a declared unit.
    pub unit: String,
}

impl Column {
    /// Creates a column from its caption and unit (written verbatim, use `-` for none).
    ///
    /// Spec: MasterSim reference §12.1 (header).
    pub fn new(name: impl Into<String>, unit: impl Into<String>) -> Self {
        Column {
            name: name.into(),
            unit: unit.into(),
        }
    }
}

/// Writer of `results/values.csv`: time plus one `%.14g` number per column and row.
///
/// Output is buffered; call [`flush`](Self::flush) (or drop the writer, which flushes but
/// ignores errors) at the end of the run. One line buffer is reused for all rows, so
/// writing a row allocates nothing.
///
/// Spec: MasterSim reference §12.1.
#[derive(Debug)]
pub struct ValuesCsvWriter {
    file: TextFile,
    columns: usize,
    line: Vec<u8>,
}

impl ValuesCsvWriter {
    /// Creates (truncates) the file at `path` and writes its header line.
    ///
    /// The header is `Time [<time_unit>]`, then ` \t<name> [<unit>]` per column, then a
    /// newline. `columns` may be empty (MasterSim then still writes the time column).
    ///
    /// Units: `time_unit` is the unit name of the times later passed to
    /// [`write_row`](Self::write_row) (MasterSim's `outputTimeUnit`, e.g. `s` or `min`).
    ///
    /// # Errors
    /// [`Error::Create`] if the file cannot be created, [`Error::Write`] if the header
    /// cannot be written.
    ///
    /// Spec: MasterSim reference §12.1 (header).
    pub fn create(path: impl AsRef<Path>, time_unit: &str, columns: &[Column]) -> Result<Self> {
        Self::open(path, time_unit, columns, OpenMode::Create)
    }

    /// Opens the file at `path` in `mode`: [`OpenMode::Create`] as [`create`](Self::create);
    /// [`OpenMode::Append`] continues the file after its first `len` bytes (the header is not
    /// written again); [`OpenMode::Verify`] compares the header and every row with the file
    /// (see [`end_verify`](Self::end_verify)).
    ///
    /// # Errors
    /// As [`create`](Self::create); [`Error::Read`] when an existing file cannot be opened;
    /// [`Error::Mismatch`] when appending to a file shorter than `len`, or when verifying
    /// finds a different header.
    ///
    /// Spec: `docs/checkpoints.md` (result files of a resumed run).
    pub fn open(
        path: impl AsRef<Path>,
        time_unit: &str,
        columns: &[Column],
        mode: OpenMode,
    ) -> Result<Self> {
        let mut file = TextFile::open(path.as_ref(), mode)?;
        if !matches!(mode, OpenMode::Append { .. }) {
            let mut header = format!("Time [{time_unit}]");
            for column in columns {
                header.push_str(" \t");
                header.push_str(&column.name);
                header.push_str(" [");
                header.push_str(&column.unit);
                header.push(']');
            }
            header.push('\n');
            file.write(&header)?;
        }
        Ok(ValuesCsvWriter {
            file,
            columns: columns.len(),
            line: Vec::with_capacity(32 * (columns.len() + 1)),
        })
    }

    /// Appends one row: `%.14g` of `time`, then `\t` and `%.14g` of each value, then a newline.
    ///
    /// Units: `time` in the output time unit given to [`create`](Self::create) (the caller
    /// converts); values as declared in the modelDescription. Booleans are passed as 0.0 or
    /// 1.0 and Integers as their exact `f64`; both print as integers.
    ///
    /// Shapes: `values.len()` equals the number of columns given to `create`.
    ///
    /// # Errors
    /// [`Error::ColumnCount`] (nothing is written) if `values.len()` differs from the
    /// column count; [`Error::Write`] if writing fails.
    ///
    /// Spec: MasterSim reference §12.1 (rows).
    pub fn write_row(&mut self, time: f64, values: &[f64]) -> Result<()> {
        if values.len() != self.columns {
            return Err(Error::ColumnCount {
                path: self.file.path().to_path_buf(),
                expected: self.columns,
                found: values.len(),
            });
        }
        self.line.clear();
        write_g_bytes(&mut self.line, time, VALUE_PRECISION);
        for &value in values {
            self.line.push(b'\t');
            write_g_bytes(&mut self.line, value, VALUE_PRECISION);
        }
        self.line.push(b'\n');
        self.file.write_bytes(&self.line)
    }

    /// Appends one row of typed columns: Booleans (`0`/`1`), then Integers as exact decimal
    /// integers (every width up to 128 bits, so FMI 3.0 Int64 and UInt64 values keep all their
    /// digits), then Reals with `%.14g`. For Integers of up to 14 digits (every FMI 1.0/2.0
    /// `Integer`) the text equals what [`write_row`](Self::write_row) writes for them.
    ///
    /// Shapes: `booleans.len() + integers.len() + reals.len()` equals the number of columns
    /// given to `create`, in that order.
    ///
    /// # Errors
    /// As [`write_row`](Self::write_row).
    ///
    /// Spec: MasterSim reference §12.1 (rows); the exact Integers are mastersim's.
    pub fn write_typed_row(
        &mut self,
        time: f64,
        booleans: &[bool],
        integers: &[i128],
        reals: &[f64],
    ) -> Result<()> {
        let found = booleans.len() + integers.len() + reals.len();
        if found != self.columns {
            return Err(Error::ColumnCount {
                path: self.file.path().to_path_buf(),
                expected: self.columns,
                found,
            });
        }
        self.line.clear();
        write_g_bytes(&mut self.line, time, VALUE_PRECISION);
        for &value in booleans {
            self.line.push(b'\t');
            self.line.push(if value { b'1' } else { b'0' });
        }
        for &value in integers {
            self.line.push(b'\t');
            // `Write` for `Vec<u8>` cannot fail.
            let _ = write!(self.line, "{value}");
        }
        for &value in reals {
            self.line.push(b'\t');
            write_g_bytes(&mut self.line, value, VALUE_PRECISION);
        }
        self.line.push(b'\n');
        self.file.write_bytes(&self.line)
    }

    /// Number of value columns (the time column excluded).
    ///
    /// Spec: MasterSim reference §12.1.
    pub fn column_count(&self) -> usize {
        self.columns
    }

    /// Path of the file being written.
    ///
    /// Spec: MasterSim reference §12.1.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Writes all buffered rows to the file.
    ///
    /// # Errors
    /// [`Error::Write`] if the operating system rejects the data.
    ///
    /// Spec: MasterSim reference §12.1.
    pub fn flush(&mut self) -> Result<()> {
        self.file.flush()
    }

    /// Ends verifying (see [`OpenMode::Verify`]): the file is cut back to the bytes compared
    /// and later rows are appended. Returns the file's length, bytes; a writer that was not
    /// verifying flushes and returns its file's length.
    ///
    /// # Errors
    /// [`Error::Read`], [`Error::Write`] from the file system.
    pub fn end_verify(&mut self) -> Result<u64> {
        self.file.end_verify()
    }
}

/// Writer of `results/strings.csv`: time plus one string per column and row.
///
/// Strings are written verbatim (MasterSim does not quote or escape them). Output is
/// buffered like [`ValuesCsvWriter`]. MasterSim creates this file only when at least one
/// String output exists; that decision is the caller's.
///
/// Spec: MasterSim reference §12.2.
#[derive(Debug)]
pub struct StringsCsvWriter {
    file: TextFile,
    columns: usize,
    line: Vec<u8>,
}

impl StringsCsvWriter {
    /// Creates (truncates) the file at `path` and writes its header line.
    ///
    /// The header is `Time [<time_unit>]`, then ` \t<name>` per column (no units), then a
    /// newline.
    ///
    /// Units: `time_unit` is the unit name shown in the header (MasterSim shows the output
    /// time unit).
    ///
    /// # Errors
    /// [`Error::Create`] if the file cannot be created, [`Error::Write`] if the header
    /// cannot be written.
    ///
    /// Spec: MasterSim reference §12.2 (header).
    pub fn create(path: impl AsRef<Path>, time_unit: &str, names: &[String]) -> Result<Self> {
        Self::open(path, time_unit, names, OpenMode::Create)
    }

    /// Opens the file at `path` in `mode`, as [`ValuesCsvWriter::open`].
    ///
    /// # Errors
    /// As [`ValuesCsvWriter::open`].
    ///
    /// Spec: `docs/checkpoints.md` (result files of a resumed run).
    pub fn open(
        path: impl AsRef<Path>,
        time_unit: &str,
        names: &[String],
        mode: OpenMode,
    ) -> Result<Self> {
        let mut file = TextFile::open(path.as_ref(), mode)?;
        if !matches!(mode, OpenMode::Append { .. }) {
            let mut header = format!("Time [{time_unit}]");
            for name in names {
                header.push_str(" \t");
                header.push_str(name);
            }
            header.push('\n');
            file.write(&header)?;
        }
        Ok(StringsCsvWriter {
            file,
            columns: names.len(),
            line: Vec::with_capacity(32 * (names.len() + 1)),
        })
    }

    /// Appends one row: `%.14g` of `time`, then `\t<string>` per value, then a newline.
    ///
    /// Units: `time` as the caller wants it printed. MasterSim 0.9.8 writes seconds here
    /// even when the header shows another unit (reference §12.2); the caller decides.
    ///
    /// Shapes: `values.len()` equals the number of names given to
    /// [`create`](Self::create).
    ///
    /// # Errors
    /// [`Error::ColumnCount`] (nothing is written) if `values.len()` differs from the
    /// column count; [`Error::Write`] if writing fails.
    ///
    /// Spec: MasterSim reference §12.2 (rows).
    pub fn write_row<S: AsRef<str>>(&mut self, time: f64, values: &[S]) -> Result<()> {
        if values.len() != self.columns {
            return Err(Error::ColumnCount {
                path: self.file.path().to_path_buf(),
                expected: self.columns,
                found: values.len(),
            });
        }
        self.line.clear();
        write_g_bytes(&mut self.line, time, VALUE_PRECISION);
        for value in values {
            self.line.push(b'\t');
            self.line.extend_from_slice(value.as_ref().as_bytes());
        }
        self.line.push(b'\n');
        self.file.write_bytes(&self.line)
    }

    /// Number of string columns (the time column excluded).
    ///
    /// Spec: MasterSim reference §12.2.
    pub fn column_count(&self) -> usize {
        self.columns
    }

    /// Path of the file being written.
    ///
    /// Spec: MasterSim reference §12.2.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Writes all buffered rows to the file.
    ///
    /// # Errors
    /// [`Error::Write`] if the operating system rejects the data.
    ///
    /// Spec: MasterSim reference §12.2.
    pub fn flush(&mut self) -> Result<()> {
        self.file.flush()
    }

    /// Ends verifying (see [`OpenMode::Verify`]): the file is cut back to the bytes compared
    /// and later rows are appended. Returns the file's length, bytes; a writer that was not
    /// verifying flushes and returns its file's length.
    ///
    /// # Errors
    /// [`Error::Read`], [`Error::Write`] from the file system.
    pub fn end_verify(&mut self) -> Result<u64> {
        self.file.end_verify()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed_through_columns() -> Vec<Column> {
        [
            "Generator.VBool",
            "FeedThrough.OutBool",
            "Generator.VInteger",
            "FeedThrough.OutInteger",
            "Generator.VReal",
            "FeedThrough.OutReal",
        ]
        .into_iter()
        .map(|name| Column::new(name, "-"))
        .collect()
    }

    #[test]
    fn values_csv_matches_the_feed_through_reference() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("values.csv");
        let mut w = ValuesCsvWriter::create(&path, "s", &feed_through_columns())?;
        w.write_row(0.0, &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0])?;
        w.write_row(0.5, &[0.0, 0.0, 0.0, 0.0, 0.25, 0.0])?;
        w.write_row(1.0, &[0.0, 0.0, 1.0, 0.0, 1.0, 0.25])?;
        w.write_row(1.5, &[1.0, 0.0, 1.0, 1.0, 2.25, 1.0])?;
        w.flush()?;
        let expected = "Time [s] \tGenerator.VBool [-] \tFeedThrough.OutBool [-] \
                        \tGenerator.VInteger [-] \tFeedThrough.OutInteger [-] \
                        \tGenerator.VReal [-] \tFeedThrough.OutReal [-]\n\
                        0\t0\t0\t0\t0\t0\t0\n\
                        0.5\t0\t0\t0\t0\t0.25\t0\n\
                        1\t0\t0\t1\t0\t1\t0.25\n\
                        1.5\t1\t0\t1\t1\t2.25\t1\n";
        assert_eq!(std::fs::read_to_string(&path).expect("read back"), expected);
        Ok(())
    }

    #[test]
    fn values_csv_time_in_minutes_and_units() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("values.csv");
        let columns = [Column::new("Part1.x1", "-"), Column::new("Part1.T", "K")];
        let mut w = ValuesCsvWriter::create(&path, "min", &columns)?;
        w.write_row(0.1 / 60.0, &[1e-20, 293.15])?;
        w.write_row(0.3 / 60.0, &[-0.0, 1.0 / 3.0])?;
        drop(w); // dropping flushes
        let expected = "Time [min] \tPart1.x1 [-] \tPart1.T [K]\n\
                        0.0016666666666667\t1e-20\t293.15\n\
                        0.005\t-0\t0.33333333333333\n";
        assert_eq!(std::fs::read_to_string(&path).expect("read back"), expected);
        Ok(())
    }

    #[test]
    fn values_csv_without_columns_has_only_time() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("values.csv");
        let mut w = ValuesCsvWriter::create(&path, "s", &[])?;
        w.write_row(2.0, &[])?;
        w.flush()?;
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "Time [s]\n2\n"
        );
        Ok(())
    }

    #[test]
    fn wrong_row_length_is_an_error_and_writes_nothing() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("values.csv");
        let mut w = ValuesCsvWriter::create(&path, "s", &feed_through_columns())?;
        match w.write_row(0.0, &[1.0, 2.0]) {
            Err(Error::ColumnCount {
                expected: 6,
                found: 2,
                ..
            }) => {}
            other => panic!("unexpected result {other:?}"),
        }
        let mut s = StringsCsvWriter::create(dir.path().join("strings.csv"), "s", &[])?;
        assert!(matches!(
            s.write_row(0.0, &["x"]),
            Err(Error::ColumnCount {
                expected: 0,
                found: 1,
                ..
            })
        ));
        w.flush()?;
        assert_eq!(
            std::fs::read_to_string(&path)
                .expect("read")
                .lines()
                .count(),
            1
        );
        Ok(())
    }

    #[test]
    fn strings_csv_matches_the_feed_through_reference() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("strings.csv");
        let names = [
            "Generator.VString".to_string(),
            "FeedThrough.OutString".to_string(),
        ];
        let mut w = StringsCsvWriter::create(&path, "s", &names)?;
        w.write_row(0.0, &["Blabla", "Blabla"])?;
        w.write_row(0.5, &["blabla".to_string(), "Blabla".to_string()])?;
        w.write_row(1.0, &["blabla", "blabla"])?;
        w.flush()?;
        let expected = "Time [s] \tGenerator.VString \tFeedThrough.OutString\n\
                        0\tBlabla\tBlabla\n\
                        0.5\tblabla\tBlabla\n\
                        1\tblabla\tblabla\n";
        assert_eq!(std::fs::read_to_string(&path).expect("read back"), expected);
        Ok(())
    }

    #[test]
    fn create_in_missing_directory_names_the_path() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("missing").join("values.csv");
        match ValuesCsvWriter::create(&path, "s", &[]) {
            Err(Error::Create { path: p, .. }) => assert_eq!(p, path),
            other => panic!("unexpected result {other:?}"),
        }
    }
}
