#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

use std::sync::atomic::{AtomicUsize, Ordering};

use fmu_support::{Causality, Model, ModelError, StepOutcome, VarType, Variable};

/// GUID of the Scale FMU.
pub const SCALE_GUID: &str = "{57adb709-7ce7-4104-9918-ca3182a45e04}";
/// GUID of the ScaleOnce FMU: Scale with `canBeInstantiatedOnlyOncePerProcess="true"`.
pub const SCALE_ONCE_GUID: &str = "{f9ff53a4-9fea-4709-9685-b5b63f571ced}";
/// GUID of the Busy FMU.
pub const BUSY_GUID: &str = "{77fa55fd-201a-448f-b156-50ac9a711e4c}";

/// Real input `u` (-), start 0. All three FMUs.
pub const VR_U: u32 = 1;
/// Real output `y = k·u + offset` (-), direct feedthrough from `u`. All three FMUs.
pub const VR_Y: u32 = 2;
/// Real parameter `k`, the gain (-), start 1. All three FMUs.
pub const VR_K: u32 = 3;
/// Real parameter `offset` (-), start 0. All three FMUs.
pub const VR_OFFSET: u32 = 4;
/// Busy only: Real parameter `workMicros` (µs), the nominal CPU time of one step, start
/// [`DEFAULT_WORK_MICROS`]. Must be finite and ≥ 0.
pub const VR_WORK_MICROS: u32 = 5;
/// Busy only: Real output `work` (-), in `[0, 1)`: a digest of all the CPU work done since
/// initialization (see [`Busy`]).
pub const VR_WORK: u32 = 6;

/// The variables of Scale and ScaleOnce, as in their modelDescription.xml files.
///
/// Spec: FMI 2.0.2 §2.2.7 (ModelVariables).
pub const SCALE_VARIABLES: &[Variable] = &[
    Variable::new("u", VR_U, VarType::Real, Causality::Input),
    Variable::new("y", VR_Y, VarType::Real, Causality::Output),
    Variable::new("k", VR_K, VarType::Real, Causality::Parameter),
    Variable::new("offset", VR_OFFSET, VarType::Real, Causality::Parameter),
];

/// The variables of Busy, as in `models/Busy/modelDescription.xml`.
///
/// Spec: FMI 2.0.2 §2.2.7 (ModelVariables).
pub const BUSY_VARIABLES: &[Variable] = &[
    Variable::new("u", VR_U, VarType::Real, Causality::Input),
    Variable::new("y", VR_Y, VarType::Real, Causality::Output),
    Variable::new("k", VR_K, VarType::Real, Causality::Parameter),
    Variable::new("offset", VR_OFFSET, VarType::Real, Causality::Parameter),
    Variable::new(
        "workMicros",
        VR_WORK_MICROS,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new("work", VR_WORK, VarType::Real, Causality::Output),
];

/// Start value of `workMicros` (µs).
pub const DEFAULT_WORK_MICROS: f64 = 1000.0;

/// Iterations of [`spin`] per microsecond of `workMicros`.
///
/// A fixed constant, never measured at run time, so that a step does the same work on every
/// run, thread and machine. Calibrated on the development machine (2 vCPUs, Intel Xeon at
/// 2.0 GHz nominal, release build, under load): 500,000 iterations took 835–966 µs at best and
/// 911–1,017 µs in the median, that is 517–599 iterations/µs (README, "Calibration"). One
/// iteration is a chain of a shift, an xor and a 64-bit multiplication, about 5 cycles, so on
/// other machines `workMicros = 1000` takes about 2.5 million cycles.
pub const ITERATIONS_PER_MICROSECOND: f64 = 500.0;

/// The number of [`spin`] iterations of a Busy step with `workMicros = work_micros` (µs):
/// `round(work_micros · ITERATIONS_PER_MICROSECOND)`, saturating at `u64::MAX`.
pub fn iterations(work_micros: f64) -> u64 {
    // `as` saturates (and maps NaN to 0); `work_micros` is finite and >= 0 (checked when set).
    (work_micros * ITERATIONS_PER_MICROSECOND).round() as u64
}

/// The value of the digest after initialization, before any step.
pub const SPIN_SEED: u64 = 0x2545_f491_4f6c_dd1d;

/// The CPU work of a Busy step: `iterations` rounds of the 64-bit mix
/// `x ← (x xor (x >> 29))·0xbf58476d1ce4e5b9` (wrapping) from `x = seed`. Returns the final `x`.
///
/// Each round needs the result of the one before and the mix has no closed form, so the
/// compiler can neither vectorize nor shorten the loop, and its time is proportional to
/// `iterations`. It touches no memory, so instances on different cores do not slow each other
/// down through caches. The result depends on the arguments only.
#[inline(never)]
pub fn spin(iterations: u64, seed: u64) -> u64 {
    let mut x = seed;
    for _ in 0..iterations {
        x ^= x >> 29;
        x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
    x
}

/// Maps a digest to the output `work`: its top 53 bits as a fraction in `[0, 1)`, exactly.
pub fn work_value(digest: u64) -> f64 {
    (digest >> 11) as f64 / (1u64 << 53) as f64
}

/// The digest after a Busy step with `iterations` rounds from `digest`, with the input `u`
/// held: `spin(iterations, digest xor bits(u))`. Folding in `u` makes `work` check the inputs a
/// master passed, not only the number of steps.
pub fn next_digest(digest: u64, u: f64, iterations: u64) -> u64 {
    spin(iterations, digest ^ u.to_bits())
}

fn finite(name: &'static str, value: f64) -> Result<f64, ModelError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(ModelError::InvalidValue {
            name,
            value: value.to_string(),
            reason: "must be finite",
        })
    }
}

