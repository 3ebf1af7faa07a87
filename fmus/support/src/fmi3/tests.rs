//! The FMI 3.0 entry points, called as an importer would (raw pointers, C booleans as bytes,
//! the log callback with an environment pointer).

use std::cell::RefCell;
use std::ffi::{CStr, CString};

use super::*;
use crate::fmi2;
use crate::model::{ModelError, StepOutcome};
use crate::model3::{Causality3, DataType, Dimension, Values, ValuesMut, Variable3};

/// `y = gain·u` (3 elements), `z = gain·u[0]`, a Boolean, a String and a Binary input, and a
/// tick counter with events every `period` s (none for `period == 0`). `boom` panics.
#[derive(Clone, Debug)]
struct Echo {
    u: [f64; 3],
    gain: f64,
    flag: bool,
    text: String,
    blob: Vec<u8>,
    ticks: i32,
    period: f64,
    next: f64,
    events: bool,
}

const VR_U: u32 = 1;
const VR_Y: u32 = 2;
const VR_FLAG: u32 = 3;
const VR_TEXT: u32 = 4;
const VR_BLOB: u32 = 5;
const VR_GAIN: u32 = 6;
const VR_TICKS: u32 = 7;
const VR_Z: u32 = 8;
const VR_PERIOD: u32 = 9;
const VR_BOOM: u32 = 10;

const VARS: &[Variable3] = &[
    Variable3::new("u", VR_U, DataType::Float64, Causality3::Input).array(&[Dimension::Fixed(3)]),
    Variable3::new("y", VR_Y, DataType::Float64, Causality3::Output).array(&[Dimension::Fixed(3)]),
    Variable3::new("flag", VR_FLAG, DataType::Boolean, Causality3::Input),
    Variable3::new("text", VR_TEXT, DataType::String, Causality3::Input),
    Variable3::new("blob", VR_BLOB, DataType::Binary, Causality3::Input),
    Variable3::new("gain", VR_GAIN, DataType::Float64, Causality3::Parameter),
    Variable3::new("ticks", VR_TICKS, DataType::Int32, Causality3::Output),
    Variable3::new("z", VR_Z, DataType::Float64, Causality3::Output),
    Variable3::new(
        "period",
        VR_PERIOD,
        DataType::Float64,
        Causality3::Parameter,
    ),
    Variable3::new("boom", VR_BOOM, DataType::Float64, Causality3::Local),
];

