//! Variables by handle: a name resolved once into a [`Variable`], then read and set between
//! communication steps without looking the name up again and without allocating (String and
//! Binary reads excepted).
//!
//! What may be set follows the FMI rules for a slave between steps: an input that no
//! connection drives (the master would overwrite it at the next step) and a tunable parameter
//! (FMI 2.0 `variability="tunable"`, FMI 3.0 the same; FMI 1.0 has none, so only inputs).
//! Everything else is refused with an error that names the variable and says why.
//!
//! Spec: FMI 2.0.2 §2.1.7 (getting and setting values), §4.2.4 (co-simulation state machine:
//! inputs and tunable parameters in `slaveInitialized`); FMI 3.0 §2.2.6.4; FMI 1.0 CS §3.4;
//! FMPy's `fmu.setReal` between `doStep` calls.

use fmi::{Causality, ValueRef, VarType, Variability};

use super::Simulation;
use crate::index::SlaveIndex;
use crate::plan::{SimulationPlan, SlaveKind, Value};
use crate::slave::Slave;
use crate::{Error, Result};

/// A variable (or file-reader column) of a simulation, resolved once by its name
/// ([`Simulation::variable`]): small and `Copy`, to be kept and passed to
/// [`Simulation::get`], [`Simulation::get_real`], [`Simulation::read_reals`],
/// [`Simulation::set`] and [`Simulation::set_real`] at every communication point.
///
/// A handle belongs to the simulation that resolved it (or another of the same plan); one of
/// a simulation with fewer slaves is refused with [`Error::VariableAccess`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variable {
    slave: SlaveIndex,
    vr: ValueRef,
    var_type: VarType,
    negated: bool,
    causality: Causality,
    variability: Variability,
    settable: bool,
}

impl Variable {
    /// Its slave (plan index).
    pub fn slave(&self) -> SlaveIndex {
        self.slave
    }

    /// The value reference the master passes to the slave (for a file reader: the column
    /// index; for FMI 3.0: the scalar's handle, see [`fmi::ScalarVariable::handle`]).
    pub fn value_reference(&self) -> ValueRef {
        self.vr
    }

    /// Its type (Enumeration reads as Integer; a file-reader column as Real unless a
    /// connection typed it otherwise).
    pub fn var_type(&self) -> VarType {
        self.var_type
    }

    /// Its causality (a file-reader column: output).
    pub fn causality(&self) -> Causality {
        self.causality
    }

    /// Its variability (a file-reader column: continuous for Real, discrete otherwise).
    pub fn variability(&self) -> Variability {
        self.variability
    }

    /// True when [`Simulation::set`] accepts it: an input that no connection drives, or a
    /// tunable parameter.
    pub fn is_settable(&self) -> bool {
        self.settable
    }
}

impl SimulationPlan {
    /// Why the variable `v` (`slave`, `vr`, `var_type`, causality and variability) may not be
    /// set between steps; `None` when it may.
    fn set_refusal(&self, v: &Variable) -> Option<String> {
        let slave = &self.slaves[v.slave.0];
        if let SlaveKind::FileReader { table } = &slave.kind {
            return Some(format!(
                "it is a column of the file reader '{}' (read from '{}'); a table has no inputs",
                slave.name,
                table.path.display()
            ));
        }
        let driver = self
            .connections
            .get(v.var_type)
            .iter()
            .find(|c| c.input_slave == v.slave && c.input_vr == v.vr);
        if let Some(c) = driver {
            return Some(format!(
                "it is driven by the connection from '{}'; the master sets it at every step",
                c.output_name
            ));
        }
        let why = match (v.causality, v.variability) {
            (Causality::Input, _) | (Causality::Parameter, Variability::Tunable) => return None,
            (_, Variability::Constant) => "it is a constant",
            (Causality::Parameter, _) => {
                "it is a fixed parameter (variability=\"fixed\"): set it before initialization, \
                 as a parameter of the project"
            }
            (Causality::CalculatedParameter, _) => {
                "it is a calculated parameter, computed by the FMU"
            }
            (Causality::Output, _) => "it is an output, computed by the FMU",
            (Causality::Local, _) => "it is a local variable of the FMU",
            (Causality::Independent, _) => "it is the independent variable (time)",
            (Causality::StructuralParameter, _) => {
                "it is a structural parameter, fixed when the FMU is loaded"
            }
        };
        Some(format!(
            "{why}; only inputs that no connection drives and tunable parameters can be set \
             between steps"
        ))
    }

