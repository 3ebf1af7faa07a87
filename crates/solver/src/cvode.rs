//! SUNDIALS CVODE (7.1.1, vendored by `sundials-sys`): BDF with Newton iteration and the dense
//! direct linear solver (difference-quotient Jacobian), root finding, hard stop times.
//!
//! All unsafe code of the crate is here. SUNDIALS never prints: its error handler stack is
//! replaced by one that keeps the last message, CVODE's warnings are switched off, and the
//! message travels in `Error::Failed`.

use crate::system::{guarded_rhs, guarded_roots};
use crate::{Advance, Error, OdeSystem, Settings, Statistics};
use std::ffi::{CStr, c_char, c_int, c_long, c_void};
use std::ptr;
use sundials_sys as sun;

/// CVODE's limit on internal steps in one `advance` call (CVODE's default is 500): with
/// `max_step` = communication step size, one communication step of a fast or stiff model may
/// take many steps and must not fail with `CV_TOO_MUCH_WORK`.
pub const MAX_NUM_STEPS: u32 = 1_000_000;

/// What the callbacks reach through CVODE's user data during one `advance` call.
struct Call<'a> {
    sys: &'a mut dyn OdeSystem,
    n_states: usize,
    n_roots: usize,
    /// The first failure of the system: (t, message).
    failure: Option<(f64, String)>,
}

/// One CVODE integrator with its context, vectors, matrix and linear solver.
pub(crate) struct Cvode {
    ctx: sun::SUNContext,
    mem: *mut c_void,
    y: sun::N_Vector,
    abs_tol: sun::N_Vector,
    matrix: sun::SUNMatrix,
    linear_solver: sun::SUNLinearSolver,
    /// The last message SUNDIALS reported through the error handler: a leaked `Box<String>`
    /// (the handler's user data, written by SUNDIALS' calls), freed in Drop.
    last_message: *mut String,
    n_states: usize,
    n_roots: usize,
    t: f64,
    x: Vec<f64>,
    directions: Vec<i32>,
    /// Statistics of the runs before the last `CVodeReInit` (CVODE resets its counters).
    earlier: Statistics,
    /// False from a reset until the next `CVode` call: the linear solver's counters are
    /// reset only then.
    counters_current: bool,
}

impl std::fmt::Debug for Cvode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cvode")
            .field("n_states", &self.n_states)
            .field("n_roots", &self.n_roots)
            .field("t", &self.t)
            .finish_non_exhaustive()
    }
}

// SAFETY: a `Cvode` owns its SUNDIALS objects exclusively (no handle is shared or kept
// elsewhere), SUNDIALS keeps no thread-local state for them, and every use goes through
// `&mut self`; moving the whole to another thread is therefore sound.
unsafe impl Send for Cvode {}

/// Keeps the message of a SUNDIALS error in the `String` that `user_data` points to.
unsafe extern "C" fn keep_message(
    _line: c_int,
    func: *const c_char,
    _file: *const c_char,
    msg: *const c_char,
    err_code: sun::SUNErrCode,
    user_data: *mut c_void,
    _ctx: sun::SUNContext,
) {
    // SAFETY: `user_data` is the `last_message` of the owning `Cvode`, alive longer than the
    // context, and no reference to it is held while SUNDIALS runs; `func` and `msg` are NUL-terminated strings or null (SUNDIALS' contract).
    unsafe {
        let text = if msg.is_null() {
            c_text(sun::SUNGetErrMsg(err_code))
        } else {
            c_text(msg)
        };
        let func = c_text(func);
        let kept = &mut *(user_data as *mut String);
        *kept = if func.is_empty() {
            text
        } else {
            format!("{text} (in {func})")
        };
    }
}

