//! The integrators against known solutions: accuracy, stop times, roots, stiffness, failures,
//! statistics and settings.

mod common;

use common::{BlowUp, Decay, Failing, cvode, euler};
use solver::{Advance, Error, Integrator, Method, OdeSystem, Settings};

/// x' = -k x against e^(-k t) at 20 points in (0, 5] s. CVODE controls the local error to
/// rel_tol |x| + abs_tol; the global error of this contracting problem stays within a small
/// multiple of that: the bound is 20 (rel_tol |x| + abs_tol).
#[test]
fn decay_matches_the_exponential_within_the_tolerances() {
    let (rel_tol, abs_tol, k) = (1e-8, 1e-10, 2.0);
    let mut integrator = Integrator::new(&cvode(rel_tol, abs_tol, 1), 1, 0).unwrap();
    integrator.reset(0.0, &[1.0]).unwrap();
    let mut worst: f64 = 0.0;
    for i in 1..=20 {
        let t = 0.25 * f64::from(i);
        assert_eq!(
            integrator.advance(&mut Decay { k }, t).unwrap(),
            Advance::Reached
        );
        let exact = (-k * t).exp();
        let error = (integrator.states()[0] - exact).abs();
        let bound = 20.0 * (rel_tol * exact + abs_tol);
        assert!(error <= bound, "t = {t}: error {error:e} > bound {bound:e}");
        worst = worst.max(error / bound);
    }
    assert!(
        worst > 0.0,
        "an exact result would mean the ODE was not integrated"
    );
}

/// x'' = -ω² x over 10 s (about 16 periods at ω = 10): position and velocity against
/// cos(ωt) and -ω sin(ωt).
#[test]
fn harmonic_oscillator_keeps_phase_and_amplitude() {
    struct Oscillator(f64);
    impl OdeSystem for Oscillator {
        fn rhs(&mut self, _t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), String> {
            dx[0] = x[1];
            dx[1] = -self.0 * self.0 * x[0];
            Ok(())
        }
        fn roots(&mut self, _t: f64, _x: &[f64], _g: &mut [f64]) -> Result<(), String> {
            Ok(())
        }
    }
    let omega = 10.0;
    let mut integrator = Integrator::new(&cvode(1e-10, 1e-12, 2), 2, 0).unwrap();
    integrator.reset(0.0, &[1.0, 0.0]).unwrap();
    for i in 1..=100 {
        let t = 0.1 * f64::from(i);
        integrator.advance(&mut Oscillator(omega), t).unwrap();
        let x = integrator.states();
        assert!(
            (x[0] - (omega * t).cos()).abs() < 1e-6,
            "t = {t}: x = {}",
            x[0]
        );
        assert!(
            (x[1] + omega * (omega * t).sin()).abs() < 1e-5,
            "t = {t}: v = {}",
            x[1]
        );
    }
}

/// h' = v, v' = -g with g(h) = h: the ball lands at t = sqrt(2 h0 / g).
struct FallingBall {
    g: f64,
}

impl OdeSystem for FallingBall {
    fn rhs(&mut self, _t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), String> {
        dx[0] = x[1];
        dx[1] = -self.g;
        Ok(())
    }
    fn roots(&mut self, _t: f64, x: &[f64], g: &mut [f64]) -> Result<(), String> {
        g[0] = x[0];
        Ok(())
    }
}

#[test]
fn falling_ball_lands_within_1e_10_s() {
    let (h0, g) = (10.0, 9.81);
    let mut settings = cvode(1e-10, 1e-12, 2);
    settings.max_step = Some(0.1);
    let mut integrator = Integrator::new(&settings, 2, 1).unwrap();
    integrator.reset(0.0, &[h0, 0.0]).unwrap();
    assert_eq!(
        integrator.advance(&mut FallingBall { g }, 5.0).unwrap(),
        Advance::Root
    );
    let exact = (2.0 * h0 / g).sqrt();
    let t = integrator.time();
    assert!(
        (t - exact).abs() < 1e-10,
        "root at {t}, exact {exact}: off by {:e}",
        t - exact
    );
    assert_eq!(integrator.root_directions(), &[-1]);
    assert!(integrator.states()[0].abs() < 1e-9);
}