    /// `<slave>.<variable>` of the handle `v`, for messages (the first of aliases).
    fn handle_name(&self, v: &Variable) -> String {
        let Some(slave) = self.slaves.get(v.slave.0) else {
            return format!("slave {} value reference {}", v.slave.0, v.vr.0);
        };
        let variable = match &slave.kind {
            SlaveKind::FileReader { table } => {
                table.columns.get(v.vr.0 as usize).map(|c| c.name.clone())
            }
            kind => kind.variables().and_then(|all| {
                all.iter()
                    .find(|s| s.handle == v.vr && s.var_type == v.var_type)
                    .map(|s| s.name.clone())
            }),
        };
        format!(
            "{}.{}",
            slave.name,
            variable.unwrap_or_else(|| format!("<value reference {}>", v.vr.0))
        )
    }
}

impl Simulation {
    /// Resolves the variable (or file-reader column) `name`, written `<slave>.<variable>`,
    /// into a handle once; reads and sets through it then need no lookup.
    ///
    /// # Errors
    /// As [`SimulationPlan::variable`]: [`Error::NoSuchVariable`] (with a did-you-mean hint)
    /// or [`Error::AmbiguousVariable`].
    ///
    /// Spec: FMI 2.0.2 §2.2.7 (names and value references).
    pub fn variable(&self, name: &str) -> Result<Variable> {
        let named = self.plan.variable(name)?;
        let plan = &self.plan.slaves[named.slave.0];
        let declared = match &plan.kind {
            SlaveKind::FileReader { .. } => None,
            kind => kind.variables().and_then(|all| {
                all.iter()
                    .find(|s| s.handle == named.vr && s.var_type == named.var_type)
            }),
        };
        let (causality, variability) = match declared {
            Some(s) => (s.causality, s.variability),
            None if named.var_type == VarType::Real => (Causality::Output, Variability::Continuous),
            None => (Causality::Output, Variability::Discrete),
        };
        let mut v = Variable {
            slave: named.slave,
            vr: named.vr,
            var_type: named.var_type,
            negated: named.negated,
            causality,
            variability,
            settable: false,
        };
        v.settable = self.plan.set_refusal(&v).is_none();
        Ok(v)
    }

    /// The slave of `v`, checked to exist in this simulation.
    fn slave_of(&mut self, v: &Variable) -> Result<&mut crate::AnySlave> {
        if v.slave.0 >= self.sys.nodes.len() {
            return Err(Error::VariableAccess {
                name: self.plan.handle_name(v),
                reason: format!(
                    "the handle is of another simulation (this one has {} slaves)",
                    self.sys.nodes.len()
                ),
            });
        }
        Ok(&mut self.sys.node_mut(v.slave).slave)
    }

    /// The refusal of reading or setting `v` as `wanted`.
    fn wrong_type(&self, v: &Variable, wanted: VarType) -> Error {
        Error::VariableAccess {
            name: self.plan.handle_name(v),
            reason: format!(
                "it is {:?}, not {wanted:?} (use get and set with a Value)",
                v.var_type
            ),
        }
    }

    /// The current value of the variable `name` (see [`Simulation::variable`] and
    /// [`Simulation::get`]): an FMI 1.0 negated alias gives the negated value.
    ///
    /// # Errors
    /// As [`Simulation::variable`] and [`Simulation::get`].
    ///
    /// Spec: FMI 2.0.2 §2.1.7 (getting values), FMI 1.0 CS §2.4 (negated aliases).
    pub fn value(&mut self, name: &str) -> Result<Value> {
        let v = self.variable(name)?;
        self.get(&v)
    }

    /// The current value of `v`, read from its slave now. Any variable can be read, not only
    /// result columns. Allocates only for String and Binary values.
    ///
    /// # Errors
    /// [`Error::VariableAccess`] for a handle of another simulation; the slave's error when it
    /// cannot be read in its current state (e.g. before initialization).
    ///
    /// Spec: FMI 2.0.2 §2.1.7 (getting values).
    pub fn get(&mut self, v: &Variable) -> Result<Value> {
        let vrs = [v.vr];
        let slave = self.slave_of(v)?;
        Ok(match v.var_type {
            VarType::Real => {
                let mut x = [0.0];
                slave.get_real(&vrs, &mut x)?;
                Value::Real(if v.negated { -x[0] } else { x[0] })
            }
            VarType::Integer => {
                let mut x = [0_i128];
                slave.get_integer(&vrs, &mut x)?;
                Value::Integer(if v.negated { x[0].wrapping_neg() } else { x[0] })
            }
            VarType::Boolean => {
                let mut x = [false];
                slave.get_boolean(&vrs, &mut x)?;
                Value::Boolean(x[0] != v.negated)
            }
            VarType::String => {
                let mut x = [String::new()];
                slave.get_string(&vrs, &mut x)?;
                let [text] = x;
                Value::String(text)
            }
            VarType::Binary => {
                let mut x = [Vec::new()];
                slave.get_binary(&vrs, &mut x)?;
                let [bytes] = x;
                Value::Binary(bytes)
            }
        })
    }