/// A C string as Rust text; "" for null.
///
/// # Safety
/// `s` is null or a NUL-terminated string.
unsafe fn c_text(s: *const c_char) -> String {
    if s.is_null() {
        return String::new();
    }
    // SAFETY: non-null and NUL-terminated (the caller's contract).
    unsafe { CStr::from_ptr(s) }
        .to_string_lossy()
        .trim()
        .to_string()
}

/// x' = f(t, x) for CVODE.
unsafe extern "C" fn rhs_callback(
    t: f64,
    y: sun::N_Vector,
    ydot: sun::N_Vector,
    data: *mut c_void,
) -> c_int {
    // SAFETY: `data` is the `Call` of the running `advance` (set just before `CVode`, cleared
    // after it); `y` and `ydot` are serial vectors of `n_states` elements owned by CVODE.
    unsafe {
        let call = &mut *(data as *mut Call);
        let x = std::slice::from_raw_parts(sun::N_VGetArrayPointer(y), call.n_states);
        let dx = std::slice::from_raw_parts_mut(sun::N_VGetArrayPointer(ydot), call.n_states);
        let result = guarded_rhs(call.sys, t, x, dx);
        report(call, t, result)
    }
}

/// g(t, x) for CVODE's root finding.
unsafe extern "C" fn roots_callback(
    t: f64,
    y: sun::N_Vector,
    g: *mut f64,
    data: *mut c_void,
) -> c_int {
    // SAFETY: as in `rhs_callback`; `g` has `n_roots` elements (given to `CVodeRootInit`).
    unsafe {
        let call = &mut *(data as *mut Call);
        let x = std::slice::from_raw_parts(sun::N_VGetArrayPointer(y), call.n_states);
        let g = std::slice::from_raw_parts_mut(g, call.n_roots);
        let result = guarded_roots(call.sys, t, x, g);
        report(call, t, result)
    }
}

/// 0 on success; on failure keeps the first message and returns -1 (unrecoverable for CVODE).
fn report(call: &mut Call, t: f64, result: Result<(), String>) -> c_int {
    match result {
        Ok(()) => 0,
        Err(message) => {
            call.failure.get_or_insert((t, message));
            -1
        }
    }
}

impl Cvode {
    /// Creates CVODE for `n_states` (> 0) states and `n_roots` root functions at t = 0, x = 0;
    /// `reset` sets the real start.
    pub(crate) fn new(settings: &Settings, n_states: usize, n_roots: usize) -> Result<Self, Error> {
        let mut cvode = Cvode {
            ctx: ptr::null_mut(),
            mem: ptr::null_mut(),
            y: ptr::null_mut(),
            abs_tol: ptr::null_mut(),
            matrix: ptr::null_mut(),
            linear_solver: ptr::null_mut(),
            last_message: Box::into_raw(Box::default()),
            n_states,
            n_roots,
            t: 0.0,
            x: vec![0.0; n_states],
            directions: vec![0; n_roots],
            earlier: Statistics::default(),
            counters_current: false,
        };
        cvode.create_context()?;
        cvode.create_solver(settings)?;
        Ok(cvode)
    }

    /// The SUNDIALS context with our error handler as its only one.
    fn create_context(&mut self) -> Result<(), Error> {
        // SAFETY: `SUNContext_Create` writes a new context into `self.ctx` (freed in Drop);
        // the handler's user data is the boxed message, which lives as long as `self`.
        unsafe {
            if sun::SUNContext_Create(sun::SUN_COMM_NULL, &mut self.ctx) != 0 || self.ctx.is_null()
            {
                self.ctx = ptr::null_mut();
                return Err(Error::Setup("SUNContext_Create failed".into()));
            }
            let data = self.last_message as *mut c_void;
            if sun::SUNContext_ClearErrHandlers(self.ctx) != 0
                || sun::SUNContext_PushErrHandler(self.ctx, Some(keep_message), data) != 0
            {
                return Err(Error::Setup(
                    "cannot install the SUNDIALS error handler".into(),
                ));
            }
        }
        Ok(())
    }

