//! `results/<project>.json`: a Signal Table with time as the independent variable. FMI 3.0
//! Binary values are String signals (and parameters) of lowercase hexadecimal text.
//!
//! Spec: seed 002 §3.5 (Signal Tables on file).

use std::path::Path;

use master::values::TypedValues;
use master::{OutputColumn, OutputLayout, Settings};
use output::signal_table::{
    AttributeMap, ParameterValue, SignalLayout, SignalTableWriter, SignalType, TableAlias,
    TableParameter, TableSignal, Variability,
};

fn variability(v: fmi::Variability) -> Variability {
    match v {
        fmi::Variability::Continuous => Variability::Continuous,
        fmi::Variability::Tunable => Variability::Tunable,
        fmi::Variability::Constant | fmi::Variability::Fixed | fmi::Variability::Discrete => {
            Variability::Discrete
        }
    }
}

/// The Signal Table writer and what it needs at the end.
pub struct JsonSink {
    writer: SignalTableWriter,
    attributes: AttributeMap,
    /// The text values of the row being written: Strings, then Binaries in hexadecimal (kept
    /// for reuse; unused without Binary columns).
    texts: Vec<String>,
}

/// Adds `column` (as signal or parameter number `index`) and its aliases to the layout.
fn add_aliases(
    aliases: &mut Vec<TableAlias>,
    column: &OutputColumn,
    index: usize,
    parameter: bool,
) {
    for a in &column.aliases {
        aliases.push(TableAlias {
            name: a.name.clone(),
            unit: a.unit.clone(),
            info: a.description.clone().unwrap_or_default(),
            of: index,
            negated: a.negated != column.negated,
            parameter,
        });
    }
}

impl JsonSink {
    /// Prepares the table; it is written by [`JsonSink::finish`].
    pub fn create(path: &Path, layout: &OutputLayout, settings: &Settings) -> crate::Result<Self> {
        let mut table = SignalLayout {
            time_unit: settings.output_time_unit.name().to_string(),
            ..Default::default()
        };
        let c = &layout.columns;
        let typed = [
            (SignalType::Boolean, &c.boolean),
            (SignalType::Integer, &c.integer),
            (SignalType::Real, &c.real),
            (SignalType::String, &c.string),
            (SignalType::String, &c.binary),
        ];
        for (ty, columns) in typed {
            for column in columns {
                add_aliases(&mut table.aliases, column, table.signals.len(), false);
                let mut signal = TableSignal::new(column.name.clone(), ty, column.unit.clone());
                signal.info = column.description.clone().unwrap_or_default();
                signal.variability = variability(column.variability);
                table.signals.push(signal);
            }
        }
        let (p, v) = (&layout.parameters, &layout.parameter_values);
        let parameters = p
            .boolean
            .iter()
            .zip(v.boolean.iter().map(|&b| ParameterValue::Boolean(b)))
            .chain(
                p.integer
                    .iter()
                    .zip(v.integer.iter().map(|&i| ParameterValue::Integer(i))),
            )
            .chain(
                p.real
                    .iter()
                    .zip(v.real.iter().map(|&r| ParameterValue::Real(r))),
            )
            .chain(
                p.string
                    .iter()
                    .zip(v.string.iter().map(|s| ParameterValue::String(s.clone()))),
            )
            .chain(
                p.binary.iter().zip(
                    v.binary
                        .iter()
                        .map(|b| ParameterValue::String(output::hex::to_hex(b))),
                ),
            );
        for (column, value) in parameters {
            add_aliases(&mut table.aliases, column, table.parameters.len(), true);
            table.parameters.push(TableParameter {
                name: column.name.clone(),
                unit: column.unit.clone(),
                info: column.description.clone().unwrap_or_default(),
                value,
            });
        }
        let experiment = AttributeMap::new()
            .with("startTime", settings.t_start)
            .with("stopTime", settings.t_end)
            .with("interval", settings.h_output_min)
            .with("tolerance", settings.rel_tol);
        let tool = AttributeMap::new()
            .with("name", "mastersim")
            .with("version", env!("CARGO_PKG_VERSION"));
        let attributes = AttributeMap::new()
            .with("experiment", experiment)
            .with("tool", tool);
        Ok(JsonSink {
            writer: SignalTableWriter::create(path, &table)?,
            attributes,
            texts: vec![String::new(); c.string.len() + c.binary.len()],
        })
    }

    /// Adds one row; `t` in the output time unit.
    pub fn write(&mut self, t: f64, values: &TypedValues) -> crate::Result<()> {
        let texts = if values.binary.is_empty() {
            &values.string
        } else {
            let (strings, binaries) = self.texts.split_at_mut(values.string.len());
            for (to, from) in strings.iter_mut().zip(&values.string) {
                to.clone_from(from);
            }
            for (to, from) in binaries.iter_mut().zip(&values.binary) {
                output::hex::write_hex(from, to);
            }
            &self.texts
        };
        self.writer
            .push_row(t, &values.boolean, &values.integer, &values.real, texts)?;
        Ok(())
    }

    /// Writes the file.
    pub fn finish(self) -> crate::Result<()> {
        self.writer.finish(&self.attributes)?;
        Ok(())
    }
}
