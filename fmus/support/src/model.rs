//! The [`Model`] trait that every test FMU implements, and the plain data types it uses.
//!
//! A model knows nothing about C, FMI call sequences or FMU states: the export layer
//! ([`crate::fmi2`], [`crate::fmi1`]) checks arguments and the call order, looks variables up in
//! [`Model::variables`] before it calls the typed getters and setters, and implements FMU states
//! by cloning the model.

use std::fmt;

#[cfg(feature = "fmi3")]
use crate::model3::{Values, ValuesMut, Variable3};

/// Base type of a scalar variable.
///
/// Spec: FMI 2.0.2 §2.2.7 (ModelVariables, type elements); FMI 1.0 CS §2 (ScalarVariable).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarType {
    /// `Real`: `f64`.
    Real,
    /// `Integer`: `i32`.
    Integer,
    /// `Boolean`: `bool` (`int` in FMI 2.0, `char` in FMI 1.0).
    Boolean,
    /// `String`: UTF-8 text without interior NUL bytes.
    String,
}

impl fmt::Display for VarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Real => "Real",
            Self::Integer => "Integer",
            Self::Boolean => "Boolean",
            Self::String => "String",
        })
    }
}

/// What a variable is for, as far as the export layer's set/get rules are concerned.
///
/// In the modelDescription this is `causality` for FMI 2.0. For FMI 1.0 a [`Causality::Parameter`]
/// is written `variability="parameter" causality="internal"` and a [`Causality::Local`] is
/// `causality="internal"` (or `none`).
///
/// Spec: FMI 2.0.2 §2.2.7 (causality); FMI 1.0 CS §2 (variability, causality).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Causality {
    /// A fixed parameter: settable before the end of initialization only.
    Parameter,
    /// An input: settable in every phase until terminate.
    Input,
    /// An output: read-only.
    Output,
    /// A local (internal) variable: read-only.
    Local,
}

impl fmt::Display for Causality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Parameter => "parameter",
            Self::Input => "input",
            Self::Output => "output",
            Self::Local => "local",
        })
    }
}

/// One scalar variable of a model, as declared in its modelDescription.
///
/// Each FMU crate lists its variables in a `pub const` table; the export layer uses it to reject
/// unknown value references and writes to read-only variables, and tests compare it with the
/// hand-written XML.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variable {
    /// The `name` attribute.
    pub name: &'static str,
    /// The `valueReference` attribute (unique per [`VarType`]).
    pub vr: u32,
    /// The type element.
    pub ty: VarType,
    /// The causality (see [`Causality`] for the FMI 1.0 spelling).
    pub causality: Causality,
}

impl Variable {
    /// Shorthand constructor for `const` tables.
    pub const fn new(name: &'static str, vr: u32, ty: VarType, causality: Causality) -> Self {
        Self {
            name,
            vr,
            ty,
            causality,
        }
    }
}

/// Looks up the variable with this type and value reference.
///
/// Returns `None` if the table has no such variable.
pub fn find_variable(variables: &[Variable], ty: VarType, vr: u32) -> Option<&Variable> {
    variables.iter().find(|v| v.ty == ty && v.vr == vr)
}

/// An error that a model reports from a getter, setter or [`Model::initialize`].
///
/// The export layer logs the message and returns `fmi2Error` / `fmiError`.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The model has no variable of this type with this value reference.
    #[error("no {ty} variable with value reference {vr}")]
    UnknownVariable {
        /// Requested type.
        ty: VarType,
        /// Requested value reference.
        vr: u32,
    },
    /// A parameter or input value is outside the range the model accepts.
    #[error("invalid value {value} for `{name}`: {reason}")]
    InvalidValue {
        /// Variable name.
        name: &'static str,
        /// The rejected value, rendered as text.
        value: String,
        /// Which range was violated.
        reason: &'static str,
    },
    /// [`Model::directional_derivative`] was asked for a pair of variables it does not
    /// differentiate.
    #[error("no partial derivative of value reference {unknown} with respect to {known}")]
    NoDerivative {
        /// Value reference of the unknown.
        unknown: u32,
        /// Value reference of the known.
        known: u32,
    },
    /// [`Model::acquire_instance`] refuses a second live instance of an FMU that declares
    /// `canBeInstantiatedOnlyOncePerProcess="true"`.
    #[error("{model} declares canBeInstantiatedOnlyOncePerProcess and already has a live instance")]
    OncePerProcess {
        /// The model name.
        model: &'static str,
    },
    /// The model does not provide what was asked, for example [`Model::load_state`] of a model
    /// that cannot serialize its state.
    #[error("not supported: {what}")]
    Unsupported {
        /// What is not supported.
        what: &'static str,
    },
    /// [`Model::load_state`] got a list of values whose length differs from the one
    /// [`Model::save_state`] gives.
    #[error("a saved state of {model} has {expected} values, got {found}")]
    StateLength {
        /// The model name.
        model: &'static str,
        /// The number of values [`Model::save_state`] returns.
        expected: usize,
        /// The number of values given.
        found: usize,
    },
    /// [`Model::get_values`] or [`Model::set_values`] got a value reference (FMI 3.0: unique
    /// across types) that the model does not serve with values of this type.
    #[cfg(feature = "fmi3")]
    #[error("no {ty} variable with value reference {vr}")]
    UnknownValueReference {
        /// The type of the values asked for (Int64 for an Enumeration).
        ty: crate::model3::DataType,
        /// The value reference.
        vr: u32,
    },
}

