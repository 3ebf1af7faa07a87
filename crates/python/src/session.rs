//! `mastersim.Session`: a project opened for simulation, stepped and read from Python; a
//! context manager whose end (also by an exception) completes the result files, terminates
//! and frees every FMU.
//!
//! The session sits behind a lock: a method called while another thread runs the session
//! raises `MastersimError` at once instead of waiting (a wait with the GIL held could
//! deadlock). Long calls release the GIL.
//!
//! Spec: `docs/python.md` (Session); the library's `Session` (crates/mastersim);
//! libcosim's `execution` (a steppable run).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use mastersim::Value;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyString};

use crate::errors::{MastersimError, read_failed};
use crate::options::RunOptions;
use crate::run::{Run, counters};
use crate::session_ops;

/// A project (`.msim`), SSP system or FMU opened for simulation: FMUs extracted, loaded and
/// instantiated. Times are in seconds.
#[pyclass(module = "mastersim", name = "Session", frozen)]
pub struct PySession {
    /// The run; `None` once closed.
    run: Mutex<Option<Run>>,
    /// The path given, for messages.
    path: PathBuf,
    /// The session's stop flag, raised by `stop()` without the lock.
    stop: Arc<AtomicBool>,
}

impl PySession {
    /// The run, locked without waiting (a wait with the GIL held could deadlock with a run
    /// that needs the GIL to check for signals).
    ///
    /// # Errors
    /// `MastersimError` when another thread is running the session.
    fn lock(&self) -> PyResult<MutexGuard<'_, Option<Run>>> {
        match self.run.try_lock() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::Poisoned(poisoned)) => Ok(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => Err(MastersimError::new_err(format!(
                "the session of '{}' is busy: another thread is running it",
                self.path.display()
            ))),
        }
    }

    /// The open run, locked.
    ///
    /// # Errors
    /// `MastersimError` when another thread is running the session, or it is closed.
    fn open_run(&self) -> PyResult<MutexGuard<'_, Option<Run>>> {
        let guard = self.lock()?;
        if guard.is_none() {
            return Err(MastersimError::new_err(format!(
                "the session of '{}' is closed; open a new Session to run it again",
                self.path.display()
            )));
        }
        Ok(guard)
    }

    /// Runs `f` on the open run.
    fn with<T>(&self, f: impl FnOnce(&mut Run) -> PyResult<T>) -> PyResult<T> {
        let mut guard = self.open_run()?;
        f(guard.as_mut().expect("invariant: open_run checked it"))
    }
}

