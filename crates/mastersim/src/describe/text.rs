//! `mastersim info` as text: a header of `label  value` lines, the capabilities, the Model
//! Exchange interface, the default experiment, the variable table and the clocks.

use std::fmt::Write as _;

use super::{CapabilitiesInfo, Capability, Info};

/// Characters of a variable's description shown in the table; longer ones end in `…` (the
/// JSON output has them in full).
const DESCRIPTION_WIDTH: usize = 60;

impl Info<'_> {
    /// The information as text: a header of `label  value` lines (with the interfaces and
    /// whether mastersim runs the FMU here), the capabilities, the default experiment, the
    /// variable table (`filters`: the filters in words, for its heading) and the clocks.
    pub fn text(&self, filters: &str) -> String {
        let mut out = String::new();
        self.header(&mut out);
        if self.capabilities.0.is_empty() {
            out.push_str("\nCo-simulation capabilities: none (no Co-Simulation interface)\n");
        } else {
            out.push_str("\nCo-simulation capabilities\n");
            write_table(&mut out, "  ", &self.capabilities.rows());
        }
        self.model_exchange(&mut out);
        self.experiment(&mut out);
        let total = self.number_of_variables;
        if filters.is_empty() {
            let _ = writeln!(out, "\nVariables ({total})");
        } else {
            let shown = self.variables.len();
            let _ = writeln!(out, "\nVariables ({shown} of {total}; {filters})");
        }
        if self.variables.is_empty() {
            out.push_str("  (none)\n");
        } else {
            self.variable_table(&mut out);
        }
        self.clock_table(&mut out);
        out
    }

    /// Writes the Model Exchange block to `out`, when the FMU has a usable Model Exchange
    /// interface.
    fn model_exchange(&self, out: &mut String) {
        let Some(me) = &self.model_exchange else {
            return;
        };
        out.push_str("\nModel Exchange\n");
        let mut rows = vec![
            vec!["modelIdentifier".to_owned(), me.model_identifier.to_owned()],
            vec![
                "continuous states".to_owned(),
                me.number_of_continuous_states.to_string(),
            ],
            vec![
                "event indicators".to_owned(),
                me.number_of_event_indicators.to_string(),
            ],
        ];
        rows.extend(me.capabilities.rows());
        write_table(out, "  ", &rows);
    }

    /// Writes the header lines to `out`.
    fn header(&self, out: &mut String) {
        let platforms = if self.platforms.is_empty() {
            "none (no binaries/ folder)".to_owned()
        } else {
            let runs: Vec<String> = self
                .platform_support
                .iter()
                .map(|p| format!("{} ({})", p.platform, p.how))
                .collect();
            runs.join(", ")
        };
        let sources = match self.source_files.len() {
            0 => "no".to_owned(),
            1 => "yes (1 file)".to_owned(),
            n => format!("yes ({n} files)"),
        };
        let interfaces = self.interfaces.join(", ");
        let runs = if self.run.runs {
            "yes".to_owned()
        } else {
            format!("no: {}", self.run.refusals.join("; "))
        };
        let header = [
            ("FMU", Some(self.fmu.as_str())),
            ("FMI version", Some(self.fmi_version)),
            ("Interfaces", Some(interfaces.as_str())),
            ("Runs in mastersim", Some(runs.as_str())),
            ("Model name", Some(self.model_name)),
            ("Model identifier", Some(self.model_identifier)),
            ("Description", self.description),
            ("Generation tool", self.generation_tool),
            ("Generated", self.generation_date_and_time),
            ("Model version", self.model_version),
            ("GUID", self.guid),
            ("Instantiation token", self.instantiation_token),
            ("Platforms", Some(platforms.as_str())),
            ("Sources", Some(sources.as_str())),
        ];
        let rows: Vec<Vec<String>> = header
            .iter()
            .filter_map(|(label, value)| Some(vec![(*label).to_owned(), one_line((*value)?)]))
            .collect();
        write_table(out, "", &rows);
    }

    /// Writes the default experiment to `out`.
    fn experiment(&self, out: &mut String) {
        let Some(e) = &self.default_experiment else {
            out.push_str("\nDefault experiment: none\n");
            return;
        };
        out.push_str("\nDefault experiment\n");
        let rows: Vec<Vec<String>> = [
            ("startTime", e.start_time, " s"),
            ("stopTime", e.stop_time, " s"),
            ("tolerance", e.tolerance, ""),
            ("stepSize", e.step_size, " s"),
        ]
        .iter()
        .filter_map(|(name, value, unit)| {
            Some(vec![
                (*name).to_owned(),
                format!("{}{unit}", number((*value)?)),
            ])
        })
        .collect();
        write_table(out, "  ", &rows);
    }

    /// Writes the table of the clocks to `out`, when there are any.
    fn clock_table(&self, out: &mut String) {
        if self.clocks.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "\nClocks ({}; mastersim cannot simulate FMUs with clocks)",
            self.clocks.len()
        );
        let mut rows = vec![
            ["name", "causality", "valueReference"]
                .map(str::to_owned)
                .to_vec(),
        ];
        rows.extend(self.clocks.iter().map(|c| {
            vec![
                c.name.to_owned(),
                c.causality.to_owned(),
                c.value_reference.to_string(),
            ]
        }));
        write_table(out, "  ", &rows);
    }

    /// Writes the table of [`Info::variables`] to `out`.
    fn variable_table(&self, out: &mut String) {
        let mut rows = vec![
            [
                "name",
                "causality",
                "variability",
                "type",
                "unit",
                "start",
                "description",
            ]
            .map(str::to_owned)
            .to_vec(),
        ];
        rows.extend(self.variables.iter().map(|v| {
            vec![
                v.name.to_owned(),
                v.causality.to_owned(),
                v.variability.to_owned(),
                v.data_type.unwrap_or(v.var_type).to_owned(),
                v.unit.map(one_line).unwrap_or_default(),
                v.start.map(one_line).unwrap_or_default(),
                v.description.map(truncated).unwrap_or_default(),
            ]
        }));
        write_table(out, "  ", &rows);
    }
}