    /// The vectors, CVODE (BDF), the dense linear solver, tolerances, roots and limits.
    fn create_solver(&mut self, settings: &Settings) -> Result<(), Error> {
        let n = self.n_states as sun::sunindextype;
        // SAFETY: every object is created in the valid context and stored in `self` right away,
        // so Drop frees whatever was created even if a later step fails; the tolerance vector
        // has `n` elements (validated by the caller), written through its own data pointer.
        unsafe {
            self.y = sun::N_VNew_Serial(n, self.ctx);
            self.abs_tol = sun::N_VNew_Serial(n, self.ctx);
            if self.y.is_null() || self.abs_tol.is_null() {
                return Err(self.setup_error("N_VNew_Serial"));
            }
            sun::N_VConst(0.0, self.y);
            std::slice::from_raw_parts_mut(sun::N_VGetArrayPointer(self.abs_tol), self.n_states)
                .copy_from_slice(&settings.abs_tol);
            self.mem = sun::CVodeCreate(sun::CV_BDF, self.ctx);
            if self.mem.is_null() {
                return Err(self.setup_error("CVodeCreate"));
            }
            self.check(
                "CVodeInit",
                sun::CVodeInit(self.mem, Some(rhs_callback), 0.0, self.y),
            )?;
            self.check(
                "CVodeSVtolerances",
                sun::CVodeSVtolerances(self.mem, settings.rel_tol, self.abs_tol),
            )?;
            self.matrix = sun::SUNDenseMatrix(n, n, self.ctx);
            if self.matrix.is_null() {
                return Err(self.setup_error("SUNDenseMatrix"));
            }
            self.linear_solver = sun::SUNLinSol_Dense(self.y, self.matrix, self.ctx);
            if self.linear_solver.is_null() {
                return Err(self.setup_error("SUNLinSol_Dense"));
            }
            self.check(
                "CVodeSetLinearSolver",
                sun::CVodeSetLinearSolver(self.mem, self.linear_solver, self.matrix),
            )?;
            if self.n_roots > 0 {
                let flag =
                    sun::CVodeRootInit(self.mem, self.n_roots as c_int, Some(roots_callback));
                self.check("CVodeRootInit", flag)?;
                self.check(
                    "CVodeSetNoInactiveRootWarn",
                    sun::CVodeSetNoInactiveRootWarn(self.mem),
                )?;
            }
            self.check(
                "CVodeSetMaxNumSteps",
                sun::CVodeSetMaxNumSteps(self.mem, c_long::from(MAX_NUM_STEPS)),
            )?;
            // No "t + h = t" warnings: they would be printed.
            self.check(
                "CVodeSetMaxHnilWarns",
                sun::CVodeSetMaxHnilWarns(self.mem, -1),
            )?;
        }
        self.set_max_step(settings.max_step)
    }

    /// The last message SUNDIALS reported.
    fn message(&self) -> &str {
        // SAFETY: `last_message` is a live `String` (freed only in Drop); SUNDIALS writes it
        // only during calls that take `&mut self`, so none runs while this borrow lives.
        unsafe { &*self.last_message }
    }

    /// `Error::Setup` naming the failed SUNDIALS call and its last message.
    fn setup_error(&self, call: &str) -> Error {
        Error::Setup(format!("{call} failed: {}", self.message()))
    }

    /// `Ok` for a zero flag, else `Error::Setup` with CVODE's flag name and message.
    fn check(&self, call: &str, flag: c_int) -> Result<(), Error> {
        if flag == 0 {
            return Ok(());
        }
        Err(Error::Setup(format!(
            "{call} failed: {} {}",
            flag_name(flag),
            self.message()
        )))
    }

