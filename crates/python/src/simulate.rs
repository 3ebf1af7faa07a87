//! `mastersim.simulate(path, **options)`: runs a project (`.msim`), SSP system or FMU to the
//! end in one call and returns a `SimulationResult`: the values (structured array), the
//! statistics counters, the run summary (`log/summary.json`) and the working directory.
//!
//! Spec: `docs/python.md` (simulate); FMPy's `simulate_fmu` (one call, a structured array);
//! the library's `mastersim::simulate`.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::options::RunOptions;
use crate::run::{Run, counters};

/// What `simulate` returns.
#[pyclass(module = "mastersim", frozen, get_all)]
pub struct SimulationResult {
    /// Structured array of shape `(rows,)`: field `time` (s), then one float64 field per
    /// column of `values.csv` (`<slave>.<variable>`).
    pub values: Py<PyAny>,
    /// The run-wide counters (`steps`, `algorithm_calls`, `iterations`, …), the keys of
    /// `summary.json`'s `counters`.
    pub statistics: Py<PyDict>,
    /// The content of `log/summary.json` (outcome, times, counters, timers, slaves).
    pub summary: Py<PyAny>,
    /// The working directory (`pathlib.Path`, absolute): `results/`, `log/`, `fmus/`.
    pub working_dir: Py<PyAny>,
}

#[pymethods]
impl SimulationResult {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let rows = self.values.bind(py).len()?;
        Ok(format!(
            "<mastersim.SimulationResult {rows} rows in '{}'>",
            self.working_dir.bind(py).str()?
        ))
    }
}

/// Runs `path` to the end under `options` (see `docs/python.md`). Ctrl-C stops the run at
/// its next communication point, completes the result files and `summary.json`, then raises
/// `KeyboardInterrupt`.
///
/// # Errors
/// `InputError` (or `ProjectNotFoundError`) for what cannot be opened, `SimulationError` for
/// a run that failed (the results up to there are written), `TypeError` for an unknown
/// keyword or a value of the wrong type.
#[pyfunction]
#[pyo3(signature = (path, **options))]
pub fn simulate(
    py: Python<'_>,
    path: PathBuf,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<SimulationResult> {
    let options = RunOptions::from_kwargs(options)?;
    let mut run = Run::open(py, &path, &options)?;
    let ran = run.run_until(py, f64::INFINITY);
    let working_dir = run.working_dir();
    // The rows only for a run that ended well: a KeyboardInterrupt is raised without them.
    let values = match &ran {
        Ok(_) => Some(run.values(py).map(Bound::unbind)),
        Err(_) => None,
    };
    let finished = run.finish(py);
    // The run's own error (or the KeyboardInterrupt) first, as the command line reports it.
    ran?;
    let statistics = finished?;
    let values = values.expect("invariant: made when the run ended well")?;
    let summary_path = working_dir.join("log").join("summary.json");
    let summary = match std::fs::read_to_string(&summary_path) {
        Ok(text) => py.import("json")?.getattr("loads")?.call1((text,))?,
        Err(e) => {
            return Err(crate::errors::SimulationError::new_err(format!(
                "cannot read '{}': {e}",
                summary_path.display()
            )));
        }
    };
    Ok(SimulationResult {
        values,
        statistics: counters(py, &statistics.counters)?.unbind(),
        summary: summary.unbind(),
        working_dir: py
            .import("pathlib")?
            .getattr("Path")?
            .call1((working_dir,))?
            .unbind(),
    })
}