impl CapabilitiesInfo {
    /// The `attribute  value` rows of the text form.
    fn rows(&self) -> Vec<Vec<String>> {
        self.0
            .iter()
            .map(|(name, value)| {
                let value = match *value {
                    Capability::Flag(true) => "yes".to_owned(),
                    Capability::Flag(false) => "no".to_owned(),
                    Capability::Count(n) => n.to_string(),
                    Capability::Seconds(h) => format!("{} s", number(h)),
                };
                vec![(*name).to_owned(), value]
            })
            .collect()
    }
}

/// Writes `rows` as left-aligned columns two spaces apart, each line starting with
/// `indent`; widths count characters, trailing blanks are dropped.
fn write_table(out: &mut String, indent: &str, rows: &[Vec<String>]) {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            rows.iter()
                .filter_map(|row| row.get(i))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in rows {
        let mut line = indent.to_owned();
        for (cell, width) in row.iter().zip(&widths) {
            let _ = write!(line, "{cell:width$}  ");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

/// `text` on one line: line breaks and tabs become spaces.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// `text` on one line and at most [`DESCRIPTION_WIDTH`] characters long (the last one `…`
/// when cut).
fn truncated(text: &str) -> String {
    let text = one_line(text);
    if text.chars().count() <= DESCRIPTION_WIDTH {
        return text;
    }
    let mut cut: String = text.chars().take(DESCRIPTION_WIDTH - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// A number as the shortest text that reads back to it: plain decimals for magnitudes
/// from 1e-4 to 1e15, otherwise with an exponent (`1e-6`).
fn number(value: f64) -> String {
    let magnitude = value.abs();
    if value == 0.0 || (1e-4..1e15).contains(&magnitude) || !value.is_finite() {
        value.to_string()
    } else {
        format!("{value:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_naturally() {
        assert_eq!(number(0.0), "0");
        assert_eq!(number(20.0), "20");
        assert_eq!(number(0.01), "0.01");
        assert_eq!(number(1e-6), "1e-6");
        assert_eq!(number(-2.5e20), "-2.5e20");
    }

    #[test]
    fn descriptions_are_cut_on_one_line() {
        assert_eq!(truncated("a\tb\nc"), "a b c");
        let long = "word ".repeat(20);
        let cut = truncated(&long);
        assert_eq!(cut.chars().count(), DESCRIPTION_WIDTH);
        assert!(cut.ends_with("word…"), "{cut}");
    }

    #[test]
    fn tables_align_by_characters() {
        let mut out = String::new();
        let rows = vec![
            vec!["ä".to_owned(), "x".to_owned(), String::new()],
            vec!["abc".to_owned(), "y".to_owned(), "z".to_owned()],
        ];
        write_table(&mut out, "  ", &rows);
        assert_eq!(out, "  ä    x\n  abc  y  z\n");
    }
}
