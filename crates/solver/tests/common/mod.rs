//! Systems and settings shared by the solver's tests.

#![allow(dead_code)] // each test binary uses a part

use solver::{Method, OdeSystem, Settings};

/// CVODE settings with the given tolerances for `n` states and no step limit.
pub fn cvode(rel_tol: f64, abs_tol: f64, n: usize) -> Settings {
    Settings {
        method: Method::Cvode,
        rel_tol,
        abs_tol: vec![abs_tol; n],
        max_step: None,
        fixed_step: 1e-3,
    }
}

/// Euler settings with the step `h` (s) for `n` states.
pub fn euler(h: f64, n: usize) -> Settings {
    Settings {
        method: Method::Euler,
        rel_tol: 1e-6,
        abs_tol: vec![1e-6; n],
        max_step: None,
        fixed_step: h,
    }
}

/// x' = -k x, no roots.
#[derive(Debug)]
pub struct Decay {
    pub k: f64,
}

impl OdeSystem for Decay {
    fn rhs(&mut self, _t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), String> {
        dx[0] = -self.k * x[0];
        Ok(())
    }
    fn roots(&mut self, _t: f64, _x: &[f64], _g: &mut [f64]) -> Result<(), String> {
        Ok(())
    }
}

/// x' = x², which blows up at t = 1/x(0): CVODE must give up.
#[derive(Debug)]
pub struct BlowUp;

impl OdeSystem for BlowUp {
    fn rhs(&mut self, _t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), String> {
        dx[0] = x[0] * x[0];
        Ok(())
    }
    fn roots(&mut self, _t: f64, _x: &[f64], _g: &mut [f64]) -> Result<(), String> {
        Ok(())
    }
}

/// x' = -x that fails (returns Err) for t > `fail_after` s, in rhs or in roots.
#[derive(Debug)]
pub struct Failing {
    pub fail_after: f64,
    pub in_roots: bool,
    pub panic: bool,
}

impl Failing {
    fn check(&self, t: f64, here: bool) -> Result<(), String> {
        if here && t > self.fail_after {
            if self.panic {
                panic!("model exploded at {t}");
            }
            return Err(format!("model refused t = {t}"));
        }
        Ok(())
    }
}

impl OdeSystem for Failing {
    fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), String> {
        self.check(t, !self.in_roots)?;
        dx[0] = -x[0];
        Ok(())
    }
    fn roots(&mut self, t: f64, x: &[f64], g: &mut [f64]) -> Result<(), String> {
        self.check(t, self.in_roots)?;
        g[0] = x[0] + 10.0; // never crosses
        Ok(())
    }
}
