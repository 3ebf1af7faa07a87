//! Calls the exported C symbols of both export macros through independent `extern "C"`
//! declarations, as an importer would.

use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use fmu_support::{Causality, Model, ModelError, StepOutcome, VarType, Variable};

/// Test model: `x' = rate + u`, counts steps in `n`, asks to terminate when `n == limit`.
#[derive(Clone, Debug)]
struct Counter {
    rate: f64,
    u: f64,
    x: f64,
    n: i32,
    limit: i32,
    tag: String,
}

const VARS: &[Variable] = &[
    Variable::new("x", 0, VarType::Real, Causality::Output),
    Variable::new("u", 1, VarType::Real, Causality::Input),
    Variable::new("rate", 2, VarType::Real, Causality::Parameter),
    Variable::new("boom", 3, VarType::Real, Causality::Local),
    Variable::new("n", 0, VarType::Integer, Causality::Output),
    Variable::new("limit", 1, VarType::Integer, Causality::Parameter),
    Variable::new("done", 0, VarType::Boolean, Causality::Output),
    Variable::new("tag", 0, VarType::String, Causality::Parameter),
    Variable::new("echo", 1, VarType::String, Causality::Output),
];

const GUID: &CStr = c"{counter}";

/// The same model under a GUID that allows one live instance per process.
const ONCE_GUID: &CStr = c"{counter-once}";

/// Live instances with [`ONCE_GUID`].
static ONCE_LIVE: AtomicUsize = AtomicUsize::new(0);

impl Model for Counter {
    fn acquire_instance(guid: &str) -> Result<(), ModelError> {
        if guid != "{counter-once}" {
            return Ok(());
        }
        ONCE_LIVE
            .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Acquire)
            .map(|_| ())
            .map_err(|_| ModelError::OncePerProcess { model: "Counter" })
    }
    fn release_instance(guid: &str) {
        if guid == "{counter-once}" {
            ONCE_LIVE.store(0, Ordering::Release);
        }
    }
    fn instantiate(guid: &str) -> Option<Self> {
        (guid == "{counter}" || guid == "{counter-once}").then(|| Self {
            rate: 1.0,
            u: 0.0,
            x: 0.0,
            n: 0,
            limit: 1000,
            tag: "start".into(),
        })
    }
    fn variables(&self) -> &'static [Variable] {
        VARS
    }
    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        self.x = 0.0;
        self.n = 0;
        Ok(())
    }
    fn do_step(&mut self, _t: f64, h: f64) -> StepOutcome {
        self.x += (self.rate + self.u) * h;
        self.n += 1;
        if self.n >= self.limit {
            StepOutcome::Terminate
        } else {
            StepOutcome::Completed
        }
    }
    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            0 => Ok(self.x),
            1 => Ok(self.u),
            2 => Ok(self.rate),
            3 => panic!("boom"),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }
    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            1 => self.u = value,
            2 => self.rate = value,
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }
    fn get_integer(&self, vr: u32) -> Result<i32, ModelError> {
        match vr {
            0 => Ok(self.n),
            1 => Ok(self.limit),
            _ => Err(ModelError::unknown(VarType::Integer, vr)),
        }
    }
    fn set_integer(&mut self, vr: u32, value: i32) -> Result<(), ModelError> {
        match vr {
            1 => self.limit = value,
            _ => return Err(ModelError::unknown(VarType::Integer, vr)),
        }
        Ok(())
    }
    fn get_boolean(&self, vr: u32) -> Result<bool, ModelError> {
        match vr {
            0 => Ok(self.n >= self.limit),
            _ => Err(ModelError::unknown(VarType::Boolean, vr)),
        }
    }
    fn get_string(&self, vr: u32) -> Result<String, ModelError> {
        match vr {
            0 => Ok(self.tag.clone()),
            1 => Ok(format!("{}:{}", self.tag, self.n)),
            _ => Err(ModelError::unknown(VarType::String, vr)),
        }
    }
    fn set_string(&mut self, vr: u32, value: &str) -> Result<(), ModelError> {
        match vr {
            0 => self.tag = value.to_owned(),
            _ => return Err(ModelError::unknown(VarType::String, vr)),
        }
        Ok(())
    }
}

