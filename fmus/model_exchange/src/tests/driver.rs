//! A small Model Exchange importer over the C entry points, for the tests: [`Instance`] wraps
//! the calls, [`Driver`] integrates with fixed-step RK4, stops at time events, locates state
//! events by bisection and iterates events; [`robertson_implicit`] is an independent stiff
//! integration of Robertson's problem.

use std::ffi::CString;
use std::ptr;

use fmu_support::fmi2::{self, FALSE, STATUS_OK};
use fmu_support::{MeModel, Model, ModelExchange, fmi2_me};

use super::M;
use crate::{reached, robertson_rhs};

type X = ModelExchange<M>;

/// The calls [`Driver`] makes, in FMI 2.0 ([`Instance`]) or FMI 3.0 ([`Instance3`]).
pub(super) trait Api {
    fn set_time(&self, t: f64);
    fn set_states(&self, x: &[f64]);
    fn states(&self) -> Vec<f64>;
    fn derivatives(&self) -> Vec<f64>;
    fn indicators(&self) -> Vec<f64>;
    fn enter_event_mode(&self);
    fn enter_continuous_time_mode(&self);
    /// Event iteration until no new one is needed; returns the next event time.
    fn iterate_events(&self) -> Option<f64>;
    /// A Float64 / Real variable.
    fn real(&self, vr: u32) -> f64;
}

/// One instance, freed on drop. Every method asserts status OK.
pub(super) struct Instance {
    pub(super) c: fmi2::Component,
    /// Number of continuous states.
    n: usize,
    /// Number of event indicators.
    pub(super) nz: usize,
}

impl Instance {
    /// Instantiates the FMU with `guid` as `fmu_type`; `None` if refused.
    pub(super) fn new(guid: &str, fmu_type: fmi2::Type) -> Option<Self> {
        let name = CString::new("test").expect("no NUL");
        let guid = CString::new(guid).expect("no NUL");
        let functions = fmi2::CallbackFunctions {
            logger: None,
            allocate_memory: None,
            free_memory: None,
            step_finished: None,
            component_environment: ptr::null_mut(),
        };
        // SAFETY: valid strings and callbacks that outlive the call.
        let c = unsafe {
            fmi2_me::instantiate::<M>(
                name.as_ptr(),
                fmu_type,
                guid.as_ptr(),
                ptr::null(),
                &raw const functions,
                FALSE,
                FALSE,
            )
        };
        let model = M::instantiate(guid.to_str().expect("UTF-8"))?;
        (!c.is_null()).then(|| Self {
            c,
            n: model.number_of_states(),
            nz: model.number_of_event_indicators(),
        })
    }

    /// Setup experiment at t = 0, enter and exit Initialization Mode (then in Event Mode).
    pub(super) fn initialize(&self) {
        // SAFETY: a live instance (for all unsafe calls of this type).
        unsafe {
            assert_eq!(
                fmi2::setup_experiment::<X>(self.c, FALSE, 0.0, 0.0, FALSE, 0.0),
                0
            );
            assert_eq!(fmi2::enter_initialization_mode::<X>(self.c), STATUS_OK);
            assert_eq!(fmi2::exit_initialization_mode::<X>(self.c), STATUS_OK);
        }
    }

    /// Calls `fmi2NewDiscreteStates` until no new iteration is needed (at most 100 times).
    pub(super) fn event_iteration(&self) -> fmi2_me::EventInfo {
        for _ in 0..100 {
            let mut info = fmi2_me::EventInfo::default();
            // SAFETY: see `initialize`; `info` is a valid out-pointer.
            let status = unsafe { fmi2_me::new_discrete_states::<M>(self.c, &raw mut info) };
            assert_eq!(status, STATUS_OK);
            if info.new_discrete_states_needed == FALSE {
                return info;
            }
        }
        panic!("event iteration does not end");
    }

    fn array(&self, n: usize, f: unsafe fn(fmi2::Component, *mut f64, usize) -> i32) -> Vec<f64> {
        let mut values = vec![0.0; n];
        // SAFETY: see `initialize`; `values` has `n` elements.
        assert_eq!(unsafe { f(self.c, values.as_mut_ptr(), n) }, STATUS_OK);
        values
    }

    pub(super) fn nominals(&self) -> Vec<f64> {
        self.array(self.n, fmi2_me::get_nominals_of_continuous_states::<M>)
    }

    /// `fmi2SetReal` of one variable; `Err(status)` if not OK.
    pub(super) fn set_real(&self, vr: u32, value: f64) -> Result<(), i32> {
        // SAFETY: see `initialize`; one value reference and one value.
        let status = unsafe { fmi2::set_real::<X>(self.c, &raw const vr, 1, &raw const value) };
        if status == STATUS_OK {
            Ok(())
        } else {
            Err(status)
        }
    }
}

impl Api for Instance {
    fn enter_continuous_time_mode(&self) {
        // SAFETY: see `initialize`.
        let status = unsafe { fmi2_me::enter_continuous_time_mode::<M>(self.c) };
        assert_eq!(status, STATUS_OK);
    }

