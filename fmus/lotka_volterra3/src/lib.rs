#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

use fmu_lotka_volterra::{
    PREDATOR_GUID, PREDATOR_VARIABLES, PREY_GUID, PREY_VARIABLES, Predator, Prey,
    VR_PREDATOR_DELTA, VR_PREDATOR_GAMMA, VR_PREDATOR_X, VR_PREDATOR_Y, VR_PREDATOR_Y0,
    VR_PREY_ALPHA, VR_PREY_BETA, VR_PREY_X, VR_PREY_X0, VR_PREY_Y,
};
use fmu_support::{Causality3, DataType, Model, ModelError, StepOutcome, Variable, Variable3};

pub use fmu_lotka_volterra::{Coupling, Parameters, fixed_step_cosimulation, reference_solution};

/// Instantiation token of the Prey3 FMU.
pub const PREY3_TOKEN: &str = "{1150abed-3fe0-48da-9a71-87d042cc5e79}";
/// Instantiation token of the Predator3 FMU.
pub const PREDATOR3_TOKEN: &str = "{bd3c83cd-b115-4c0d-806f-39145acc2038}";

/// The variables of Prey3, as in `models/Prey3/modelDescription.xml`: the names and value
/// references of Prey (`fmu_lotka_volterra::VR_PREY_*`, already unique), all Float64.
pub const PREY3_VARIABLES: &[Variable3] = &[
    Variable3::new("x", VR_PREY_X, DataType::Float64, Causality3::Output),
    Variable3::new("y", VR_PREY_Y, DataType::Float64, Causality3::Input),
    Variable3::new(
        "alpha",
        VR_PREY_ALPHA,
        DataType::Float64,
        Causality3::Parameter,
    ),
    Variable3::new(
        "beta",
        VR_PREY_BETA,
        DataType::Float64,
        Causality3::Parameter,
    ),
    Variable3::new("x0", VR_PREY_X0, DataType::Float64, Causality3::Parameter),
];

/// The variables of Predator3, as in `models/Predator3/modelDescription.xml`: the names and
/// value references of Predator (`fmu_lotka_volterra::VR_PREDATOR_*`), all Float64.
pub const PREDATOR3_VARIABLES: &[Variable3] = &[
    Variable3::new("y", VR_PREDATOR_Y, DataType::Float64, Causality3::Output),
    Variable3::new("x", VR_PREDATOR_X, DataType::Float64, Causality3::Input),
    Variable3::new(
        "gamma",
        VR_PREDATOR_GAMMA,
        DataType::Float64,
        Causality3::Parameter,
    ),
    Variable3::new(
        "delta",
        VR_PREDATOR_DELTA,
        DataType::Float64,
        Causality3::Parameter,
    ),
    Variable3::new(
        "y0",
        VR_PREDATOR_Y0,
        DataType::Float64,
        Causality3::Parameter,
    ),
];

/// Implements [`Model`] for an FMI 3.0 twin by forwarding every call to the FMI 2.0 model it
/// wraps; only the instantiation token and the FMI 3.0 table are its own. Float64 values reach
/// the FMI 2.0 getters and setters through the default [`Model::get_values`] and
/// [`Model::set_values`].
macro_rules! twin {
    ($twin:ident, $inner:ty, $token:expr, $guid:expr, $table:expr, $table2:expr) => {
        impl Model for $twin {
            fn instantiate(token: &str) -> Option<Self> {
                if token == $token {
                    <$inner>::instantiate($guid).map(Self)
                } else {
                    None
                }
            }

            fn variables(&self) -> &'static [Variable] {
                $table2
            }

            fn variables3(&self) -> &'static [Variable3] {
                $table
            }

            fn initialize(&mut self, start_time: f64) -> Result<(), ModelError> {
                self.0.initialize(start_time)
            }

            fn do_step(&mut self, t: f64, h: f64) -> StepOutcome {
                self.0.do_step(t, h)
            }

            fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
                self.0.get_real(vr)
            }

            fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
                self.0.set_real(vr, value)
            }

            fn save_state(&self) -> Option<Vec<f64>> {
                self.0.save_state()
            }

            fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
                self.0.load_state(state)
            }
        }
    };
}

/// The Prey3 FMU: [`Prey`] (`dx/dt = x·(alpha − beta·y)`, exact steps) exported as FMI 3.0.
#[derive(Clone, Debug)]
pub struct Prey3(Prey);

/// The Predator3 FMU: [`Predator`] (`dy/dt = y·(delta·x − gamma)`, exact steps) exported as
/// FMI 3.0.
#[derive(Clone, Debug)]
pub struct Predator3(Predator);

twin!(
    Prey3,
    Prey,
    PREY3_TOKEN,
    PREY_GUID,
    PREY3_VARIABLES,
    PREY_VARIABLES
);
twin!(
    Predator3,
    Predator,
    PREDATOR3_TOKEN,
    PREDATOR_GUID,
    PREDATOR3_VARIABLES,
    PREDATOR_VARIABLES
);

fmu_support::model_enum! {
    /// The model behind the shared library: Prey3 or Predator3, chosen by the instantiation
    /// token.
    pub enum LotkaVolterra3 {
        /// The Prey3 FMU.
        Prey3(Prey3),
        /// The Predator3 FMU.
        Predator3(Predator3),
    }
}

#[cfg(feature = "export")]
fmu_support::export_fmi3!(LotkaVolterra3);

#[cfg(test)]
mod tests;
