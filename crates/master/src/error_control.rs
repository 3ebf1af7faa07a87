//! Local error estimates: Richardson step doubling (`ADAPT_STEP`) and the monitoring test
//! (`CHECK`).
//!
//! **Richardson** (reference §11.1): after a converged step of size `H` from `t`, the step is
//! repeated as two half steps of `h = H/2`. With `y2` the two-half-step result, `yF` the full
//! step result, `y0` the values at `t` and `yh` those at `t + h`, over all `n` coupled Reals:
//! `s_i = |y2_i|·relTol + absTol`, `e1_i = (y2_i − yF_i)/s_i`,
//! `e2_i = h·((yF_i − y0_i)/H − (yF_i − yh_i)/h)/s_i`, and the error is
//! `max(sqrt(Σe1²/n), sqrt(Σe2²/n))` (25 when a half step did not converge). An error above 1
//! fails the test. The next full step is `2h·max(0.2, min(2, 0.9/sqrt(err)))`, at least `hMin`
//! (C++ `std::min`/`std::max` argument order, so `err = 0` or NaN gives the factor 2).
//!
//! **CHECK** (corrected, see `docs/deviations.md`): after each step from `t` to `t + h`, with
//! `y_p` the values at the previous communication point `t_p`:
//! `e_i = h·((y_next_i − y_p_i)/(t + h − t_p) − (y_next_i − y_t_i)/h)/s_i`; the test fails when
//! `sqrt(Σe²/n) > 1`. It never changes the step. MasterSim measured the slope from `tStart`
//! instead of `t_p`.

use crate::settings::Settings;
use crate::simulation::{cpp_max, cpp_min};
use crate::system::System;
use crate::values::TypedValues;

/// Error value used when a half step of the Richardson test did not converge.
pub(crate) const FAILED_HALF_STEP_ERROR: f64 = 25.0;

/// Outcome of a Richardson test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Verdict {
    /// The step is accepted; the new communication point and the next proposed step, s.
    Accepted { t_new: f64, h_next: f64 },
    /// The step is rejected; retry from the same point with this full step, s.
    Rejected { h_new: f64 },
}

/// New full step after an error test with error `err` and half step `h_half` (s).
///
/// Spec: MasterSim reference §11.1 (`adapt`).
pub(crate) fn adapt(err: f64, h_half: f64, h_min: f64) -> f64 {
    let scale = cpp_max(0.2, cpp_min(2.0, 0.9 / err.sqrt()));
    let h_new = h_half * scale * 2.0;
    if h_new < h_min {
        log::debug!("Error test: step {h_new} below hMin, continuing with minimum time step size.");
        return h_min;
    }
    h_new
}

/// Scratch vectors and history of the error tests.
#[derive(Debug, Clone)]
pub(crate) struct ErrorTest {
    /// Real values of the full step (Richardson).
    y_full: Vec<f64>,
    /// All coupled values at the start of the step (Richardson).
    y_start: TypedValues,
    /// Real values at the previous communication point (CHECK).
    y_prev: Vec<f64>,
    /// Previous communication point (CHECK), s.
    t_prev: Option<f64>,
    /// Last value norm and slope norm (for step statistics).
    pub last_norms: (f64, f64),
}

impl ErrorTest {
    /// Scratch space for `n_real` coupled Real values.
    pub fn new(n_real: usize) -> Self {
        ErrorTest {
            y_full: vec![0.0; n_real],
            y_start: TypedValues::default(),
            y_prev: vec![0.0; n_real],
            t_prev: None,
            last_norms: (1.0, 1.0),
        }
    }

    /// Records the full-step result and the start values before the half steps.
    pub fn begin(&mut self, sys: &System) {
        self.y_full.copy_from_slice(&sys.y_next.real);
        if self.y_start.real.len() != sys.y_t.real.len()
            || self.y_start.string.len() != sys.y_t.string.len()
        {
            self.y_start = sys.y_t.clone();
        } else {
            self.y_start.copy_from(&sys.y_t);
        }
    }

    /// Puts the start values back into `y_t` after a rejected test.
    pub fn restore_start_values(&self, sys: &mut System) {
        sys.y_t.copy_from(&self.y_start);
    }