/// Directional derivatives of `y = k·u + offset`: `∂y/∂u = k`, `∂y/∂k = u`,
/// `∂y/∂offset = 1`, and 0 with respect to the value references in `zero`. Any other pair is
/// [`ModelError::NoDerivative`].
fn gain_derivative(
    (k, u): (f64, f64),
    zero: &[u32],
    unknowns: &[u32],
    knowns: &[u32],
    dv_known: &[f64],
    dv_unknown: &mut [f64],
) -> Result<(), ModelError> {
    for (out, &unknown) in dv_unknown.iter_mut().zip(unknowns) {
        *out = 0.0;
        for (&known, &seed) in knowns.iter().zip(dv_known) {
            let partial = match (unknown, known) {
                (VR_Y, VR_U) => k,
                (VR_Y, VR_K) => u,
                (VR_Y, VR_OFFSET) => 1.0,
                (VR_Y, other) if zero.contains(&other) => 0.0,
                _ => return Err(ModelError::NoDerivative { unknown, known }),
            };
            *out += partial * seed;
        }
    }
    Ok(())
}

/// Live instances of ScaleOnce in this process: 0 or 1. The only process-wide mutable state of
/// this library.
static SCALE_ONCE_LIVE: AtomicUsize = AtomicUsize::new(0);

/// The number of live ScaleOnce instances in this process (0 or 1), as counted by
/// [`Model::acquire_instance`] and [`Model::release_instance`] of [`Scale`].
pub fn scale_once_live() -> usize {
    SCALE_ONCE_LIVE.load(Ordering::Acquire)
}

/// The Scale and ScaleOnce FMUs: `y = k·u + offset`, computed when read (direct feedthrough),
/// without state or time.
///
/// Made to be cheap per call, for benchmarks with thousands of instances: three `f64`, no
/// allocation, a step that does nothing. `Send` and free of shared state; only ScaleOnce counts
/// its live instances, in an atomic ([`scale_once_live`]).
#[derive(Clone, Debug)]
pub struct Scale {
    k: f64,
    offset: f64,
    u: f64,
}

impl Scale {
    /// The output `y = k·u + offset` (-).
    pub fn y(&self) -> f64 {
        self.k * self.u + self.offset
    }
}

