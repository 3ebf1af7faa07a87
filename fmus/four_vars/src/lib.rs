#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

use fmu_support::{Causality, Model, ModelError, StepOutcome, VarType, Variable};

/// GUID of FourVars.
pub const FOUR_VARS_GUID: &str = "{deb22978-e959-443b-85cd-f2398585af62}";
/// GUID of FourVarsFeedThrough.
pub const FEED_THROUGH_GUID: &str = "{5078229c-b078-43a7-a5d9-03d9f3567322}";

/// FourVars: Boolean output `VBool` (`t ≥ 10`).
pub const VR_V_BOOL: u32 = 1;
/// FourVars: Integer output `VInteger` (`floor(t)`).
pub const VR_V_INTEGER: u32 = 2;
/// FourVars: String output `VString` (changes at t = 0 and t = 5).
pub const VR_V_STRING: u32 = 3;
/// FourVars: Real output `VReal` (`t²`).
pub const VR_V_REAL: u32 = 4;
/// FourVars: Real parameter `terminateTime` (s): the step that reaches it asks to end the
/// simulation. Negative: off.
pub const VR_TERMINATE_TIME: u32 = 5;

/// FourVarsFeedThrough: Boolean output `OutBool` (= `InBool`).
pub const VR_OUT_BOOL: u32 = 1;
/// FourVarsFeedThrough: Integer output `OutInteger` (= `InInteger`).
pub const VR_OUT_INTEGER: u32 = 2;
/// FourVarsFeedThrough: String output `OutString` (= `InString`).
pub const VR_OUT_STRING: u32 = 3;
/// FourVarsFeedThrough: Real output `OutReal` (= `InReal`).
pub const VR_OUT_REAL: u32 = 4;
/// FourVarsFeedThrough: Boolean input `InBool` (start true).
pub const VR_IN_BOOL: u32 = 5;
/// FourVarsFeedThrough: Integer input `InInteger` (start 2).
pub const VR_IN_INTEGER: u32 = 6;
/// FourVarsFeedThrough: String input `InString` (start "blubbblubb").
pub const VR_IN_STRING: u32 = 7;
/// FourVarsFeedThrough: Real input `InReal` (start 5).
pub const VR_IN_REAL: u32 = 8;

/// The variables of FourVars, as in `models/FourVars/modelDescription.xml`.
pub const FOUR_VARS_VARIABLES: &[Variable] = &[
    Variable::new("VBool", VR_V_BOOL, VarType::Boolean, Causality::Output),
    Variable::new(
        "VInteger",
        VR_V_INTEGER,
        VarType::Integer,
        Causality::Output,
    ),
    Variable::new("VString", VR_V_STRING, VarType::String, Causality::Output),
    Variable::new("VReal", VR_V_REAL, VarType::Real, Causality::Output),
    Variable::new(
        "terminateTime",
        VR_TERMINATE_TIME,
        VarType::Real,
        Causality::Parameter,
    ),
];

/// The variables of FourVarsFeedThrough, as in
/// `models/FourVarsFeedThrough/modelDescription.xml`.
pub const FEED_THROUGH_VARIABLES: &[Variable] = &[
    Variable::new("OutBool", VR_OUT_BOOL, VarType::Boolean, Causality::Output),
    Variable::new(
        "OutInteger",
        VR_OUT_INTEGER,
        VarType::Integer,
        Causality::Output,
    ),
    Variable::new(
        "OutString",
        VR_OUT_STRING,
        VarType::String,
        Causality::Output,
    ),
    Variable::new("OutReal", VR_OUT_REAL, VarType::Real, Causality::Output),
    Variable::new("InBool", VR_IN_BOOL, VarType::Boolean, Causality::Input),
    Variable::new(
        "InInteger",
        VR_IN_INTEGER,
        VarType::Integer,
        Causality::Input,
    ),
    Variable::new("InString", VR_IN_STRING, VarType::String, Causality::Input),
    Variable::new("InReal", VR_IN_REAL, VarType::Real, Causality::Input),
];

/// Time tolerance (s) of the thresholds in [`reference_solution`], so that sums of steps such
/// as ten times 0.1 land on the intended side.
pub const TIME_EPSILON: f64 = 1e-9;

/// One value of each type.
#[derive(Clone, Debug, PartialEq)]
pub struct FourValues {
    /// Boolean value.
    pub boolean: bool,
    /// Integer value.
    pub integer: i32,
    /// String value.
    pub string: String,
    /// Real value.
    pub real: f64,
}

/// The outputs of FourVars at time `t` (s), with `ε =` [`TIME_EPSILON`]:
/// - `VBool = t ≥ 10 − ε`;
/// - `VInteger = floor(t + ε)` (saturated to the `i32` range);
/// - `VString = "Blabla"` for `t ≤ ε`, `"blabla"` for `ε < t ≤ 5 + ε`, else `"blubbblubb"`;
/// - `VReal = t²`.
pub fn reference_solution(t: f64) -> FourValues {
    let string = if t <= TIME_EPSILON {
        "Blabla"
    } else if t <= 5.0 + TIME_EPSILON {
        "blabla"
    } else {
        "blubbblubb"
    };
    FourValues {
        boolean: t >= 10.0 - TIME_EPSILON,
        // `as` saturates, which is the documented behaviour for huge |t|.
        integer: (t + TIME_EPSILON).floor() as i32,
        string: string.to_owned(),
        real: t * t,
    }
}

