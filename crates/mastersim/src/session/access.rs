//! Variables of a [`Session`] by handle: a name resolved once ([`Session::variable`]), then
//! read ([`Session::get`], [`Session::get_real`], [`Session::read_reals`]) and set
//! ([`Session::set`], [`Session::set_real`]) between communication steps without a lookup and
//! without allocating (String and Binary reads excepted).
//!
//! Spec: FMI 2.0.2 §2.1.7 (getting and setting values), §4.2.4 (what can be set between
//! steps); FMPy's `getReal`/`setReal` between `doStep` calls.

use master::{Value, Variable};

use super::Session;
use crate::Result;

impl Session {
    /// Resolves the variable (or file-reader column) `name`, written `<slave>.<variable>`
    /// (`<slave>.<column caption>` for a file reader), into a handle to read and set it by.
    /// [`master::Variable::is_settable`] tells whether [`Session::set`] accepts it.
    ///
    /// # Errors
    /// [`Error::Master`](crate::Error::Master): no such slave or variable (with a
    /// did-you-mean hint), or a name its FMU declares more than once as different values.
    ///
    /// Spec: FMI 2.0.2 §2.2.7 (names and value references).
    pub fn variable(&self, name: &str) -> Result<Variable> {
        Ok(self.sim.variable(name)?)
    }

    /// The current value of `v`, read from its slave now (allocates only for String and
    /// Binary values).
    ///
    /// # Errors
    /// [`Error::Master`](crate::Error::Master): a handle of another session, or the slave
    /// cannot be read in its current state (e.g. before initialization).
    ///
    /// Spec: FMI 2.0.2 §2.1.7 (getting values).
    pub fn get(&mut self, v: &Variable) -> Result<Value> {
        Ok(self.sim.get(v)?)
    }

    /// The current value of the Real variable `v`, without allocating.
    ///
    /// # Errors
    /// As [`Session::get`]; a variable that is not Real.
    pub fn get_real(&mut self, v: &Variable) -> Result<f64> {
        Ok(self.sim.get_real(v)?)
    }

    /// The current values of the Real variables `vars` into `values` (same length), without
    /// allocating.
    ///
    /// # Errors
    /// As [`Session::get_real`]; lengths that differ.
    pub fn read_reals(&mut self, vars: &[Variable], values: &mut [f64]) -> Result<()> {
        Ok(self.sim.read_reals(vars, values)?)
    }

    /// Sets `v` to `value` (initializing first if needed): an input that no connection
    /// drives, or a tunable parameter (FMI 2.0 and 3.0; FMI 1.0 has none). The value holds
    /// from the next communication step on until it is set again: the master never
    /// overwrites it, and the slave's FMU state (rollback, checkpoints, [`Session::snapshot`])
    /// holds it.
    ///
    /// # Errors
    /// As [`Session::initialize`]; [`Error::Master`](crate::Error::Master) naming the
    /// variable and saying why when it may not be set (driven by a connection from another
    /// slave, a fixed parameter, an output, a file-reader column, …) or `value` is of another
    /// type; the slave's error (e.g. a value out of range).
    ///
    /// Spec: FMI 2.0.2 §2.1.7 (setting values), §4.2.4; FMI 1.0 CS §3.4.
    pub fn set(&mut self, v: &Variable, value: &Value) -> Result<()> {
        self.ensure_initialized()?;
        Ok(self.sim.set(v, value)?)
    }

    /// Sets the Real input or tunable parameter `v` to `value`, without allocating (see
    /// [`Session::set`]).
    ///
    /// # Errors
    /// As [`Session::set`]; a variable that is not Real.
    pub fn set_real(&mut self, v: &Variable, value: f64) -> Result<()> {
        self.ensure_initialized()?;
        Ok(self.sim.set_real(v, value)?)
    }
}