impl Model for Echo {
    fn instantiate(token: &str) -> Option<Self> {
        let events = match token {
            "{echo}" => true,
            "{echo-without-events}" => false,
            _ => return None,
        };
        Some(Self {
            u: [1.0, 2.0, 3.0],
            gain: 2.0,
            flag: false,
            text: "start".into(),
            blob: vec![0, 255],
            ticks: 0,
            period: 0.25,
            next: 0.25,
            events,
        })
    }
    fn variables(&self) -> &'static [crate::Variable] {
        &[]
    }
    fn variables3(&self) -> &'static [Variable3] {
        VARS
    }
    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        self.ticks = 0;
        self.next = self.period;
        Ok(())
    }
    fn do_step(&mut self, _t: f64, _h: f64) -> StepOutcome {
        StepOutcome::Completed
    }
    fn get_values(&self, vr: u32, values: ValuesMut<'_>) -> Result<(), ModelError> {
        match (vr, values) {
            (VR_U, ValuesMut::Float64(v)) => v.copy_from_slice(&self.u),
            (VR_Y, ValuesMut::Float64(v)) => {
                for (y, u) in v.iter_mut().zip(self.u) {
                    *y = self.gain * u;
                }
            }
            (VR_Z, ValuesMut::Float64([v])) => *v = self.gain * self.u[0],
            (VR_GAIN, ValuesMut::Float64([v])) => *v = self.gain,
            (VR_PERIOD, ValuesMut::Float64([v])) => *v = self.period,
            (VR_FLAG, ValuesMut::Boolean([v])) => *v = self.flag,
            (VR_TEXT, ValuesMut::String([v])) => v.clone_from(&self.text),
            (VR_BLOB, ValuesMut::Binary([v])) => v.clone_from(&self.blob),
            (VR_TICKS, ValuesMut::Int32([v])) => *v = self.ticks,
            (VR_BOOM, _) => panic!("boom"),
            _ => return Err(ModelError::Unsupported { what: "vr" }),
        }
        Ok(())
    }
    fn set_values(&mut self, vr: u32, values: Values<'_>) -> Result<(), ModelError> {
        match (vr, values) {
            (VR_U, Values::Float64(v)) => self.u.copy_from_slice(v),
            (VR_GAIN, Values::Float64(&[v])) => self.gain = v,
            (VR_PERIOD, Values::Float64(&[v])) => self.period = v,
            (VR_FLAG, Values::Boolean(&[v])) => self.flag = v,
            (VR_TEXT, Values::String(&[v])) => v.clone_into(&mut self.text),
            (VR_BLOB, Values::Binary(&[v])) => v.clone_into(&mut self.blob),
            _ => return Err(ModelError::Unsupported { what: "vr" }),
        }
        Ok(())
    }
    fn has_event_mode(&self) -> bool {
        self.events
    }
    fn next_event_time(&self) -> Option<f64> {
        (self.period > 0.0).then_some(self.next)
    }
    fn update_discrete_states(&mut self, _t: f64) -> Result<(), ModelError> {
        self.ticks += 1;
        self.next += self.period;
        Ok(())
    }
    fn directional_derivative(
        &self,
        unknowns: &[u32],
        knowns: &[u32],
        dv_known: &[f64],
        dv_unknown: &mut [f64],
    ) -> Option<Result<(), ModelError>> {
        let ok = unknowns == [VR_Z] && knowns == [VR_GAIN];
        Some(if ok {
            dv_unknown[0] = self.u[0] * dv_known[0];
            Ok(())
        } else {
            Err(ModelError::NoDerivative {
                unknown: unknowns[0],
                known: knowns[0],
            })
        })
    }
    fn save_state(&self) -> Option<Vec<f64>> {
        let [a, b, c] = self.u;
        Some(vec![
            a,
            b,
            c,
            self.gain,
            self.ticks.into(),
            self.period,
            self.next,
        ])
    }
    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let [a, b, c, gain, ticks, period, next] = crate::state_array("Echo", state)?;
        self.u = [a, b, c];
        self.gain = gain;
        self.ticks = ticks as i32;
        self.period = period;
        self.next = next;
        Ok(())
    }
}

/// Messages received by [`record`]: (status, category, message).
type Log = RefCell<Vec<(Status, String, String)>>;

unsafe extern "C" fn record(
    environment: InstanceEnvironment,
    status: Status,
    category: FmiString,
    message: FmiString,
) {
    // SAFETY: the tests pass a `&Log` as the environment and keep it alive; the layer passes
    // NUL-terminated strings.
    let (log, category, message) = unsafe {
        (
            &*environment.cast::<Log>(),
            CStr::from_ptr(category),
            CStr::from_ptr(message),
        )
    };
    log.borrow_mut().push((
        status,
        category.to_string_lossy().into_owned(),
        message.to_string_lossy().into_owned(),
    ));
}

struct Options<'a> {
    token: &'a CStr,
    logging_on: bool,
    event_mode_used: bool,
    early_return_allowed: bool,
    resource_path: Option<&'a CStr>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Self {
            token: c"{echo}",
            logging_on: false,
            event_mode_used: false,
            early_return_allowed: false,
            resource_path: Some(c"/tmp/echo/resources/"),
        }
    }
}

