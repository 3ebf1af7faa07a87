//! `mastersim.simulate_fmu`: FMPy 0.3's `simulate_fmu` for co-simulation FMUs, with FMPy's
//! keywords, defaults and result, run by mastersim's FMI layer.
//!
//! Every keyword of FMPy 0.3.x is accepted by name. Those mastersim implements have FMPy's
//! meaning; those that only concern Model Exchange (`solver`, `step_size`, `record_events`)
//! are accepted and, as in FMPy, have no effect on a co-simulation; the rest raise
//! [`InputError`] when given a value other than FMPy's default.
//!
//! Spec: FMPy 0.3 `simulation.simulate_fmu` and `simulateCS`; `docs/python.md`.

mod driver;
mod input;
mod slave;
mod start;
mod time;
pub mod validate;

use std::path::PathBuf;

use fmi::{Causality, ModelDescription, ScalarVariable};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{InputError, SimulationError};
use crate::fmu_cache;
use driver::{RunError, RunSettings};

/// A keyword with a value mastersim does not implement.
fn unsupported(keyword: &str, why: &str) -> PyErr {
    InputError::new_err(format!(
        "simulate_fmu: {keyword} is not supported by mastersim: {why}"
    ))
}

/// `float(value)` for FMPy's `Union[float, str]` times; `None` stays `None`.
fn seconds(keyword: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<f64>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    let builtins = value.py().import("builtins")?;
    let number = builtins.call_method1("float", (value,)).map_err(|e| {
        InputError::new_err(format!(
            "simulate_fmu: {keyword} must be a number of seconds: {e}"
        ))
    })?;
    number.extract().map(Some)
}

/// The variables in FMPy's order: the order of the file, except that FMI 3.0 `<Alias>`
/// elements follow all variables (FMPy appends them at the end of `modelVariables`).
pub fn variable_order(md: &ModelDescription) -> Vec<&ScalarVariable> {
    let is_alias = |v: &&ScalarVariable| {
        md.fmi_version == fmi::FmiVersion::V3 && v.alias != fmi::Alias::NoAlias
    };
    let (aliases, variables): (Vec<_>, Vec<_>) = md.variables.iter().partition(is_alias);
    variables.into_iter().chain(aliases).collect()
}

/// The variables FMPy records by default: the outputs; without outputs, the first five
/// variables.
fn default_outputs(md: &ModelDescription) -> Vec<&ScalarVariable> {
    let all = variable_order(md);
    let outputs: Vec<&ScalarVariable> = all
        .iter()
        .copied()
        .filter(|v| v.causality == Causality::Output)
        .collect();
    if outputs.is_empty() {
        all.into_iter().take(5).collect()
    } else {
        outputs
    }
}

/// The variables to record: those named in `output` (in the order of the model description;
/// unknown names are warned about), else [`default_outputs`].
fn recorded<'a>(
    py: Python<'_>,
    md: &'a ModelDescription,
    output: Option<Vec<String>>,
) -> PyResult<Vec<&'a ScalarVariable>> {
    let Some(names) = output else {
        return Ok(default_outputs(md));
    };
    let unknown: Vec<&str> = names
        .iter()
        .filter(|n| md.variable_by_name(n).is_none())
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        py.import("warnings")?.call_method1(
            "warn",
            (format!(
                "simulate_fmu: output names no variable of the FMU: {} (not recorded)",
                unknown.join(", ")
            ),),
        )?;
    }
    Ok(variable_order(md)
        .into_iter()
        .filter(|v| names.contains(&v.name))
        .collect())
}

/// Start, stop and communication step as FMPy chooses them from the arguments and the
/// model description (all s).
fn times(
    md: &ModelDescription,
    start: Option<f64>,
    stop: Option<f64>,
    interval: Option<f64>,
) -> (f64, f64, f64) {
    let experiment = md.default_experiment.unwrap_or_default();
    let start = start.or(experiment.start_time).unwrap_or(0.0);
    let stop = stop.or(experiment.stop_time).unwrap_or(start + 1.0);
    let interval = interval.or_else(|| {
        let mut h = md
            .capabilities
            .fixed_internal_step_size
            .or(experiment.step_size)?;
        while (stop - start) / h > 1000.0 {
            h *= 2.0;
        }
        Some(h)
    });
    (
        start,
        stop,
        interval.unwrap_or_else(|| time::auto_interval(stop - start)),
    )
}

