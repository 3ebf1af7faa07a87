//! Reader of DSRES trajectory files (ours, OpenModelica's and Dymola's).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::{HEADER_LEN, MatFile, MatReadSignal, split_unit};
use crate::error::MatProblem;
use crate::{Error, Result};

/// One matrix of a MAT v4 file, entries converted to `f64`, column-major.
struct Matrix {
    name: String,
    mrows: usize,
    ncols: usize,
    values: Vec<f64>,
}

/// Byte order of a matrix (the `M` digit of its type code).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    Little,
    Big,
}

/// Reads a MAT v4 result file in the DSRES trajectory layout (`Atrajectory` 1.1).
///
/// Both the transposed (`binTrans`, written by mastersim, OpenModelica and Dymola during
/// simulation) and the normal (`binNormal`) layout are read, with matrices of any IEEE
/// number format (double, single, 32/16-bit integers, 8-bit characters) in either byte
/// order. Text may be padded with spaces or NULs. Every variable except the abscissa is
/// returned: aliases resolved (negated aliases negated), parameters with the time points
/// of their data matrix (for `data_1` usually start and stop time). Variables stored in the
/// same data matrix share one time vector; every other variable (aliases included) gets
/// its own copy of its values.
///
/// Units: as stored (mastersim writes seconds and the declared units).
///
/// # Errors
/// [`Error::Read`] if the file cannot be read. [`Error::MatFormat`], naming the matrix,
/// for a malformed file: a truncated header or data ([`MatProblem::Truncated`]), an
/// unknown type code, complex or sparse matrices, negative sizes, a missing `Aclass`,
/// `name`, `description` or `dataInfo`, an `Aclass` that is not `Atrajectory` 1.1
/// `binTrans`/`binNormal`, inconsistent counts or shapes, or a `dataInfo` entry pointing
/// to a data matrix or column that does not exist. Matrices with other names (such as the
/// padding of a file still being written by [`MatWriter`](super::MatWriter)) are ignored,
/// and so are trailing time points whose time is NaN (a point the writer had announced but
/// not yet written when it was killed).
///
/// Spec: Wolfram SystemModeler "Simulation Result Files"; OpenModelica user's guide, "The
/// MATv4 Result File Format"; Otter, "Signal Tables" (2022) §2.2.
pub fn read(path: impl AsRef<Path>) -> Result<MatFile> {
    let path = path.as_ref();
    let bytes =
        crate::input::read(path, crate::input::TABLE_LIMIT).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source: source.into(),
        })?;
    let matrices = parse(path, &bytes)?;
    drop(bytes);
    Trajectory::new(path, &matrices)?.signals()
}

/// An [`Error::MatFormat`] for `matrix`.
fn format_error(path: &Path, matrix: &str, problem: MatProblem) -> Error {
    Error::MatFormat {
        path: path.to_path_buf(),
        matrix: matrix.to_string(),
        problem,
    }
}

/// Splits the file into its matrices.
fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Matrix>> {
    let mut matrices: Vec<Matrix> = Vec::new();
    let mut offset = 0usize;
    while offset < bytes.len() {
        let label = format!("#{}", matrices.len() + 1);
        let (matrix, next) = parse_matrix(path, bytes, offset, &label)?;
        matrices.push(matrix);
        offset = next;
    }
    Ok(matrices)
}

/// `bytes[offset..offset + len]`, or [`MatProblem::Truncated`].
fn take<'a>(
    path: &Path,
    label: &str,
    bytes: &'a [u8],
    offset: usize,
    len: usize,
) -> Result<&'a [u8]> {
    offset
        .checked_add(len)
        .and_then(|end| bytes.get(offset..end))
        .ok_or_else(|| {
            let problem = MatProblem::Truncated {
                offset: offset as u64,
                needed: len as u64,
                available: bytes.len().saturating_sub(offset) as u64,
            };
            format_error(path, label, problem)
        })
}

