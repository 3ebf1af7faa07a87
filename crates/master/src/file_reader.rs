//! File-reader slaves: a slave whose outputs are the columns of a CSV/TSV [`Table`].
//!
//! Spec: MasterSim reference §4.4 (values of a file reader), §9 (its clock).

use std::sync::Arc;

use fmi::ValueRef;

use crate::slave::{Slave, SlaveCapabilities, StateId, StepOutcome};
use crate::table::{Table, TableError};
use crate::{Error, Result};

/// A slave that replays a [`Table`]: its outputs are the table's columns.
///
/// It has its own clock: `setup_experiment` sets it to `t_start`, `do_step(t, h)` to `t + h`,
/// and getters evaluate the table at that time (Real: linear, Integer: truncated step, exact
/// over the whole 64-bit ranges, Boolean: step ≠ 0, String: always empty). Setters are accepted and ignored. Saved states hold the
/// clock.
///
/// Spec: MasterSim reference §4.4, §9.
#[derive(Debug)]
pub struct FileReaderSlave {
    name: String,
    table: Arc<Table>,
    /// Per column: Real values are held (step value) instead of linearly interpolated.
    held: Vec<bool>,
    t: f64,
    /// [`Table::rows_up_to`] of `t`, kept current by [`FileReaderSlave::set_time`].
    rows: usize,
    states: Vec<Option<f64>>,
}

impl FileReaderSlave {
    /// A file reader named `name` over `table`, with its clock at 0 s.
    pub fn new(name: String, table: Arc<Table>) -> FileReaderSlave {
        FileReaderSlave {
            name,
            held: vec![false; table.columns.len()],
            rows: table.rows_up_to(0.0),
            table,
            t: 0.0,
            states: Vec::new(),
        }
    }

    /// Moves the reader's clock to `t` (s).
    fn set_time(&mut self, t: f64) {
        self.t = t;
        self.rows = self.table.rows_up_to_near(t, self.rows);
    }

    /// Makes the Real values of `columns` (value references = column indices) piecewise
    /// constant: the step value of reference §4.4 instead of linear interpolation. Used for
    /// columns that feed discrete Real inputs. Unknown columns are ignored.
    pub fn with_held_columns(mut self, columns: &[usize]) -> FileReaderSlave {
        for &c in columns {
            if let Some(h) = self.held.get_mut(c) {
                *h = true;
            }
        }
        self
    }

    /// The table this slave replays.
    pub fn table(&self) -> &Arc<Table> {
        &self.table
    }

    /// The slave clock in s.
    pub fn time(&self) -> f64 {
        self.t
    }

    #[inline]
    fn check_len(&self, function: &'static str, vrs: usize, values: usize) -> Result<()> {
        if vrs == values {
            Ok(())
        } else {
            Err(self.length_mismatch(function, vrs, values))
        }
    }

    #[cold]
    #[inline(never)]
    fn length_mismatch(&self, function: &'static str, vrs: usize, values: usize) -> Error {
        Error::LengthMismatch {
            slave: self.name.clone(),
            function,
            vrs,
            values,
        }
    }

    /// Evaluates every vr with `eval(table, column, t)` into `values`.
    fn get<T>(
        &self,
        function: &'static str,
        vrs: &[ValueRef],
        values: &mut [T],
        eval: impl Fn(&Table, usize, f64) -> Option<T>,
    ) -> Result<()> {
        self.check_len(function, vrs.len(), values.len())?;
        for (vr, value) in vrs.iter().zip(values) {
            *value = eval(&self.table, vr.0 as usize, self.t).ok_or_else(|| {
                TableError::NoSuchColumn {
                    path: self.table.path.clone(),
                    column: vr.0,
                    count: self.table.columns.len(),
                }
            })?;
        }
        Ok(())
    }

    fn slot(&mut self, state: StateId) -> Result<&mut Option<f64>> {
        match self.states.get_mut(state.0) {
            Some(slot @ Some(_)) => Ok(slot),
            _ => Err(Error::UnknownState {
                slave: self.name.clone(),
                id: state.0,
            }),
        }
    }
}

