//! `mastersim info`: what an FMU holds — FMI version, interfaces, model, generation tool,
//! platforms, co-simulation capabilities, default experiment and variables — as text or JSON,
//! and whether mastersim runs it here (module `report`; the text form is module `text`).
//!
//! The FMU is read with [`fmi::archive::describe`]: `modelDescription.xml` and the list of
//! entries come straight from the zip archive; nothing is extracted and no shared library is
//! loaded, so FMUs without binaries for this platform can be inspected too, and so can FMUs
//! that mastersim cannot run (Model Exchange or Scheduled Execution only, a library of
//! another architecture, clocks): `info` describes them and says what a run would refuse.
//! The capabilities are those the XML declares.
//!
//! FMI 1.0 FMUs are shown with the version-neutral model of the `fmi` crate: causality and
//! variability use the FMI 2.0 names (`internal` with `variability="parameter"` is a
//! `parameter` of variability `fixed`, other `internal` and `none` are `local`); see
//! [`fmi::Causality`] and [`fmi::Variability`].
//!
//! FMI 3.0 FMUs are shown one row per scalar, as mastersim addresses them: an array variable
//! `x` of dimensions 2×3 is six rows `x[1,1]` … `x[2,3]` (row-major), and an `<Alias>` is rows
//! of its own. The type column gives the FMI 3.0 data type (`Float64`, `UInt8`, …), the JSON
//! adds `dataType` and, for array elements, `array`, `dimensions` and `indices`. Clocks are
//! listed apart: mastersim cannot simulate FMUs that have any.
//!
//! Spec: FMI 2.0.2 §2.2.1 (`fmiModelDescription`), §2.2.5 (`DefaultExperiment`), §2.2.7
//! (`ScalarVariable`), §2.3 (FMU layout), §4.3.1 (`CoSimulation`); FMI 1.0 §2.2–§2.4,
//! FMI 1.0 CS §3 (`Capabilities`); FMI 3.0 §2.4 (FMU description), §2.4.7.5 (`Clock`),
//! §2.4.7.6 (arrays), §4.3.1 (`CoSimulation`).

mod report;
mod text;

use std::path::PathBuf;

use anyhow::bail;
use clap::ValueEnum;
use fmi::archive::{self, ExtractOptions};
use fmi::{Causality, ScalarVariable};

use report::Info;

/// Arguments of `mastersim info`.
#[derive(clap::Args, Debug, Clone)]
pub struct InfoArgs {
    /// The FMU archive (.fmu), FMI 1.0, 2.0 or 3.0 co-simulation.
    pub fmu: PathBuf,
    /// Show only the variables whose name equals one of these patterns or matches it as a
    /// glob (`*`, `?`, `[..]`) [default: all variables].
    #[arg(value_name = "PATTERN")]
    pub patterns: Vec<String>,
    /// Show only the variables of these causalities; comma separated or repeated. FMI 1.0
    /// variables are shown with FMI 2.0 causalities (an `internal` parameter is a `parameter`).
    #[arg(long, value_name = "CAUSALITY", value_delimiter = ',')]
    pub causality: Vec<CausalityFilter>,
    /// Print the information as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A causality on the command line (`--causality`), named as in FMI 2.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CausalityFilter {
    /// Independent parameters.
    Parameter,
    /// Parameters the FMU computes from other parameters.
    #[value(name = "calculatedParameter", alias = "calculated-parameter")]
    CalculatedParameter,
    /// Inputs.
    Input,
    /// Outputs.
    Output,
    /// Local variables.
    Local,
    /// The independent variable (time).
    Independent,
    /// FMI 3.0 structural parameters (array sizes).
    #[value(name = "structuralParameter", alias = "structural-parameter")]
    StructuralParameter,
}

impl CausalityFilter {
    /// Whether a variable of causality `causality` passes this filter.
    fn matches(self, causality: Causality) -> bool {
        causality
            == match self {
                CausalityFilter::Parameter => Causality::Parameter,
                CausalityFilter::CalculatedParameter => Causality::CalculatedParameter,
                CausalityFilter::Input => Causality::Input,
                CausalityFilter::Output => Causality::Output,
                CausalityFilter::Local => Causality::Local,
                CausalityFilter::Independent => Causality::Independent,
                CausalityFilter::StructuralParameter => Causality::StructuralParameter,
            }
    }
}