#[test]
fn euler_reports_the_landing_at_the_step_end() {
    let h = 0.01;
    let mut integrator = Integrator::new(&euler(h, 2), 2, 1).unwrap();
    integrator.reset(0.0, &[10.0, 0.0]).unwrap();
    assert_eq!(
        integrator
            .advance(&mut FallingBall { g: 9.81 }, 5.0)
            .unwrap(),
        Advance::Root
    );
    let exact = (2.0 * 10.0 / 9.81f64).sqrt();
    let t = integrator.time();
    // Euler lags by about one step: the landing is reported at the first step end past it.
    assert!(
        t >= exact && t < exact + 2.0 * h + 1e-9,
        "root reported at {t}, exact {exact}"
    );
    assert!(integrator.states()[0] <= 0.0);
    assert_eq!(integrator.root_directions(), &[-1]);
}

/// Records the largest time f and g were evaluated at.
struct Watched {
    latest: f64,
}

impl OdeSystem for Watched {
    fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), String> {
        self.latest = self.latest.max(t);
        dx[0] = (3.0 * t).cos() - x[0];
        Ok(())
    }
    fn roots(&mut self, t: f64, x: &[f64], g: &mut [f64]) -> Result<(), String> {
        self.latest = self.latest.max(t);
        g[0] = x[0] - 100.0; // never crosses
        Ok(())
    }
}

#[test]
fn advance_never_passes_the_stop_time_and_lands_on_it_exactly() {
    let stops: Vec<f64> = (1..=60)
        .map(|i| f64::from(i) / 7.0 + 1e-3 * f64::from(i % 3))
        .collect();
    for settings in [cvode(1e-6, 1e-8, 1), euler(0.013, 1)] {
        let mut integrator = Integrator::new(&settings, 1, 1).unwrap();
        integrator.reset(0.0, &[0.0]).unwrap();
        let mut system = Watched { latest: 0.0 };
        for &t_stop in &stops {
            assert_eq!(
                integrator.advance(&mut system, t_stop).unwrap(),
                Advance::Reached
            );
            assert_eq!(
                integrator.time().to_bits(),
                t_stop.to_bits(),
                "{:?}",
                settings.method
            );
            assert!(
                system.latest <= t_stop,
                "f or g evaluated at {} > {t_stop}",
                system.latest
            );
        }
        // A stop time equal to the current time is reached at once.
        let t = integrator.time();
        assert_eq!(
            integrator.advance(&mut system, t).unwrap(),
            Advance::Reached
        );
        assert_eq!(integrator.time(), t);
    }
}

#[test]
fn a_stop_time_a_few_ulps_ahead_is_reached() {
    let mut integrator = Integrator::new(&cvode(1e-6, 1e-8, 1), 1, 0).unwrap();
    integrator.reset(1.0, &[1.0]).unwrap();
    let t_stop = f64::from_bits(1.0f64.to_bits() + 2);
    assert_eq!(
        integrator.advance(&mut Decay { k: 1.0 }, t_stop).unwrap(),
        Advance::Reached
    );
    assert_eq!(integrator.time(), t_stop);
    assert!((integrator.states()[0] - 1.0).abs() < 1e-14);
    assert_eq!(
        integrator.advance(&mut Decay { k: 1.0 }, 2.0).unwrap(),
        Advance::Reached
    );
    assert!((integrator.states()[0] - (-1.0f64).exp()).abs() < 1e-5);
}

/// s' = c, c' = -s from (0, 1): s = sin t, c = cos t; roots g = (s, c).
struct SineCosine;

impl OdeSystem for SineCosine {
    fn rhs(&mut self, _t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), String> {
        dx[0] = x[1];
        dx[1] = -x[0];
        Ok(())
    }
    fn roots(&mut self, _t: f64, x: &[f64], g: &mut [f64]) -> Result<(), String> {
        g.copy_from_slice(x);
        Ok(())
    }
}