impl Model for Scale {
    /// Refuses a second live ScaleOnce instance with [`ModelError::OncePerProcess`]; accepts
    /// everything else. A compare-and-swap on the counter, so two threads instantiating at
    /// once cannot both succeed.
    ///
    /// Spec: FMI 2.0.2 §4.3.1 (`canBeInstantiatedOnlyOncePerProcess`).
    fn acquire_instance(guid: &str) -> Result<(), ModelError> {
        if guid != SCALE_ONCE_GUID {
            return Ok(());
        }
        SCALE_ONCE_LIVE
            .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Acquire)
            .map(|_| ())
            .map_err(|_| ModelError::OncePerProcess { model: "ScaleOnce" })
    }

    /// Frees the ScaleOnce place again.
    fn release_instance(guid: &str) {
        if guid == SCALE_ONCE_GUID {
            SCALE_ONCE_LIVE.store(0, Ordering::Release);
        }
    }

    fn instantiate(guid: &str) -> Option<Self> {
        (guid == SCALE_GUID || guid == SCALE_ONCE_GUID).then_some(Self {
            k: 1.0,
            offset: 0.0,
            u: 0.0,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        SCALE_VARIABLES
    }

    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        Ok(())
    }

    fn do_step(&mut self, _t: f64, _h: f64) -> StepOutcome {
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_U => Ok(self.u),
            VR_Y => Ok(self.y()),
            VR_K => Ok(self.k),
            VR_OFFSET => Ok(self.offset),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_U => self.u = finite("u", value)?,
            VR_K => self.k = finite("k", value)?,
            VR_OFFSET => self.offset = finite("offset", value)?,
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    fn directional_derivative(
        &self,
        unknowns: &[u32],
        knowns: &[u32],
        dv_known: &[f64],
        dv_unknown: &mut [f64],
    ) -> Option<Result<(), ModelError>> {
        Some(gain_derivative(
            (self.k, self.u),
            &[],
            unknowns,
            knowns,
            dv_known,
            dv_unknown,
        ))
    }
}

/// The Busy FMU: `y = k·u + offset` like [`Scale`], and each step keeps one core busy for about
/// `workMicros` µs with [`spin`].
///
/// A step replaces the digest `d` by [`next_digest`]`(d, u, iterations(workMicros))`; the
/// output `work` is [`work_value`]`(d)`. Initialization sets `d` to [`SPIN_SEED`]. The digest
/// is part of the FMU state. So `work` is a deterministic function of the parameters and the
/// input sequence, bit for bit, whatever the thread or timing, and a parallel run can be
/// compared with a serial one exactly. `y` does not depend on the work.
#[derive(Clone, Debug)]
pub struct Busy {
    k: f64,
    offset: f64,
    u: f64,
    work_micros: f64,
    /// [`iterations`]`(work_micros)`.
    iterations: u64,
    digest: u64,
}

impl Busy {
    /// The output `y = k·u + offset` (-).
    pub fn y(&self) -> f64 {
        self.k * self.u + self.offset
    }
}

impl Model for Busy {
    fn instantiate(guid: &str) -> Option<Self> {
        (guid == BUSY_GUID).then(|| Self {
            k: 1.0,
            offset: 0.0,
            u: 0.0,
            work_micros: DEFAULT_WORK_MICROS,
            iterations: iterations(DEFAULT_WORK_MICROS),
            digest: SPIN_SEED,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        BUSY_VARIABLES
    }

    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        self.digest = SPIN_SEED;
        Ok(())
    }

    fn do_step(&mut self, _t: f64, _h: f64) -> StepOutcome {
        self.digest = next_digest(self.digest, self.u, self.iterations);
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_U => Ok(self.u),
            VR_Y => Ok(self.y()),
            VR_K => Ok(self.k),
            VR_OFFSET => Ok(self.offset),
            VR_WORK_MICROS => Ok(self.work_micros),
            VR_WORK => Ok(work_value(self.digest)),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_U => self.u = finite("u", value)?,
            VR_K => self.k = finite("k", value)?,
            VR_OFFSET => self.offset = finite("offset", value)?,
            VR_WORK_MICROS => {
                let work = finite("workMicros", value)?;
                if work < 0.0 {
                    return Err(ModelError::InvalidValue {
                        name: "workMicros",
                        value: value.to_string(),
                        reason: "must be >= 0",
                    });
                }
                self.work_micros = work;
                self.iterations = iterations(work);
            }
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    fn directional_derivative(
        &self,
        unknowns: &[u32],
        knowns: &[u32],
        dv_known: &[f64],
        dv_unknown: &mut [f64],
    ) -> Option<Result<(), ModelError>> {
        Some(gain_derivative(
            (self.k, self.u),
            &[VR_WORK_MICROS],
            unknowns,
            knowns,
            dv_known,
            dv_unknown,
        ))
    }
}

fmu_support::model_enum! {
    /// The model behind the shared library: Scale (also for ScaleOnce) or Busy, chosen by the
    /// GUID.
    pub enum Workload {
        /// The Scale and ScaleOnce FMUs.
        Scale(Scale),
        /// The Busy FMU.
        Busy(Busy),
    }
}

#[cfg(feature = "export")]
fmu_support::export_fmi2!(Workload);

#[cfg(test)]
mod tests;