/// Runs `mastersim info`: prints what `args.fmu` holds, as text or (`--json`) as JSON.
///
/// # Errors
/// The path is a directory or a `.msim` project; the FMU cannot be read (missing file, not
/// a zip archive, no `modelDescription.xml`, malformed or invalid XML: the errors of
/// [`fmi::archive::describe`], which name the file); a pattern is not a valid glob and no
/// variable has it as its name.
pub fn run(args: &InfoArgs) -> anyhow::Result<()> {
    let path = &args.fmu;
    if path.is_dir() {
        let hint = if path.join("modelDescription.xml").is_file() {
            " (an extracted FMU?)"
        } else {
            ""
        };
        bail!(
            "'{}' is a directory{hint}; mastersim info reads an FMU archive (.fmu)",
            path.display()
        );
    }
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("msim"))
    {
        bail!(
            "'{}' is a MasterSim project, not an FMU; mastersim info reads one FMU archive \
             (.fmu), such as one of those the project names",
            path.display()
        );
    }
    // `describe` reads at most `fmi::model_description::MAX_DESCRIPTION_SIZE` (256 MiB) of
    // the description, far above real ones, and refuses a larger one before reading it. It
    // reads FMUs of every interface: those mastersim cannot run are described too, with what
    // a run would refuse.
    let contents = archive::describe(path, &ExtractOptions::default())?;
    let selected = select(&contents.description.variables, args)?;
    let info = Info::new(path, &contents, &selected);
    if args.json {
        say!("{}", serde_json::to_string_pretty(&info)?);
    } else {
        say!("{}", info.text(&filter_text(args)).trim_end());
    }
    Ok(())
}

/// The variables `args` selects, in file order: those of a `--causality` given (any, when
/// none is given) whose name equals or glob-matches a pattern (any, when none is given).
///
/// # Errors
/// A pattern is not a valid glob and no variable has it as its name.
fn select<'a>(
    variables: &'a [ScalarVariable],
    args: &InfoArgs,
) -> anyhow::Result<Vec<&'a ScalarVariable>> {
    let mut globs = Vec::with_capacity(args.patterns.len());
    for pattern in &args.patterns {
        match glob::Pattern::new(pattern) {
            Ok(glob) => globs.push(Some(glob)),
            Err(_) if variables.iter().any(|v| v.name == *pattern) => globs.push(None),
            Err(error) => bail!("invalid variable pattern '{pattern}': {error}"),
        }
    }
    let named = |v: &ScalarVariable| {
        args.patterns.is_empty()
            || args.patterns.iter().zip(&globs).any(|(pattern, glob)| {
                v.name == *pattern || glob.as_ref().is_some_and(|g| g.matches(&v.name))
            })
    };
    let of_causality = |v: &ScalarVariable| {
        args.causality.is_empty() || args.causality.iter().any(|c| c.matches(v.causality))
    };
    Ok(variables
        .iter()
        .filter(|v| of_causality(v) && named(v))
        .collect())
}

/// The filters of `args` in words, for the heading of the variable table (empty without
/// filters).
fn filter_text(args: &InfoArgs) -> String {
    let mut parts = Vec::new();
    if !args.causality.is_empty() {
        let names: Vec<&str> = args
            .causality
            .iter()
            .map(|c| causality_filter_name(*c))
            .collect();
        parts.push(format!("causality {}", names.join(", ")));
    }
    if !args.patterns.is_empty() {
        parts.push(format!("name {}", args.patterns.join(", ")));
    }
    parts.join("; ")
}

/// The command-line name of a causality filter.
fn causality_filter_name(filter: CausalityFilter) -> &'static str {
    match filter {
        CausalityFilter::Parameter => "parameter",
        CausalityFilter::CalculatedParameter => "calculatedParameter",
        CausalityFilter::Input => "input",
        CausalityFilter::Output => "output",
        CausalityFilter::Local => "local",
        CausalityFilter::Independent => "independent",
        CausalityFilter::StructuralParameter => "structuralParameter",
    }
}