/// The roots of (sin, cos) on (0, 7): cos falls at π/2, sin falls at π, cos rises at 3π/2,
/// sin rises at 2π; found in order, with or without a reset after each.
#[test]
fn roots_come_in_order_with_their_directions() {
    use std::f64::consts::PI;
    let expected = [
        (PI / 2.0, [0, -1]),
        (PI, [-1, 0]),
        (1.5 * PI, [0, 1]),
        (2.0 * PI, [1, 0]),
    ];
    for reset_after_root in [false, true] {
        let mut integrator = Integrator::new(&cvode(1e-10, 1e-12, 2), 2, 2).unwrap();
        integrator.reset(0.0, &[0.0, 1.0]).unwrap();
        let mut found = Vec::new();
        while integrator.advance(&mut SineCosine, 7.0).unwrap() == Advance::Root {
            found.push((integrator.time(), integrator.root_directions().to_vec()));
            if reset_after_root {
                let x = integrator.states().to_vec();
                integrator.reset(integrator.time(), &x).unwrap();
            }
        }
        assert_eq!(integrator.time(), 7.0);
        assert_eq!(integrator.root_directions(), &[0, 0]);
        assert_eq!(
            found.len(),
            expected.len(),
            "reset {reset_after_root}: {found:?}"
        );
        for ((t, dirs), (t_exact, dirs_exact)) in found.iter().zip(expected) {
            assert!(
                (t - t_exact).abs() < 1e-8,
                "root at {t}, expected {t_exact}"
            );
            assert_eq!(dirs, &dirs_exact, "root at {t}");
        }
    }
}

/// Robertson's chemical kinetics, the classic stiff test (CVODE's cvRoberts_dns example):
/// y1' = -0.04 y1 + 1e4 y2 y3, y2' = 0.04 y1 - 1e4 y2 y3 - 3e7 y2², y3' = 3e7 y2².
struct Robertson;

impl OdeSystem for Robertson {
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), String> {
        dy[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
        dy[2] = 3e7 * y[1] * y[1];
        dy[1] = -dy[0] - dy[2];
        Ok(())
    }
    fn roots(&mut self, _t: f64, _y: &[f64], _g: &mut [f64]) -> Result<(), String> {
        Ok(())
    }
}

#[test]
fn robertson_is_solved_stiffly_with_few_steps() {
    let settings = Settings {
        method: Method::Cvode,
        rel_tol: 1e-6,
        abs_tol: vec![1e-8, 1e-14, 1e-6],
        max_step: None,
        fixed_step: 1e-3,
    };
    let mut integrator = Integrator::new(&settings, 3, 0).unwrap();
    integrator.reset(0.0, &[1.0, 0.0, 0.0]).unwrap();
    assert_eq!(
        integrator.advance(&mut Robertson, 40.0).unwrap(),
        Advance::Reached
    );
    let y = integrator.states();
    // Published values at t = 40 (Hairer & Wanner; CVODE's cvRoberts_dns output).
    let reference = [0.7158271, 9.185535e-6, 0.2841637];
    for (i, (y, r)) in y.iter().zip(reference).enumerate() {
        assert!(
            ((y - r) / r).abs() < 1e-4,
            "y{} = {y:e}, reference {r:e}",
            i + 1
        );
    }
    let stats = integrator.statistics();
    // An explicit method needs millions of steps here (stability limit ~1e-4 s); BDF a few hundred.
    assert!(stats.steps < 500, "{stats:?}");
    assert!(
        stats.jacobian_evaluations > 0 && stats.jacobian_evaluations < stats.steps,
        "{stats:?}"
    );
    assert!(stats.rhs_evaluations > stats.steps, "{stats:?}");
}

