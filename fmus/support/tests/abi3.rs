//! Calls the exported FMI 3.0 symbols of `export_fmi3!` through independent `extern "C"`
//! declarations (C `bool` as a byte), as an importer would, in a binary that exports the FMI 2.0
//! symbols of the same model too.

use std::cell::RefCell;
use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::ptr;

use fmu_support::{
    Causality3, DataType, Dimension, Model, ModelError, StepOutcome, Values, ValuesMut, Variable,
    Variable3,
};

/// `x' = rate·sum(u)` with a two-element input `u`; an internal event at `t_event` doubles the
/// rate; the FMU may return early there.
#[derive(Clone, Debug)]
struct Ramp {
    u: [f64; 2],
    rate: f64,
    x: f64,
    t_event: f64,
    switched: bool,
}

const VARS: &[Variable3] = &[
    Variable3::new("u", 1, DataType::Float64, Causality3::Input).array(&[Dimension::Fixed(2)]),
    Variable3::new("x", 2, DataType::Float64, Causality3::Output),
    Variable3::new("t_event", 3, DataType::Float64, Causality3::Parameter),
];

impl Model for Ramp {
    fn instantiate(token: &str) -> Option<Self> {
        (token == "{ramp3}").then_some(Self {
            u: [1.0, 0.0],
            rate: 1.0,
            x: 0.0,
            t_event: 0.25,
            switched: false,
        })
    }
    fn variables(&self) -> &'static [Variable] {
        &[]
    }
    fn variables3(&self) -> &'static [Variable3] {
        VARS
    }
    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        self.x = 0.0;
        self.rate = 1.0;
        self.switched = false;
        Ok(())
    }
    fn do_step(&mut self, _t: f64, h: f64) -> StepOutcome {
        self.x += self.rate * (self.u[0] + self.u[1]) * h;
        StepOutcome::Completed
    }
    fn get_values(&self, vr: u32, values: ValuesMut<'_>) -> Result<(), ModelError> {
        match (vr, values) {
            (1, ValuesMut::Float64(v)) => v.copy_from_slice(&self.u),
            (2, ValuesMut::Float64([v])) => *v = self.x,
            (3, ValuesMut::Float64([v])) => *v = self.t_event,
            (vr, values) => return Err(ModelError::unknown3(vr, &values)),
        }
        Ok(())
    }
    fn set_values(&mut self, vr: u32, values: Values<'_>) -> Result<(), ModelError> {
        match (vr, values) {
            (1, Values::Float64(v)) => self.u.copy_from_slice(v),
            (3, Values::Float64(&[v])) => self.t_event = v,
            (vr, values) => return Err(ModelError::unknown3_set(vr, &values)),
        }
        Ok(())
    }
    fn has_event_mode(&self) -> bool {
        true
    }
    fn next_event_time(&self) -> Option<f64> {
        (!self.switched).then_some(self.t_event)
    }
    fn update_discrete_states(&mut self, _t: f64) -> Result<(), ModelError> {
        self.rate *= 2.0;
        self.switched = true;
        Ok(())
    }
    fn might_return_early(&self) -> bool {
        true
    }
    fn save_state(&self) -> Option<Vec<f64>> {
        Some(vec![
            self.u[0],
            self.u[1],
            self.rate,
            self.x,
            self.t_event,
            f64::from(u8::from(self.switched)),
        ])
    }
    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let [a, b, rate, x, t_event, switched] = fmu_support::state_array("Ramp", state)?;
        *self = Self {
            u: [a, b],
            rate,
            x,
            t_event,
            switched: switched != 0.0,
        };
        Ok(())
    }
}

fmu_support::export_fmi3!(Ramp);
fmu_support::export_fmi2!(Ramp);

type I = *mut c_void;
type Log = unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char);

