//! Result rows: when a row is due, and how it is assembled from the slaves' outputs.
//!
//! A row is written at the start time, at the communication points the output schedule picks
//! ([`crate::time::OutputSchedule`]), and at the last communication point of the run. Before
//! each row the outputs that feed no connection are read from the slaves that stepped since
//! the last row ([`crate::system::System::refresh_outputs`]); the row then holds every selected
//! output at that communication point.
//!
//! Spec: MasterSim reference §12.1–12.3 (columns, output schedule), §9 (final row).

use crate::index::SlaveIndex;
use crate::observer::{Observer, OutputLayout};
use crate::plan::SimulationPlan;
use crate::slave::Slave;
use crate::system::System;
use crate::time::OutputSchedule;
use crate::values::{OUTPUT_TYPE_ORDER, PerType, TypedValues};
use crate::{Error, Result};

/// Assembles result rows and hands them to the observer when they are due.
#[derive(Debug)]
pub(crate) struct RowWriter {
    layout: OutputLayout,
    row: TypedValues,
    /// `(slave, cache slot)` of every column, per type, in row order.
    sources: PerType<Vec<(SlaveIndex, usize)>>,
    schedule: OutputSchedule,
    /// The observer has received the layout and the first row.
    started: bool,
}

impl RowWriter {
    /// The rows of `plan` over the slaves of `sys`.
    pub fn new(plan: &SimulationPlan, sys: &System) -> RowWriter {
        let layout = OutputLayout::new(plan);
        let mut sources = PerType::<Vec<(SlaveIndex, usize)>>::default();
        for ty in OUTPUT_TYPE_ORDER {
            for (s, slave) in plan.slaves.iter().enumerate() {
                for (l, var) in slave.outputs.get(ty).iter().enumerate() {
                    if var.written {
                        let slot = sys.nodes[s].slot(ty, crate::index::LocalIndex(l));
                        sources.get_mut(ty).push((SlaveIndex(s), slot));
                    }
                }
            }
        }
        RowWriter {
            row: TypedValues::zeroed(&layout.counts()),
            layout,
            sources,
            schedule: OutputSchedule::new(plan.settings.h_output_min),
            started: false,
        }
    }

    /// The column layout.
    pub fn layout(&self) -> &OutputLayout {
        &self.layout
    }

    /// True once [`RowWriter::start`] has run.
    pub fn is_started(&self) -> bool {
        self.started
    }

    /// Reads the parameter values, starts the wall clock of the statistics, hands the layout
    /// to `observer` and writes the first row at `t` (s).
    ///
    /// # Errors
    /// [`Error::Observer`] when the observer fails; a failing slave call.
    pub fn start(
        &mut self,
        plan: &SimulationPlan,
        sys: &mut System,
        observer: &mut dyn Observer,
        t: f64,
    ) -> Result<()> {
        self.read_parameters(plan, sys);
        sys.counters.started = Some(std::time::Instant::now());
        observer
            .start(&self.layout)
            .map_err(|source| Error::Observer { source })?;
        self.started = true;
        let taken = self.schedule.take(t);
        debug_assert!(taken, "the first row is always written");
        self.write(sys, observer, t)
    }

    /// The output schedule, for a checkpoint.
    pub fn schedule(&self) -> &OutputSchedule {
        &self.schedule
    }

    /// Continues the output of a resumed run: reads the parameter values, hands the layout to
    /// `observer` and takes over `schedule`, without writing a row (the result files already
    /// hold the rows up to the checkpoint).
    ///
    /// # Errors
    /// [`Error::Observer`] when the observer fails.
    pub fn resume(
        &mut self,
        plan: &SimulationPlan,
        sys: &mut System,
        observer: &mut dyn Observer,
        schedule: &OutputSchedule,
    ) -> Result<()> {
        self.read_parameters(plan, sys);
        observer
            .start(&self.layout)
            .map_err(|source| Error::Observer { source })?;
        self.started = true;
        self.schedule.clone_from(schedule);
        Ok(())
    }

    /// Takes over the output schedule of a snapshot of the same run (see
    /// [`crate::Simulation::rewind`]); the observers keep their layout.
    pub fn rewind(&mut self, schedule: &OutputSchedule) {
        self.schedule.clone_from(schedule);
    }