/// The keywords that mastersim refuses unless they have FMPy's default value.
#[allow(clippy::too_many_arguments)]
fn refuse_unsupported(
    fmi_type: Option<&str>,
    apply_default_start_values: bool,
    logger: Option<&Bound<'_, PyAny>>,
    fmi_call_logger: Option<&Bound<'_, PyAny>>,
    step_finished: Option<&Bound<'_, PyAny>>,
    fmu_instance: Option<&Bound<'_, PyAny>>,
    set_input_derivatives: bool,
    remote_platform: Option<&str>,
    initialize: bool,
    fmu_state: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let given = |v: Option<&Bound<'_, PyAny>>| v.is_some_and(|v| !v.is_none());
    match fmi_type {
        None | Some("CoSimulation") => {}
        Some("ModelExchange") => {
            return Err(unsupported(
                "fmi_type='ModelExchange'",
                "simulate_fmu runs co-simulation only; mastersim.simulate(filename, \
                 fmi_type='ModelExchange', solver='CVode', relative_tolerance=…) runs Model \
                 Exchange",
            ));
        }
        Some(other) => {
            return Err(InputError::new_err(format!(
                "simulate_fmu: fmi_type must be 'CoSimulation' or 'ModelExchange', not '{other}'"
            )));
        }
    }
    let refusals = [
        (
            apply_default_start_values,
            "apply_default_start_values=True",
            "deprecated in FMPy; pass start_values",
        ),
        (
            given(logger),
            "logger",
            "FMU log messages are not passed to a Python callback",
        ),
        (
            given(fmi_call_logger),
            "fmi_call_logger",
            "FMI calls are not traced",
        ),
        (
            given(step_finished),
            "step_finished",
            "the run happens in Rust without the GIL; no callback is made per step",
        ),
        (
            given(fmu_instance),
            "fmu_instance",
            "mastersim keeps the loaded FMU itself between calls; drop the argument",
        ),
        (
            set_input_derivatives,
            "set_input_derivatives=True",
            "input derivatives are not set",
        ),
        (
            !matches!(remote_platform, None | Some("auto")),
            "remote_platform",
            "only this machine's platform runs",
        ),
        (
            !initialize,
            "initialize=False",
            "every run initializes its own instance",
        ),
        (
            given(fmu_state),
            "fmu_state",
            "runs start from initialization",
        ),
    ];
    match refusals.iter().find(|(refused, _, _)| *refused) {
        Some((_, keyword, why)) => Err(unsupported(keyword, why)),
        None => Ok(()),
    }
}

