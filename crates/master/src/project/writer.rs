//! [`Project::to_text`]: a project written back as a `.msim` file.
//!
//! The text states every setting explicitly, so that the file means the same whatever the
//! defaults of the program that reads it; [`Project::parse`] reads it back to an equal project
//! (apart from line numbers and the command-line origins).

use std::fmt::Write as _;
use std::path::Path;

use super::{Communication, NewtonDerivatives, NewtonJacobian, Project, ResultFormat, TimeSetting};

/// A token for a `graph` line or a simulator path: quoted when it holds a blank or `#`.
fn token(text: &str) -> String {
    if text.contains([' ', '\t', '#']) {
        format!("\"{text}\"")
    } else {
        text.to_owned()
    }
}

/// A time setting as `<value> <unit>`, in the unit it was given in.
fn time(setting: &TimeSetting) -> String {
    format!("{} {}", setting.value, setting.unit.name())
}

/// A `parameter` value that the parser reads back verbatim: backslashes and newlines escaped
/// (the parser unescapes them), and quoted when it could be taken for a comment, holds
/// surrounding blanks or is itself quoted.
fn parameter_value(value: &str) -> String {
    let escaped = value.replace('\\', "\\\\").replace('\n', "\\n");
    let needs_quotes = escaped.is_empty()
        || escaped.contains('#')
        || escaped.starts_with([' ', '\t', '"'])
        || escaped.ends_with([' ', '\t', '"']);
    if needs_quotes {
        format!("\"{escaped}\"")
    } else {
        escaped
    }
}

impl Project {
    /// The project as the text of a `.msim` file to be saved in the directory `dir`.
    ///
    /// Every general keyword is written with its value (defaults included), then the
    /// `simulator` lines (paths relative to `dir` when the file lies below it, else absolute),
    /// the `graph`, `parameter`, multi-rate and `outputOnly` lines. Lines end with `\n`; the
    /// first lines are `#` comments holding `header`, one line per line of it.
    ///
    /// Spec: MasterSim reference §3 (the line formats); `docs/project-format.md`.
    pub fn to_text(&self, dir: &Path, header: &str) -> String {
        let mut s = String::new();
        for line in header.lines() {
            let _ = writeln!(s, "# {line}");
        }
        let yes_no = |b: bool| if b { "yes" } else { "no" };
        let keywords: [(&str, String); 21] = [
            ("tStart", time(&self.t_start)),
            ("tEnd", time(&self.t_end)),
            ("hMax", time(&self.h_max)),
            ("hMin", time(&self.h_min)),
            ("hFallBackLimit", time(&self.h_fallback_limit)),
            ("hStart", time(&self.h_start)),
            ("hOutputMin", time(&self.h_output_min)),
            ("outputTimeUnit", self.output_time_unit.name().to_owned()),
            ("adjustStepSize", yes_no(self.adjust_step_size).to_owned()),
            (
                "preventOversteppingOfEndTime",
                yes_no(self.prevent_overstepping_of_end_time).to_owned(),
            ),
            ("absTol", self.abs_tol.to_string()),
            ("relTol", self.rel_tol.to_string()),
            ("MasterMode", self.master_algorithm.keyword().to_owned()),
            ("ErrorControlMode", self.error_control.keyword().to_owned()),
            ("maxIterations", self.max_iterations.to_string()),
            (
                "writeInternalVariables",
                yes_no(self.write_internal_variables).to_owned(),
            ),
            (
                "writeUnconnectedFileReaderVars",
                yes_no(self.write_unconnected_file_reader_vars).to_owned(),
            ),
            ("timeArithmetic", self.time_arithmetic.keyword().to_owned()),
            (
                "NewtonJacobian",
                match self.newton_jacobian {
                    NewtonJacobian::Full => "FULL",
                    NewtonJacobian::Chord => "CHORD",
                }
                .to_owned(),
            ),
            (
                "NewtonDerivatives",
                match self.newton_derivatives {
                    NewtonDerivatives::Auto => "AUTO",
                    NewtonDerivatives::DifferenceQuotients => "DIFFERENCE_QUOTIENTS",
                }
                .to_owned(),
            ),
            (
                "resultFormats",
                self.result_formats
                    .iter()
                    .map(|f| match f {
                        ResultFormat::Csv => "csv",
                        ResultFormat::Mat => "mat",
                        ResultFormat::Json => "json",
                    })
                    .collect::<Vec<_>>()
                    .join(","),
            ),
        ];
        for (keyword, value) in keywords {
            if !value.is_empty() {
                let _ = writeln!(s, "{keyword:<30} {value}");
            }
        }
        if let Some(threshold) = self.output_threshold {
            let _ = writeln!(s, "{:<30} {threshold}", "outputThreshold");
        }
        s.push('\n');
        for sim in &self.simulators {
            let path = sim.path.strip_prefix(dir).unwrap_or(&sim.path);
            let _ = writeln!(
                s,
                "simulator {} {} {} #{:08x} {}",
                sim.index,
                sim.cycle,
                sim.name,
                sim.color,
                token(&path.to_string_lossy())
            );
        }
        for edge in &self.graph {
            let _ = writeln!(
                s,
                "graph {} {} {} {}",
                token(&format!("{}.{}", edge.output.slave, edge.output.variable)),
                token(&format!("{}.{}", edge.input.slave, edge.input.variable)),
                edge.offset,
                edge.scale_factor
            );
        }
        for p in &self.parameters {
            let _ = writeln!(
                s,
                "parameter {}.{} {}",
                p.slave,
                p.variable,
                parameter_value(&p.value)
            );
        }
        for c in &self.communication {
            let value = match &c.setting {
                Communication::Interval(t) | Communication::Offset(t) => time(t),
                Communication::Trigger(other) => other.clone(),
            };
            let _ = writeln!(s, "{} {} {value}", c.setting.keyword(), c.slave);
        }
        for def in &self.fmi_types {
            let _ = writeln!(s, "{}", super::fmi_type::line_text(def, time));
        }
        for def in &self.isolated {
            let _ = writeln!(s, "{}", super::isolate::line_text(def));
        }
        for (pattern, _) in &self.output_only {
            let _ = writeln!(s, "outputOnly {pattern}");
        }
        if let Some(def) = &self.scene {
            let _ = writeln!(s, "{}", super::scene::line_text(def, dir));
        }
        s
    }
}