    /// The current value of the Real variable `v`, without allocating.
    ///
    /// # Errors
    /// [`Error::VariableAccess`] when `v` is not Real or of another simulation; the slave's
    /// error.
    ///
    /// Spec: FMI 2.0.2 §2.1.7 (`fmi2GetReal`).
    pub fn get_real(&mut self, v: &Variable) -> Result<f64> {
        if v.var_type != VarType::Real {
            return Err(self.wrong_type(v, VarType::Real));
        }
        let mut x = [0.0];
        self.slave_of(v)?.get_real(&[v.vr], &mut x)?;
        Ok(if v.negated { -x[0] } else { x[0] })
    }

    /// The current values of the Real variables `vars` into `values` (same length), one slave
    /// call per variable, without allocating.
    ///
    /// # Errors
    /// [`Error::VariableAccess`] when the lengths differ, or as [`Simulation::get_real`] for
    /// the first variable that fails (the values before it are written).
    pub fn read_reals(&mut self, vars: &[Variable], values: &mut [f64]) -> Result<()> {
        if vars.len() != values.len() {
            return Err(Error::VariableAccess {
                name: format!("{} handles", vars.len()),
                reason: format!("read into {} values; the lengths must match", values.len()),
            });
        }
        for (v, value) in vars.iter().zip(values) {
            *value = self.get_real(v)?;
        }
        Ok(())
    }

    /// Checks that `v` may be set now (see [`Variable::is_settable`]).
    fn check_settable(&mut self, v: &Variable) -> Result<()> {
        self.slave_of(v)?;
        if v.settable {
            return Ok(());
        }
        let reason = self
            .plan
            .set_refusal(v)
            .unwrap_or_else(|| "it cannot be set".to_owned());
        Err(Error::VariableAccess {
            name: self.plan.handle_name(v),
            reason,
        })
    }

    /// Sets the input or tunable parameter `v` to `value` in its slave now; the value holds
    /// from the next communication step on until set again (the master never sets an input
    /// that no connection drives, and the slave's FMU state, saved for rollback or a
    /// checkpoint, holds it). An FMI 1.0 negated alias is set negated.
    ///
    /// # Errors
    /// [`Error::VariableAccess`] naming the variable when it may not be set (driven by a
    /// connection, a fixed parameter, an output, a file-reader column, …), when `value` is of
    /// another type, or for a handle of another simulation; the slave's error (e.g. a value
    /// out of range, or before initialization).
    ///
    /// Spec: FMI 2.0.2 §2.1.7 (setting values), §4.2.4 (what can be set in
    /// `slaveInitialized`); FMI 1.0 CS §3.4.
    pub fn set(&mut self, v: &Variable, value: &Value) -> Result<()> {
        self.check_settable(v)?;
        let vrs = [v.vr];
        let matches = matches!(
            (v.var_type, value),
            (VarType::Real, Value::Real(_))
                | (VarType::Integer, Value::Integer(_))
                | (VarType::Boolean, Value::Boolean(_))
                | (VarType::String, Value::String(_))
                | (VarType::Binary, Value::Binary(_))
        );
        if !matches {
            return Err(Error::VariableAccess {
                name: self.plan.handle_name(v),
                reason: format!("it is {:?}; the value given is {value:?}", v.var_type),
            });
        }
        let negated = v.negated;
        let slave = self.slave_of(v)?;
        match value {
            Value::Real(x) => slave.set_real(&vrs, &[if negated { -x } else { *x }]),
            Value::Integer(x) => {
                slave.set_integer(&vrs, &[if negated { x.wrapping_neg() } else { *x }])
            }
            Value::Boolean(x) => slave.set_boolean(&vrs, &[*x != negated]),
            Value::String(x) => slave.set_string(&vrs, std::slice::from_ref(x)),
            Value::Binary(x) => slave.set_binary(&vrs, std::slice::from_ref(x)),
        }
    }

    /// Sets the Real input or tunable parameter `v` to `value`, without allocating (see
    /// [`Simulation::set`]).
    ///
    /// # Errors
    /// As [`Simulation::set`].
    pub fn set_real(&mut self, v: &Variable, value: f64) -> Result<()> {
        if v.var_type != VarType::Real {
            return Err(self.wrong_type(v, VarType::Real));
        }
        self.check_settable(v)?;
        let x = if v.negated { -value } else { value };
        self.slave_of(v)?.set_real(&[v.vr], &[x])
    }
}