/// Simulates the co-simulation FMU `filename` as FMPy 0.3's `simulate_fmu` does and returns
/// the recorded rows: a numpy structured array of shape `(rows,)` with field `time` (s,
/// float64) first, then one field per recorded variable (FMPy's names, order and dtypes).
///
/// See `docs/python.md` for every keyword; `solver`, `step_size` and `record_events` concern
/// Model Exchange only and, as in FMPy, do nothing here; `model_description` is accepted and
/// not needed (mastersim reads and keeps the FMU's description itself).
///
/// # Errors
/// `InputError`: a file that cannot be read or is no co-simulation FMU, a bad argument, a
/// keyword mastersim does not support; `SimulationError`: an FMI call that failed; a
/// `KeyboardInterrupt` when Ctrl-C is pressed.
#[pyfunction]
#[pyo3(signature = (
    filename, validate=true, start_time=None, stop_time=None, solver="CVode", step_size=None,
    relative_tolerance=None, output_interval=None, record_events=true, fmi_type=None,
    start_values=None, apply_default_start_values=false, input=None, output=None, timeout=None,
    debug_logging=false, visible=false, logger=None, fmi_call_logger=None, step_finished=None,
    model_description=None, fmu_instance=None, set_input_derivatives=false,
    remote_platform=Some("auto"), early_return_allowed=false, use_event_mode=false,
    initialize=true, terminate=true, fmu_state=None, set_stop_time=true
))]
#[allow(clippy::too_many_arguments, unused_variables)]
pub fn simulate_fmu<'py>(
    py: Python<'py>,
    filename: PathBuf,
    validate: bool,
    start_time: Option<Bound<'py, PyAny>>,
    stop_time: Option<Bound<'py, PyAny>>,
    solver: &str,
    step_size: Option<Bound<'py, PyAny>>,
    relative_tolerance: Option<Bound<'py, PyAny>>,
    output_interval: Option<Bound<'py, PyAny>>,
    record_events: bool,
    fmi_type: Option<&str>,
    start_values: Option<Bound<'py, PyDict>>,
    apply_default_start_values: bool,
    input: Option<Bound<'py, PyAny>>,
    output: Option<Vec<String>>,
    timeout: Option<Bound<'py, PyAny>>,
    debug_logging: bool,
    visible: bool,
    logger: Option<Bound<'py, PyAny>>,
    fmi_call_logger: Option<Bound<'py, PyAny>>,
    step_finished: Option<Bound<'py, PyAny>>,
    model_description: Option<Bound<'py, PyAny>>,
    fmu_instance: Option<Bound<'py, PyAny>>,
    set_input_derivatives: bool,
    remote_platform: Option<&str>,
    early_return_allowed: bool,
    use_event_mode: bool,
    initialize: bool,
    terminate: bool,
    fmu_state: Option<Bound<'py, PyAny>>,
    set_stop_time: bool,
) -> PyResult<Bound<'py, PyAny>> {
    refuse_unsupported(
        fmi_type,
        apply_default_start_values,
        logger.as_ref(),
        fmi_call_logger.as_ref(),
        step_finished.as_ref(),
        fmu_instance.as_ref(),
        set_input_derivatives,
        remote_platform,
        initialize,
        fmu_state.as_ref(),
    )?;
    let loaded = fmu_cache::load(&filename).map_err(|e| InputError::new_err(e.0))?;
    let md = loaded.fmu.description();
    validate::refuse_invalid(md, &filename, validate, "runs it")?;
    let (start, stop, interval) = times(
        md,
        seconds("start_time", start_time.as_ref())?,
        seconds("stop_time", stop_time.as_ref())?,
        seconds("output_interval", output_interval.as_ref())?,
    );
    if !(interval > 0.0 && interval.is_finite()) {
        return Err(InputError::new_err(format!(
            "simulate_fmu: output_interval must be > 0 s, not {interval}"
        )));
    }
    let tolerance = seconds("relative_tolerance", relative_tolerance.as_ref())?
        .or_else(|| md.default_experiment.as_ref().and_then(|e| e.tolerance));
    let settings = RunSettings {
        start,
        stop,
        interval,
        tolerance,
        set_stop_time,
        timeout: seconds("timeout", timeout.as_ref())?,
        debug_logging,
        visible,
        early_return_allowed,
        use_event_mode,
        terminate,
    };
    let starts = start::StartValues::new(start_values.as_ref(), md, validate)?;
    let input = match input.filter(|i| !i.is_none()) {
        Some(signals) => input::Input::new(&signals, md)?,
        None => input::Input::default(),
    };
    let variables = recorded(py, md, output)?;
    let rows = ((stop - start) / interval).clamp(0.0, 1e6) as usize + 2;
    let recorder = slave::Recorder::new(&variables, rows);
    let fmu = loaded.fmu.clone();
    let result = crate::signals::detached(py, |signals| {
        driver::run(&fmu, &settings, starts, &input, recorder, signals)
    });
    let recorder = result.map_err(|e| match e {
        RunError::Call(message) => {
            SimulationError::new_err(format!("{}: {message}", filename.display()))
        }
        RunError::Interrupted(e) => e,
    })?;
    crate::results::structured_array(py, recorder.into_columns())
}