    fn enter_event_mode(&self) {
        // SAFETY: see `initialize`.
        assert_eq!(unsafe { fmi2_me::enter_event_mode::<M>(self.c) }, STATUS_OK);
    }

    fn set_time(&self, t: f64) {
        // SAFETY: see `initialize`.
        assert_eq!(unsafe { fmi2_me::set_time::<M>(self.c, t) }, STATUS_OK);
    }

    fn set_states(&self, x: &[f64]) {
        // SAFETY: see `initialize`; `x` has `x.len()` elements.
        let status = unsafe { fmi2_me::set_continuous_states::<M>(self.c, x.as_ptr(), x.len()) };
        assert_eq!(status, STATUS_OK);
    }

    fn states(&self) -> Vec<f64> {
        self.array(self.n, fmi2_me::get_continuous_states::<M>)
    }

    fn derivatives(&self) -> Vec<f64> {
        self.array(self.n, fmi2_me::get_derivatives::<M>)
    }

    fn indicators(&self) -> Vec<f64> {
        self.array(self.nz, fmi2_me::get_event_indicators::<M>)
    }

    /// `fmi2GetReal` of one variable.
    fn real(&self, vr: u32) -> f64 {
        let mut value = 0.0;
        // SAFETY: see `initialize`; one value reference and one value.
        let status = unsafe { fmi2::get_real::<X>(self.c, &raw const vr, 1, &raw mut value) };
        assert_eq!(status, STATUS_OK);
        value
    }

    fn iterate_events(&self) -> Option<f64> {
        let info = self.event_iteration();
        (info.next_event_time_defined != FALSE).then_some(info.next_event_time)
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: a live instance, freed once.
        unsafe { fmi2::free_instance::<X>(self.c) }
    }
}

/// A fixed-step RK4 importer of one Model Exchange instance.
pub(super) struct Driver<A = Instance> {
    pub(super) fmu: A,
    /// RK4 step size (s).
    h: f64,
    /// Time reached (s).
    t: f64,
    /// The announced next time event (s).
    next_event: Option<f64>,
    /// Times of the state events handled (s).
    pub(super) event_times: Vec<f64>,
    /// Number of state events handled.
    pub(super) state_events: usize,
    /// Number of time events handled.
    pub(super) time_events: usize,
    /// Ignore `nextEventTime` as a stop time: handle a due time event only at the end of a
    /// step (a defective importer).
    pub(super) ignore_time_events: bool,
}

impl Driver {
    /// Instantiates (FMI 2.0), initializes, iterates the initial event and enters
    /// Continuous-Time Mode.
    pub(super) fn new(guid: &str, h: f64) -> Self {
        let fmu = Instance::new(guid, fmi2::MODEL_EXCHANGE).expect("instantiated");
        fmu.initialize();
        Self::with(fmu, h)
    }
}

impl<A: Api> Driver<A> {
    /// Drives an initialized instance in Event Mode: iterates the initial event and enters
    /// Continuous-Time Mode.
    pub(super) fn with(fmu: A, h: f64) -> Self {
        let next_event = fmu.iterate_events();
        fmu.enter_continuous_time_mode();
        Self {
            fmu,
            h,
            t: 0.0,
            next_event,
            event_times: Vec::new(),
            state_events: 0,
            time_events: 0,
            ignore_time_events: false,
        }
    }

    /// Integrates to `t_end` (s), calling `record(t, fmu)` every `dt` (s) from the current time
    /// on (including `t_end`).
    pub(super) fn run(&mut self, t_end: f64, dt: f64, mut record: impl FnMut(f64, &A)) {
        let t0 = self.t;
        let mut k = 1.0;
        while t0 + (k - 0.5) * dt < t_end {
            let t = (t0 + k * dt).min(t_end);
            self.advance_to(t);
            record(t, &self.fmu);
            k += 1.0;
        }
    }

    fn advance_to(&mut self, t_stop: f64) {
        while self.t < t_stop {
            let mut t_next = (self.t + self.h).min(t_stop);
            if let (Some(te), false) = (self.next_event, self.ignore_time_events) {
                t_next = t_next.min(te.max(self.t));
            }
            self.step(t_next);
        }
    }