    /// Restarts at `t` with states `x` (`CVodeReInit`), keeping the statistics so far.
    pub(crate) fn reset(&mut self, t: f64, x: &[f64]) -> Result<(), Error> {
        self.earlier = self.statistics();
        self.counters_current = false;
        self.t = t;
        self.x.copy_from_slice(x);
        self.directions.iter_mut().for_each(|d| *d = 0);
        // SAFETY: `self.y` has `n_states` elements; `self.mem` is a live CVODE memory.
        unsafe {
            std::slice::from_raw_parts_mut(sun::N_VGetArrayPointer(self.y), self.n_states)
                .copy_from_slice(x);
            self.check("CVodeReInit", sun::CVodeReInit(self.mem, t, self.y))
        }
    }

    /// Sets CVODE's largest step (s); `None` is no limit.
    pub(crate) fn set_max_step(&mut self, h: Option<f64>) -> Result<(), Error> {
        // SAFETY: `self.mem` is a live CVODE memory; 0 means "no limit" to CVODE.
        let flag = unsafe { sun::CVodeSetMaxStep(self.mem, h.unwrap_or(0.0)) };
        self.check("CVodeSetMaxStep", flag)
    }

    /// Integrates towards `t_stop` (> time()), a hard stop time; returns at the first root.
    pub(crate) fn advance(
        &mut self,
        sys: &mut dyn OdeSystem,
        t_stop: f64,
    ) -> Result<Advance, Error> {
        self.directions.iter_mut().for_each(|d| *d = 0);
        let mut call = Call {
            sys,
            n_states: self.n_states,
            n_roots: self.n_roots,
            failure: None,
        };
        let mut t_reached = self.t;
        // SAFETY: no other reference to the message exists while no SUNDIALS call runs.
        unsafe { (*self.last_message).clear() };
        // SAFETY: the user data points to `call`, which outlives the `CVode` call and is
        // cleared right after it; `self.y` receives the states at `t_reached`.
        let flag = unsafe {
            // After a root, CVODE's internal time may lie past t_stop: it then interpolates
            // without stepping, and a stop time behind it would be refused.
            let mut t_internal = self.t;
            sun::CVodeGetCurrentTime(self.mem, &mut t_internal);
            if t_stop >= t_internal {
                sun::CVodeSetStopTime(self.mem, t_stop);
            }
            sun::CVodeSetUserData(self.mem, &mut call as *mut Call as *mut c_void);
            let flag = sun::CVode(self.mem, t_stop, self.y, &mut t_reached, sun::CV_NORMAL);
            sun::CVodeSetUserData(self.mem, ptr::null_mut());
            flag
        };
        self.counters_current = true;
        if let Some((t, message)) = call.failure {
            return Err(Error::System { t, message });
        }
        if flag == sun::CV_TOO_CLOSE {
            self.tiny_step(call.sys, t_stop)?;
            return Ok(Advance::Reached);
        }
        if flag < 0 {
            return Err(self.failure(flag, t_reached));
        }
        self.copy_states();
        if flag == sun::CV_ROOT_RETURN {
            self.t = t_reached;
            // SAFETY: `directions` has `n_roots` elements, as CVODE expects.
            let info = unsafe { sun::CVodeGetRootInfo(self.mem, self.directions.as_mut_ptr()) };
            self.check("CVodeGetRootInfo", info)?;
            return Ok(Advance::Root);
        }
        // CV_SUCCESS or CV_TSTOP_RETURN: CVODE stopped at t_stop itself.
        self.t = t_stop;
        Ok(Advance::Reached)
    }

    /// `Error::Failed` with CVODE's flag name and message, at the time reached.
    fn failure(&self, flag: c_int, t_reached: f64) -> Error {
        let mut message = flag_name(flag);
        if !self.message().is_empty() {
            message = format!("{message}: {}", self.message());
        }
        Error::Failed {
            t: t_reached,
            message,
        }
    }

    fn copy_states(&mut self) {
        // SAFETY: `self.y` has `n_states` elements.
        let y =
            unsafe { std::slice::from_raw_parts(sun::N_VGetArrayPointer(self.y), self.n_states) };
        self.x.copy_from_slice(y);
    }