unsafe extern "C" {
    fn fmi3GetVersion() -> *const c_char;
    fn fmi3InstantiateCoSimulation(
        name: *const c_char,
        token: *const c_char,
        resources: *const c_char,
        visible: u8,
        logging_on: u8,
        event_mode_used: u8,
        early_return_allowed: u8,
        required: *const c_uint,
        n_required: usize,
        env: *mut c_void,
        log: Option<Log>,
        intermediate_update: *const c_void,
    ) -> I;
    fn fmi3InstantiateModelExchange(
        name: *const c_char,
        token: *const c_char,
        resources: *const c_char,
        visible: u8,
        logging_on: u8,
        env: *mut c_void,
        log: Option<Log>,
    ) -> I;
    fn fmi3FreeInstance(c: I);
    fn fmi3EnterInitializationMode(
        c: I,
        tol_def: u8,
        tol: f64,
        start: f64,
        stop_def: u8,
        stop: f64,
    ) -> c_int;
    fn fmi3ExitInitializationMode(c: I) -> c_int;
    fn fmi3EnterEventMode(c: I) -> c_int;
    fn fmi3UpdateDiscreteStates(
        c: I,
        need: *mut u8,
        terminate: *mut u8,
        nominals: *mut u8,
        values: *mut u8,
        defined: *mut u8,
        next: *mut f64,
    ) -> c_int;
    fn fmi3EnterStepMode(c: I) -> c_int;
    fn fmi3DoStep(
        c: I,
        t: f64,
        h: f64,
        no_set_prior: u8,
        event: *mut u8,
        terminate: *mut u8,
        early: *mut u8,
        last: *mut f64,
    ) -> c_int;
    fn fmi3GetFloat64(c: I, vr: *const c_uint, nvr: usize, v: *mut f64, n: usize) -> c_int;
    fn fmi3SetFloat64(c: I, vr: *const c_uint, nvr: usize, v: *const f64, n: usize) -> c_int;
    fn fmi3GetFMUState(c: I, s: *mut *mut c_void) -> c_int;
    fn fmi3SetFMUState(c: I, s: *mut c_void) -> c_int;
    fn fmi3FreeFMUState(c: I, s: *mut *mut c_void) -> c_int;
    fn fmi3SerializedFMUStateSize(c: I, s: *mut c_void, size: *mut usize) -> c_int;
    fn fmi3SerializeFMUState(c: I, s: *mut c_void, bytes: *mut u8, size: usize) -> c_int;
    fn fmi3DeserializeFMUState(c: I, bytes: *const u8, size: usize, s: *mut *mut c_void) -> c_int;
    fn fmi3GetClock(c: I, vr: *const c_uint, nvr: usize, v: *mut u8) -> c_int;
    fn fmi3Terminate(c: I) -> c_int;
    fn fmi3Reset(c: I) -> c_int;

    fn fmi2GetVersion() -> *const c_char;
    fn fmi2DoStep(c: I, t: f64, h: f64, no_prior: c_int) -> c_int;
}

const OK: c_int = 0;
const ERROR: c_int = 3;

type Messages = RefCell<Vec<(c_int, String, String)>>;

unsafe extern "C" fn record(
    env: *mut c_void,
    status: c_int,
    category: *const c_char,
    message: *const c_char,
) {
    // SAFETY: the tests pass a `&Messages` as the environment and keep it alive; the FMU passes
    // NUL-terminated strings.
    let (messages, category, message) = unsafe {
        (
            &*env.cast::<Messages>(),
            CStr::from_ptr(category),
            CStr::from_ptr(message),
        )
    };
    messages.borrow_mut().push((
        status,
        category.to_string_lossy().into_owned(),
        message.to_string_lossy().into_owned(),
    ));
}

