//! Errors of the project-file parser.

use std::path::PathBuf;

/// An error in a `.msim` project file.
///
/// Every variant except [`ProjectError::Io`] names the file and the 1-based line, and its message
/// reads `<file>:<line>: <what was wrong>, expected <what>`.
///
/// Spec: MasterSim reference §3 (the errors MasterSim reports, with clearer wording), §17.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProjectError {
    /// The project file could not be read.
    #[error("cannot read project file '{path}': {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid UTF-8.
    #[error("{file}:{line}: invalid UTF-8 byte sequence, expected UTF-8 text")]
    InvalidUtf8 {
        /// The project file.
        file: PathBuf,
        /// 1-based line with the first invalid byte.
        line: usize,
    },
    /// The first word of a line is not a keyword.
    #[error(
        "{file}:{line}: '{keyword}' is not a keyword{}, expected a keyword such as tStart, tEnd, \
         hStart, MasterMode, simulator, graph or parameter",
        suggestion_text(*.suggestion)
    )]
    UnknownKeyword {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The word found.
        keyword: String,
        /// A keyword the word probably meant (`parameters` → `parameter`).
        suggestion: Option<&'static str>,
    },
    /// A keyword without a value.
    #[error("{file}:{line}: '{keyword}' has no value, expected '{keyword} <value>'")]
    MissingValue {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The keyword.
        keyword: &'static str,
    },
    /// A time quantity whose number or unit is missing or unreadable.
    #[error(
        "{file}:{line}: invalid {keyword} '{value}', expected '<number> <unit>' such as '10 s'"
    )]
    BadQuantity {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The keyword.
        keyword: &'static str,
        /// The value text.
        value: String,
    },
    /// A unit that is not a time unit (MasterSim accepts any unit here).
    #[error(
        "{file}:{line}: '{unit}' is not a time unit in {keyword}, expected one of ms, s, min, h, d, a"
    )]
    NotATimeUnit {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The keyword.
        keyword: &'static str,
        /// The unit found.
        unit: String,
    },
    /// Text after a complete value that is not a comment.
    #[error(
        "{file}:{line}: unexpected '{text}' after the value of {keyword}, expected the end of the \
         line or a '# comment'"
    )]
    TrailingText {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The keyword.
        keyword: &'static str,
        /// The extra text.
        text: String,
    },
    /// A boolean that is not one of the accepted words (MasterSim silently reads false).
    #[error(
        "{file}:{line}: invalid {keyword} value '{value}', expected one of true, yes, 1, false, no, 0"
    )]
    BadBoolean {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The keyword.
        keyword: &'static str,
        /// The value found.
        value: String,
    },
    /// An unknown `MasterMode` or `ErrorControlMode` value.
    #[error("{file}:{line}: unknown {keyword} '{value}', expected one of {expected}")]
    BadEnum {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The keyword.
        keyword: &'static str,
        /// The value found.
        value: String,
        /// The accepted values.
        expected: &'static str,
    },
    /// A number that cannot be read (tolerances, `maxIterations`).
    #[error("{file}:{line}: invalid {keyword} '{value}', expected {expected}")]
    BadNumber {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The keyword.
        keyword: &'static str,
        /// The value found.
        value: String,
        /// What a valid value looks like.
        expected: &'static str,
    },
    /// A double quote that is never closed on a `simulator` or `graph` line.
    #[error("{file}:{line}: unterminated double quote, expected a closing '\"'")]
    UnterminatedQuote {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
    },
    /// A `simulator` line with the wrong number of fields.
    #[error(
        "{file}:{line}: malformed simulator line with {found} field(s), expected \
         'simulator <index> <cycle> <name> <color> \"<path>\"' (quote a path that contains spaces)"
    )]
    BadSimulator {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// Number of fields found after `simulator` (without a trailing comment).
        found: usize,
    },
    /// An invalid index, cycle, name or path on a `simulator` line.
    #[error("{file}:{line}: invalid simulator {field} '{value}', expected {expected}")]
    BadSimulatorField {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// `index`, `cycle`, `name` or `path`.
        field: &'static str,
        /// The text found.
        value: String,
        /// What a valid value looks like.
        expected: &'static str,
    },
    /// An invalid colour on a `simulator` or `graph` line.
    #[error(
        "{file}:{line}: invalid colour '{value}', expected '#rrggbb', '#aarrggbb' or a decimal number"
    )]
    BadColor {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The text found.
        value: String,
    },
    /// A slave name used by two `simulator` lines.
    #[error(
        "{file}:{line}: slave name '{name}' is already defined on line {first_line}, expected unique \
         slave names"
    )]
    DuplicateSlave {
        /// The project file.
        file: PathBuf,
        /// 1-based line of the second definition.
        line: usize,
        /// The slave name.
        name: String,
        /// 1-based line of the first definition.
        first_line: usize,
    },
    /// A `graph` line with the wrong number of fields.
    #[error(
        "{file}:{line}: malformed graph line with {found} field(s), expected 'graph \
         <slave>.<output> <slave>.<input> [<offset> <scaleFactor> [<lineWidth> <color>]]'"
    )]
    BadGraph {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// Number of fields found after `graph` (without a trailing comment).
        found: usize,
    },
    /// A `graph` connector that is not `<slave>.<variable>`.
    #[error("{file}:{line}: invalid variable reference '{text}', expected '<slave>.<variable>'")]
    BadVariableRef {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The text found.
        text: String,
    },
    /// An unreadable offset, scale factor or line width on a `graph` line.
    #[error(
        "{file}:{line}: invalid graph {field} '{value}', expected a number such as 0.5 (no leading \
         '+', nothing after it)"
    )]
    BadGraphNumber {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// `offset`, `scale factor` or `line width`.
        field: &'static str,
        /// The text found.
        value: String,
    },
    /// A `parameter` line without a name or a value.
    #[error(
        "{file}:{line}: malformed parameter line, expected 'parameter <slave>.<variable> <value>'"
    )]
    BadParameter {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
    },
    /// A `parameter` name that is not `<slave>.<variable>`.
    #[error("{file}:{line}: invalid parameter name '{name}', expected '<slave>.<variable>'")]
    BadParameterName {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The name found.
        name: String,
    },
    /// A `parameter` for a slave that no earlier `simulator` line defines.
    #[error(
        "{file}:{line}: parameter for unknown slave '{slave}', expected a 'simulator' line defining \
         '{slave}' above this line"
    )]
    UnknownParameterSlave {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The slave name found.
        slave: String,
    },
    /// An invalid `communicationInterval`, `communicationOffset` or `communicationTrigger`
    /// line: malformed, an unknown slave, a value out of range, a repeated or conflicting
    /// line, or a trigger cycle.
    #[error("{file}:{line}: {problem}, expected {expected}")]
    BadCommunication {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong, naming the keyword.
        problem: String,
        /// What a valid line looks like.
        expected: String,
    },
    /// A malformed `fmiType` line, or one naming an unknown slave or repeating a slave.
    #[error("{}:{line}: {problem}, expected {expected}", file.display())]
    BadFmiType {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        problem: String,
        /// What a valid line looks like.
        expected: &'static str,
    },
    /// A malformed `isolate` line, or one naming an unknown slave or platform or repeating a
    /// slave.
    #[error("{}:{line}: {problem}, expected {expected}", file.display())]
    BadIsolate {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        problem: String,
        /// What a valid line looks like.
        expected: &'static str,
    },
    /// A malformed `scene` line, or a second one.
    #[error("{}:{line}: {problem}, expected {expected}", file.display())]
    BadScene {
        /// The project file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        problem: String,
        /// What a valid line looks like.
        expected: &'static str,
    },
    /// A `--set` override that would be an invalid line in the project file.
    #[error("{option}: {reason}")]
    Override {
        /// The option as given, e.g. `--set tEnd=ten`.
        option: String,
        /// What is wrong and what was expected (the message the same line would get in the
        /// file, without file and line).
        reason: String,
    },
}

