//! FMPy's co-simulation loop for one FMU: instantiate, set start values, initialize, step on
//! FMPy's communication grid, record every communication point, terminate.
//!
//! The grid: communication point n is `start + n · output_interval` (computed by
//! multiplication, not summed); an FMU that can handle variable communication step sizes also
//! stops at input events and at the stop time. The run ends at the stop time (within
//! `math.isclose`), when the FMU asks to terminate, or after `timeout` seconds of wall time.
//!
//! Spec: FMPy 0.3 `simulation.simulateCS`; FMI 2.0.2 §4.2.4 (calling sequence), FMI 3.0
//! co-simulation state machine.

use std::sync::Arc;
use std::time::Instant;

use fmi::{Fmi3InstantiateOptions, FmiVersion, Fmu, InstantiateOptions, StepOutcome};

use super::input::Input;
use super::slave::{CallResult, Recorder, Slave, call};
use super::start::StartValues;
use super::time::is_close;
use crate::signals::SignalCheck;

/// What one run does, all times in s.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// Start time.
    pub start: f64,
    /// Stop time.
    pub stop: f64,
    /// Communication step size of the regular grid (> 0).
    pub interval: f64,
    /// Relative tolerance passed to the FMU (`None`: not defined).
    pub tolerance: Option<f64>,
    /// Pass the stop time to the FMU.
    pub set_stop_time: bool,
    /// Longest wall time of the run (`None`: no limit).
    pub timeout: Option<f64>,
    /// `loggingOn` of the instance.
    pub debug_logging: bool,
    /// `visible` of the instance.
    pub visible: bool,
    /// FMI 3.0: allow early return from `fmi3DoStep`.
    pub early_return_allowed: bool,
    /// FMI 3.0: use Event Mode.
    pub use_event_mode: bool,
    /// Call terminate at the end.
    pub terminate: bool,
}

/// Why a run stopped early, or failed.
#[derive(Debug)]
pub enum RunError {
    /// An FMI call failed (message names the call and status).
    Call(String),
    /// The user interrupted (KeyboardInterrupt pending).
    Interrupted(pyo3::PyErr),
}

impl From<String> for RunError {
    fn from(message: String) -> Self {
        RunError::Call(message)
    }
}

fn instantiate(fmu: &Arc<Fmu>, s: &RunSettings) -> CallResult<Slave> {
    let name = fmu.description().model_identifier.clone();
    Ok(match fmu.description().fmi_version {
        FmiVersion::V3 => Slave::V3(Box::new(call(fmu.instantiate_fmi3(
            &name,
            &Fmi3InstantiateOptions {
                visible: s.visible,
                logging_on: s.debug_logging,
                event_mode_used: s.use_event_mode,
                early_return_allowed: s.early_return_allowed,
            },
        ))?)),
        _ => Slave::V2(call(fmu.instantiate(
            &name,
            &InstantiateOptions {
                visible: s.visible,
                logging_on: s.debug_logging,
            },
        ))?),
    })
}

/// Initializes `slave` as FMPy does: start values settable before initialization, enter
/// Initialization Mode, the remaining start values, the inputs at the start time, exit (and,
/// with FMI 3.0 Event Mode, the first event iteration).
fn initialize(
    slave: &mut Slave,
    s: &RunSettings,
    starts: &mut StartValues,
    input: &Input,
) -> CallResult<()> {
    let stop = s.set_stop_time.then_some(s.stop);
    match slave {
        Slave::V2(i) => {
            call(i.setup_experiment(s.tolerance, s.start, stop))?;
        }
        Slave::V3(_) => {}
    }
    starts.apply(slave, super::start::Phase::Instantiated)?;
    let fmi1 = matches!(slave, Slave::V2(i) if i.fmu().description().fmi_version == FmiVersion::V1);
    if fmi1 {
        // FMI 1.0: fmiInitializeSlave reads the inputs; there is no Initialization Mode.
        input.apply(slave, s.start, true, true, false)?;
    }
    match slave {
        Slave::V2(i) => call(i.enter_initialization_mode())?,
        Slave::V3(i) => call(i.enter_initialization_mode(s.tolerance, s.start, stop))?,
    };
    starts.apply(slave, super::start::Phase::Initialization)?;
    if !fmi1 {
        input.apply(slave, s.start, true, true, false)?;
    }
    match slave {
        Slave::V2(i) => call(i.exit_initialization_mode())?,
        Slave::V3(i) => call(i.exit_initialization_mode())?,
    };
    if let (Slave::V3(i), true) = (&mut *slave, s.use_event_mode) {
        loop {
            let d = call(i.update_discrete_states())?;
            if d.terminate_simulation {
                return Err(
                    "the FMU asked to terminate the simulation during initialization".into(),
                );
            }
            if !d.discrete_states_need_update {
                break;
            }
        }
        call(i.enter_step_mode())?;
    }
    Ok(())
}

