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

use crate::Result;
use crate::algorithm::{Algorithm, Outcome, StepParams};
use crate::number::{cpp_max, cpp_min};
use crate::settings::Settings;
use crate::system::{StateSlot, System};
use crate::values::TypedValues;

/// Error value used when a half step of the Richardson test did not converge.
const FAILED_HALF_STEP_ERROR: f64 = 25.0;

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
fn adapt(err: f64, h_half: f64, h_min: f64) -> f64 {
    let scale = cpp_max(0.2, cpp_min(2.0, 0.9 / err.sqrt()));
    let h_new = h_half * scale * 2.0;
    if h_new < h_min {
        log::debug!("Error test: step {h_new} below hMin, continuing with minimum time step size.");
        return h_min;
    }
    h_new
}

/// The local error estimates of a run: scratch vectors and the history they need.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ErrorEstimator {
    /// Real values of the full step (Richardson).
    y_full: Vec<f64>,
    /// All coupled values at the start of the step (Richardson).
    y_start: TypedValues,
    /// Real values at the previous communication point (CHECK).
    y_prev: Vec<f64>,
    /// Previous communication point (CHECK), s.
    t_prev: Option<f64>,
}

impl ErrorEstimator {
    /// Scratch space for `n_real` coupled Real values.
    pub fn new(n_real: usize) -> Self {
        ErrorEstimator {
            y_full: vec![0.0; n_real],
            y_start: TypedValues::default(),
            y_prev: vec![0.0; n_real],
            t_prev: None,
        }
    }

    /// The CHECK-mode error of a converged step from `t` by `h` (s); `None` on the first step,
    /// which has no previous communication point.
    ///
    /// Shapes: `y_t` (values at `t`) and `y_next` (values at `t + h`) have one entry per
    /// coupled Real variable.
    pub fn check(
        &mut self,
        y_t: &[f64],
        y_next: &[f64],
        t: f64,
        h: f64,
        s: &Settings,
    ) -> Option<f64> {
        let mut err = None;
        if let Some(t_prev) = self.t_prev {
            let span = t + h - t_prev;
            let n = self.y_prev.len() as f64;
            let mut sum = 0.0;
            for ((&yn, &yt), &yp) in y_next.iter().zip(y_t).zip(&self.y_prev) {
                let sc = yn.abs() * s.rel_tol + s.abs_tol;
                let e = h * ((yn - yp) / span - (yn - yt) / h) / sc;
                sum += e * e;
            }
            let norm = (sum / n).sqrt();
            if norm > 1.0 {
                log::debug!(
                    "ERROR_TEST (CHECK): error test failed at t={t} with h={h}, WRMS={norm}"
                );
            }
            err = Some(norm);
        }
        self.y_prev.copy_from_slice(y_t);
        self.t_prev = Some(t);
        err
    }

    /// The Richardson step-doubling test after a converged step from `t` of size `h_full` (s),
    /// whose result is in `sys.y_next`: repeats the step as two half steps from the states
    /// saved at `t` and compares. On rejection the slaves and `y_t` are back at `t` (with
    /// MasterSim time arithmetic, the slave clocks half a step ahead, as MasterSim does). The
    /// test's norms go to `sys.counters.error_norms`, a failure to `error_test_fails`.
    ///
    /// # Errors
    /// Failing slave calls of the half steps and rollbacks.
    ///
    /// Spec: MasterSim reference §11.1.
    pub fn richardson(
        &mut self,
        algorithm: &mut Algorithm,
        sys: &mut System,
        t: f64,
        h_full: f64,
        s: &Settings,
    ) -> Result<Verdict> {
        self.begin(sys);
        sys.restore_states(StateSlot::Iter, t)?;
        sys.swap_state_slots();
        let h = h_full / 2.0;
        let mut t_half = t;
        let mut failed = false;
        if s.iterate() {
            sys.save_states(StateSlot::Iter)?;
        }
        if algorithm.step(sys, &StepParams::new(s, t_half, h))? != Outcome::Converged {
            log::debug!("First half-step of error test did not converge.");
            failed = true;
        } else {
            std::mem::swap(&mut sys.y_t, &mut sys.y_next);
            t_half += h;
            if s.iterate() {
                sys.save_states(StateSlot::Iter)?;
            }
            if algorithm.step(sys, &StepParams::new(s, t_half, h))? != Outcome::Converged {
                log::debug!("Second half-step of error test did not converge.");
                failed = true;
            }
        }
        let err = if failed {
            FAILED_HALF_STEP_ERROR
        } else {
            self.richardson_norm(sys, h_full, h, s)
        };
        let h_next = if err > 1.0 {
            sys.counters.error_test_fails += 1;
            log::debug!("ERROR_TEST: Error test failed at t={t} with h={h_full}, WRMS={err}");
            if h_full > s.h_min {
                // MasterSim restores with the master time already advanced by the first half
                // step; with MasterSim time arithmetic the slave clocks inherit that (reference
                // §11.1, reproduced for identical counters; see docs/deviations.md).
                sys.restore_states(StateSlot::Err, t_half)?;
                sys.y_t.copy_from(&self.y_start);
                sys.swap_state_slots();
                return Ok(Verdict::Rejected {
                    h_new: adapt(err, h, s.h_min),
                });
            }
            h_full
        } else {
            cpp_min(adapt(err, h, s.h_min), s.h_max)
        };
        sys.swap_state_slots();
        Ok(Verdict::Accepted {
            t_new: t_half + h,
            h_next,
        })
    }

    /// Records the full-step result and the start values before the half steps.
    fn begin(&mut self, sys: &System) {
        self.y_full.copy_from_slice(&sys.y_next.real);
        if self.y_start.real.len() != sys.y_t.real.len()
            || self.y_start.string.len() != sys.y_t.string.len()
        {
            self.y_start = sys.y_t.clone();
        } else {
            self.y_start.copy_from(&sys.y_t);
        }
    }

    /// The Richardson error after both half steps: `y_next` holds the two-half-step result and
    /// `y_t` the half-step values. `h_full` and `h_half` in s. Records both norms in
    /// `sys.counters.error_norms`.
    fn richardson_norm(&mut self, sys: &mut System, h_full: f64, h_half: f64, s: &Settings) -> f64 {
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
        sys.counters.error_norms = (err, err_slopes);
        cpp_max(err, err_slopes)
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
        let mut test = ErrorEstimator::new(1);
        let y = |t: f64| t * t;
        assert_eq!(
            test.check(&[y(0.0)], &[y(h)], 0.0, h, &s),
            None,
            "no estimate on the first step"
        );
        for n in 1..50 {
            let t = n as f64 * h;
            let err = test
                .check(&[y(t)], &[y(t + h)], t, h, &s)
                .expect("an estimate");
            assert!((err - h * h).abs() < 1e-9, "t={t}: {err}");
        }
        let strict = settings(1e-12, 1e-3);
        let mut test = ErrorEstimator::new(1);
        let fails = (0..10).filter(|&n| {
            let t = n as f64 * h;
            test.check(&[y(t)], &[y(t + h)], t, h, &strict)
                .is_some_and(|err| err > 1.0)
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
