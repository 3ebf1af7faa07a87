//! Inputs set before Initialization Mode, held until the instance is in it.
//!
//! The master sets every slave's start values and inputs before `enterInitializationMode`
//! (MasterSim's order, right for co-simulation FMUs). A Model Exchange FMU may refuse that for
//! its inputs: in the state "Instantiated" only variables with `initial` = `exact` or `approx`
//! may be set, and inputs have no `initial`; they may be set from Initialization Mode on (the
//! Reference FMU `Feedthrough` refuses a discrete input otherwise). So a Model Exchange slave
//! keeps the inputs set before Initialization Mode and sets them right after entering it, in
//! the order they were set; every other value is set at once.
//!
//! The same rule holds after initialization for Real inputs that are not continuous: they are
//! set in Event Mode, as Integer and Boolean inputs are ([`EarlyInputs::any_discrete_real`]).
//!
//! Spec: FMI 2.0.2 §3.2.3 (which variables `fmi2SetXXX` may set in which state), FMI 3.0 §3.2
//! (Model Exchange state machine).

use std::collections::HashSet;

use fmi::{Causality, ModelDescription, ValueRef, VarType, Variability};

/// One held set call.
#[derive(Debug, Clone)]
pub(super) enum Held {
    /// Real (Float32/Float64) values.
    Real(Vec<ValueRef>, Vec<f64>),
    /// Integer values of any width.
    Integer(Vec<ValueRef>, Vec<i128>),
    /// Boolean values.
    Boolean(Vec<ValueRef>, Vec<bool>),
    /// String values.
    String(Vec<ValueRef>, Vec<String>),
    /// Binary values (FMI 3.0).
    Binary(Vec<ValueRef>, Vec<Vec<u8>>),
}

/// The inputs of one instance and the sets held for them.
#[derive(Debug, Default)]
pub(super) struct EarlyInputs {
    /// (value class, value reference) of every input: classes as [`class_of`].
    inputs: HashSet<(u8, u32)>,
    /// Value references of the Real inputs that are not continuous (`variability="discrete"`):
    /// after initialization they may only be set in Event Mode, as Integer inputs.
    discrete_reals: HashSet<u32>,
    /// Sets held until Initialization Mode, in call order.
    held: Vec<Held>,
    /// True once the instance entered Initialization Mode: nothing is held any more.
    open: bool,
}

/// The value class of a variable type, as the slave numbers them (0 Real, 1 Integer,
/// 2 Boolean, 3 String, 4 Binary).
pub(super) fn class_of(var_type: VarType) -> u8 {
    match var_type {
        VarType::Real => 0,
        VarType::Integer => 1,
        VarType::Boolean => 2,
        VarType::String => 3,
        VarType::Binary => 4,
    }
}

impl EarlyInputs {
    /// The inputs of the FMU described by `description`.
    pub(super) fn of(description: &ModelDescription) -> EarlyInputs {
        let inputs = description
            .variables
            .iter()
            .filter(|v| v.causality == Causality::Input)
            .map(|v| (class_of(v.var_type), v.value_reference.0))
            .collect();
        let discrete_reals = description
            .variables
            .iter()
            .filter(|v| v.causality == Causality::Input && v.var_type == VarType::Real)
            .filter(|v| v.variability != Variability::Continuous)
            .map(|v| v.value_reference.0)
            .collect();
        EarlyInputs {
            inputs,
            discrete_reals,
            ..EarlyInputs::default()
        }
    }

    /// True when one of `vrs` is a Real input that is not continuous.
    pub(super) fn any_discrete_real(&self, vrs: &[ValueRef]) -> bool {
        !self.discrete_reals.is_empty() && vrs.iter().any(|vr| self.discrete_reals.contains(&vr.0))
    }

    /// Splits a set call of class `class` before Initialization Mode: the inputs among `vrs`
    /// are held (through `hold`), the rest returned to be set at once. `None`: nothing held,
    /// set the whole call (always so once the instance is in Initialization Mode).
    pub(super) fn split<T: Clone>(
        &mut self,
        class: u8,
        vrs: &[ValueRef],
        values: &[T],
        hold: fn(Vec<ValueRef>, Vec<T>) -> Held,
    ) -> Option<(Vec<ValueRef>, Vec<T>)> {
        if self.open || !vrs.iter().any(|vr| self.inputs.contains(&(class, vr.0))) {
            return None;
        }
        let (mut now, mut later) = ((Vec::new(), Vec::new()), (Vec::new(), Vec::new()));
        for (vr, v) in vrs.iter().zip(values) {
            let side = if self.inputs.contains(&(class, vr.0)) {
                &mut later
            } else {
                &mut now
            };
            side.0.push(*vr);
            side.1.push(v.clone());
        }
        self.held.push(hold(later.0, later.1));
        Some(now)
    }

    /// The held sets, to be made now that the instance is in Initialization Mode; nothing is
    /// held after this.
    pub(super) fn release(&mut self) -> Vec<Held> {
        self.open = true;
        std::mem::take(&mut self.held)
    }
}