#[test]
fn a_failing_system_stops_the_integration_with_its_time_and_message() {
    for settings in [cvode(1e-6, 1e-8, 1), euler(0.01, 1)] {
        for in_roots in [false, true] {
            let mut integrator = Integrator::new(&settings, 1, 1).unwrap();
            integrator.reset(0.0, &[1.0]).unwrap();
            let mut system = Failing {
                fail_after: 0.5,
                in_roots,
                panic: false,
            };
            match integrator.advance(&mut system, 1.0) {
                Err(Error::System { t, message }) => {
                    assert!(t > 0.5 && t <= 1.0, "t = {t}");
                    assert_eq!(message, format!("model refused t = {t}"));
                }
                other => panic!("{:?}, roots {in_roots}: {other:?}", settings.method),
            }
        }
    }
}

#[test]
fn a_panicking_system_is_an_error_not_an_abort() {
    for settings in [cvode(1e-6, 1e-8, 1), euler(0.01, 1)] {
        let mut integrator = Integrator::new(&settings, 1, 1).unwrap();
        integrator.reset(0.0, &[1.0]).unwrap();
        let mut system = Failing {
            fail_after: 0.25,
            in_roots: false,
            panic: true,
        };
        match integrator.advance(&mut system, 1.0) {
            Err(Error::System { t, message }) => {
                assert!(t > 0.25, "t = {t}");
                assert!(
                    message.contains("rhs panicked: model exploded at"),
                    "{message}"
                );
            }
            other => panic!("{:?}: {other:?}", settings.method),
        }
    }
}