/// Parses the matrix at `offset`; returns it and the offset after it.
fn parse_matrix(path: &Path, bytes: &[u8], offset: usize, label: &str) -> Result<(Matrix, usize)> {
    let header = take(path, label, bytes, offset, HEADER_LEN)?;
    let field = |i: usize, order: Order| {
        let raw: [u8; 4] = header[4 * i..4 * i + 4]
            .try_into()
            .expect("invariant: four bytes");
        match order {
            Order::Little => i32::from_le_bytes(raw),
            Order::Big => i32::from_be_bytes(raw),
        }
    };
    // The byte order is the thousands digit of the type, which is itself stored in that order.
    let little = field(0, Order::Little);
    let order = if (0..1000).contains(&little) {
        Order::Little
    } else if (1000..2000).contains(&field(0, Order::Big)) {
        Order::Big
    } else {
        let problem = MatProblem::UnknownType { code: little };
        return Err(format_error(path, label, problem));
    };
    let code = field(0, order);
    let (o, p, t) = (code / 100 % 10, code / 10 % 10, code % 10);
    if o != 0 || p > 5 || t > 1 {
        return Err(format_error(path, label, MatProblem::UnknownType { code }));
    }
    let (mrows, ncols, imagf, namlen) = (
        field(1, order),
        field(2, order),
        field(3, order),
        field(4, order),
    );
    if namlen < 1 {
        return Err(format_error(path, label, MatProblem::NameLength { namlen }));
    }
    let name_bytes = take(path, label, bytes, offset + HEADER_LEN, namlen as usize)?;
    let name_end = name_bytes
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(name_bytes.len());
    let name = String::from_utf8_lossy(&name_bytes[..name_end]).into_owned();
    if mrows < 0 || ncols < 0 {
        let problem = MatProblem::NegativeSize { mrows, ncols };
        return Err(format_error(path, &name, problem));
    }
    if imagf != 0 {
        return Err(format_error(path, &name, MatProblem::Imaginary));
    }
    let (mrows, ncols) = (mrows as usize, ncols as usize);
    let size = [8, 4, 4, 2, 2, 1][p as usize];
    let data_offset = offset + HEADER_LEN + namlen as usize;
    let len = mrows
        .checked_mul(ncols)
        .and_then(|n| n.checked_mul(size))
        .unwrap_or(usize::MAX);
    let data = take(path, &name, bytes, data_offset, len)?;
    let values = decode(data, p, order);
    let matrix = Matrix {
        name,
        mrows,
        ncols,
        values,
    };
    Ok((matrix, data_offset + len))
}

/// Converts matrix entries of number format `p` (the `P` digit) to `f64`.
fn decode(data: &[u8], p: i32, order: Order) -> Vec<f64> {
    macro_rules! convert {
        ($ty:ty, $n:literal) => {
            data.chunks_exact($n)
                .map(|c| {
                    let raw: [u8; $n] = c.try_into().expect("invariant: chunk size");
                    let v = match order {
                        Order::Little => <$ty>::from_le_bytes(raw),
                        Order::Big => <$ty>::from_be_bytes(raw),
                    };
                    f64::from(v)
                })
                .collect()
        };
    }
    match p {
        0 => convert!(f64, 8),
        1 => convert!(f32, 4),
        2 => convert!(i32, 4),
        3 => convert!(i16, 2),
        4 => convert!(u16, 2),
        _ => data.iter().map(|&b| f64::from(b)).collect(),
    }
}

/// The matrices of a DSRES trajectory file, with the layout resolved.
struct Trajectory<'a> {
    path: &'a Path,
    /// Matrices by name (the first one of each name).
    by_name: HashMap<&'a str, &'a Matrix>,
    /// `binTrans`: names and time points are columns.
    transposed: bool,
}

impl<'a> Trajectory<'a> {
    /// Finds the matrices and checks `Aclass`.
    fn new(path: &'a Path, matrices: &'a [Matrix]) -> Result<Self> {
        let mut by_name = HashMap::with_capacity(matrices.len());
        for m in matrices {
            by_name.entry(m.name.as_str()).or_insert(m);
        }
        let mut trajectory = Trajectory {
            path,
            by_name,
            transposed: false,
        };
        // Aclass is always stored with its lines as rows (a handful of them).
        let aclass = trajectory.matrix("Aclass")?;
        if aclass.mrows > 16 {
            let problem = MatProblem::Shape {
                mrows: aclass.mrows,
                ncols: aclass.ncols,
            };
            return Err(format_error(path, "Aclass", problem));
        }
        let class = trajectory.strings("Aclass", None)?;
        let line = |i: usize| class.get(i).map_or("", String::as_str);
        let layout = line(3);
        if line(0) != "Atrajectory"
            || line(1) != "1.1"
            || !matches!(layout, "binTrans" | "binNormal")
        {
            let problem = MatProblem::NotTrajectory {
                class: class.join("|"),
            };
            return Err(format_error(path, "Aclass", problem));
        }
        trajectory.transposed = layout == "binTrans";
        Ok(trajectory)
    }