fmu_support::export_fmi2!(Counter);
fmu_support::export_fmi1!(Counter, "Counter");

type C = *mut c_void;

/// The FMI 2.0 callback struct, declared independently of `fmu_support::fmi2`.
#[repr(C)]
struct Callbacks2 {
    logger: *const c_void,
    allocate: *const c_void,
    free: *const c_void,
    step_finished: *const c_void,
    env: *mut c_void,
}

/// The FMI 1.0 callback struct (four members, passed by value).
#[repr(C)]
struct Callbacks1 {
    logger: *const c_void,
    allocate: *const c_void,
    free: *const c_void,
    step_finished: *const c_void,
}

unsafe extern "C" {
    fn fmi2GetTypesPlatform() -> *const c_char;
    fn fmi2GetVersion() -> *const c_char;
    fn fmi2Instantiate(
        name: *const c_char,
        ty: c_int,
        guid: *const c_char,
        res: *const c_char,
        f: *const Callbacks2,
        visible: c_int,
        logging: c_int,
    ) -> C;
    fn fmi2FreeInstance(c: C);
    fn fmi2SetDebugLogging(c: C, on: c_int, n: usize, cats: *const *const c_char) -> c_int;
    fn fmi2SetupExperiment(
        c: C,
        tol_def: c_int,
        tol: f64,
        start: f64,
        stop_def: c_int,
        stop: f64,
    ) -> c_int;
    fn fmi2EnterInitializationMode(c: C) -> c_int;
    fn fmi2ExitInitializationMode(c: C) -> c_int;
    fn fmi2Terminate(c: C) -> c_int;
    fn fmi2Reset(c: C) -> c_int;
    fn fmi2GetReal(c: C, vr: *const c_uint, n: usize, v: *mut f64) -> c_int;
    fn fmi2GetInteger(c: C, vr: *const c_uint, n: usize, v: *mut c_int) -> c_int;
    fn fmi2GetBoolean(c: C, vr: *const c_uint, n: usize, v: *mut c_int) -> c_int;
    fn fmi2GetString(c: C, vr: *const c_uint, n: usize, v: *mut *const c_char) -> c_int;
    fn fmi2SetReal(c: C, vr: *const c_uint, n: usize, v: *const f64) -> c_int;
    fn fmi2SetInteger(c: C, vr: *const c_uint, n: usize, v: *const c_int) -> c_int;
    fn fmi2SetString(c: C, vr: *const c_uint, n: usize, v: *const *const c_char) -> c_int;
    fn fmi2GetFMUstate(c: C, s: *mut *mut c_void) -> c_int;
    fn fmi2SetFMUstate(c: C, s: *mut c_void) -> c_int;
    fn fmi2FreeFMUstate(c: C, s: *mut *mut c_void) -> c_int;
    fn fmi2SerializedFMUstateSize(c: C, s: *mut c_void, size: *mut usize) -> c_int;
    fn fmi2SerializeFMUstate(c: C, s: *mut c_void, bytes: *mut c_char, size: usize) -> c_int;
    fn fmi2DeSerializeFMUstate(
        c: C,
        bytes: *const c_char,
        size: usize,
        s: *mut *mut c_void,
    ) -> c_int;
    fn fmi2GetDirectionalDerivative(
        c: C,
        u: *const c_uint,
        nu: usize,
        k: *const c_uint,
        nk: usize,
        dk: *const f64,
        du: *mut f64,
    ) -> c_int;
    fn fmi2DoStep(c: C, t: f64, h: f64, no_prior: c_int) -> c_int;
    fn fmi2CancelStep(c: C) -> c_int;
    fn fmi2GetStatus(c: C, kind: c_int, v: *mut c_int) -> c_int;
    fn fmi2GetRealStatus(c: C, kind: c_int, v: *mut f64) -> c_int;
    fn fmi2GetBooleanStatus(c: C, kind: c_int, v: *mut c_int) -> c_int;
    fn fmi2GetStringStatus(c: C, kind: c_int, v: *mut *const c_char) -> c_int;

    fn Counter_fmiGetTypesPlatform() -> *const c_char;
    fn Counter_fmiGetVersion() -> *const c_char;
    #[allow(clippy::too_many_arguments)]
    fn Counter_fmiInstantiateSlave(
        name: *const c_char,
        guid: *const c_char,
        location: *const c_char,
        mime: *const c_char,
        timeout: f64,
        visible: c_char,
        interactive: c_char,
        f: Callbacks1,
        logging: c_char,
    ) -> C;
    fn Counter_fmiInitializeSlave(c: C, t_start: f64, stop_def: c_char, t_stop: f64) -> c_int;
    fn Counter_fmiDoStep(c: C, t: f64, h: f64, new_step: c_char) -> c_int;
    fn Counter_fmiGetReal(c: C, vr: *const c_uint, n: usize, v: *mut f64) -> c_int;
    fn Counter_fmiSetReal(c: C, vr: *const c_uint, n: usize, v: *const f64) -> c_int;
    fn Counter_fmiGetBoolean(c: C, vr: *const c_uint, n: usize, v: *mut c_char) -> c_int;
    fn Counter_fmiSetString(c: C, vr: *const c_uint, n: usize, v: *const *const c_char) -> c_int;
    fn Counter_fmiGetString(c: C, vr: *const c_uint, n: usize, v: *mut *const c_char) -> c_int;
    fn Counter_fmiGetRealStatus(c: C, kind: c_int, v: *mut f64) -> c_int;
    fn Counter_fmiTerminateSlave(c: C) -> c_int;
    fn Counter_fmiResetSlave(c: C) -> c_int;
    fn Counter_fmiFreeSlaveInstance(c: C);
}

