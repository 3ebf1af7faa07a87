//! Result columns → one numpy structured array (`time` first, one field per recorded
//! variable), the shape FMPy's `simulate_fmu` returns and `fmpy.util.plot_result` /
//! `fmpy.util.write_csv` read.
//!
//! Each column is handed to numpy as one array that takes over the Rust vector (no copy), and
//! copied once into its field of the structured array: one copy per column, none per row.
//!
//! Spec: FMPy 0.3 `simulation.Recorder` (field order and dtypes).

use numpy::{IntoPyArray, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyList;

/// The values of one result column, one per row, in the numpy dtype of the field.
#[derive(Debug, Clone)]
pub enum ColumnData {
    /// `float32` (FMI 3.0 Float32).
    F32(Vec<f32>),
    /// `float64` (time, FMI 2.0 Real, FMI 3.0 Float64).
    F64(Vec<f64>),
    /// `int8`.
    I8(Vec<i8>),
    /// `uint8`.
    U8(Vec<u8>),
    /// `int16`.
    I16(Vec<i16>),
    /// `uint16`.
    U16(Vec<u16>),
    /// `int32` (FMI 2.0 Integer and Enumeration, FMI 3.0 Int32).
    I32(Vec<i32>),
    /// `uint32`.
    U32(Vec<u32>),
    /// `int64` (FMI 3.0 Int64 and Enumeration).
    I64(Vec<i64>),
    /// `uint64`.
    U64(Vec<u64>),
    /// `bool`.
    Bool(Vec<bool>),
}

impl ColumnData {
    /// The numpy type code of the field (`'f8'`, `'i4'`, `'?'`, …).
    pub fn dtype_code(&self) -> &'static str {
        match self {
            ColumnData::F32(_) => "f4",
            ColumnData::F64(_) => "f8",
            ColumnData::I8(_) => "i1",
            ColumnData::U8(_) => "u1",
            ColumnData::I16(_) => "i2",
            ColumnData::U16(_) => "u2",
            ColumnData::I32(_) => "i4",
            ColumnData::U32(_) => "u4",
            ColumnData::I64(_) => "i8",
            ColumnData::U64(_) => "u8",
            ColumnData::Bool(_) => "?",
        }
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        match self {
            ColumnData::F32(v) => v.len(),
            ColumnData::F64(v) => v.len(),
            ColumnData::I8(v) => v.len(),
            ColumnData::U8(v) => v.len(),
            ColumnData::I16(v) => v.len(),
            ColumnData::U16(v) => v.len(),
            ColumnData::I32(v) => v.len(),
            ColumnData::U32(v) => v.len(),
            ColumnData::I64(v) => v.len(),
            ColumnData::U64(v) => v.len(),
            ColumnData::Bool(v) => v.len(),
        }
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A one-dimensional numpy array that owns the values (no copy).
    fn into_numpy(self, py: Python<'_>) -> Bound<'_, PyAny> {
        match self {
            ColumnData::F32(v) => v.into_pyarray(py).into_any(),
            ColumnData::F64(v) => v.into_pyarray(py).into_any(),
            ColumnData::I8(v) => v.into_pyarray(py).into_any(),
            ColumnData::U8(v) => v.into_pyarray(py).into_any(),
            ColumnData::I16(v) => v.into_pyarray(py).into_any(),
            ColumnData::U16(v) => v.into_pyarray(py).into_any(),
            ColumnData::I32(v) => v.into_pyarray(py).into_any(),
            ColumnData::U32(v) => v.into_pyarray(py).into_any(),
            ColumnData::I64(v) => v.into_pyarray(py).into_any(),
            ColumnData::U64(v) => v.into_pyarray(py).into_any(),
            ColumnData::Bool(v) => v.into_pyarray(py).into_any(),
        }
    }
}

/// A numpy structured array of `columns` (name, values), in that order; every column must
/// have the same number of rows. Shape `(rows,)`; field `name` has the dtype of its
/// [`ColumnData`].
///
/// # Errors
/// A `ValueError` when the columns differ in length or repeat a name; numpy's errors.
pub fn structured_array<'py>(
    py: Python<'py>,
    columns: Vec<(String, ColumnData)>,
) -> PyResult<Bound<'py, PyAny>> {
    let rows = columns.first().map_or(0, |(_, c)| c.len());
    if let Some((name, c)) = columns.iter().find(|(_, c)| c.len() != rows) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "column '{name}' has {} rows, expected {rows}",
            c.len()
        )));
    }
    let numpy = py.import("numpy")?;
    let fields = PyList::empty(py);
    for (name, c) in &columns {
        fields.append((name.as_str(), c.dtype_code()))?;
    }
    let dtype = numpy.call_method1("dtype", (fields,))?;
    let array = numpy.call_method1("empty", (rows, dtype))?;
    for (name, c) in columns {
        array.set_item(name, c.into_numpy(py))?;
    }
    Ok(array)
}

/// Checks that `array` is a numpy structured array with a first field (the time), for the
/// readers of input tables.
///
/// # Errors
/// A `TypeError` naming what was given otherwise.
pub fn field_names(array: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let names = array.getattr("dtype")?.getattr("names")?;
    if names.is_none() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "expected a numpy structured array with a 'time' field, got {}",
            array.get_type().name()?
        )));
    }
    names.extract()
}

/// The values of `field` of the structured array `array` as `f64`, converted by numpy.
pub fn field_f64(array: &Bound<'_, PyAny>, field: &str) -> PyResult<Vec<f64>> {
    let py = array.py();
    let column = array.get_item(field)?;
    let converted = py
        .import("numpy")?
        .call_method1("ascontiguousarray", (column, "f8"))?;
    let typed = converted.cast_into::<numpy::PyArray1<f64>>()?;
    Ok(typed.readonly().as_slice()?.to_vec())
}
