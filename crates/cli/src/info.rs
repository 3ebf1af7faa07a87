//! `mastersim info`: what an FMU holds, as text or JSON. The description itself, and which
//! variables the patterns and `--causality` select, are the library's
//! ([`mastersim::describe`]); this module reads the arguments and the archive.

use std::path::PathBuf;

use clap::ValueEnum;
use fmi::Causality;
use mastersim::describe::{self, Info};

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
    /// The FMI causality this filter selects.
    fn causality(self) -> Causality {
        match self {
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
/// The errors of [`describe::read`] and [`describe::select`].
pub fn run(args: &InfoArgs) -> anyhow::Result<()> {
    let path = &args.fmu;
    let contents = describe::read(path)?;
    let causalities: Vec<Causality> = args.causality.iter().map(|c| c.causality()).collect();
    let selected = describe::select(
        &contents.description.variables,
        &args.patterns,
        &causalities,
    )?;
    let info = Info::new(path, &contents, &selected);
    if args.json {
        say!("{}", serde_json::to_string_pretty(&info)?);
    } else {
        let filters = describe::filter_text(&args.patterns, &causalities);
        say!("{}", info.text(&filters).trim_end());
    }
    Ok(())
}
