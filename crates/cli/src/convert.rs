//! `mastersim convert <system> <project.msim>`: an SSP system written as the equivalent
//! MasterSim project, so that it can be edited in that format.

use std::path::PathBuf;

use anyhow::Context as _;
use mastersim::{Options, Session};

/// Arguments of `mastersim convert`.
#[derive(Debug, clap::Args)]
pub struct ConvertArgs {
    /// The SSP system: an `.ssp` archive, an `.ssd` file or a folder with
    /// SystemStructure.ssd.
    system: PathBuf,
    /// The `.msim` file to write. An archive's FMUs are extracted into its working directory
    /// (the path without extension), and the project refers to them there.
    project: PathBuf,
    /// Where an element binds several parameter sets, use the one of this name (default: the
    /// first of each element).
    #[arg(long, value_name = "NAME")]
    parameter_set: Option<String>,
    /// Let references (FMUs, nested systems, .ssv and .ssm files) lead outside the archive or
    /// folder of the system.
    #[arg(long)]
    allow_outside_references: bool,
    /// Override a setting or parameter, as for a run (`tEnd=10 s`, `<slave>.<variable>=…`).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
}

/// Reads the system as a run would (FMUs imported and checked, settings completed from
/// `DefaultExperiment` and the FMUs) and writes the project as run: connections with the
/// `graph` offset and scale of their linear transformations and unit conversions, bindings as
/// `parameter` lines, step-size hints as `communicationInterval` lines. Nothing is simulated.
///
/// # Errors
/// Any error of reading the system (exit 2), and a system using what a `.msim` file cannot
/// state (mapping transformations), which writes nothing and names each use.
pub fn run(args: &ConvertArgs) -> anyhow::Result<()> {
    if !mastersim::is_ssp(&args.system) {
        anyhow::bail!(
            "'{}' is not an SSP system; expected an .ssp archive, an .ssd file or a folder \
             with SystemStructure.ssd",
            args.system.display()
        );
    }
    let options = Options {
        working_dir: Some(args.project.with_extension("")),
        parameter_set: args.parameter_set.clone(),
        allow_outside_references: args.allow_outside_references,
        overrides: args.set.clone(),
        console_progress: false,
        ..Options::default()
    };
    let session = Session::open(&args.system, &options)
        .with_context(|| format!("cannot read '{}'", args.system.display()))?;
    session.write_project(&args.project)?;
    let project = session.project();
    let counts = (
        project.simulators.len(),
        project.graph.len(),
        project.parameters.len(),
    );
    session.close()?;
    println!(
        "Wrote '{}': {} slaves, {} connections, {} parameters",
        args.project.display(),
        counts.0,
        counts.1,
        counts.2
    );
    Ok(())
}