impl ModelError {
    /// Builds [`ModelError::UnknownVariable`].
    pub const fn unknown(ty: VarType, vr: u32) -> Self {
        Self::UnknownVariable { ty, vr }
    }

    /// Builds [`ModelError::UnknownValueReference`] for FMI 3.0 values of the type of
    /// `values`.
    #[cfg(feature = "fmi3")]
    pub fn unknown3(vr: u32, values: &crate::model3::ValuesMut<'_>) -> Self {
        Self::UnknownValueReference {
            ty: values.data_type(),
            vr,
        }
    }

    /// Builds [`ModelError::UnknownValueReference`] for FMI 3.0 values of the type of
    /// `values` (for setters).
    #[cfg(feature = "fmi3")]
    pub fn unknown3_set(vr: u32, values: &crate::model3::Values<'_>) -> Self {
        Self::UnknownValueReference {
            ty: values.data_type(),
            vr,
        }
    }
}

/// What the default [`Model::load_state`] reports as unsupported.
const STATE_SERIALIZATION: &str = "FMU state serialization (canSerializeFMUstate=\"false\")";

/// What the default [`Model::get_values`] and [`Model::set_values`] report as unsupported.
#[cfg(feature = "fmi3")]
const FMI3_VALUES: &str = "FMI 3.0 values other than scalar Float64, Int32, Boolean and String (the defaults forward to the FMI 2.0 getters and setters)";

/// The values given to [`Model::load_state`] as an array of the length `N` that the model's
/// [`Model::save_state`] returns, so that an implementation can destructure them:
/// `let [x, u, t] = state_array("Model", state)?;`.
///
/// # Errors
/// [`ModelError::StateLength`] (naming `model`) if `state` does not hold exactly `N` values.
///
/// Spec: FMI 2.0.2 §2.1.8 (fmi2DeSerializeFMUstate).
pub fn state_array<const N: usize>(
    model: &'static str,
    state: &[f64],
) -> Result<[f64; N], ModelError> {
    state.try_into().map_err(|_| ModelError::StateLength {
        model,
        expected: N,
        found: state.len(),
    })
}

/// Result of [`Model::do_step`].
///
/// Spec: FMI 2.0.2 §4.2.2 (fmi2DoStep return values, fmi2Terminated); FMI 1.0 CS §3.4 (fmiDoStep).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum StepOutcome {
    /// The model reached `t + h`. Status OK.
    Completed,
    /// The model reached `t + h` and asks the master to end the simulation there: the export
    /// layer returns Discard, `fmi2GetBooleanStatus(fmi2Terminated)` then reports true and
    /// `fmi2GetRealStatus(fmi2LastSuccessfulTime)` reports `t + h`.
    Terminate,
    /// The model rejects this step (for example because `h` is too large). The export layer
    /// keeps the state at `t` and returns Discard; a retry with a smaller step is accepted.
    Discard(String),
    /// The step failed. The export layer keeps the state at `t`, returns Error and enters the
    /// error phase.
    Error(String),
}