const OK: c_int = 0;
const DISCARD: c_int = 2;
const ERROR: c_int = 3;

fn callbacks2() -> Callbacks2 {
    Callbacks2 {
        logger: ptr::null(),
        allocate: ptr::null(),
        free: ptr::null(),
        step_finished: ptr::null(),
        env: ptr::null_mut(),
    }
}

fn instantiate2() -> C {
    let cb = callbacks2();
    // SAFETY: valid NUL-terminated strings and a callback struct that outlives the call.
    let c = unsafe { fmi2Instantiate(c"inst".as_ptr(), 1, GUID.as_ptr(), ptr::null(), &cb, 0, 1) };
    assert!(!c.is_null());
    c
}

fn get_real(c: C, vr: u32) -> (c_int, f64) {
    let mut v = f64::NAN;
    // SAFETY: one value reference and one output slot.
    let s = unsafe { fmi2GetReal(c, &vr, 1, &mut v) };
    (s, v)
}

#[test]
fn fmi2_platform_and_version() {
    // SAFETY: both return static NUL-terminated strings.
    unsafe {
        assert_eq!(CStr::from_ptr(fmi2GetTypesPlatform()), c"default");
        assert_eq!(CStr::from_ptr(fmi2GetVersion()), c"2.0");
    }
}