/// FourVars: outputs of all four types as functions of time (see [`reference_solution`]),
/// plus the `terminateTime` parameter that exercises the "terminate requested" path.
#[derive(Clone, Debug)]
pub struct FourVars {
    t: f64,
    terminate_time: f64,
}

impl Model for FourVars {
    fn instantiate(guid: &str) -> Option<Self> {
        (guid == FOUR_VARS_GUID).then_some(Self {
            t: 0.0,
            terminate_time: -1.0,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        FOUR_VARS_VARIABLES
    }

    fn initialize(&mut self, start_time: f64) -> Result<(), ModelError> {
        self.t = start_time;
        Ok(())
    }

    fn do_step(&mut self, t: f64, h: f64) -> StepOutcome {
        self.t = t + h;
        let at = self.terminate_time;
        if at >= 0.0 && t < at && at <= t + h {
            StepOutcome::Terminate
        } else {
            StepOutcome::Completed
        }
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_V_REAL => Ok(reference_solution(self.t).real),
            VR_TERMINATE_TIME => Ok(self.terminate_time),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_TERMINATE_TIME if value.is_finite() => self.terminate_time = value,
            VR_TERMINATE_TIME => {
                return Err(ModelError::InvalidValue {
                    name: "terminateTime",
                    value: value.to_string(),
                    reason: "must be finite",
                });
            }
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    fn get_integer(&self, vr: u32) -> Result<i32, ModelError> {
        match vr {
            VR_V_INTEGER => Ok(reference_solution(self.t).integer),
            _ => Err(ModelError::unknown(VarType::Integer, vr)),
        }
    }

    fn get_boolean(&self, vr: u32) -> Result<bool, ModelError> {
        match vr {
            VR_V_BOOL => Ok(reference_solution(self.t).boolean),
            _ => Err(ModelError::unknown(VarType::Boolean, vr)),
        }
    }

    fn get_string(&self, vr: u32) -> Result<String, ModelError> {
        match vr {
            VR_V_STRING => Ok(reference_solution(self.t).string),
            _ => Err(ModelError::unknown(VarType::String, vr)),
        }
    }
}

/// FourVarsFeedThrough: each output equals the current value of its input. Outputs change
/// the moment an input is set, in any phase; `do_step` changes nothing.
#[derive(Clone, Debug)]
pub struct FourVarsFeedThrough {
    values: FourValues,
}

impl Model for FourVarsFeedThrough {
    fn instantiate(guid: &str) -> Option<Self> {
        (guid == FEED_THROUGH_GUID).then(|| Self {
            values: FourValues {
                boolean: true,
                integer: 2,
                string: "blubbblubb".to_owned(),
                real: 5.0,
            },
        })
    }

    fn variables(&self) -> &'static [Variable] {
        FEED_THROUGH_VARIABLES
    }

    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        Ok(())
    }

    fn do_step(&mut self, _t: f64, _h: f64) -> StepOutcome {
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_OUT_REAL | VR_IN_REAL => Ok(self.values.real),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_IN_REAL => self.values.real = value,
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    fn get_integer(&self, vr: u32) -> Result<i32, ModelError> {
        match vr {
            VR_OUT_INTEGER | VR_IN_INTEGER => Ok(self.values.integer),
            _ => Err(ModelError::unknown(VarType::Integer, vr)),
        }
    }

    fn set_integer(&mut self, vr: u32, value: i32) -> Result<(), ModelError> {
        match vr {
            VR_IN_INTEGER => self.values.integer = value,
            _ => return Err(ModelError::unknown(VarType::Integer, vr)),
        }
        Ok(())
    }

    fn get_boolean(&self, vr: u32) -> Result<bool, ModelError> {
        match vr {
            VR_OUT_BOOL | VR_IN_BOOL => Ok(self.values.boolean),
            _ => Err(ModelError::unknown(VarType::Boolean, vr)),
        }
    }

    fn set_boolean(&mut self, vr: u32, value: bool) -> Result<(), ModelError> {
        match vr {
            VR_IN_BOOL => self.values.boolean = value,
            _ => return Err(ModelError::unknown(VarType::Boolean, vr)),
        }
        Ok(())
    }

    fn get_string(&self, vr: u32) -> Result<String, ModelError> {
        match vr {
            VR_OUT_STRING | VR_IN_STRING => Ok(self.values.string.clone()),
            _ => Err(ModelError::unknown(VarType::String, vr)),
        }
    }

    fn set_string(&mut self, vr: u32, value: &str) -> Result<(), ModelError> {
        match vr {
            VR_IN_STRING => self.values.string = value.to_owned(),
            _ => return Err(ModelError::unknown(VarType::String, vr)),
        }
        Ok(())
    }
}

fmu_support::model_enum! {
    /// The model behind the shared library: FourVars or FourVarsFeedThrough, chosen by the
    /// GUID.
    pub enum FourVarsModels {
        /// The FourVars FMU.
        FourVars(FourVars),
        /// The FourVarsFeedThrough FMU.
        FeedThrough(FourVarsFeedThrough),
    }
}

#[cfg(feature = "export")]
fmu_support::export_fmi2!(FourVarsModels);

#[cfg(test)]
mod tests;
