//! PLACEHOLDER (removed before merging main): the solver API of issue 30 with explicit Euler
//! and linear root location, so that the Model-Exchange slave can be written and tested before
//! the real crate lands.
#![allow(missing_docs, missing_debug_implementations)]

pub trait OdeSystem {
    fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), String>;
    fn roots(&mut self, t: f64, x: &[f64], g: &mut [f64]) -> Result<(), String>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Cvode,
    Euler,
}

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "cvode" => Ok(Method::Cvode),
            "euler" => Ok(Method::Euler),
            _ => Err(format!("unknown solver '{s}' (expected CVode or Euler)")),
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::Cvode => "CVode",
            Method::Euler => "Euler",
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub method: Method,
    pub rel_tol: f64,
    pub abs_tol: Vec<f64>,
    pub max_step: Option<f64>,
    pub fixed_step: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advance {
    Reached,
    Root,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Statistics {
    pub steps: u64,
    pub rhs_evaluations: u64,
    pub jacobian_evaluations: u64,
    pub root_evaluations: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Setup(String),
    #[error("at t={t}: {message}")]
    System { t: f64, message: String },
    #[error("at t={t}: {message}")]
    Failed { t: f64, message: String },
}

#[derive(Debug)]
pub struct Integrator {
    settings: Settings,
    t: f64,
    x: Vec<f64>,
    dx: Vec<f64>,
    g: Vec<f64>,
    g_new: Vec<f64>,
    g_valid: bool,
    dirs: Vec<i32>,
    stats: Statistics,
}

impl Integrator {
    pub fn new(settings: &Settings, n_states: usize, n_roots: usize) -> Result<Integrator, Error> {
        Ok(Integrator {
            settings: settings.clone(),
            t: 0.0,
            x: vec![0.0; n_states],
            dx: vec![0.0; n_states],
            g: vec![0.0; n_roots],
            g_new: vec![0.0; n_roots],
            g_valid: false,
            dirs: vec![0; n_roots],
            stats: Statistics::default(),
        })
    }
    pub fn reset(&mut self, t: f64, x: &[f64]) -> Result<(), Error> {
        self.t = t;
        self.x.copy_from_slice(x);
        self.g_valid = false;
        Ok(())
    }
    pub fn set_max_step(&mut self, h: Option<f64>) -> Result<(), Error> {
        self.settings.max_step = h;
        Ok(())
    }
    pub fn advance(&mut self, sys: &mut dyn OdeSystem, t_stop: f64) -> Result<Advance, Error> {
        self.dirs.fill(0);
        let sys_err = |t, message| Error::System { t, message };
        if !self.g_valid {
            sys.roots(self.t, &self.x, &mut self.g).map_err(|m| sys_err(self.t, m))?;
            self.stats.root_evaluations += 1;
            self.g_valid = true;
        }
        let mut h = self.settings.fixed_step;
        if let Some(m) = self.settings.max_step {
            h = h.min(m);
        }
        while self.t < t_stop {
            let t_new = if self.t + h >= t_stop * (1.0 - 1e-14) { t_stop } else { self.t + h };
            let dt = t_new - self.t;
            sys.rhs(self.t, &self.x, &mut self.dx).map_err(|m| sys_err(self.t, m))?;
            self.stats.rhs_evaluations += 1;
            let x_old = self.x.clone();
            for (x, d) in self.x.iter_mut().zip(&self.dx) {
                *x += dt * d;
            }
            sys.roots(t_new, &self.x, &mut self.g_new).map_err(|m| sys_err(t_new, m))?;
            self.stats.root_evaluations += 1;
            self.stats.steps += 1;
            let mut frac = f64::INFINITY;
            for (i, (&a, &b)) in self.g.iter().zip(&self.g_new).enumerate() {
                if (a < 0.0 && b >= 0.0) || (a > 0.0 && b <= 0.0) {
                    let f = a / (a - b);
                    if f < frac {
                        frac = f;
                    }
                    self.dirs[i] = if b > a { 1 } else { -1 };
                }
            }
            if frac.is_finite() {
                let t_root = self.t + frac * dt;
                for (x, x0) in self.x.iter_mut().zip(&x_old) {
                    *x = x0 + frac * (*x - x0);
                }
                self.t = t_root;
                self.g_valid = false;
                return Ok(Advance::Root);
            }
            self.t = t_new;
            std::mem::swap(&mut self.g, &mut self.g_new);
        }
        Ok(Advance::Reached)
    }
    pub fn time(&self) -> f64 {
        self.t
    }
    pub fn states(&self) -> &[f64] {
        &self.x
    }
    pub fn root_directions(&self) -> &[i32] {
        &self.dirs
    }
    pub fn statistics(&self) -> Statistics {
        self.stats
    }
}