#[test]
fn fmi2_lifecycle_values_and_states() {
    let c = instantiate2();
    // SAFETY: every pointer below points to live locals of the right length.
    unsafe {
        assert_eq!(
            fmi2DoStep(c, 0.0, 0.1, 1),
            ERROR,
            "doStep before initialization"
        );
        fmi2FreeInstance(c);
    }
    let c = instantiate2();
    // SAFETY: as above.
    unsafe {
        assert_eq!(get_real(c, 0).0, ERROR, "get before initialization mode");
        fmi2FreeInstance(c);
    }
    let c = instantiate2();
    // SAFETY: as above.
    unsafe {
        assert_eq!(fmi2SetDebugLogging(c, 1, 0, ptr::null()), OK);
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 1.0, 0, 0.0), OK);
        let rate = [2.0];
        assert_eq!(fmi2SetReal(c, &2, 1, rate.as_ptr()), OK);
        assert_eq!(fmi2EnterInitializationMode(c), OK);
        let tag = [c"hello".as_ptr()];
        assert_eq!(fmi2SetString(c, &0, 1, tag.as_ptr()), OK);
        assert_eq!(fmi2ExitInitializationMode(c), OK);
        assert_eq!(
            fmi2SetReal(c, &2, 1, rate.as_ptr()),
            ERROR,
            "parameter in step mode"
        );
    }
    let c = instantiate2();
    // SAFETY: as above.
    unsafe {
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 1.0, 0, 0.0), OK);
        assert_eq!(fmi2SetInteger(c, &1, 1, &4), OK);
        assert_eq!(fmi2EnterInitializationMode(c), OK);
        assert_eq!(fmi2ExitInitializationMode(c), OK);
        assert_eq!(fmi2SetReal(c, &1, 1, &1.0), OK, "input in step mode");
        assert_eq!(fmi2DoStep(c, 1.0, 0.5, 1), OK);
        assert_eq!(get_real(c, 0), (OK, 1.0));

        let mut state: *mut c_void = ptr::null_mut();
        assert_eq!(fmi2GetFMUstate(c, &mut state), OK);
        assert!(!state.is_null());
        assert_eq!(fmi2DoStep(c, 1.5, 0.5, 1), OK);
        assert_eq!(get_real(c, 0), (OK, 2.0));
        assert_eq!(fmi2SetFMUstate(c, state), OK);
        assert_eq!(get_real(c, 0), (OK, 1.0));
        let mut last = f64::NAN;
        assert_eq!(fmi2GetRealStatus(c, 2, &mut last), OK);
        assert_eq!(last, 1.5);

        // Get into the existing state updates it in place.
        assert_eq!(fmi2DoStep(c, 1.5, 0.25, 1), OK);
        let before = state;
        assert_eq!(fmi2GetFMUstate(c, &mut state), OK);
        assert_eq!(state, before);
        assert_eq!(fmi2DoStep(c, 1.75, 0.25, 1), OK);
        assert_eq!(fmi2SetFMUstate(c, state), OK);
        assert_eq!(get_real(c, 0), (OK, 1.5));

        let vrs = [0u32, 0];
        let mut ints = [0; 2];
        assert_eq!(fmi2GetInteger(c, vrs.as_ptr(), 2, ints.as_mut_ptr()), OK);
        assert_eq!(ints, [2, 2]);
        let mut strs = [ptr::null(); 2];
        assert_eq!(
            fmi2GetString(c, [0u32, 1].as_ptr(), 2, strs.as_mut_ptr()),
            OK
        );
        assert_eq!(CStr::from_ptr(strs[0]), c"start");
        assert_eq!(CStr::from_ptr(strs[1]), c"start:2");

        // The step that reaches `limit` completes and asks to terminate.
        assert_eq!(fmi2DoStep(c, 1.75, 0.25, 1), OK);
        assert_eq!(fmi2DoStep(c, 2.0, 0.25, 1), DISCARD);
        let mut done = 0;
        assert_eq!(fmi2GetBooleanStatus(c, 3, &mut done), OK);
        assert_eq!(done, 1);
        assert_eq!(fmi2GetRealStatus(c, 2, &mut last), OK);
        assert_eq!(last, 2.25);
        let mut b = 0;
        assert_eq!(fmi2GetBoolean(c, &0, 1, &mut b), OK);
        assert_eq!(b, 1);
        let mut step_status = -1;
        assert_eq!(fmi2GetStatus(c, 0, &mut step_status), OK);
        assert_eq!(step_status, DISCARD);
        let mut pending = ptr::null();
        assert_eq!(fmi2GetStringStatus(c, 1, &mut pending), DISCARD);

        assert_eq!(fmi2Terminate(c), OK);
        assert_eq!(
            fmi2DoStep(c, 2.25, 0.25, 1),
            ERROR,
            "doStep after terminate"
        );
        assert_eq!(fmi2FreeFMUstate(c, &mut state), OK);
        assert!(state.is_null());
        assert_eq!(fmi2FreeFMUstate(c, &mut state), OK, "null state is ignored");
        assert_eq!(fmi2Reset(c), OK);
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), OK);
        // A state that is still alive when the instance is freed is freed with it.
        let mut leftover: *mut c_void = ptr::null_mut();
        assert_eq!(fmi2GetFMUstate(c, &mut leftover), OK);
        fmi2FreeInstance(c);
    }
}