fn instantiate(log: &Log, o: &Options<'_>) -> Instance {
    // SAFETY: NUL-terminated strings and a log that outlive the instance (freed in each test).
    unsafe {
        instantiate_co_simulation::<Echo>(
            c"echo".as_ptr(),
            o.token.as_ptr(),
            o.resource_path.map_or(ptr::null(), CStr::as_ptr),
            FALSE,
            o.logging_on,
            o.event_mode_used,
            o.early_return_allowed,
            ptr::null(),
            0,
            ptr::from_ref(log).cast_mut().cast(),
            Some(record),
            None,
        )
    }
}

/// Instantiates, initializes at t = 0 and enters Step Mode (through Event Mode if used).
fn started(log: &Log, o: &Options<'_>) -> Instance {
    let c = instantiate(log, o);
    assert!(!c.is_null(), "{:?}", log.borrow());
    // SAFETY: a live instance used by this thread only.
    unsafe {
        assert_eq!(
            enter_initialization_mode::<Echo>(c, FALSE, 0.0, 0.0, TRUE, 1.0),
            STATUS_OK
        );
        assert_eq!(exit_initialization_mode::<Echo>(c), STATUS_OK);
        if o.event_mode_used {
            let (mut need, mut next) = (TRUE, -1.0);
            assert_eq!(update(c, &mut need, &mut next), STATUS_OK);
            assert_eq!((need, next), (FALSE, 0.25));
            assert_eq!(enter_step_mode::<Echo>(c), STATUS_OK);
        }
    }
    c
}

/// `fmi3UpdateDiscreteStates` with the flags that are always false checked.
///
/// # Safety
/// `c` must be a live instance of this thread.
unsafe fn update(c: Instance, need: &mut Boolean, next: &mut f64) -> Status {
    let (mut terminate, mut nominals, mut values, mut defined) = (TRUE, TRUE, TRUE, FALSE);
    // SAFETY: caller contract; pointers to live locals.
    let status = unsafe {
        update_discrete_states::<Echo>(
            c,
            need,
            &mut terminate,
            &mut nominals,
            &mut values,
            &mut defined,
            next,
        )
    };
    if status == STATUS_OK {
        assert!(!terminate && !nominals && !values && defined);
    }
    status
}

/// Out-arguments of `fmi3DoStep`.
#[derive(Debug, PartialEq)]
struct Step {
    status: Status,
    event_handling_needed: bool,
    terminate: bool,
    early_return: bool,
    last_successful_time: f64,
}

fn step(c: Instance, t: f64, h: f64, no_set_prior: bool) -> Step {
    let (mut event, mut terminate, mut early, mut last) = (TRUE, TRUE, TRUE, f64::NAN);
    // SAFETY: a live instance; pointers to live locals.
    let status = unsafe {
        do_step::<Echo>(
            c,
            t,
            h,
            no_set_prior,
            &mut event,
            &mut terminate,
            &mut early,
            &mut last,
        )
    };
    Step {
        status,
        event_handling_needed: event,
        terminate,
        early_return: early,
        last_successful_time: last,
    }
}

fn get_f64(c: Instance, vrs: &[u32], n: usize) -> Vec<f64> {
    let mut out = vec![f64::NAN; n];
    // SAFETY: a live instance; arrays of the lengths passed.
    let status = unsafe { get_float64::<Echo>(c, vrs.as_ptr(), vrs.len(), out.as_mut_ptr(), n) };
    assert_eq!(status, STATUS_OK);
    out
}

fn free(c: Instance) {
    // SAFETY: a live instance of this thread, not used afterwards.
    unsafe { free_instance::<Echo>(c) }
}