#[pymethods]
impl PySession {
    /// Opens `path` (a `.msim` project, an SSP system or an FMU) with the keyword options of
    /// `mastersim.simulate`.
    #[new]
    #[pyo3(signature = (path, **options))]
    fn new(py: Python<'_>, path: PathBuf, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let options = RunOptions::from_kwargs(options)?;
        let run = Run::open(py, &path, &options)?;
        Ok(PySession {
            stop: run.session.stop_flag(),
            run: Mutex::new(Some(run)),
            path,
        })
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Closes the session. With an exception on its way out of the `with` block, an error
    /// of closing is not raised over it (the slaves are freed all the same).
    fn __exit__(
        &self,
        py: Python<'_>,
        exc_type: Option<&Bound<'_, PyAny>>,
        _exc_value: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let closed = self.close(py);
        if exc_type.is_none_or(|t| t.is_none()) {
            closed?;
        }
        Ok(false)
    }

    /// Initializes the slaves, creates the result files and writes the first row.
    fn initialize(&self, py: Python<'_>) -> PyResult<()> {
        self.with(|run| run.initialize(py))
    }

    /// Takes one communication step (initializing first if needed); returns the new
    /// communication point, s.
    fn step(&self, py: Python<'_>) -> PyResult<f64> {
        self.with(|run| run.step(py))
    }

    /// Steps until the communication point reaches `t` (s) or the run ends; returns the
    /// communication point reached, s.
    fn run_until(&self, py: Python<'_>, t: f64) -> PyResult<f64> {
        if t.is_nan() {
            return Err(crate::errors::InputError::new_err(
                "run_until(nan): expected a time in seconds",
            ));
        }
        self.with(|run| run.run_until(py, t))
    }

    /// Runs to the end (paced when `real_time` was given); returns the last communication
    /// point, s.
    fn run(&self, py: Python<'_>) -> PyResult<f64> {
        self.with(|run| run.run_until(py, f64::INFINITY))
    }

    /// Asks a run (`run()`, `run_until()`) going on in another thread to end at its next
    /// communication point, as Ctrl-C does; the run then returns normally and `outcome` is
    /// `"interrupted"`. No run can go on after it. Never waits, never raises.
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The current communication point, s.
    #[getter]
    fn time(&self) -> PyResult<f64> {
        self.with(|run| Ok(run.session.time()))
    }

    /// The value of one variable (`"<slave>.<variable>"`) now, or a list of values for a
    /// list of names.
    fn get<'py>(&self, py: Python<'py>, names: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.with(|run| {
            if let Ok(name) = names.cast::<PyString>() {
                return value_to_py(
                    py,
                    run.session
                        .value(&name.to_cow()?)
                        .map_err(|e| read_failed(&e))?,
                );
            }
            let names: Vec<String> = names.extract().map_err(|_| {
                PyTypeError::new_err("get: expected a name (str) or a list of names")
            })?;
            let values = names
                .iter()
                .map(|name| value_to_py(py, run.session.value(name).map_err(|e| read_failed(&e))?))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, values)?.into_any())
        })
    }

    /// Sets an input that no connection drives, or a tunable parameter, between steps.
    fn set(&self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = value_from_py(value)?;
        self.with(|run| session_ops::set(&mut run.session, name, value))
    }

    /// Every variable of every slave.
    #[getter]
    fn variables(&self) -> PyResult<Vec<crate::variables::Variable>> {
        self.with(|run| Ok(crate::variables::of_plan(run.session.plan())))
    }

    /// The state of the whole run as bytes, for `restore`.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = self.with(|run| session_ops::snapshot(&mut run.session))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Puts the run back into the state of a `snapshot()`.
    fn restore(&self, state: &[u8]) -> PyResult<()> {
        self.with(|run| session_ops::restore(&mut run.session, state))
    }

    /// Writes a checkpoint of the current communication point to `path`; returns its size,
    /// bytes.
    fn save_checkpoint(&self, py: Python<'_>, path: PathBuf) -> PyResult<u64> {
        self.with(|run| {
            let session = &mut run.session;
            py.detach(|| session_ops::save_checkpoint(session, &path))
        })
    }

    /// The rows recorded so far: a structured array of shape `(rows,)`, field `time` (s) and
    /// one float64 field per column of `values.csv`.
    #[getter]
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.with(|run| run.values(py))
    }

    /// The run-wide counters so far (the keys of `summary.json`'s `counters`).
    #[getter]
    fn statistics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.with(|run| counters(py, run.session.counters()))
    }

    /// How the run ended: `None` while it goes on, else `"completed"`, `"terminated"` (a
    /// slave asked to end) or `"interrupted"` (Ctrl-C).
    #[getter]
    fn outcome(&self) -> PyResult<Option<&'static str>> {
        self.with(|run| {
            Ok(run.session.outcome().map(|o| match o {
                mastersim::RunOutcome::Completed => "completed",
                mastersim::RunOutcome::Terminated { .. } => "terminated",
                mastersim::RunOutcome::Interrupted { .. } => "interrupted",
            }))
        })
    }

    /// The working directory (extracted FMUs, `log/`, `results/`), absolute.
    #[getter]
    fn working_dir<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let dir = self.with(|run| Ok(run.working_dir()))?;
        py.import("pathlib")?.getattr("Path")?.call1((dir,))
    }

    /// Whether the session is closed (False while another thread runs it).
    #[getter]
    fn closed(&self) -> bool {
        self.lock().is_ok_and(|guard| guard.is_none())
    }

    /// Completes the result files (and, once initialized, writes `log/summary.txt` and
    /// `summary.json`), terminates and frees every FMU. Closing again does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let run = self.lock()?.take();
        match run {
            Some(run) => run.finish(py).map(drop),
            None => Ok(()),
        }
    }

    fn __repr__(&self) -> String {
        let state = match self.lock() {
            Ok(guard) => guard.as_ref().map_or_else(
                || "closed".into(),
                |run| format!("t={} s", run.session.time()),
            ),
            Err(_) => "running".into(),
        };
        format!("<mastersim.Session '{}' {state}>", self.path.display())
    }
}

/// A variable's value as a Python object: float, int, bool, str or bytes.
fn value_to_py(py: Python<'_>, value: Value) -> PyResult<Bound<'_, PyAny>> {
    Ok(match value {
        Value::Real(x) => x.into_pyobject(py)?.into_any(),
        Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        Value::Boolean(b) => PyBool::new(py, b).to_owned().into_any(),
        Value::String(s) => PyString::new(py, &s).into_any(),
        Value::Binary(b) => PyBytes::new(py, &b).into_any(),
    })
}

/// A Python value as a variable's value: bool → Boolean, int → Integer, float → Real,
/// str → String, bytes → Binary.
///
/// # Errors
/// `TypeError` for anything else.
fn value_from_py(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Value::Boolean(b.is_true()));
    }
    if let Ok(i) = value.extract::<i128>() {
        return Ok(Value::Integer(i));
    }
    if let Ok(x) = value.extract::<f64>() {
        return Ok(Value::Real(x));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.to_string()));
    }
    if let Ok(b) = value.cast::<PyBytes>() {
        return Ok(Value::Binary(b.as_bytes().to_vec()));
    }
    Err(PyTypeError::new_err(format!(
        "set: expected a bool, int, float, str or bytes, not {}",
        value.get_type().name()?
    )))
}