/// A co-simulation model that the export macros turn into an FMU.
///
/// One implementing type may serve several FMUs: [`Model::instantiate`] dispatches on the GUID
/// (see [`crate::model_enum!`]). The export layer guarantees:
/// - getters and setters are called only for value references listed in [`Model::variables`]
///   with the matching type, and setters only where the causality allows it;
/// - [`Model::do_step`] is called on a clone, which replaces the model only on
///   [`StepOutcome::Completed`] or [`StepOutcome::Terminate`]; so a model need not undo a
///   rejected step;
/// - FMU states are clones of the model (hence the `Clone` bound); a model that also
///   implements [`Model::save_state`] and [`Model::load_state`] gets serializable FMU states.
///
/// `Send` because an importer may drive one instance from different threads, one call at a
/// time (for example a parallel Gauss–Jacobi master).
///
/// Units of all values are as declared in the model's modelDescription; time is in seconds.
pub trait Model: Clone + Send + 'static {
    /// Claims a place for one more live instance of the FMU with this GUID, before the instance
    /// is created. The default accepts every instantiation.
    ///
    /// The export layer calls it in `fmi2Instantiate` / `fmiInstantiateSlave`, after
    /// [`Model::instantiate`] has accepted the GUID, and calls [`Model::release_instance`] with
    /// the same GUID when that instance is freed. Neither `fmi2Reset` nor FMU states create or
    /// free an instance. An FMU that declares `canBeInstantiatedOnlyOncePerProcess="true"` can
    /// enforce that here, with a process-wide atomic counter.
    ///
    /// # Errors
    /// [`ModelError::OncePerProcess`] (or any other reason) to refuse: instantiate then logs the
    /// message and returns null.
    ///
    /// Spec: FMI 2.0.2 §4.3.1 (`CoSimulation` attributes), FMI 1.0 CS §3.
    fn acquire_instance(guid: &str) -> Result<(), ModelError>
    where
        Self: Sized,
    {
        let _ = guid;
        Ok(())
    }

    /// Gives back the place that [`Model::acquire_instance`] claimed for an instance with this
    /// GUID; called once when that instance is freed. The default does nothing.
    ///
    /// Spec: FMI 2.0.2 §2.1.5 (`fmi2FreeInstance`), FMI 1.0 CS §3.3 (`fmiFreeSlaveInstance`).
    fn release_instance(guid: &str)
    where
        Self: Sized,
    {
        let _ = guid;
    }

    /// Creates the model of the FMU with this GUID, with every parameter and input at its start
    /// value and the state initialized for `t = 0`. Returns `None` for an unknown GUID.
    ///
    /// Spec: FMI 2.0.2 §2.1.5 (fmi2Instantiate, fmuGUID); FMI 1.0 CS §3.3 (fmiInstantiateSlave).
    fn instantiate(guid: &str) -> Option<Self>
    where
        Self: Sized;

    /// All scalar variables of this model (the FMU chosen at instantiation).
    fn variables(&self) -> &'static [Variable];

    /// Recomputes the initial state from the current parameters at `start_time` (s).
    ///
    /// Must leave parameters and inputs unchanged and must be idempotent: the export layer calls
    /// it after instantiation, after every successful set before the end of initialization, on
    /// entering and leaving initialization mode (FMI 2.0) and in `fmiInitializeSlave` (FMI 1.0).
    ///
    /// # Errors
    /// [`ModelError::InvalidValue`] if a parameter is out of range.
    fn initialize(&mut self, start_time: f64) -> Result<(), ModelError>;

    /// Advances the model from `t` to `t + h` (s), with the inputs held at their current values.
    ///
    /// Spec: FMI 2.0.2 §4.2.2 (fmi2DoStep); FMI 1.0 CS §3.4 (fmiDoStep).
    fn do_step(&mut self, t: f64, h: f64) -> StepOutcome;

    /// Returns a Real variable.
    ///
    /// # Errors
    /// [`ModelError::UnknownVariable`] by default.
    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        Err(ModelError::unknown(VarType::Real, vr))
    }

    /// Sets a Real parameter or input.
    ///
    /// # Errors
    /// [`ModelError::UnknownVariable`] by default; [`ModelError::InvalidValue`] for a value out
    /// of range.
    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        let _ = value;
        Err(ModelError::unknown(VarType::Real, vr))
    }

    /// Returns an Integer variable.
    ///
    /// # Errors
    /// [`ModelError::UnknownVariable`] by default.
    fn get_integer(&self, vr: u32) -> Result<i32, ModelError> {
        Err(ModelError::unknown(VarType::Integer, vr))
    }

    /// Sets an Integer parameter or input.
    ///
    /// # Errors
    /// [`ModelError::UnknownVariable`] by default.
    fn set_integer(&mut self, vr: u32, value: i32) -> Result<(), ModelError> {
        let _ = value;
        Err(ModelError::unknown(VarType::Integer, vr))
    }

    /// Returns a Boolean variable.
    ///
    /// # Errors
    /// [`ModelError::UnknownVariable`] by default.
    fn get_boolean(&self, vr: u32) -> Result<bool, ModelError> {
        Err(ModelError::unknown(VarType::Boolean, vr))
    }

    /// Sets a Boolean parameter or input.
    ///
    /// # Errors
    /// [`ModelError::UnknownVariable`] by default.
    fn set_boolean(&mut self, vr: u32, value: bool) -> Result<(), ModelError> {
        let _ = value;
        Err(ModelError::unknown(VarType::Boolean, vr))
    }

    /// Returns a String variable.
    ///
    /// # Errors
    /// [`ModelError::UnknownVariable`] by default.
    fn get_string(&self, vr: u32) -> Result<String, ModelError> {
        Err(ModelError::unknown(VarType::String, vr))
    }

    /// Sets a String parameter or input.
    ///
    /// # Errors
    /// [`ModelError::UnknownVariable`] by default.
    fn set_string(&mut self, vr: u32, value: &str) -> Result<(), ModelError> {
        let _ = value;
        Err(ModelError::unknown(VarType::String, vr))
    }

    /// Partial derivatives of Real unknowns with respect to Real knowns, times a seed vector:
    /// `dv_unknown[i] = Σ_j ∂unknowns[i]/∂knowns[j] · dv_known[j]`.
    ///
    /// Shapes: `dv_known.len() == knowns.len()`, `dv_unknown.len() == unknowns.len()` (checked by
    /// the export layer). Returns `None` (the default) if the model does not provide
    /// derivatives; then `providesDirectionalDerivative` must be false in its modelDescription.
    ///
    /// Spec: FMI 2.0.2 §2.1.9 (fmi2GetDirectionalDerivative).
    fn directional_derivative(
        &self,
        unknowns: &[u32],
        knowns: &[u32],
        dv_known: &[f64],
        dv_unknown: &mut [f64],
    ) -> Option<Result<(), ModelError>> {
        let _ = (unknowns, knowns, dv_known, dv_unknown);
        None
    }

    /// Every value that the model's future behaviour depends on (parameters, inputs, states,
    /// and its time in s where outputs or steps depend on it), in an order of the model's
    /// choosing and always of the same length, for FMU-state serialization. Returns `None` (the
    /// default) if the model cannot serialize its state; then the serialization functions of
    /// the export layer return Error, and `canSerializeFMUstate` must be false in the
    /// modelDescription.
    ///
    /// The export layer stores its own fields (start time, FMU time, terminate request, step
    /// status) next to these values. Loading them with [`Model::load_state`] into a model of the
    /// same FMU (same GUID) must give a model that behaves exactly like this one.
    ///
    /// Spec: FMI 2.0.2 §2.1.8 (fmi2SerializedFMUstateSize, fmi2SerializeFMUstate).
    fn save_state(&self) -> Option<Vec<f64>> {
        None
    }

    /// Overwrites the model with values that [`Model::save_state`] returned, possibly in another
    /// instance or process. Called on a clone of an instance of the same FMU, which is dropped
    /// if this returns an error, so an implementation need not undo partial changes.
    ///
    /// # Errors
    /// [`ModelError::Unsupported`] by default (the model cannot serialize its state);
    /// [`ModelError::StateLength`] if `state` does not have the length that
    /// [`Model::save_state`] gives (see [`state_array`]); [`ModelError::InvalidValue`] for a
    /// parameter or input that the setters would refuse.
    ///
    /// Spec: FMI 2.0.2 §2.1.8 (fmi2DeSerializeFMUstate).
    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let _ = state;
        Err(ModelError::Unsupported {
            what: STATE_SERIALIZATION,
        })
    }

    #[cfg(feature = "fmi3")]
    /// The model's FMI 3.0 variables (the FMU chosen at instantiation). The default, an empty
    /// table, is for models without FMI 3.0 export: [`crate::export_fmi3!`] refuses to
    /// instantiate them.
    ///
    /// Spec: FMI 3.0 §2.4.7 (ModelVariables).
    fn variables3(&self) -> &'static [Variable3] {
        &[]
    }

    #[cfg(feature = "fmi3")]
    /// Reads the FMI 3.0 variable `vr` into `values`.
    ///
    /// Shapes: the export layer has checked that `vr` is in [`Model::variables3`], that the
    /// slice type matches the variable's type (Int64 for an Enumeration) and that the slice has
    /// the variable's element count (1 for a scalar, row-major for arrays). The default serves
    /// FMI 2.0 models exported as FMI 3.0: a scalar Float64, Int32, Boolean or String goes to
    /// [`Model::get_real`], [`Model::get_integer`], [`Model::get_boolean`] or
    /// [`Model::get_string`].
    ///
    /// # Errors
    /// Whatever the FMI 2.0 getter returns; [`ModelError::Unsupported`] by default for any
    /// other type or an array.
    ///
    /// Spec: FMI 3.0 §2.2.6.2 (fmi3Get{VariableType}).
    fn get_values(&self, vr: u32, values: ValuesMut<'_>) -> Result<(), ModelError> {
        match values {
            ValuesMut::Float64([v]) => *v = self.get_real(vr)?,
            ValuesMut::Int32([v]) => *v = self.get_integer(vr)?,
            ValuesMut::Boolean([v]) => *v = self.get_boolean(vr)?,
            ValuesMut::String([v]) => *v = self.get_string(vr)?,
            _ => return Err(ModelError::Unsupported { what: FMI3_VALUES }),
        }
        Ok(())
    }

    #[cfg(feature = "fmi3")]
    /// Writes `values` into the FMI 3.0 parameter or input `vr`.
    ///
    /// Shapes and checks as for [`Model::get_values`]; the export layer has also checked that
    /// the causality allows the write in the current state. The default forwards a scalar
    /// Float64, Int32, Boolean or String to the FMI 2.0 setter.
    ///
    /// # Errors
    /// Whatever the FMI 2.0 setter returns ([`ModelError::InvalidValue`] for a value out of
    /// range); [`ModelError::Unsupported`] by default for any other type or an array.
    ///
    /// Spec: FMI 3.0 §2.2.6.2 (fmi3Set{VariableType}).
    fn set_values(&mut self, vr: u32, values: Values<'_>) -> Result<(), ModelError> {
        match values {
            Values::Float64(&[v]) => self.set_real(vr, v),
            Values::Int32(&[v]) => self.set_integer(vr, v),
            Values::Boolean(&[v]) => self.set_boolean(vr, v),
            Values::String(&[v]) => self.set_string(vr, v),
            _ => Err(ModelError::Unsupported { what: FMI3_VALUES }),
        }
    }

    #[cfg(feature = "fmi3")]
    /// Whether the FMU declares `hasEventMode="true"`. The default is false; then the export
    /// layer refuses `eventModeUsed` at instantiation.
    ///
    /// Spec: FMI 3.0 §4.2.1 (hasEventMode), §4.2.2 (fmi3InstantiateCoSimulation).
    fn has_event_mode(&self) -> bool {
        false
    }

    #[cfg(feature = "fmi3")]
    /// The time (s) of the model's next time event: the earliest event it has not yet handled
    /// through [`Model::update_discrete_states`]. `None` (the default) if there is none.
    ///
    /// The export layer asks after every step and every event update. An event that has become
    /// due ([`time_reached`](crate::time_reached)) is handled at the end of the step that
    /// reaches it: internally without Event Mode, by the importer in Event Mode otherwise. With
    /// `earlyReturnAllowed` and [`Model::might_return_early`], a step stops at an event time
    /// that lies strictly inside it.
    ///
    /// Spec: FMI 3.0 §4.2.2 (fmi3DoStep: eventHandlingNeeded, earlyReturn), §3.2.4
    /// (fmi3UpdateDiscreteStates: nextEventTime).
    fn next_event_time(&self) -> Option<f64> {
        None
    }

    #[cfg(feature = "fmi3")]
    /// Handles the event that [`Model::next_event_time`] announced, which is now due at the
    /// FMU time `t` (s): updates the discrete states and moves the next event time on. Called
    /// once per due event (repeatedly, if several are due). The default does nothing.
    ///
    /// # Errors
    /// Any [`ModelError`]; the calling FMI function then returns Error.
    ///
    /// Spec: FMI 3.0 §3.2.4 (fmi3UpdateDiscreteStates), §4.2.2 (events handled inside
    /// fmi3DoStep when Event Mode is not used).
    fn update_discrete_states(&mut self, t: f64) -> Result<(), ModelError> {
        let _ = t;
        Ok(())
    }

    #[cfg(feature = "fmi3")]
    /// Whether the FMU declares `mightReturnEarlyFromDoStep="true"`: then, if the importer
    /// allows it (`earlyReturnAllowed`), `fmi3DoStep` stops at an event time that lies strictly
    /// inside the step. The default is false.
    ///
    /// Spec: FMI 3.0 §4.2.1 (mightReturnEarlyFromDoStep), §4.2.2 (early return).
    fn might_return_early(&self) -> bool {
        false
    }

    #[cfg(feature = "fmi3")]
    /// Receives the `noSetFMUStatePriorToCurrentPoint` argument of `fmi3DoStep`, on the copy
    /// of the model that takes the step, before [`Model::do_step`]. The default ignores it.
    ///
    /// Spec: FMI 3.0 §4.2.2 (fmi3DoStep).
    fn no_set_fmu_state_prior_to_current_point(&mut self, value: bool) {
        let _ = value;
    }
}