#[test]
fn instantiation_refusals_are_logged() {
    let log = Log::default();
    for (options, reason) in [
        (
            Options {
                token: c"{nope}",
                ..Options::default()
            },
            "unknown instantiationToken",
        ),
        (
            Options {
                token: c"{echo-without-events}",
                event_mode_used: true,
                ..Options::default()
            },
            "hasEventMode",
        ),
    ] {
        assert!(instantiate(&log, &options).is_null());
        let last = log.borrow().last().cloned().expect("a message");
        assert_eq!(last.0, STATUS_ERROR);
        assert_eq!(last.1, "logStatusError");
        assert!(last.2.contains(reason), "{}", last.2);
    }
    // SAFETY: null and NUL-terminated strings; the log outlives the calls.
    unsafe {
        let env = ptr::from_ref(&log).cast_mut().cast();
        let name_missing = instantiate_co_simulation::<Echo>(
            ptr::null(),
            c"{echo}".as_ptr(),
            ptr::null(),
            FALSE,
            FALSE,
            FALSE,
            FALSE,
            ptr::null(),
            0,
            env,
            Some(record),
            None,
        );
        assert!(name_missing.is_null());
        let vrs = [VR_Y];
        let intermediate = instantiate_co_simulation::<Echo>(
            c"echo".as_ptr(),
            c"{echo}".as_ptr(),
            ptr::null(),
            FALSE,
            FALSE,
            FALSE,
            FALSE,
            vrs.as_ptr(),
            1,
            env,
            Some(record),
            None,
        );
        assert!(intermediate.is_null());
        assert!(instantiate_model_exchange(env, Some(record)).is_null());
        assert!(instantiate_scheduled_execution(env, None).is_null());
    }
    assert!(log.borrow().iter().any(|m| m.2.contains("Model Exchange")));

    let warned = Log::default();
    let c = instantiate(
        &warned,
        &Options {
            resource_path: Some(c"/tmp/no-slash"),
            ..Options::default()
        },
    );
    assert!(!c.is_null());
    assert_eq!(warned.borrow()[0].1, "logStatusWarning");
    free(c);
}

#[test]
fn no_set_prior_is_logged_at_debug_when_logging_is_on() {
    let log = Log::default();
    let c = started(
        &log,
        &Options {
            logging_on: true,
            ..Options::default()
        },
    );
    assert_eq!(step(c, 0.0, 0.1, TRUE).status, STATUS_OK);
    assert_eq!(step(c, 0.1, 0.1, FALSE).status, STATUS_OK);
    let debug: Vec<String> = log
        .borrow()
        .iter()
        .filter(|m| m.1 == "logDebug")
        .map(|m| m.2.clone())
        .collect();
    assert_eq!(debug.len(), 2, "{debug:?}");
    assert!(debug[0].contains("noSetFMUStatePriorToCurrentPoint = true"));
    assert!(debug[1].contains("t = 0.1 s: noSetFMUStatePriorToCurrentPoint = false"));
    assert!(log.borrow().iter().any(|m| m.1 == "logCalls"));
    free(c);

    // Off by default; fmi3SetDebugLogging switches the category alone.
    let quiet = Log::default();
    let c = started(&quiet, &Options::default());
    assert_eq!(step(c, 0.0, 0.1, TRUE).status, STATUS_OK);
    assert!(quiet.borrow().is_empty());
    let names = [c"logDebug".as_ptr()];
    // SAFETY: a live instance; one category name.
    unsafe {
        assert_eq!(
            set_debug_logging::<Echo>(c, TRUE, 1, names.as_ptr()),
            STATUS_OK
        );
    }
    assert_eq!(step(c, 0.1, 0.1, TRUE).status, STATUS_OK);
    assert_eq!(quiet.borrow().len(), 1);
    assert_eq!(quiet.borrow()[0].1, "logDebug");
    let unknown = [c"logNothing".as_ptr()];
    // SAFETY: as above.
    let status = unsafe { set_debug_logging::<Echo>(c, TRUE, 1, unknown.as_ptr()) };
    assert_eq!(status, STATUS_WARNING);
    free(c);
}