#[test]
fn fmi2_rejects_bad_arguments() {
    let cb = callbacks2();
    // SAFETY: pointers are null or valid; null is what is being tested.
    unsafe {
        assert!(
            fmi2Instantiate(
                c"a".as_ptr(),
                1,
                GUID.as_ptr(),
                ptr::null(),
                ptr::null(),
                0,
                0
            )
            .is_null()
        );
        assert!(fmi2Instantiate(ptr::null(), 1, GUID.as_ptr(), ptr::null(), &cb, 0, 0).is_null());
        assert!(fmi2Instantiate(c"a".as_ptr(), 1, ptr::null(), ptr::null(), &cb, 0, 0).is_null());
        assert!(
            fmi2Instantiate(
                c"a".as_ptr(),
                1,
                c"{other}".as_ptr(),
                ptr::null(),
                &cb,
                0,
                0
            )
            .is_null()
        );
        assert!(fmi2Instantiate(c"a".as_ptr(), 0, GUID.as_ptr(), ptr::null(), &cb, 0, 0).is_null());

        assert_eq!(fmi2DoStep(ptr::null_mut(), 0.0, 1.0, 1), ERROR);
        let mut not_an_instance = 0u64;
        let bogus = (&raw mut not_an_instance).cast::<c_void>();
        assert_eq!(fmi2Terminate(bogus), ERROR);
        fmi2FreeInstance(bogus);
        fmi2FreeInstance(ptr::null_mut());
    }
    let c = instantiate2();
    // SAFETY: pointers are null or valid; null is what is being tested.
    unsafe {
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), OK);
        assert_eq!(fmi2EnterInitializationMode(c), OK);
        assert_eq!(
            fmi2GetReal(c, ptr::null(), 0, ptr::null_mut()),
            OK,
            "empty batch"
        );
        assert_eq!(fmi2GetReal(c, ptr::null(), 1, &mut 0.0), ERROR);
        // Error phase: only get, status, state functions, reset and free remain.
        assert_eq!(fmi2ExitInitializationMode(c), ERROR);
        assert_eq!(get_real(c, 0).0, OK);
        assert_eq!(fmi2Reset(c), OK);
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), OK);
        assert_eq!(fmi2EnterInitializationMode(c), OK);
        assert_eq!(fmi2SetReal(c, &0, 1, &1.0), ERROR, "output is not settable");
        assert_eq!(fmi2Reset(c), OK);
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), OK);
        assert_eq!(fmi2EnterInitializationMode(c), OK);
        assert_eq!(fmi2ExitInitializationMode(c), OK);
        assert_eq!(
            fmi2DoStep(c, 0.5, 0.1, 1),
            ERROR,
            "wrong communication point"
        );
        assert_eq!(fmi2Reset(c), OK);
        // Counter has a String parameter and no `save_state`: no serialization.
        let mut size = 0;
        assert_eq!(
            fmi2SerializedFMUstateSize(c, ptr::null_mut(), &mut size),
            ERROR
        );
        assert_eq!(fmi2Reset(c), OK);
        let mut state: *mut c_void = ptr::null_mut();
        assert_eq!(fmi2GetFMUstate(c, &mut state), OK);
        let mut bytes = [0 as c_char; 64];
        assert_eq!(
            fmi2SerializeFMUstate(c, state, bytes.as_mut_ptr(), bytes.len()),
            ERROR
        );
        assert_eq!(fmi2Reset(c), OK);
        let mut copy: *mut c_void = ptr::null_mut();
        assert_eq!(
            fmi2DeSerializeFMUstate(c, bytes.as_ptr(), bytes.len(), &mut copy),
            ERROR
        );
        assert!(copy.is_null());
        assert_eq!(fmi2FreeFMUstate(c, &mut state), OK);
        assert_eq!(fmi2Reset(c), OK);
        assert_eq!(fmi2CancelStep(c), ERROR);
        assert_eq!(fmi2Reset(c), OK);
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), OK);
        assert_eq!(fmi2EnterInitializationMode(c), OK);
        let mut d = 0.0;
        assert_eq!(
            fmi2GetDirectionalDerivative(c, &0, 1, &1, 1, &1.0, &mut d),
            ERROR,
            "not provided"
        );
        assert_eq!(fmi2Reset(c), OK);
        let mut bogus_state = 8usize as *mut c_void;
        assert_eq!(fmi2FreeFMUstate(c, &mut bogus_state), ERROR);
        fmi2FreeInstance(c);
    }
}

