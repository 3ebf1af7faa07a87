//! What a run reads before anything runs: the project (or the one-slave project of an FMU, or
//! an SSP system) with the overrides applied, its FMUs imported, its settings completed and
//! validated into a plan. [`Session::open`](crate::Session::open) continues from there; [`check`]
//! stops there, to find a bad override before a sweep starts any case.
//!
//! Spec: MasterSim reference §3 (project), §6 (import), §7 (connections).

use std::path::Path;

use master::experiment::Fallback;
use master::project::{Project, ResultFormat};
use master::{ImportOptions, PlanOptions, SimulationPlan};

use crate::checkpoint::{Checkpoint, FileHash, RunSettings};
use crate::options::Options;
use crate::results::ResultOptions;
use crate::{Error, InputKind, Result};

/// The project of a run, ready to be instantiated.
pub(crate) struct Prepared {
    /// The project as run: overrides applied, settings completed from the FMUs.
    pub(crate) project: Project,
    /// The validated plan.
    pub(crate) plan: SimulationPlan,
    /// How results are written.
    pub(crate) results: ResultOptions,
    /// The settings a checkpoint of the run records.
    pub(crate) settings: RunSettings,
    /// What an SSP system holds that a `.msim` project cannot say.
    pub(crate) not_in_msim: Vec<String>,
    /// The hashes of the input files other than the project file and the FMUs.
    pub(crate) input_hashes: Vec<FileHash>,
}

/// Reads `project_path` (of `kind`, checked by [`InputKind::check`]), applies
/// [`Options::apply_to`] (the typed times, the overrides, the output selection; and [`Options::input`]), imports its FMUs into `wd/fmus`, completes
/// the settings from the FMUs' default experiments and validates the plan. Creates
/// `wd/fmus` (and `wd/ssp` for an SSP archive); instantiates nothing. With a checkpoint to
/// resume from, its result settings are checked before the FMUs are imported.
///
/// # Errors
/// [`Error::InvalidOption`] for an input table with a project file; [`Error::Ssp`]; the
/// errors of [`crate::checkpoint::RunSettings::check`];
/// [`Error::Master`] for a project, override, FMU, table or plan error (each names the file
/// and line or the FMU, and a misspelt variable gets a did-you-mean hint).
pub(crate) fn prepare(
    project_path: &Path,
    kind: InputKind,
    options: &Options,
    wd: &Path,
    checkpoint: Option<(&Path, &Checkpoint)>,
) -> Result<Prepared> {
    let mut not_in_msim = Vec::new();
    let mut input_hashes = Vec::new();
    let fmu_run = kind == InputKind::Fmu;
    let mut project = if fmu_run {
        Project::for_fmu(project_path)
    } else if kind == InputKind::Ssp {
        let system = ssp::load(
            project_path,
            &ssp::LoadOptions {
                parameter_set: options.parameter_set.clone(),
                extract_dir: wd.join("ssp"),
                allow_outside_references: options.allow_outside_references,
                extract: fmi::archive::ExtractOptions {
                    max_total_size: options.max_fmu_size,
                },
            },
        )?;
        not_in_msim = system.not_in_msim;
        // Hashed as read now, like the project file; FMUs are hashed as slaves.
        input_hashes = system
            .files
            .iter()
            .skip(1)
            .filter(|f| !is_fmu(f))
            .map(|f| FileHash::of(f))
            .collect::<Result<_>>()?;
        system.project
    } else {
        Project::from_file(project_path).map_err(master::Error::from)?
    };
    if let (Some(input), false) = (&options.input, fmu_run) {
        return Err(Error::InvalidOption {
            option: "input",
            value: input.display().to_string(),
            expected: "a run of one FMU (an input table feeds the inputs of that FMU)",
        });
    }
    let single_slave = fmu_run.then(|| project.simulators[0].name.clone());
    options
        .apply_to(&mut project, single_slave.as_deref())
        .map_err(master::Error::from)?;
    if let Some(arithmetic) = options.time_arithmetic {
        project.time_arithmetic = arithmetic;
    }
    let formats = options
        .result_formats
        .clone()
        .unwrap_or_else(|| project.result_formats.clone());
    let results = ResultOptions {
        threshold: options.output_threshold.or(project.output_threshold),
        step_statistics: options.step_statistics,
        formats,
    };
    let settings = RunSettings::new(
        &results.formats,
        results.threshold,
        &project.output_only,
        project.time_arithmetic,
    );
    if let Some((path, checkpoint)) = checkpoint {
        checkpoint.settings.check(path, &settings)?;
    }
    log::info!("Importing FMUs");
    let import = ImportOptions {
        skip_unzip: options.skip_unzip,
        extract: fmi::archive::ExtractOptions {
            max_total_size: options.max_fmu_size,
        },
    };
    let fmus = master::import_fmus(&project, wd, &import)?;
    if let Some(input) = &options.input {
        master::single_fmu::connect_input_table(&mut project, input, &fmus)?;
    }
    let fallback = if fmu_run {
        Fallback::SingleFmu
    } else if kind == InputKind::Ssp {
        Fallback::System
    } else {
        Fallback::MasterSim
    };
    master::experiment::complete_settings(&mut project, &fmus, fallback);
    let plan = SimulationPlan::build(
        &project,
        &PlanOptions {
            working_dir: wd.to_path_buf(),
            collect_parameters: results.formats.iter().any(|f| *f != ResultFormat::Csv),
        },
        |def| master::resolve_slave(&project, def, &fmus),
    )?;
    Ok(Prepared {
        project,
        plan,
        results,
        settings,
        not_in_msim,
        input_hashes,
    })
}

/// Checks `project` under `options` without running it: reads it, applies the overrides,
/// reads its FMUs and validates the plan in a temporary working directory (removed after), so
/// that an override that names no variable, or a value a variable cannot take, is found
/// before any run starts (`mastersim sweep run` checks every override of a sweep with it).
/// Nothing is written beside `project`; no slave is instantiated.
///
/// # Errors
/// As [`Session::open`](crate::Session::open) before instantiation: [`Error::ProjectNotFound`],
/// [`Error::UnknownInput`] and the other input errors of [`InputKind::check`];
/// [`Error::Master`] for a project, override, FMU or plan error (an unknown variable with a
/// did-you-mean hint); [`Error::Io`] when the temporary directory cannot be made.
pub fn check(project: &Path, options: &Options) -> Result<()> {
    let project_path = &crate::run_input(project);
    let kind = InputKind::check(project_path)?;
    let wd = tempfile::Builder::new()
        .prefix("mastersim-check-")
        .tempdir()
        .map_err(|source| Error::Io {
            action: "create a temporary working directory",
            path: std::env::temp_dir(),
            source,
        })?;
    prepare(project_path, kind, options, wd.path(), None).map(drop)
}

fn is_fmu(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("fmu"))
}