    /// Handles the case CVODE refuses: `t_stop` closer to the start than its round-off
    /// (`CV_TOO_CLOSE`) — one explicit Euler step, then a restart there.
    fn tiny_step(&mut self, sys: &mut dyn OdeSystem, t_stop: f64) -> Result<(), Error> {
        let mut dx = vec![0.0; self.n_states];
        guarded_rhs(sys, self.t, &self.x, &mut dx)
            .map_err(|message| Error::System { t: self.t, message })?;
        let h = t_stop - self.t;
        let x: Vec<f64> = self.x.iter().zip(&dx).map(|(x, dx)| x + h * dx).collect();
        self.earlier.rhs_evaluations += 1;
        self.reset(t_stop, &x)
    }

    pub(crate) fn time(&self) -> f64 {
        self.t
    }

    pub(crate) fn states(&self) -> &[f64] {
        &self.x
    }

    pub(crate) fn root_directions(&self) -> &[i32] {
        &self.directions
    }

    /// Cumulative statistics: the runs before the last reset plus CVODE's current counters.
    pub(crate) fn statistics(&self) -> Statistics {
        if !self.counters_current {
            return self.earlier;
        }
        let (mut steps, mut rhs, mut lin_rhs, mut jac, mut g): (
            c_long,
            c_long,
            c_long,
            c_long,
            c_long,
        ) = (0, 0, 0, 0, 0);
        // SAFETY: `self.mem` is a live CVODE memory with a linear solver attached; each call
        // writes one counter.
        unsafe {
            sun::CVodeGetNumSteps(self.mem, &mut steps);
            sun::CVodeGetNumRhsEvals(self.mem, &mut rhs);
            sun::CVodeGetNumLinRhsEvals(self.mem, &mut lin_rhs);
            sun::CVodeGetNumJacEvals(self.mem, &mut jac);
            sun::CVodeGetNumGEvals(self.mem, &mut g);
        }
        let count = |c: c_long| c.max(0) as u64;
        Statistics {
            steps: self.earlier.steps + count(steps),
            rhs_evaluations: self.earlier.rhs_evaluations + count(rhs) + count(lin_rhs),
            jacobian_evaluations: self.earlier.jacobian_evaluations + count(jac),
            root_evaluations: self.earlier.root_evaluations + count(g),
        }
    }
}

/// CVODE's name of a return flag, e.g. `CV_CONV_FAILURE`.
fn flag_name(flag: c_int) -> String {
    // SAFETY: CVODE returns a malloc'ed NUL-terminated string (or null), freed here with free.
    unsafe {
        let name = sun::CVodeGetReturnFlagName(flag as c_long);
        let text = c_text(name);
        if !name.is_null() {
            libc::free(name as *mut c_void);
        }
        if text.is_empty() {
            format!("CVODE flag {flag}")
        } else {
            text
        }
    }
}

impl Drop for Cvode {
    fn drop(&mut self) {
        // SAFETY: each pointer is null or owned by `self` alone and freed once; CVODE's memory
        // goes first (it refers to the others), the context last.
        unsafe {
            if !self.mem.is_null() {
                sun::CVodeFree(&mut self.mem);
            }
            if !self.linear_solver.is_null() {
                sun::SUNLinSolFree(self.linear_solver);
            }
            if !self.matrix.is_null() {
                sun::SUNMatDestroy(self.matrix);
            }
            if !self.y.is_null() {
                sun::N_VDestroy(self.y);
            }
            if !self.abs_tol.is_null() {
                sun::N_VDestroy(self.abs_tol);
            }
            if !self.ctx.is_null() {
                sun::SUNContext_Free(&mut self.ctx);
            }
            // The error handler is gone with the context: its message can go.
            drop(Box::from_raw(self.last_message));
        }
    }
}