#[test]
fn fmi2_panic_becomes_error() {
    let c = instantiate2();
    // SAFETY: pointers point to live locals.
    unsafe {
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), OK);
        assert_eq!(fmi2EnterInitializationMode(c), OK);
        let mut state: *mut c_void = ptr::null_mut();
        assert_eq!(fmi2GetFMUstate(c, &mut state), OK);
        assert_eq!(get_real(c, 3).0, ERROR);
        assert_eq!(
            fmi2ExitInitializationMode(c),
            ERROR,
            "error phase after the panic"
        );
        // Recovery from the error phase through a state saved before.
        assert_eq!(fmi2SetFMUstate(c, state), OK);
        assert_eq!(fmi2ExitInitializationMode(c), OK);
        fmi2FreeInstance(c);
    }
}

fn instantiate1() -> C {
    let cb = Callbacks1 {
        logger: ptr::null(),
        allocate: ptr::null(),
        free: ptr::null(),
        step_finished: ptr::null(),
    };
    // SAFETY: valid strings; the struct is passed by value.
    let c = unsafe {
        Counter_fmiInstantiateSlave(
            c"slave".as_ptr(),
            GUID.as_ptr(),
            c"file:///tmp".as_ptr(),
            c"application/x-fmu-sharedlibrary".as_ptr(),
            0.0,
            0,
            0,
            cb,
            0,
        )
    };
    assert!(!c.is_null());
    c
}