#[test]
fn every_kind_of_value_crosses_the_c_boundary() {
    let log = Log::default();
    let c = started(&log, &Options::default());
    // SAFETY: a live instance; every array has the length passed with it.
    unsafe {
        let u = [0.5, -1.0, 4.0];
        assert_eq!(set_float64::<Echo>(c, &VR_U, 1, u.as_ptr(), 3), STATUS_OK);
        assert_eq!(get_f64(c, &[VR_Y, VR_Z], 4), [1.0, -2.0, 8.0, 1.0]);
        let mut three = [0.0; 3];
        assert_eq!(
            get_float64::<Echo>(c, &VR_U, 1, three.as_mut_ptr(), 2),
            STATUS_ERROR,
            "nValues must be the element count"
        );
        free(c);
    }
    let c = started(&log, &Options::default());
    // SAFETY: as above; the Boolean arrays are passed as bytes on purpose.
    unsafe {
        let two = [2u8];
        assert_eq!(
            set_boolean::<Echo>(c, &VR_FLAG, 1, two.as_ptr().cast(), 1),
            STATUS_OK
        );
        let mut byte = [7u8];
        assert_eq!(
            get_boolean::<Echo>(c, &VR_FLAG, 1, byte.as_mut_ptr().cast(), 1),
            STATUS_OK
        );
        assert_eq!(byte, [1], "any non-zero byte is true; true is written as 1");

        let text = CString::new("Grüße").expect("no NUL");
        assert_eq!(
            set_string::<Echo>(c, &VR_TEXT, 1, &text.as_ptr(), 1),
            STATUS_OK
        );
        let mut out: [FmiString; 2] = [ptr::null(); 2];
        let vrs = [VR_TEXT, VR_TEXT];
        assert_eq!(
            get_string::<Echo>(c, vrs.as_ptr(), 2, out.as_mut_ptr(), 2),
            STATUS_OK
        );
        assert_eq!(CStr::from_ptr(out[0]).to_str(), Ok("Grüße"));
        assert_eq!(CStr::from_ptr(out[1]).to_str(), Ok("Grüße"));

        let bytes = [0u8, 0, 9];
        let (sizes, pointers) = ([3usize], [bytes.as_ptr()]);
        assert_eq!(
            set_binary::<Echo>(c, &VR_BLOB, 1, sizes.as_ptr(), pointers.as_ptr(), 1),
            STATUS_OK
        );
        let (mut size, mut pointer) = ([0usize], [ptr::null::<u8>()]);
        assert_eq!(
            get_binary::<Echo>(c, &VR_BLOB, 1, size.as_mut_ptr(), pointer.as_mut_ptr(), 1),
            STATUS_OK
        );
        assert_eq!(std::slice::from_raw_parts(pointer[0], size[0]), [0, 0, 9]);
        let (empty, null) = ([0usize], [ptr::null::<u8>()]);
        assert_eq!(
            set_binary::<Echo>(c, &VR_BLOB, 1, empty.as_ptr(), null.as_ptr(), 1),
            STATUS_OK,
            "zero bytes at a null pointer"
        );

        let mut ticks = [-1i32];
        assert_eq!(
            get_int32::<Echo>(c, &VR_TICKS, 1, ticks.as_mut_ptr(), 1),
            STATUS_OK
        );
        assert_eq!(ticks, [0]);
        let mut wrong = [0i64];
        assert_eq!(
            get_int64::<Echo>(c, &VR_TICKS, 1, wrong.as_mut_ptr(), 1),
            STATUS_ERROR,
            "an Int32 variable through fmi3GetInt64"
        );
        free(c);
    }
    let c = started(&log, &Options::default());
    // SAFETY: as above; null arrays with a non-zero count are refused, not dereferenced.
    unsafe {
        assert_eq!(
            get_float64::<Echo>(c, ptr::null(), 1, ptr::null_mut(), 3),
            STATUS_ERROR
        );
        assert_eq!(
            get_float64::<Echo>(c, ptr::null(), 0, ptr::null_mut(), 0),
            STATUS_OK
        );
        free(c);
    }
}

