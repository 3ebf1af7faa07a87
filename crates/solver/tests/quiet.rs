//! SUNDIALS never prints: this binary runs the failure scenarios in a child process (itself,
//! with `SOLVER_QUIET_CHILD=1`) and checks that the child wrote nothing at all.

mod common;

use common::{BlowUp, Decay, Failing, cvode};
use solver::{Advance, Error, Integrator};
use std::process::Command;

const CHILD: &str = "SOLVER_QUIET_CHILD";

fn main() {
    if std::env::var_os(CHILD).is_some() {
        scenarios();
        return;
    }
    let exe = std::env::current_exe().expect("the test binary's own path");
    let output = Command::new(&exe)
        .env(CHILD, "1")
        .output()
        .expect("run the child");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the child failed: {}\n{stdout}\n{stderr}",
        output.status
    );
    assert!(stdout.is_empty(), "written to stdout: {stdout}");
    assert!(stderr.is_empty(), "written to stderr: {stderr}");
    println!(
        "quiet: SUNDIALS printed nothing in {} failure scenarios",
        SCENARIOS
    );
}

const SCENARIOS: usize = 4;

/// Each scenario makes SUNDIALS report an error or would make CVODE warn; none may print.
fn scenarios() {
    // CVODE gives up on a blow-up (error test or convergence failures).
    let mut integrator = Integrator::new(&cvode(1e-6, 1e-8, 1), 1, 0).unwrap();
    integrator.reset(0.0, &[1.0]).unwrap();
    assert!(matches!(
        integrator.advance(&mut BlowUp, 2.0),
        Err(Error::Failed { .. })
    ));

    // The right-hand side fails: CVODE reports an unrecoverable rhs failure.
    let mut integrator = Integrator::new(&cvode(1e-6, 1e-8, 1), 1, 1).unwrap();
    integrator.reset(0.0, &[1.0]).unwrap();
    let mut failing = Failing {
        fail_after: 0.5,
        in_roots: true,
        panic: false,
    };
    assert!(matches!(
        integrator.advance(&mut failing, 1.0),
        Err(Error::System { .. })
    ));

    // A stop time too close for CVODE (CV_TOO_CLOSE, handled as one small step).
    let mut integrator = Integrator::new(&cvode(1e-6, 1e-8, 1), 1, 0).unwrap();
    integrator.reset(1.0, &[1.0]).unwrap();
    let t_stop = f64::from_bits(1.0f64.to_bits() + 1);
    assert_eq!(
        integrator.advance(&mut Decay { k: 1.0 }, t_stop).unwrap(),
        Advance::Reached
    );

    // Too much work: a tight step limit at a huge time makes "t + h = t" warnings likely and
    // the step limit is hit; whatever CVODE says must come back as an error, not as text.
    let mut settings = cvode(1e-12, 1e-300, 1);
    settings.max_step = Some(1e-12);
    let mut integrator = Integrator::new(&settings, 1, 0).unwrap();
    integrator.reset(1e6, &[1.0]).unwrap();
    let result = integrator.advance(&mut Decay { k: 1e-3 }, 1e6 + 10.0);
    assert!(matches!(result, Err(Error::Failed { .. })), "{result:?}");
}