#[test]
fn a_blow_up_is_a_cvode_failure_with_its_flag_name() {
    let mut integrator = Integrator::new(&cvode(1e-6, 1e-8, 1), 1, 0).unwrap();
    integrator.reset(0.0, &[1.0]).unwrap();
    match integrator.advance(&mut BlowUp, 2.0) {
        Err(Error::Failed { t, message }) => {
            assert!(t > 0.9 && t < 1.0, "failed at t = {t}");
            assert!(message.starts_with("CV_"), "{message}");
            assert!(message.len() > 20, "no SUNDIALS message kept: {message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn statistics_stay_cumulative_over_resets() {
    for settings in [cvode(1e-6, 1e-8, 1), euler(0.01, 1)] {
        let mut integrator = Integrator::new(&settings, 1, 0).unwrap();
        integrator.reset(0.0, &[1.0]).unwrap();
        integrator.advance(&mut Decay { k: 1.0 }, 1.0).unwrap();
        let first = integrator.statistics();
        assert!(
            first.steps > 0 && first.rhs_evaluations >= first.steps,
            "{first:?}"
        );
        integrator.reset(1.0, &[1.0]).unwrap();
        assert_eq!(
            integrator.statistics(),
            first,
            "a reset alone changes nothing"
        );
        integrator.advance(&mut Decay { k: 1.0 }, 2.0).unwrap();
        let second = integrator.statistics();
        assert!(
            second.steps >= first.steps + first.steps / 2,
            "{first:?} then {second:?}"
        );
        assert!(
            second.rhs_evaluations > first.rhs_evaluations,
            "{first:?} then {second:?}"
        );
        assert!(second.jacobian_evaluations >= first.jacobian_evaluations);
    }
}

/// Forward Euler is first order: halving the step halves the error of x' = -x at t = 1.
#[test]
fn euler_error_is_first_order() {
    let error = |h: f64| {
        let mut integrator = Integrator::new(&euler(h, 1), 1, 0).unwrap();
        integrator.reset(0.0, &[1.0]).unwrap();
        integrator.advance(&mut Decay { k: 1.0 }, 1.0).unwrap();
        assert_eq!(integrator.statistics().steps, (1.0 / h).round() as u64);
        (integrator.states()[0] - (-1.0f64).exp()).abs()
    };
    let (coarse, fine) = (error(0.01), error(0.005));
    // The leading error term of Euler on x' = -x at t = 1 is h e^-1 / 2.
    assert!(
        (coarse / (0.01 * (-1.0f64).exp() / 2.0) - 1.0).abs() < 0.02,
        "{coarse:e}"
    );
    assert!(
        (coarse / fine - 2.0).abs() < 0.02,
        "ratio {}",
        coarse / fine
    );
}

#[test]
fn euler_takes_min_of_fixed_and_max_step() {
    let mut settings = euler(0.1, 1);
    settings.max_step = Some(0.05);
    let mut integrator = Integrator::new(&settings, 1, 0).unwrap();
    integrator.reset(0.0, &[1.0]).unwrap();
    integrator.advance(&mut Decay { k: 1.0 }, 1.0).unwrap();
    assert_eq!(integrator.statistics().steps, 20);
    integrator.set_max_step(None).unwrap();
    integrator.advance(&mut Decay { k: 1.0 }, 2.0).unwrap();
    assert_eq!(integrator.statistics().steps, 30);
}

#[test]
fn bad_settings_and_calls_are_setup_errors() {
    let setup = |result: Result<Integrator, Error>| match result {
        Err(Error::Setup(message)) => message,
        other => panic!("{other:?}"),
    };
    assert!(setup(Integrator::new(&cvode(1e-6, 1e-8, 0), 0, 1)).contains("got 0"));
    assert!(
        setup(Integrator::new(&cvode(f64::NAN, 1e-8, 1), 1, 0)).contains("relative tolerance NaN")
    );
    assert!(setup(Integrator::new(&cvode(0.0, 1e-8, 1), 1, 0)).contains("relative tolerance 0"));
    assert!(
        setup(Integrator::new(&cvode(1e-6, -1.0, 2), 2, 0))
            .contains("absolute tolerance -1 of state 0")
    );
    assert!(
        setup(Integrator::new(&cvode(1e-6, 1e-8, 2), 3, 0))
            .contains("2 absolute tolerances given for 3 states")
    );
    assert!(setup(Integrator::new(&euler(0.0, 1), 1, 0)).contains("Euler step 0 s"));
    let mut bad_step = cvode(1e-6, 1e-8, 1);
    bad_step.max_step = Some(-1.0);
    assert!(setup(Integrator::new(&bad_step, 1, 0)).contains("maximum step -1 s"));

    let mut integrator = Integrator::new(&cvode(1e-6, 1e-8, 1), 1, 0).unwrap();
    let message = |r: Result<Advance, Error>| match r {
        Err(Error::Setup(m)) => m,
        other => panic!("{other:?}"),
    };
    assert!(
        message(integrator.advance(&mut Decay { k: 1.0 }, 1.0)).contains("before the first reset")
    );
    assert!(matches!(
        integrator.reset(0.0, &[1.0, 2.0]),
        Err(Error::Setup(_))
    ));
    assert!(matches!(
        integrator.reset(0.0, &[f64::NAN]),
        Err(Error::Setup(_))
    ));
    integrator.reset(1.0, &[1.0]).unwrap();
    assert!(message(integrator.advance(&mut Decay { k: 1.0 }, 0.5)).contains("lies before"));
    assert!(matches!(
        integrator.set_max_step(Some(0.0)),
        Err(Error::Setup(_))
    ));
}

#[test]
fn methods_parse_and_display_with_fmpy_names() {
    assert_eq!("cvode".parse::<Method>().unwrap(), Method::Cvode);
    assert_eq!("CVode".parse::<Method>().unwrap(), Method::Cvode);
    assert_eq!("EULER".parse::<Method>().unwrap(), Method::Euler);
    assert_eq!(Method::Cvode.to_string(), "CVode");
    assert_eq!(Method::Euler.to_string(), "Euler");
    let err = "rk4".parse::<Method>().unwrap_err();
    assert!(err.contains("'rk4'") && err.contains("CVode"), "{err}");
}

#[test]
fn integrators_move_between_threads() {
    fn is_send<T: Send>(_: &T) {}
    let mut integrator = Integrator::new(&cvode(1e-6, 1e-8, 1), 1, 0).unwrap();
    is_send(&integrator);
    integrator.reset(0.0, &[1.0]).unwrap();
    let integrator = std::thread::spawn(move || {
        integrator.advance(&mut Decay { k: 1.0 }, 1.0).unwrap();
        integrator
    })
    .join()
    .unwrap();
    assert!((integrator.states()[0] - (-1.0f64).exp()).abs() < 1e-5);
}