    /// The Richardson error after both half steps: `y_next` holds the two-half-step result and
    /// `y_t` the half-step values. `h_full` and `h_half` in s.
    pub fn richardson_norm(&mut self, sys: &System, h_full: f64, h_half: f64, s: &Settings) -> f64 {
        let n = self.y_full.len() as f64;
        let (mut sum1, mut sum2) = (0.0, 0.0);
        for i in 0..self.y_full.len() {
            let y2 = sys.y_next.real[i];
            let yf = self.y_full[i];
            let y0 = self.y_start.real[i];
            let yh = sys.y_t.real[i];
            let sc = y2.abs() * s.rel_tol + s.abs_tol;
            let e1 = (y2 - yf) / sc;
            let e2 = h_half * ((yf - y0) / h_full - (yf - yh) / h_half) / sc;
            sum1 += e1 * e1;
            sum2 += e2 * e2;
        }
        let err = (sum1 / n).sqrt();
        let err_slopes = (sum2 / n).sqrt();
        self.last_norms = (err, err_slopes);
        cpp_max(err, err_slopes)
    }

    /// The CHECK-mode test after a converged step from `t` by `h` (s); true when it failed.
    ///
    /// Shapes: `y_t` (values at `t`) and `y_next` (values at `t + h`) have one entry per
    /// coupled Real variable.
    pub fn check(&mut self, y_t: &[f64], y_next: &[f64], t: f64, h: f64, s: &Settings) -> bool {
        let mut failed = false;
        if let Some(t_prev) = self.t_prev {
            let span = t + h - t_prev;
            let n = self.y_prev.len() as f64;
            let mut sum = 0.0;
            for ((&yn, &yt), &yp) in y_next.iter().zip(y_t).zip(&self.y_prev) {
                let sc = yn.abs() * s.rel_tol + s.abs_tol;
                let e = h * ((yn - yp) / span - (yn - yt) / h) / sc;
                sum += e * e;
            }
            let err = (sum / n).sqrt();
            self.last_norms = (err, err);
            failed = err > 1.0;
            if failed {
                log::debug!(
                    "ERROR_TEST (CHECK): error test failed at t={t} with h={h}, WRMS={err}"
                );
            }
        }
        self.y_prev.copy_from_slice(y_t);
        self.t_prev = Some(t);
        failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Project;

    fn settings(rel_tol: f64, abs_tol: f64) -> Settings {
        let text = format!("tEnd 10 s\nrelTol {rel_tol}\nabsTol {abs_tol}\n");
        let project = Project::parse(&text, std::path::Path::new("/p.msim")).expect("parses");
        Settings::from_project(&project).expect("valid")
    }

    /// For y = t², the CHECK estimate is h·(slope over two steps − slope of the last step),
    /// which is h² whatever t is; MasterSim's version measured from tStart grows with t.
    #[test]
    fn check_estimate_is_local() {
        let s = settings(1e-12, 1.0);
        let h = 0.1;
        let mut test = ErrorTest::new(1);
        let y = |t: f64| t * t;
        assert!(
            !test.check(&[y(0.0)], &[y(h)], 0.0, h, &s),
            "no estimate on the first step"
        );
        for n in 1..50 {
            let t = n as f64 * h;
            test.check(&[y(t)], &[y(t + h)], t, h, &s);
            assert!(
                (test.last_norms.0 - h * h).abs() < 1e-9,
                "t={t}: {}",
                test.last_norms.0
            );
        }
        let strict = settings(1e-12, 1e-3);
        let mut test = ErrorTest::new(1);
        let fails = (0..10).filter(|&n| {
            let t = n as f64 * h;
            test.check(&[y(t)], &[y(t + h)], t, h, &strict)
        });
        assert_eq!(
            fails.count(),
            9,
            "every step after the first fails at absTol 1e-3 (h² = 1e-2)"
        );
    }

    #[test]
    fn adapt_uses_cpp_min_max_semantics() {
        assert_eq!(adapt(0.0, 0.05, 1e-8), 0.2, "err 0 gives the factor 2");
        assert_eq!(adapt(f64::NAN, 0.05, 1e-8), 0.2, "NaN gives the factor 2");
        let reduced = adapt(1e6, 0.05, 1e-8);
        assert!(
            (reduced - 0.02).abs() < 1e-15,
            "large errors give the factor 0.2: {reduced}"
        );
        assert!(
            (adapt(4.0, 0.05, 1e-8) - 0.045).abs() < 1e-15,
            "0.9/sqrt(4) = 0.45"
        );
        assert_eq!(adapt(1e6, 0.05, 0.05), 0.05, "never below hMin");
    }
}
