//! The Python package `mastersim` (module `mastersim._mastersim`): the library's front door
//! for Python, built with PyO3 and maturin as one abi3 wheel for CPython ≥ 3.9.
//!
//! Spec: `docs/python.md`; FMPy 0.3's `simulate_fmu` and `read_model_description`.

use pyo3::prelude::*;

pub mod errors;
pub mod fmpy;
pub mod fmu_cache;
pub mod model_description;
pub mod options;
pub mod results;
pub mod run;
pub mod running;
pub mod session;
pub mod session_ops;
pub mod signals;
pub mod simulate;
pub mod variables;

/// The extension module `mastersim._mastersim`; the pure-Python package `mastersim`
/// re-exports what users call.
#[pymodule]
fn _mastersim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    m.add_function(wrap_pyfunction!(fmpy::simulate_fmu, m)?)?;
    m.add_function(wrap_pyfunction!(
        model_description::read_model_description,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(clear_fmu_cache, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::simulate, m)?)?;
    m.add_class::<simulate::SimulationResult>()?;
    m.add_class::<session::PySession>()?;
    m.add_class::<variables::Variable>()?;
    Ok(())
}

/// Frees the FMUs that `simulate_fmu` keeps loaded between calls (libraries closed, temporary
/// folders removed once no run holds them). Called at interpreter exit; call it to free them
/// earlier.
#[pyfunction]
fn clear_fmu_cache() {
    fmu_cache::clear();
}
