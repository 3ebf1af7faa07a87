//! `results/<project>.mat`: a MAT v4 result file (Dymola/OpenModelica `binTrans` layout).
//!
//! Without the output filter the file is written row by row and is a valid MAT file at every
//! moment (a killed run keeps every row written). With the filter every variable keeps its own
//! time points (one data matrix per distinct time axis), so the file is written at the end.
//!
//! Spec: seeds 000/001 (MAT v4), seed 002 §2.2 (several data matrices).

use std::path::{Path, PathBuf};

use master::values::TypedValues;
use master::{OutputColumn, OutputLayout, Settings};
use output::filter::ColumnFilter;
use output::mat::{MatAlias, MatOpen, MatParameter, MatSeries, MatSignal, MatState, MatWriter};

use super::Continued;

fn signal(column: &OutputColumn) -> MatSignal {
    MatSignal::new(
        column.name.clone(),
        column.unit.clone(),
        column.description.clone().unwrap_or_default(),
    )
}

/// Adds the aliases of `column` (signal or parameter number `index`); negation is relative to
/// the stored values, which are the column's (as in `values.csv`).
fn add_aliases(aliases: &mut Vec<MatAlias>, column: &OutputColumn, index: usize, parameter: bool) {
    for a in &column.aliases {
        aliases.push(MatAlias {
            name: a.name.clone(),
            unit: a.unit.clone(),
            description: a.description.clone().unwrap_or_default(),
            of: index,
            negated: a.negated != column.negated,
            parameter,
        });
    }
}

/// Per-variable time points collected by the output filter.
struct Filtered {
    path: PathBuf,
    parameters: Vec<MatParameter>,
    aliases: Vec<MatAlias>,
    filters: Vec<ColumnFilter>,
    series: Vec<MatSeries>,
    t_start: f64,
    t_stop: f64,
}

enum Mode {
    Streaming(MatWriter),
    Filtered(Filtered),
}

/// The MAT result file.
pub struct MatSink {
    mode: Mode,
    row: Vec<f64>,
}

impl MatSink {
    /// Creates the file (streaming) or prepares the filtered series.
    pub fn create(
        path: &Path,
        layout: &OutputLayout,
        settings: &Settings,
        threshold: Option<f64>,
        continued: &Continued,
    ) -> crate::Result<Self> {
        let c = &layout.columns;
        let mut aliases = Vec::new();
        let mut signals = Vec::new();
        for column in [&c.boolean, &c.integer, &c.real].into_iter().flatten() {
            add_aliases(&mut aliases, column, signals.len(), false);
            signals.push(signal(column));
        }
        let (p, v) = (&layout.parameters, &layout.parameter_values);
        let numeric_parameters = p
            .boolean
            .iter()
            .zip(v.boolean.iter().map(|&b| f64::from(u8::from(b))))
            .chain(p.integer.iter().zip(v.integer.iter().map(|&i| i as f64)))
            .chain(p.real.iter().zip(v.real.iter().copied()));
        let mut parameters = Vec::new();
        for (column, value) in numeric_parameters {
            add_aliases(&mut aliases, column, parameters.len(), true);
            parameters.push(MatParameter {
                signal: signal(column),
                start: value,
                stop: value,
            });
        }
        let (t_start, t_stop) = (settings.t_start, settings.t_end);
        log::info!("Creating output file '{}'.", path.display());
        let mode = match threshold {
            None => Mode::Streaming(MatWriter::open(
                path,
                &parameters,
                &signals,
                &aliases,
                (t_start, t_stop),
                match continued {
                    Continued::Fresh => MatOpen::Create,
                    // A checkpoint without MAT state has an empty file to continue.
                    Continued::Resume(s) => MatOpen::Resume(s.mat.unwrap_or(MatState {
                        rows: 0,
                        end: 0,
                        len: 0,
                    })),
                    Continued::Replay(_) => MatOpen::Verify,
                },
            )?),
            Some(threshold) => Mode::Filtered(Filtered {
                path: path.to_path_buf(),
                filters: signals
                    .iter()
                    .map(|_| ColumnFilter::new(threshold))
                    .collect(),
                series: signals
                    .into_iter()
                    .map(|signal| MatSeries {
                        signal,
                        time: vec![],
                        values: vec![],
                    })
                    .collect(),
                parameters,
                aliases,
                t_start,
                t_stop,
            }),
        };
        Ok(MatSink {
            mode,
            row: Vec::new(),
        })
    }

    /// Where the streaming file stands (`None` with the filter, whose file is written at the
    /// end), for a checkpoint.
    pub fn state(&self) -> Option<MatState> {
        match &self.mode {
            Mode::Streaming(writer) => Some(writer.state()),
            Mode::Filtered(_) => None,
        }
    }

    /// Ends verifying the streaming file at the checkpoint's `state` and continues it.
    pub fn end_verify(&mut self, state: Option<MatState>) -> crate::Result<()> {
        if let (Mode::Streaming(writer), Some(state)) = (&mut self.mode, state) {
            writer.end_verify(state)?;
        }
        Ok(())
    }

    /// Writes (or filters) one row; `t` in s.
    pub fn write(&mut self, t: f64, values: &TypedValues) -> crate::Result<()> {
        super::numeric_row(values, &mut self.row);
        match &mut self.mode {
            Mode::Streaming(writer) => writer.write_row(t, &self.row)?,
            Mode::Filtered(f) => {
                for ((filter, series), &v) in f.filters.iter_mut().zip(&mut f.series).zip(&self.row)
                {
                    if let Some((t, v)) = filter.push(t, v) {
                        series.time.push(t);
                        series.values.push(v);
                    }
                }
            }
        }
        Ok(())
    }

    /// Completes the file; with the filter, returns the samples kept and offered.
    pub fn finish(self) -> crate::Result<Option<(u64, u64)>> {
        match self.mode {
            Mode::Streaming(writer) => {
                writer.finish()?;
                Ok(None)
            }
            Mode::Filtered(mut f) => {
                let (mut kept, mut offered) = (0, 0);
                for (filter, series) in f.filters.iter_mut().zip(&mut f.series) {
                    if let Some((t, v)) = filter.finish() {
                        series.time.push(t);
                        series.values.push(v);
                    }
                    kept += filter.kept();
                    offered += filter.offered();
                }
                output::mat::write_series(
                    &f.path,
                    &f.parameters,
                    &f.series,
                    &f.aliases,
                    f.t_start,
                    f.t_stop,
                )?;
                Ok(Some((kept, offered)))
            }
        }
    }
}