/// Runs the FMU once under `s` and returns the recorded columns (see [`Recorder`]).
///
/// # Errors
/// [`RunError::Call`] for a failed FMI call or a start value that cannot be set;
/// [`RunError::Interrupted`] when Ctrl-C was pressed (checked every 100 ms).
pub fn run(
    fmu: &Arc<Fmu>,
    s: &RunSettings,
    mut starts: StartValues,
    input: &Input,
    mut recorder: Recorder,
    signals: &mut SignalCheck,
) -> Result<Recorder, RunError> {
    let began = Instant::now();
    let mut slave = instantiate(fmu, s)?;
    initialize(&mut slave, s, &mut starts, input)?;
    starts.check_all_set()?;
    let can_vary = fmu
        .description()
        .capabilities
        .can_handle_variable_communication_step_size;
    let mut time = s.start;
    recorder.sample(time, &mut slave)?;
    let mut n_steps: u64 = 0;
    let mut input_applied = false;
    loop {
        signals.poll().map_err(RunError::Interrupted)?;
        if s.timeout
            .is_some_and(|limit| began.elapsed().as_secs_f64() > limit)
        {
            break;
        }
        if time > s.stop || is_close(time, s.stop) {
            break;
        }
        let next_regular = s.start + (n_steps + 1) as f64 * s.interval;
        let mut next = next_regular;
        let next_event = input.next_event(time);
        if can_vary && next > next_event && !is_close(next, next_event) {
            next = next_event;
        }
        if next > s.stop && !is_close(next, s.stop) {
            if can_vary {
                next = s.stop;
            } else {
                break;
            }
        }
        let input_event = is_close(next, next_event);
        let step = take_step(&mut slave, s, input, time, next, input_applied)?;
        time = step.time;
        recorder.sample(time, &mut slave)?;
        if step.terminate {
            break;
        }
        input_applied = false;
        let event_mode = s.use_event_mode && matches!(slave, Slave::V3(_));
        if event_mode && (input_event || step.event) {
            event_iteration(&mut slave, input, time)?;
            recorder.sample(time, &mut slave)?;
            input_applied = true;
        }
        if is_close(time, next_regular) {
            n_steps += 1;
        }
    }
    if s.terminate {
        match &mut slave {
            Slave::V2(i) => call(i.terminate())?,
            Slave::V3(i) => call(i.terminate())?,
        };
    }
    Ok(recorder)
}

/// Where one step ended.
struct Stepped {
    /// The new communication point, s.
    time: f64,
    /// The FMU asked to end the simulation.
    terminate: bool,
    /// FMI 3.0 with Event Mode: the FMU needs event handling.
    event: bool,
}

/// Applies the inputs at `time` and steps from `time` to `next` (s), as FMPy does: FMI 2.0
/// applies every input with the value after an event; FMI 3.0 applies them unless the event
/// iteration just did. An FMI 2.0 terminate request ends the run at `time` (FMPy samples at
/// the FMU's last successful time, the start of the discarded step).
fn take_step(
    slave: &mut Slave,
    s: &RunSettings,
    input: &Input,
    time: f64,
    next: f64,
    input_applied: bool,
) -> CallResult<Stepped> {
    let h = next - time;
    match slave {
        Slave::V2(_) => {
            input.apply(slave, time, true, true, true)?;
            let Slave::V2(i) = slave else {
                unreachable!("matched above")
            };
            Ok(match call(i.do_step(time, h, true))? {
                StepOutcome::Completed(_) => Stepped {
                    time: next,
                    terminate: false,
                    event: false,
                },
                StepOutcome::Terminated => Stepped {
                    time,
                    terminate: true,
                    event: false,
                },
            })
        }
        Slave::V3(_) => {
            let fresh = !input_applied;
            input.apply(slave, time, fresh, fresh, !s.use_event_mode)?;
            let Slave::V3(i) = slave else {
                unreachable!("matched above")
            };
            let r = call(i.do_step(time, h, true))?;
            if r.early_return && !s.early_return_allowed {
                return Err(
                    "the FMU returned early from fmi3DoStep, but early return is not allowed"
                        .into(),
                );
            }
            let time = if r.early_return && r.last_successful_time < next {
                r.last_successful_time
            } else {
                next
            };
            Ok(Stepped {
                time,
                terminate: r.terminate_simulation,
                event: r.event_handling_needed,
            })
        }
    }
}

/// FMI 3.0 with Event Mode: after a step that met an event (the FMU's or an input event),
/// enters Event Mode, applies the inputs after the event, iterates the discrete states and
/// returns to Step Mode (the caller records the row again, as FMPy).
fn event_iteration(slave: &mut Slave, input: &Input, time: f64) -> CallResult<()> {
    if let Slave::V3(i) = slave {
        call(i.enter_event_mode())?;
    }
    input.apply(slave, time, true, true, true)?;
    if let Slave::V3(i) = slave {
        loop {
            let d = call(i.update_discrete_states())?;
            if d.terminate_simulation || !d.discrete_states_need_update {
                break;
            }
        }
        call(i.enter_step_mode())?;
    }
    Ok(())
}