impl ProjectError {
    /// The 1-based line the error refers to (`None` for I/O errors and overrides).
    pub fn line(&self) -> Option<usize> {
        match self {
            ProjectError::Io { .. } | ProjectError::Override { .. } => None,
            ProjectError::InvalidUtf8 { line, .. }
            | ProjectError::UnknownKeyword { line, .. }
            | ProjectError::MissingValue { line, .. }
            | ProjectError::BadQuantity { line, .. }
            | ProjectError::NotATimeUnit { line, .. }
            | ProjectError::TrailingText { line, .. }
            | ProjectError::BadBoolean { line, .. }
            | ProjectError::BadEnum { line, .. }
            | ProjectError::BadNumber { line, .. }
            | ProjectError::UnterminatedQuote { line, .. }
            | ProjectError::BadSimulator { line, .. }
            | ProjectError::BadSimulatorField { line, .. }
            | ProjectError::BadColor { line, .. }
            | ProjectError::DuplicateSlave { line, .. }
            | ProjectError::BadGraph { line, .. }
            | ProjectError::BadVariableRef { line, .. }
            | ProjectError::BadGraphNumber { line, .. }
            | ProjectError::BadParameter { line, .. }
            | ProjectError::BadParameterName { line, .. }
            | ProjectError::UnknownParameterSlave { line, .. }
            | ProjectError::BadCommunication { line, .. }
            | ProjectError::BadFmiType { line, .. }
            | ProjectError::BadIsolate { line, .. }
            | ProjectError::BadScene { line, .. } => Some(*line),
        }
    }
}

/// The " (did you mean ...?)" part of an unknown-keyword message.
fn suggestion_text(suggestion: Option<&'static str>) -> String {
    suggestion
        .map(|s| format!(" (did you mean '{s}'?)"))
        .unwrap_or_default()
}