#[test]
fn do_step_and_event_mode_out_arguments() {
    let log = Log::default();
    let c = started(
        &log,
        &Options {
            event_mode_used: true,
            ..Options::default()
        },
    );
    assert_eq!(
        step(c, 0.0, 0.1, TRUE),
        Step {
            status: STATUS_OK,
            event_handling_needed: false,
            terminate: false,
            early_return: false,
            last_successful_time: 0.1
        }
    );
    let s = step(c, 0.1, 0.2, TRUE);
    assert!(s.event_handling_needed && !s.early_return, "{s:?}");
    let s = step(c, 0.30000000000000004, 0.1, TRUE);
    assert_eq!(s.status, STATUS_ERROR, "the event was not handled");
    assert!(!s.event_handling_needed && s.last_successful_time == 0.30000000000000004);
    free(c);

    let c = started(
        &log,
        &Options {
            event_mode_used: true,
            ..Options::default()
        },
    );
    assert!(step(c, 0.0, 0.5, TRUE).event_handling_needed);
    // SAFETY: a live instance of this thread; pointers to live locals.
    unsafe {
        assert_eq!(enter_event_mode::<Echo>(c), STATUS_OK);
        let (mut need, mut next) = (FALSE, 0.0);
        assert_eq!(update(c, &mut need, &mut next), STATUS_OK);
        assert_eq!((need, next), (TRUE, 0.5), "0.5 is due too");
        assert_eq!(update(c, &mut need, &mut next), STATUS_OK);
        assert_eq!((need, next), (FALSE, 0.75));
        assert_eq!(enter_step_mode::<Echo>(c), STATUS_OK);
        let mut ticks = [0i32];
        assert_eq!(
            get_int32::<Echo>(c, &VR_TICKS, 1, ticks.as_mut_ptr(), 1),
            STATUS_OK
        );
        assert_eq!(ticks, [2]);
        let (mut e, mut t, mut r) = (FALSE, FALSE, FALSE);
        assert_eq!(
            do_step::<Echo>(c, 0.5, 0.1, TRUE, &mut e, &mut t, &mut r, ptr::null_mut()),
            STATUS_ERROR,
            "lastSuccessfulTime must not be null"
        );
        assert_eq!(terminate::<Echo>(c), STATUS_ERROR, "in the error state");
        assert_eq!(reset::<Echo>(c), STATUS_OK);
    }
    free(c);

    // Without Event Mode, fmi3EnterEventMode is refused.
    let c = started(&log, &Options::default());
    // SAFETY: a live instance of this thread.
    unsafe {
        assert_eq!(enter_event_mode::<Echo>(c), STATUS_ERROR);
    }
    free(c);
}

#[test]
fn states_serialize_through_the_c_functions() {
    let log = Log::default();
    let a = started(&log, &Options::default());
    let b = started(&log, &Options::default());
    assert_eq!(step(a, 0.0, 0.3, TRUE).status, STATUS_OK);
    // SAFETY: live instances of this thread; pointers to live locals and buffers.
    unsafe {
        let mut state: FmuState = ptr::null_mut();
        assert_eq!(get_fmu_state::<Echo>(a, &mut state), STATUS_OK);
        let mut size = 0;
        assert_eq!(
            serialized_fmu_state_size::<Echo>(a, state, &mut size),
            STATUS_OK
        );
        let mut bytes = vec![0u8; size];
        assert_eq!(
            serialize_fmu_state::<Echo>(a, state, bytes.as_mut_ptr(), size),
            STATUS_OK
        );
        assert_eq!(&bytes[..8], b"MSIMFMUS");
        assert_eq!(free_fmu_state::<Echo>(a, &mut state), STATUS_OK);
        assert!(state.is_null());

        let mut copy: FmuState = ptr::null_mut();
        assert_eq!(
            deserialize_fmu_state::<Echo>(b, bytes.as_ptr(), size, &mut copy),
            STATUS_OK
        );
        assert_eq!(set_fmu_state::<Echo>(b, copy), STATUS_OK);
        assert_eq!(free_fmu_state::<Echo>(b, &mut copy), STATUS_OK);
        let mut ticks = [0i32];
        assert_eq!(
            get_int32::<Echo>(b, &VR_TICKS, 1, ticks.as_mut_ptr(), 1),
            STATUS_OK
        );
        assert_eq!(ticks, [1], "the tick at 0.25 came along");
        assert_eq!(
            step(b, 0.3, 0.1, TRUE).status,
            STATUS_OK,
            "b is at t = 0.3 now"
        );
        assert_eq!(
            deserialize_fmu_state::<Echo>(b, bytes.as_ptr(), size - 1, &mut copy),
            STATUS_ERROR
        );
        assert!(copy.is_null());
    }
    free(a);
    free(b);
}