impl Slave for FileReaderSlave {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> SlaveCapabilities {
        SlaveCapabilities {
            can_get_and_set_state: true,
            can_handle_variable_step_size: true,
            provides_directional_derivative: false,
            instantiated_only_once_per_process: false,
        }
    }

    fn setup_experiment(&mut self, _rel_tol: f64, t_start: f64, _t_end: f64) -> Result<()> {
        self.set_time(t_start);
        Ok(())
    }

    fn enter_initialization_mode(&mut self) -> Result<()> {
        Ok(())
    }

    fn exit_initialization_mode(&mut self) -> Result<()> {
        Ok(())
    }

    fn get_real(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<()> {
        let (held, rows) = (&self.held, self.rows);
        self.get("get_real", vrs, values, |table, column, t| {
            if held.get(column).copied().unwrap_or(false) {
                table.step_at_rows(column, rows)
            } else {
                table.real_at_rows(column, t, rows)
            }
        })
    }

    fn get_integer(&mut self, vrs: &[ValueRef], values: &mut [i128]) -> Result<()> {
        let rows = self.rows;
        self.get("get_integer", vrs, values, |table, column, _| {
            table.integer_at_rows(column, rows)
        })
    }

    fn get_boolean(&mut self, vrs: &[ValueRef], values: &mut [bool]) -> Result<()> {
        let rows = self.rows;
        self.get("get_boolean", vrs, values, |table, column, _| {
            table.boolean_at_rows(column, rows)
        })
    }

    fn get_string(&mut self, vrs: &[ValueRef], values: &mut [String]) -> Result<()> {
        // String columns are not supported by MasterSim: always empty.
        self.get("get_string", vrs, values, |table, column, _| {
            table.columns.get(column).map(|_| String::new())
        })
    }

    fn set_real(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<()> {
        self.check_len("set_real", vrs.len(), values.len())
    }

    fn set_integer(&mut self, vrs: &[ValueRef], values: &[i128]) -> Result<()> {
        self.check_len("set_integer", vrs.len(), values.len())
    }

    fn set_boolean(&mut self, vrs: &[ValueRef], values: &[bool]) -> Result<()> {
        self.check_len("set_boolean", vrs.len(), values.len())
    }

    fn set_string(&mut self, vrs: &[ValueRef], values: &[String]) -> Result<()> {
        self.check_len("set_string", vrs.len(), values.len())
    }

    fn do_step(&mut self, t: f64, h: f64) -> Result<StepOutcome> {
        self.set_time(t + h);
        Ok(StepOutcome::Completed)
    }

    fn get_state(&mut self, into: Option<StateId>) -> Result<StateId> {
        let t = self.t;
        match into {
            Some(id) => {
                *self.slot(id)? = Some(t);
                Ok(id)
            }
            None => {
                self.states.push(Some(t));
                Ok(StateId(self.states.len() - 1))
            }
        }
    }

    fn set_state(&mut self, state: StateId) -> Result<()> {
        let t = self
            .slot(state)?
            .expect("invariant: slot() only returns filled slots");
        self.set_time(t);
        Ok(())
    }

    fn free_state(&mut self, state: StateId) -> Result<()> {
        *self.slot(state)? = None;
        Ok(())
    }

    /// The reader's clock (s), 8 bytes little-endian.
    fn serialize_state(&mut self) -> Result<Option<Vec<u8>>> {
        Ok(Some(self.t.to_le_bytes().to_vec()))
    }

    fn deserialize_state(&mut self, bytes: &[u8]) -> Result<()> {
        let t = <[u8; 8]>::try_from(bytes).map_err(|_| Error::Unsupported {
            slave: self.name.clone(),
            function: "a file reader state of other than 8 bytes",
        })?;
        self.set_time(f64::from_le_bytes(t));
        Ok(())
    }

    fn terminate(&mut self) -> Result<()> {
        Ok(())
    }
}