    /// One RK4 step to `t_next`, with state event location and event handling.
    fn step(&mut self, t_next: f64) {
        let (t0, x0) = (self.t, self.fmu.states());
        let z0 = self.fmu.indicators();
        let x1 = self.rk4(t0, &x0, t_next - t0);
        if crossed(&z0, &self.eval_indicators(t_next, &x1)) {
            let (mut lo, mut hi) = (t0, t_next);
            for _ in 0..100 {
                let mid = 0.5 * (lo + hi);
                if mid <= lo || mid >= hi {
                    break;
                }
                let xm = self.rk4(t0, &x0, mid - t0);
                if crossed(&z0, &self.eval_indicators(mid, &xm)) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            let xe = self.rk4(t0, &x0, hi - t0);
            self.fmu.set_time(hi);
            self.fmu.set_states(&xe);
            self.t = hi;
            self.state_events += 1;
            self.event_times.push(hi);
            self.handle_event();
            return;
        }
        self.fmu.set_time(t_next);
        self.fmu.set_states(&x1);
        self.t = t_next;
        if self.next_event.is_some_and(|te| reached(self.t, te)) {
            self.time_events += 1;
            self.handle_event();
        }
    }

    fn handle_event(&mut self) {
        self.fmu.enter_event_mode();
        self.next_event = self.fmu.iterate_events();
        self.fmu.enter_continuous_time_mode();
    }

    fn eval_indicators(&self, t: f64, x: &[f64]) -> Vec<f64> {
        self.fmu.set_time(t);
        self.fmu.set_states(x);
        self.fmu.indicators()
    }

    fn f(&self, t: f64, x: &[f64]) -> Vec<f64> {
        self.fmu.set_time(t);
        self.fmu.set_states(x);
        self.fmu.derivatives()
    }

    fn rk4(&self, t: f64, x: &[f64], h: f64) -> Vec<f64> {
        let axpy =
            |k: &[f64], a: f64| -> Vec<f64> { x.iter().zip(k).map(|(x, k)| x + a * k).collect() };
        let k1 = self.f(t, x);
        let k2 = self.f(t + h / 2.0, &axpy(&k1, h / 2.0));
        let k3 = self.f(t + h / 2.0, &axpy(&k2, h / 2.0));
        let k4 = self.f(t + h, &axpy(&k3, h));
        (0..x.len())
            .map(|i| x[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
            .collect()
    }
}

/// Whether an indicator changed sign from `z0` to `z1` (reaching 0 from a non-zero value
/// counts).
fn crossed(z0: &[f64], z1: &[f64]) -> bool {
    z0.iter()
        .zip(z1)
        .any(|(&a, &b)| (a > 0.0 && b <= 0.0) || (a < 0.0 && b >= 0.0))
}

/// Robertson's problem integrated independently of the FMU: backward Euler (L-stable) with
/// Newton's method on a geometric time grid from 4e-6 s to 4e4 s (a first step from 0), run
/// with 20 000 and 40 000 steps and combined by Richardson extrapolation (second order).
/// Returns y at each of `times`, which must be decades 4·10^k s of that range.
pub(super) fn robertson_implicit(times: &[f64]) -> Vec<[f64; 3]> {
    let coarse = backward_euler(20_000, times);
    let fine = backward_euler(40_000, times);
    coarse
        .iter()
        .zip(&fine)
        .map(|(c, f)| [0, 1, 2].map(|i| 2.0 * f[i] - c[i]))
        .collect()
}

fn backward_euler(n: u32, times: &[f64]) -> Vec<[f64; 3]> {
    let k = [0.04, 1.0e4, 3.0e7];
    let grid = |i: u32| 4.0e-6 * 10f64.powf(10.0 * f64::from(i) / f64::from(n));
    let mut y = [1.0, 0.0, 0.0];
    let mut t = 0.0;
    let mut out = Vec::new();
    for i in 0..=n {
        let t_next = grid(i);
        y = implicit_step(k, &y, t_next - t);
        t = t_next;
        if times.iter().any(|&tau| (tau - t).abs() <= 1e-9 * tau) {
            out.push(y);
        }
    }
    assert_eq!(out.len(), times.len(), "output times on the grid");
    out
}

/// Solves y1 − y0 − h·f(y1) = 0 by Newton's method with the exact Jacobian.
fn implicit_step(k: [f64; 3], y0: &[f64; 3], h: f64) -> [f64; 3] {
    let mut y = *y0;
    for _ in 0..50 {
        let mut f = [0.0; 3];
        robertson_rhs(k, &y, &mut f);
        let r = [0, 1, 2].map(|i| y[i] - y0[i] - h * f[i]);
        let jf = [
            [-k[0], k[1] * y[2], k[1] * y[1]],
            [k[0], -k[1] * y[2] - 2.0 * k[2] * y[1], -k[1] * y[1]],
            [0.0, 2.0 * k[2] * y[1], 0.0],
        ];
        let a = [0, 1, 2].map(|i| [0, 1, 2].map(|j| f64::from(u8::from(i == j)) - h * jf[i][j]));
        let d = solve3(a, r);
        for i in 0..3 {
            y[i] -= d[i];
        }
        if d.iter()
            .zip(&y)
            .all(|(d, y)| d.abs() <= 1e-15 * (y.abs() + 1e-20))
        {
            break;
        }
    }
    y
}

/// Solves a·x = b (3×3) by Cramer's rule.
fn solve3(a: [[f64; 3]; 3], b: [f64; 3]) -> [f64; 3] {
    let det = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(a);
    [0, 1, 2].map(|col| {
        let mut m = a;
        for row in 0..3 {
            m[row][col] = b[row];
        }
        det(m) / d
    })
}