#[test]
fn derivatives_stubs_panics_and_foreign_handles() {
    let log = Log::default();
    let c = started(&log, &Options::default());
    // SAFETY: a live instance of this thread; arrays of the lengths passed.
    unsafe {
        let (unknowns, knowns, seed) = ([VR_Z], [VR_GAIN], [3.0]);
        let mut sensitivity = [0.0];
        assert_eq!(
            get_directional_derivative::<Echo>(
                c,
                unknowns.as_ptr(),
                1,
                knowns.as_ptr(),
                1,
                seed.as_ptr(),
                1,
                sensitivity.as_mut_ptr(),
                1
            ),
            STATUS_OK
        );
        assert_eq!(sensitivity, [3.0], "∂z/∂gain = u[0] = 1");
        assert_eq!(
            get_directional_derivative::<Echo>(
                c,
                unknowns.as_ptr(),
                1,
                knowns.as_ptr(),
                1,
                seed.as_ptr(),
                0,
                sensitivity.as_mut_ptr(),
                1
            ),
            STATUS_ERROR,
            "nSeed != nKnowns"
        );
        assert_eq!(reset::<Echo>(c), STATUS_OK);
        assert_eq!(
            unsupported::<Echo>(c, "fmi3GetClock", "clocks"),
            STATUS_ERROR
        );
        assert!(log.borrow().last().is_some_and(|m| m.2.contains("clocks")));
        assert_eq!(reset::<Echo>(c), STATUS_OK);
        assert_eq!(
            enter_initialization_mode::<Echo>(c, FALSE, 0.0, 0.0, FALSE, 0.0),
            STATUS_OK
        );
        let mut v = [0.0];
        assert_eq!(
            get_float64::<Echo>(c, &VR_BOOM, 1, v.as_mut_ptr(), 1),
            STATUS_ERROR
        );
        assert!(log.borrow().last().is_some_and(|m| m.2.contains("panic")));
    }
    // An FMI 2.0 instance of the same library is no FMI 3.0 instance.
    let callbacks = fmi2::CallbackFunctions {
        logger: None,
        allocate_memory: None,
        free_memory: None,
        step_finished: None,
        component_environment: ptr::null_mut(),
    };
    // SAFETY: NUL-terminated strings and a callback struct that outlive the calls.
    unsafe {
        let two = fmi2::instantiate::<Echo>(
            c"two".as_ptr(),
            fmi2::CO_SIMULATION,
            c"{echo}".as_ptr(),
            ptr::null(),
            &raw const callbacks,
            fmi2::FALSE,
            fmi2::FALSE,
        );
        assert!(!two.is_null());
        assert_eq!(reset::<Echo>(two), STATUS_ERROR);
        free_instance::<Echo>(two);
        assert_eq!(fmi2::reset::<Echo>(two), fmi2::STATUS_OK, "still alive");
        fmi2::free_instance::<Echo>(two);
        assert_eq!(fmi2::reset::<Echo>(c), fmi2::STATUS_ERROR);
    }
    free(c);
    assert_eq!(step(c, 0.0, 0.1, TRUE).status, STATUS_ERROR, "freed");
    // SAFETY: `get_version` returns a static NUL-terminated string.
    assert_eq!(unsafe { CStr::from_ptr(get_version()) }, c"3.0");
}
