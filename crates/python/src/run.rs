//! One run driven from Python: a library [`Session`] with a [`Recorder`] of its rows, opened,
//! stepped, run and finished with the GIL released. `mastersim.simulate` and
//! `mastersim.Session` both drive a [`Run`], so that they give the same results.
//!
//! Spec: `docs/python.md`; MasterSim reference §8–§12 (what a run does and writes).

use std::path::{Path, PathBuf};

use mastersim::{Counters, Recorder, RunState, Session, Statistics, Steering};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{InputError, run_failed, to_py};
use crate::options::RunOptions;
use crate::running::without_gil;

/// What `summary.txt` names as the cause when Ctrl-C stopped the run.
const INTERRUPT_CAUSE: &str = "KeyboardInterrupt (SIGINT) received";

/// A session opened from Python, with every result row recorded in memory.
pub struct Run {
    /// The library session.
    pub session: Session,
    recorder: Recorder,
    /// Simulated seconds per wall-clock second for [`Run::run`], when paced.
    real_time: Option<f64>,
    /// Initialized (or tried to): finishing writes `summary.txt`.
    started: bool,
}

impl Run {
    /// Opens `path` (a `.msim` project, an SSP system or an FMU) with `options`, the GIL
    /// released while FMUs are extracted, loaded and instantiated.
    ///
    /// # Errors
    /// As [`Session::open`], as Python exceptions ([`to_py`]).
    pub fn open(py: Python<'_>, path: &Path, options: &RunOptions) -> PyResult<Run> {
        let library = options.library();
        let session = py
            .detach(|| Session::open(path, &library).map_err(Box::new))
            .map_err(|e| to_py(&e))?;
        let mut run = Run {
            session,
            recorder: Recorder::new(),
            real_time: library.real_time,
            started: false,
        };
        run.session
            .add_observer(Box::new(run.recorder.clone()))
            .map_err(|e| to_py(&e))?;
        Ok(run)
    }

    /// Initializes the slaves and writes the first row.
    ///
    /// # Errors
    /// `SimulationError` as [`Session::initialize`].
    pub fn initialize(&mut self, py: Python<'_>) -> PyResult<()> {
        self.started = true;
        let session = &mut self.session;
        py.detach(|| session.initialize().map_err(Box::new))
            .map_err(|e| run_failed(&e))
    }

    /// Takes one communication step (initializing first if needed); returns the new
    /// communication point, s.
    ///
    /// # Errors
    /// `SimulationError` as [`Session::step`], also after the run ended.
    pub fn step(&mut self, py: Python<'_>) -> PyResult<f64> {
        self.started = true;
        let session = &mut self.session;
        py.detach(|| session.step().map_err(Box::new))
            .map(|report| report.t)
            .map_err(|e| run_failed(&e))
    }

    /// Steps until the communication point reaches `t` (s) or the run ends; with
    /// `t = inf`, runs to the end, paced when a real-time factor was given. Returns the
    /// communication point reached, s. Ctrl-C stops the run at its next communication point
    /// as SIGINT does (see [`crate::running`]).
    ///
    /// # Errors
    /// `SimulationError` as [`Session::run_until`]; `KeyboardInterrupt` after the run stopped
    /// for it; `InputError` for a real-time factor the steering refuses.
    pub fn run_until(&mut self, py: Python<'_>, t: f64) -> PyResult<f64> {
        self.started = true;
        let stop = self.session.stop_flag();
        let steering = self
            .real_time
            .filter(|_| t == f64::INFINITY)
            .map(|factor| Steering::new(RunState::Running, Some(factor)))
            .transpose()
            .map_err(|e| InputError::new_err(format!("real_time: {e}")))?;
        let session = &mut self.session;
        let (ran, signal) = without_gil(py, &stop, move || {
            match &steering {
                Some(steering) => session.run_steered(steering).map(drop),
                None => session.run_until(t).map(drop),
            }
            .map_err(Box::new)
        })?;
        if let Some(signal) = signal {
            self.session.set_stop_cause(INTERRUPT_CAUSE);
            return Err(signal);
        }
        ran.map_err(|e| run_failed(&e))?;
        Ok(self.session.time())
    }

    /// The rows recorded so far as a structured array of shape `(rows,)`: field `time` (s),
    /// then one `float64` field per recorded variable, named `<slave>.<variable>` as in the
    /// header of `values.csv` (without the unit), in its order (Booleans as 0.0/1.0, Integers
    /// exact up to 2⁵³, as the library records them; String variables stay in `strings.csv`).
    ///
    /// Spec: FMPy's `simulate_fmu` result (a structured array with `time` first); MasterSim
    /// reference §12 (the columns of `values.csv`).
    ///
    /// # Errors
    /// When NumPy cannot make the array.
    pub fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        use crate::results::{ColumnData, structured_array};
        let results = self.recorder.results();
        let mut columns = vec![("time".to_string(), ColumnData::F64(results.time().to_vec()))];
        columns.extend(results.names().iter().map(|name| {
            let column = results.column(name).unwrap_or_default().to_vec();
            (name.clone(), ColumnData::F64(column))
        }));
        structured_array(py, columns)
    }

    /// The working directory, absolute.
    pub fn working_dir(&self) -> PathBuf {
        let dir = self.session.working_dir();
        std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
    }

    /// Completes the result files and frees every slave: once initialized, as
    /// [`Session::finish`] (`log/summary.txt` and `summary.json` written), else as
    /// [`Session::close`]. Returns the statistics.
    ///
    /// # Errors
    /// `SimulationError` for a result file that cannot be completed or a slave that fails to
    /// terminate; every slave is freed all the same.
    pub fn finish(self, py: Python<'_>) -> PyResult<Statistics> {
        let Run {
            session, started, ..
        } = self;
        py.detach(move || {
            if started {
                session.finish()
            } else {
                let statistics = session.statistics();
                session.close().map(|()| statistics)
            }
            .map_err(Box::new)
        })
        .map_err(|e| run_failed(&e))
    }
}

/// The run-wide counters as a dict, with the keys of `summary.json`'s `counters` (taken from
/// [`mastersim::report::CountersJson`], the one place that names them).
///
/// # Errors
/// When the dict cannot be filled.
pub fn counters<'py>(py: Python<'py>, c: &Counters) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let json = serde_json::to_value(mastersim::report::CountersJson::from(c))
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    if let serde_json::Value::Object(fields) = json {
        for (key, value) in fields {
            dict.set_item(key, value.as_u64())?;
        }
    }
    Ok(dict)
}