    /// The matrix called `name`, or [`MatProblem::Missing`].
    fn matrix(&self, name: &str) -> Result<&'a Matrix> {
        self.by_name
            .get(name)
            .copied()
            .ok_or_else(|| format_error(self.path, name, MatProblem::Missing))
    }

    /// The strings of text matrix `name`: its columns when transposed, else its rows.
    ///
    /// Trailing spaces and NULs are removed; text that is not UTF-8 is read as Latin-1.
    /// With `expected`, the number of strings is checked first ([`MatProblem::Count`]), so
    /// that a matrix of empty strings cannot claim more of them than there are variables.
    fn strings(&self, name: &str, expected: Option<usize>) -> Result<Vec<String>> {
        let m = self.matrix(name)?;
        let (count, width) = if self.transposed {
            (m.ncols, m.mrows)
        } else {
            (m.mrows, m.ncols)
        };
        if let Some(expected) = expected.filter(|&e| e != count) {
            let problem = MatProblem::Count {
                expected,
                found: count,
            };
            return Err(format_error(self.path, name, problem));
        }
        let mut strings = Vec::with_capacity(count);
        let mut bytes = Vec::with_capacity(width);
        for i in 0..count {
            bytes.clear();
            for c in 0..width {
                let index = if self.transposed {
                    i * m.mrows + c
                } else {
                    c * m.mrows + i
                };
                let value = m.values[index];
                if !(0.0..=255.0).contains(&value) || value.fract() != 0.0 {
                    return Err(format_error(self.path, name, MatProblem::NotText { value }));
                }
                bytes.push(value as u8);
            }
            while let Some(b' ' | 0) = bytes.last() {
                bytes.pop();
            }
            let text = match std::str::from_utf8(&bytes) {
                Ok(text) => text.to_string(),
                Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
            };
            strings.push(text);
        }
        Ok(strings)
    }

    /// `(j, k)` of each variable from `dataInfo`.
    fn data_info(&self) -> Result<Vec<(i64, i64)>> {
        let m = self.matrix("dataInfo")?;
        let (count, entries) = if self.transposed {
            (m.ncols, m.mrows)
        } else {
            (m.mrows, m.ncols)
        };
        if entries < 2 {
            let problem = MatProblem::Shape {
                mrows: m.mrows,
                ncols: m.ncols,
            };
            return Err(format_error(self.path, "dataInfo", problem));
        }
        let integer = |value: f64| {
            if value.fract() == 0.0 && value.abs() <= f64::from(i32::MAX) {
                Ok(value as i64)
            } else {
                let problem = MatProblem::NotInteger { value };
                Err(format_error(self.path, "dataInfo", problem))
            }
        };
        (0..count)
            .map(|i| {
                let (j, k) = if self.transposed {
                    (m.values[i * m.mrows], m.values[i * m.mrows + 1])
                } else {
                    (m.values[i], m.values[m.mrows + i])
                };
                Ok((integer(j)?, integer(k)?))
            })
            .collect()
    }

    /// Every variable except the abscissa, with its values.
    fn signals(&self) -> Result<MatFile> {
        // dataInfo first: its size bounds the number of variables by the bytes in the file.
        let data_info = self.data_info()?;
        let names = self.strings("name", Some(data_info.len()))?;
        let descriptions = self.strings("description", Some(data_info.len()))?;
        let mut times: HashMap<i64, Arc<Vec<f64>>> = HashMap::new();
        let mut signals = Vec::with_capacity(names.len());
        for ((name, text), (j, k)) in names.into_iter().zip(descriptions).zip(data_info) {
            if j == 0 {
                continue; // the abscissa
            }
            let bad_reference = || {
                let problem = MatProblem::BadReference {
                    variable: name.clone(),
                    data: j,
                    column: k,
                };
                format_error(self.path, "dataInfo", problem)
            };
            let Ok(m) = self.matrix(&format!("data_{j}")) else {
                return Err(bad_reference());
            };
            // Variables are rows when transposed (time points are columns), else columns.
            let (variables, points) = if self.transposed {
                (m.mrows, m.ncols)
            } else {
                (m.ncols, m.mrows)
            };
            let column = k.unsigned_abs() as usize;
            if j < 0 || column == 0 || column > variables {
                return Err(bad_reference());
            }
            // A killed writer may leave one announced but unwritten time point (time NaN).
            let time_at = |t: usize| {
                if self.transposed {
                    m.values[t * m.mrows]
                } else {
                    m.values[t]
                }
            };
            let mut points = points;
            while points > 0 && time_at(points - 1).is_nan() {
                points -= 1;
            }
            let series = |c: usize, negate: bool| -> Vec<f64> {
                let signed = |v: f64| if negate { -v } else { v };
                if self.transposed {
                    (0..points)
                        .map(|t| signed(m.values[t * m.mrows + c]))
                        .collect()
                } else {
                    m.values[c * m.mrows..(c + 1) * m.mrows]
                        .iter()
                        .map(|&v| signed(v))
                        .collect()
                }
            };
            let time = times
                .entry(j)
                .or_insert_with(|| Arc::new(series(0, false)))
                .clone();
            let values = series(column - 1, k < 0);
            let (description, unit) = split_unit(&text);
            signals.push(MatReadSignal {
                name,
                description,
                unit,
                time,
                values,
                parameter: j == 1,
            });
        }
        Ok(MatFile { signals })
    }
}