    /// Writes the row at communication point `t` (s) if the schedule says it is due.
    ///
    /// # Errors
    /// As [`RowWriter::start`].
    pub fn write_if_due(
        &mut self,
        sys: &mut System,
        observer: &mut dyn Observer,
        t: f64,
    ) -> Result<()> {
        if self.schedule.take(t) {
            self.write(sys, observer, t)?;
        }
        Ok(())
    }

    /// Writes the last row of the run at `t` (s), unless a row was written there already.
    ///
    /// # Errors
    /// As [`RowWriter::start`].
    pub fn write_final(
        &mut self,
        sys: &mut System,
        observer: &mut dyn Observer,
        t: f64,
    ) -> Result<()> {
        if self.schedule.take_final(t) {
            self.write(sys, observer, t)?;
        }
        Ok(())
    }

    /// Hands the outputs at communication point `t` (s) to [`Observer::held`], whether or not
    /// a row is due there; the output schedule is not touched.
    ///
    /// # Errors
    /// A failing slave call when the outputs are read.
    pub fn show_held(
        &mut self,
        sys: &mut System,
        observer: &mut dyn Observer,
        t: f64,
    ) -> Result<()> {
        sys.refresh_outputs()?;
        self.assemble(sys);
        observer.held(t, &self.row);
        Ok(())
    }

    /// Reads the outputs not read since the last step, assembles the row and hands it to the
    /// observer (timed in `sys.counters.output`).
    fn write(&mut self, sys: &mut System, observer: &mut dyn Observer, t: f64) -> Result<()> {
        sys.refresh_outputs()?;
        let started = sys.counters.output.start();
        self.assemble(sys);
        let result = observer
            .output(t, &self.row)
            .map_err(|source| Error::Observer { source });
        sys.counters.output.stop(started);
        result
    }

    /// Copies every column's cached output into the row.
    fn assemble(&mut self, sys: &System) {
        let nodes = &sys.nodes;
        let (row, sources) = (&mut self.row, &self.sources);
        for (value, &(s, slot)) in row.real.iter_mut().zip(&sources.real) {
            *value = *nodes[s.0].real.cached(slot);
        }
        for (value, &(s, slot)) in row.integer.iter_mut().zip(&sources.integer) {
            *value = *nodes[s.0].discrete.integer.cached(slot);
        }
        for (value, &(s, slot)) in row.boolean.iter_mut().zip(&sources.boolean) {
            *value = *nodes[s.0].discrete.boolean.cached(slot);
        }
        for (value, &(s, slot)) in row.string.iter_mut().zip(&sources.string) {
            value.clone_from(nodes[s.0].discrete.string.cached(slot));
        }
        for (value, &(s, slot)) in row.binary.iter_mut().zip(&sources.binary) {
            value.clone_from(nodes[s.0].discrete.binary.cached(slot));
        }
    }

    /// Reads the values of the parameter columns (once, after initialization). A value that
    /// cannot be read is logged and left at its default (NaN for Reals).
    fn read_parameters(&mut self, plan: &SimulationPlan, sys: &mut System) {
        for ty in OUTPUT_TYPE_ORDER {
            let mut k = 0;
            for (node, slave) in sys.nodes.iter_mut().zip(&plan.slaves) {
                for var in slave.parameters.get(ty).iter().filter(|v| v.written) {
                    let vrs = [var.vr];
                    let values = &mut self.layout.parameter_values;
                    let result = match ty {
                        fmi::VarType::Real => node.slave.get_real(&vrs, &mut values.real[k..=k]),
                        fmi::VarType::Integer => {
                            node.slave.get_integer(&vrs, &mut values.integer[k..=k])
                        }
                        fmi::VarType::Boolean => {
                            node.slave.get_boolean(&vrs, &mut values.boolean[k..=k])
                        }
                        fmi::VarType::String => {
                            node.slave.get_string(&vrs, &mut values.string[k..=k])
                        }
                        fmi::VarType::Binary => {
                            node.slave.get_binary(&vrs, &mut values.binary[k..=k])
                        }
                    };
                    if let Err(e) = result {
                        log::warn!(
                            "parameter '{}.{}' could not be read for the results: {e}",
                            slave.name,
                            var.name
                        );
                        if ty == fmi::VarType::Real {
                            values.real[k] = f64::NAN;
                        }
                    }
                    k += 1;
                }
            }
        }
    }
}