#[test]
fn fmi1_lifecycle() {
    // SAFETY: static strings.
    unsafe {
        assert_eq!(CStr::from_ptr(Counter_fmiGetTypesPlatform()), c"standard32");
        assert_eq!(CStr::from_ptr(Counter_fmiGetVersion()), c"1.0");
    }
    let c = instantiate1();
    // SAFETY: every pointer points to live locals of the right length.
    unsafe {
        let mut x = f64::NAN;
        assert_eq!(
            Counter_fmiGetReal(c, &2, 1, &mut x),
            OK,
            "FMI 1.0 get before initialize"
        );
        assert_eq!(x, 1.0);
        assert_eq!(
            Counter_fmiSetReal(c, &2, 1, &3.0),
            OK,
            "parameter before initialize"
        );
        let tag = [c"p".as_ptr()];
        assert_eq!(Counter_fmiSetString(c, &0, 1, tag.as_ptr()), OK);
        assert_eq!(
            Counter_fmiDoStep(c, 0.0, 1.0, 1),
            ERROR,
            "doStep before initialize"
        );
        assert_eq!(Counter_fmiResetSlave(c), OK);
        assert_eq!(Counter_fmiSetReal(c, &2, 1, &3.0), OK);
        assert_eq!(Counter_fmiInitializeSlave(c, 0.0, 1, 10.0), OK);
        assert_eq!(
            Counter_fmiSetReal(c, &1, 1, &1.0),
            OK,
            "input after initialize"
        );
        assert_eq!(Counter_fmiDoStep(c, 0.0, 0.5, 1), OK);
        assert_eq!(Counter_fmiGetReal(c, &0, 1, &mut x), OK);
        assert_eq!(x, 2.0);
        let mut b: c_char = -1;
        assert_eq!(Counter_fmiGetBoolean(c, &0, 1, &mut b), OK);
        assert_eq!(b, 0);
        let mut s = ptr::null();
        assert_eq!(Counter_fmiGetString(c, &1, 1, &mut s), OK);
        assert_eq!(CStr::from_ptr(s), c"start:1");
        let mut last = 0.0;
        assert_eq!(Counter_fmiGetRealStatus(c, 2, &mut last), OK);
        assert_eq!(last, 0.5);
        assert_eq!(
            Counter_fmiSetReal(c, &2, 1, &3.0),
            ERROR,
            "parameter after initialize"
        );
        assert_eq!(Counter_fmiResetSlave(c), OK);
        assert_eq!(Counter_fmiInitializeSlave(c, 0.0, 0, 0.0), OK);
        assert_eq!(Counter_fmiTerminateSlave(c), OK);
        Counter_fmiFreeSlaveInstance(c);
    }
}

#[test]
fn a_refused_instantiation_returns_null_until_the_live_instance_is_freed() {
    let cb = callbacks2();
    let fmi2 = |guid: &CStr| {
        // SAFETY: valid NUL-terminated strings and a callback struct that outlives the call.
        unsafe { fmi2Instantiate(c"once".as_ptr(), 1, guid.as_ptr(), ptr::null(), &cb, 0, 0) }
    };
    let fmi1 = || {
        let cb = Callbacks1 {
            logger: ptr::null(),
            allocate: ptr::null(),
            free: ptr::null(),
            step_finished: ptr::null(),
        };
        // SAFETY: valid NUL-terminated strings; the callbacks are passed by value.
        unsafe {
            Counter_fmiInstantiateSlave(
                c"once".as_ptr(),
                ONCE_GUID.as_ptr(),
                c"".as_ptr(),
                c"".as_ptr(),
                0.0,
                0,
                0,
                cb,
                0,
            )
        }
    };
    let first = fmi2(ONCE_GUID);
    assert!(!first.is_null());
    assert!(fmi2(ONCE_GUID).is_null(), "second live instance");
    assert!(fmi1().is_null(), "also through FMI 1.0");
    let other = fmi2(GUID);
    assert!(!other.is_null(), "other GUIDs are not limited");
    // SAFETY: live instances, used by this thread only; each freed once.
    unsafe {
        assert_eq!(fmi2Reset(first), OK);
        assert!(
            fmi2(ONCE_GUID).is_null(),
            "a reset does not free the instance"
        );
        fmi2FreeInstance(other);
        fmi2FreeInstance(first);
        fmi2FreeInstance(first);
    }
    assert_eq!(ONCE_LIVE.load(Ordering::Acquire), 0, "released once");
    let slave = fmi1();
    assert!(!slave.is_null(), "free again after fmi2FreeInstance");
    assert!(fmi2(ONCE_GUID).is_null());
    // SAFETY: a live slave, freed once.
    unsafe { Counter_fmiFreeSlaveInstance(slave) };
    let again = fmi2(ONCE_GUID);
    assert!(!again.is_null());
    // SAFETY: a live instance, freed once.
    unsafe { fmi2FreeInstance(again) };
}
