//! Reading single time points back from a streaming MAT file while it is being written.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::{HEADER_LEN, TYPE_DOUBLE};
use crate::error::MatProblem;
use crate::{Error, Result};

/// The time points of a `binTrans` MAT file written by [`MatWriter`](super::MatWriter), read
/// by number without reading the file as a whole: `data_2` holds one contiguous column
/// `(t, v₁, …, vₙ)` of little-endian doubles per time point, so time point `k` is
/// `8·(1 + n)` bytes at a fixed offset. A time point that the writer has written stays
/// where it is (the writer only appends), so the file can be read while it grows.
///
/// Spec: OpenModelica user's guide, "The MATv4 Result File Format" (`data_2` in binTrans);
/// [`super`] (the layout).
#[derive(Debug)]
pub struct MatRows {
    path: PathBuf,
    file: File,
    /// Byte offset of time point 0 of `data_2`.
    data_start: u64,
    /// Values per time point, the time included (`1 + n`).
    width: usize,
}

/// The element size of MAT v4 type code `code` (its `P` digit), in bytes.
fn element_size(code: i32) -> Option<u64> {
    match (code / 10) % 10 {
        0 => Some(8),
        1 | 2 => Some(4),
        3 | 4 => Some(2),
        5 => Some(1),
        _ => None,
    }
}

impl MatRows {
    /// Opens the MAT file at `path` and finds its `data_2` matrix.
    ///
    /// # Errors
    /// [`Error::Read`] when the file cannot be opened or read; [`Error::MatFormat`] when a
    /// header before `data_2` is truncated or not little-endian, or there is no `data_2` of
    /// doubles.
    pub fn open(path: &Path) -> Result<MatRows> {
        let file = File::open(path).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let len = file
            .metadata()
            .map_err(|source| Error::Read {
                path: path.to_path_buf(),
                source,
            })?
            .len();
        let mut rows = MatRows {
            path: path.to_path_buf(),
            file,
            data_start: 0,
            width: 0,
        };
        let mut offset = 0u64;
        let mut index = 0usize;
        while offset + HEADER_LEN as u64 <= len {
            index += 1;
            let mut header = [0u8; HEADER_LEN];
            rows.read_exact_at(offset, &mut header)?;
            let field = |i: usize| {
                i32::from_le_bytes(header[4 * i..4 * i + 4].try_into().expect("four bytes"))
            };
            let (code, mrows, ncols, namlen) = (field(0), field(1), field(2), field(4));
            let label = format!("#{index}");
            let bad = |problem| Error::MatFormat {
                path: path.to_path_buf(),
                matrix: label.clone(),
                problem,
            };
            let size = element_size(code)
                .filter(|_| code < 1000)
                .ok_or_else(|| bad(MatProblem::UnknownType { code }))?;
            let namlen =
                u64::try_from(namlen).map_err(|_| bad(MatProblem::NameLength { namlen }))?;
            let mut name = vec![0u8; usize::try_from(namlen).unwrap_or(0).min(64)];
            rows.read_exact_at(offset + HEADER_LEN as u64, &mut name)?;
            let data = offset + HEADER_LEN as u64 + namlen;
            if name.split(|&b| b == 0).next() == Some(b"data_2".as_slice()) && code == TYPE_DOUBLE {
                rows.data_start = data;
                rows.width = usize::try_from(mrows)
                    .map_err(|_| bad(MatProblem::NegativeSize { mrows, ncols }))?;
                return Ok(rows);
            }
            let (Ok(m), Ok(n)) = (u64::try_from(mrows), u64::try_from(ncols)) else {
                return Err(bad(MatProblem::NegativeSize { mrows, ncols }));
            };
            offset = data + m * n * size;
        }
        Err(Error::MatFormat {
            path: path.to_path_buf(),
            matrix: "data_2".to_string(),
            problem: MatProblem::Missing,
        })
    }

    /// Values per time point, the time included (`1 + n` for `n` signals).
    pub fn width(&self) -> usize {
        self.width
    }

    /// Appends time points `from..to` to `out`, each `[t, v₁, …, vₙ]` (time in s, values as
    /// written, bit for bit).
    ///
    /// # Errors
    /// [`Error::Read`] when the file cannot be read; [`Error::MatFormat`] when it ends before
    /// time point `to` (not written yet).
    pub fn read(&self, from: usize, to: usize, out: &mut Vec<f64>) -> Result<()> {
        let row = 8 * self.width as u64;
        let count = to.saturating_sub(from);
        let mut bytes = vec![0u8; count * self.width * 8];
        self.read_exact_at(self.data_start + from as u64 * row, &mut bytes)?;
        out.extend(
            bytes
                .chunks_exact(8)
                .map(|b| f64::from_le_bytes(b.try_into().expect("eight bytes"))),
        );
        Ok(())
    }

    /// Fills `buf` from byte `offset` of the file.
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        use std::os::unix::fs::FileExt as _;
        self.file.read_exact_at(buf, offset).map_err(|source| {
            if source.kind() == std::io::ErrorKind::UnexpectedEof {
                Error::MatFormat {
                    path: self.path.clone(),
                    matrix: "data_2".to_string(),
                    problem: MatProblem::Truncated {
                        offset,
                        needed: buf.len() as u64,
                        available: 0,
                    },
                }
            } else {
                Error::Read {
                    path: self.path.clone(),
                    source,
                }
            }
        })
    }
}
