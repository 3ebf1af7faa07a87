//! Result rows as a NumPy structured array: field `time` (s), then one field per recorded
//! variable, named `<slave>.<variable>` as in the header of `values.csv` (without the unit),
//! in its order. (String variables stay in `strings.csv`.)
//!
//! Numeric fields are `float64` (Booleans as 0.0/1.0, Integers exact up to 2⁵³), as the
//! library records them; the shape is `(rows,)`.
//!
//! One function, [`structured_array`], so that the crate's shared builder of FMPy-style
//! results can replace it in one place.
//!
//! Spec: FMPy's `simulate_fmu` result (a structured array with `time` first); MasterSim
//! reference §12 (the columns of `values.csv`).

use mastersim::Results;
use numpy::PyArray1;
use pyo3::prelude::*;

/// The structured array of `results`, shape `(rows,)`.
///
/// # Errors
/// When NumPy cannot be imported or the array cannot be made.
pub fn structured_array<'py>(py: Python<'py>, results: &Results) -> PyResult<Bound<'py, PyAny>> {
    let numpy = py.import("numpy")?;
    let mut fields: Vec<(&str, &str)> = vec![("time", "f8")];
    fields.extend(results.names().iter().map(|n| (n.as_str(), "f8")));
    let dtype = numpy.getattr("dtype")?.call1((fields,))?;
    let rows = results.time().len();
    let array = numpy.getattr("empty")?.call1((rows, dtype))?;
    array.set_item("time", PyArray1::from_slice(py, results.time()))?;
    for name in results.names() {
        let column = results.column(name).unwrap_or_default();
        array.set_item(name, PyArray1::from_slice(py, column))?;
    }
    Ok(array)
}