fn instantiate(messages: &Messages, event_mode_used: u8, early_return_allowed: u8) -> I {
    // SAFETY: NUL-terminated strings and an environment that outlive the instance.
    let c = unsafe {
        fmi3InstantiateCoSimulation(
            c"ramp".as_ptr(),
            c"{ramp3}".as_ptr(),
            c"/tmp/ramp/resources/".as_ptr(),
            0,
            1,
            event_mode_used,
            early_return_allowed,
            ptr::null(),
            0,
            ptr::from_ref(messages).cast_mut().cast(),
            Some(record),
            ptr::null(),
        )
    };
    assert!(!c.is_null(), "{:?}", messages.borrow());
    // SAFETY: a live instance of this thread.
    unsafe {
        assert_eq!(fmi3EnterInitializationMode(c, 0, 0.0, 0.0, 0, 0.0), OK);
        assert_eq!(fmi3ExitInitializationMode(c), OK);
    }
    c
}

/// `fmi3DoStep`; returns (status, eventHandlingNeeded, earlyReturn, lastSuccessfulTime).
fn step(c: I, t: f64, h: f64, no_set_prior: u8) -> (c_int, u8, u8, f64) {
    let (mut event, mut terminate, mut early, mut last) = (9u8, 9u8, 9u8, f64::NAN);
    // SAFETY: a live instance; pointers to live locals.
    let status = unsafe {
        fmi3DoStep(
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
    if status == OK {
        assert!(terminate <= 1 && event <= 1 && early <= 1, "bytes 0 or 1");
    }
    (status, event, early, last)
}

fn x(c: I) -> f64 {
    let mut v = f64::NAN;
    // SAFETY: a live instance; one value reference and one slot.
    assert_eq!(unsafe { fmi3GetFloat64(c, &2, 1, &mut v, 1) }, OK);
    v
}

#[test]
fn versions_and_refusals() {
    // SAFETY: static strings from the library.
    unsafe {
        assert_eq!(CStr::from_ptr(fmi3GetVersion()), c"3.0");
        assert_eq!(CStr::from_ptr(fmi2GetVersion()), c"2.0");
        assert!(
            fmi3InstantiateModelExchange(
                c"me".as_ptr(),
                c"{ramp3}".as_ptr(),
                ptr::null(),
                0,
                0,
                ptr::null_mut(),
                None
            )
            .is_null()
        );
    }
}

#[test]
fn event_mode_and_early_return_through_the_symbols() {
    let messages = Messages::default();
    let c = instantiate(&messages, 1, 1);
    // SAFETY: a live instance in Event Mode after initialization; pointers to live locals.
    unsafe {
        let (mut need, mut terminate, mut nominals, mut values, mut defined) = (9, 9, 9, 9, 9);
        let mut next = f64::NAN;
        assert_eq!(
            fmi3UpdateDiscreteStates(
                c,
                &mut need,
                &mut terminate,
                &mut nominals,
                &mut values,
                &mut defined,
                &mut next
            ),
            OK
        );
        assert_eq!(
            (need, terminate, nominals, values, defined, next),
            (0, 0, 0, 0, 1, 0.25)
        );
        assert_eq!(fmi3EnterStepMode(c), OK);
        let u = [0.5, 0.5];
        assert_eq!(fmi3SetFloat64(c, &1, 1, u.as_ptr(), 2), OK);
        assert_eq!(
            fmi3SetFloat64(c, &1, 1, u.as_ptr(), 1),
            ERROR,
            "u has two elements"
        );
    }
    messages.borrow_mut().clear();
    // The error above left the instance in the error state; start again.
    // SAFETY: a live instance of this thread.
    unsafe { fmi3FreeInstance(c) };
    let c = instantiate(&messages, 1, 1);
    // SAFETY: as above.
    unsafe {
        let (mut a, mut b, mut d, mut e, mut f, mut next) = (0, 0, 0, 0, 0, 0.0);
        assert_eq!(
            fmi3UpdateDiscreteStates(c, &mut a, &mut b, &mut d, &mut e, &mut f, &mut next),
            OK
        );
        assert_eq!(fmi3EnterStepMode(c), OK);
    }
    assert_eq!(step(c, 0.0, 0.2, 1), (OK, 0, 0, 0.2));
    assert_eq!(
        step(c, 0.2, 0.2, 0),
        (OK, 1, 1, 0.25),
        "early return at the event"
    );
    assert!((x(c) - 0.25).abs() < 1e-15);
    // SAFETY: a live instance; pointers to live locals.
    unsafe {
        assert_eq!(fmi3EnterEventMode(c), OK);
        let (mut need, mut b, mut d, mut e, mut defined, mut next) = (9, 9, 9, 9, 9, 0.0);
        assert_eq!(
            fmi3UpdateDiscreteStates(
                c,
                &mut need,
                &mut b,
                &mut d,
                &mut e,
                &mut defined,
                &mut next
            ),
            OK
        );
        assert_eq!((need, defined), (0, 0), "no further event");
        assert_eq!(fmi3EnterStepMode(c), OK);
    }
    assert_eq!(step(c, 0.25, 0.15, 1), (OK, 0, 0, 0.4));
    assert!((x(c) - 0.55).abs() < 1e-15, "rate 2 after the event");
    let debug: Vec<String> = messages
        .borrow()
        .iter()
        .filter(|m| m.1 == "logDebug")
        .map(|m| m.2.clone())
        .collect();
    assert_eq!(debug.len(), 3);
    assert!(
        debug[1].ends_with("noSetFMUStatePriorToCurrentPoint = false"),
        "{debug:?}"
    );
    // SAFETY: a live instance of this thread.
    unsafe {
        assert_eq!(fmi3Terminate(c), OK);
        assert_eq!(fmi3Reset(c), OK);
        fmi3FreeInstance(c);
    }
}

#[test]
fn states_stubs_and_foreign_handles() {
    let messages = Messages::default();
    let a = instantiate(&messages, 0, 0);
    let b = instantiate(&messages, 0, 0);
    assert_eq!(step(a, 0.0, 0.1, 1).0, OK);
    // SAFETY: live instances of this thread; pointers to live locals and buffers.
    unsafe {
        let mut state = ptr::null_mut();
        assert_eq!(fmi3GetFMUState(a, &mut state), OK);
        let mut size = 0;
        assert_eq!(fmi3SerializedFMUStateSize(a, state, &mut size), OK);
        let mut bytes = vec![0u8; size];
        assert_eq!(
            fmi3SerializeFMUState(a, state, bytes.as_mut_ptr(), size),
            OK
        );
        let mut copy = ptr::null_mut();
        assert_eq!(
            fmi3DeserializeFMUState(b, bytes.as_ptr(), size, &mut copy),
            OK
        );
        assert_eq!(fmi3SetFMUState(b, copy), OK);
        assert_eq!(fmi3FreeFMUState(b, &mut copy), OK);
        assert_eq!(fmi3FreeFMUState(a, &mut state), OK);
        assert!(copy.is_null() && state.is_null());
    }
    assert_eq!(x(a).to_bits(), x(b).to_bits());
    // An FMI 2.0 function refuses an FMI 3.0 instance of the same library.
    // SAFETY: `a` is a live FMI 3.0 instance; the FMI 2.0 function only looks it up.
    assert_eq!(unsafe { fmi2DoStep(a, 0.1, 0.1, 1) }, ERROR);
    assert_eq!(step(a, 0.1, 0.1, 1).0, OK, "untouched");
    let mut clock = 0u8;
    // SAFETY: a live instance; one slot.
    assert_eq!(unsafe { fmi3GetClock(a, &1, 1, &mut clock) }, ERROR);
    assert!(messages.borrow().iter().any(|m| m.2.contains("clocks")));
    // SAFETY: live instances of this thread, not used afterwards.
    unsafe {
        fmi3FreeInstance(a);
        fmi3FreeInstance(b);
        fmi3FreeInstance(a);
    }
    assert_eq!(step(a, 0.2, 0.1, 1).0, ERROR, "freed");
}
