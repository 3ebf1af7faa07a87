//! Loading apart from running: what a run reads before anything runs. The project (a `.msim`
//! file, the one-slave project of an FMU, an SSP system, or a [`Project`] built in code) with
//! the overrides applied, its FMUs imported, its settings completed and validated into a plan:
//! a [`Loaded`] project ([`load`], [`load_project`]).
//! [`Session::from_loaded`](crate::Session::from_loaded) continues from there; [`check`] stops
//! there, to find a bad override before a sweep starts any case.
//!
//! Spec: MasterSim reference §3 (project), §6 (import), §7 (connections).

use std::path::{Path, PathBuf};

use master::experiment::Fallback;
use master::project::{Project, ResultFormat};
use master::{ImportOptions, PlanOptions, SimulationPlan};

use crate::checkpoint::{Checkpoint, FileHash, RunSettings};
use crate::options::Options;
use crate::results::ResultOptions;
use crate::{Error, InputKind, Result, WorkingDirLock};

/// A project loaded for a run and not yet instantiated: read (or built in code), overrides
/// and input table applied, FMUs extracted into the working directory, settings completed from
/// the FMUs' default experiments, and validated into a plan. The working directory is locked
/// from [`load`] on, for the life of the [`Session`](crate::Session) made of it
/// ([`Session::from_loaded`](crate::Session::from_loaded)).
pub struct Loaded {
    /// The file the run reads (for a project built in code: [`Project::path`]).
    pub(crate) input: PathBuf,
    pub(crate) working_dir: PathBuf,
    pub(crate) lock: WorkingDirLock,
    /// The project file's hash (with the options that change its meaning), or that of the
    /// text of a project built in code.
    pub(crate) project_hash: FileHash,
    pub(crate) prepared: Prepared,
}

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded")
            .field("input", &self.input)
            .field("working_dir", &self.working_dir)
            .finish_non_exhaustive()
    }
}

impl Loaded {
    /// The project as it will run: the file's lines (or the calls that built it), then the
    /// overrides, then the settings completed from the FMUs' default experiments.
    pub fn project(&self) -> &Project {
        &self.prepared.project
    }

    /// The validated plan: settings (times in seconds), slaves, connections.
    pub fn plan(&self) -> &SimulationPlan {
        &self.prepared.plan
    }

    /// The working directory (extracted FMUs, `log/`, later `results/`).
    pub fn working_dir(&self) -> &Path {
        &self.working_dir
    }
}

/// Loads `path` for a run under `options`: a `.msim` project, an SSP system (`.ssp`, `.ssd`
/// or its folder) or a bare FMU (with [`Options::input`]), with [`Options::overrides`]
/// applied, its FMUs extracted into the working directory (which is locked and gets `log/`),
/// its settings completed from the FMUs' default experiments, validated into a plan. Nothing
/// is instantiated.
///
/// # Errors
/// [`Error::InvalidOption`] for an option out of range, or an input table for a project
/// file; [`Error::WorkingDirectoryLocked`]; [`Error::Io`]; [`Error::ProjectNotFound`],
/// [`Error::ProjectIsDirectory`] and the other input errors; [`Error::Ssp`];
/// [`Error::Master`] for a project, override, FMU, table or plan error (each names the file and
/// line or the FMU).
///
/// Spec: MasterSim reference §3 (project), §5 (working directory), §6 (import), §7
/// (connections); SSP 1.0 §8; FMPy's `read_model_description` + `simulate_fmu` split.
pub fn load(path: impl AsRef<Path>, options: &Options) -> Result<Loaded> {
    options.validate()?;
    load_checked(path.as_ref(), options, None)
}

/// [`load`] without validating the options; with a checkpoint, its result settings are checked
/// before the FMUs are imported.
pub(crate) fn load_checked(
    project: &Path,
    options: &Options,
    checkpoint: Option<(&Path, &Checkpoint)>,
) -> Result<Loaded> {
    let input = crate::run_input(project);
    // Before anything is created: a path that is no input leaves nothing behind.
    let kind = InputKind::check(&input)?;
    let _first_helper = start_first_helper(options);
    let wd = options.working_dir_for(&input);
    let lock = claim(&wd)?;
    match kind {
        InputKind::Fmu => log::info!("Running FMU '{}' on its own", input.display()),
        InputKind::Ssp => log::info!("Reading SSP system '{}'", input.display()),
        InputKind::Project => log::info!("Reading project '{}'", input.display()),
    }
    // Hashed as read now: a checkpoint names this content even if the file changes later.
    let project_hash = FileHash::of(&input)?.with_options(&option_texts(options));
    let prepared = prepare(Source::File(&input, kind), options, &wd, checkpoint)?;
    Ok(Loaded {
        input,
        working_dir: wd,
        lock,
        project_hash,
        prepared,
    })
}

/// Loads the project `project` built in code ([`Project::in_code`]) for a run under
/// `options`, as [`load`] loads a `.msim` file: overrides applied, FMUs extracted into the
/// working directory (from [`Project::path`], see [`Options::working_dir_for`]), settings
/// completed, validated into a plan.
///
/// # Errors
/// As [`load`]; an input table ([`Options::input`]) is refused, as for a project file.
pub fn load_project(project: Project, options: &Options) -> Result<Loaded> {
    options.validate()?;
    let _first_helper = start_first_helper(options);
    let input = project.path.clone();
    let wd = options.working_dir_for(&input);
    let lock = claim(&wd)?;
    log::info!("Loading project '{}' built in code", input.display());
    let dir = input.parent().map(Path::to_path_buf).unwrap_or_default();
    let project_hash =
        FileHash::of_text(&input, &project.to_text(&dir, "")).with_options(&option_texts(options));
    let prepared = prepare(Source::Built(Box::new(project)), options, &wd, None)?;
    Ok(Loaded {
        input,
        working_dir: wd,
        lock,
        project_hash,
        prepared,
    })
}

/// Starts the first helper process of a run that `options` isolate (`--isolate`, or a
/// `--platform` other than this machine's), before the working directory, the project and the
/// FMUs are read: its process start (about a millisecond) then overlaps that work. [`load`]
/// does it itself; a program may call it earlier still, holding the guard until the run is
/// loaded. The import starts the helpers of further isolated FMUs
/// ([`master::placement::prestart_helpers`]); a helper not taken ends with its guard.
pub fn start_first_helper(options: &Options) -> Option<master::isolation::Prestarted> {
    let platform = options.isolated_platform()?;
    Some(master::isolation::prestart(platform, 1))
}

/// Locks the working directory `wd` and creates `wd/log`.
///
/// # Errors
/// [`Error::WorkingDirectoryLocked`]; [`Error::Io`] when the directory cannot be created.
fn claim(wd: &Path) -> Result<WorkingDirLock> {
    // Before anything is written: another run may own the directory.
    let lock = WorkingDirLock::acquire(wd)?;
    let log_dir = wd.join("log");
    std::fs::create_dir_all(&log_dir).map_err(|source| Error::Io {
        action: "create the working directory",
        path: log_dir.clone(),
        source,
    })?;
    Ok(lock)
}

/// The options that change what the project file means (`--set`, `--input`), as text.
fn option_texts(options: &Options) -> Vec<String> {
    options
        .project_overrides()
        .into_iter()
        .chain(
            options
                .input
                .iter()
                .map(|p| format!("--input {}", p.display())),
        )
        .collect()
}

/// What a run reads: a file of a kind checked by [`InputKind::check`], or a project built in
/// code.
pub(crate) enum Source<'a> {
    /// A `.msim` file, an SSP system or an FMU.
    File(&'a Path, InputKind),
    /// A project built in code.
    Built(Box<Project>),
}

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
    source: Source<'_>,
    options: &Options,
    wd: &Path,
    checkpoint: Option<(&Path, &Checkpoint)>,
) -> Result<Prepared> {
    let (kind, (mut project, not_in_msim, input_hashes)) = match source {
        Source::File(path, kind) => (kind, read(path, kind, options, wd)?),
        Source::Built(project) => (InputKind::Project, (*project, Vec::new(), Vec::new())),
    };
    let fmu_run = kind == InputKind::Fmu;
    if let (Some(input), false) = (&options.input, fmu_run) {
        return Err(Error::InvalidOption {
            option: "input",
            value: input.display().to_string(),
            expected: "a run of one FMU (an input table feeds the inputs of that FMU)",
        });
    }
    if let (Some(option), false) = (options.single_fmu_option(), fmu_run) {
        let (value, expected) = match option {
            "platform" => (
                options
                    .platform
                    .map(|p| p.fmi2_folder())
                    .unwrap_or_default()
                    .to_owned(),
                "a run of one FMU (in a project, an 'isolate <slave> platform=…' line chooses per slave)",
            ),
            _ => (
                options.fmi_type_override("<slave>").unwrap_or_default(),
                "a run of one FMU (in a project, an fmiType line chooses per slave)",
            ),
        };
        return Err(Error::InvalidOption {
            option,
            value,
            expected,
        });
    }
    let single_slave = fmu_run.then(|| project.simulators[0].name.clone());
    options
        .apply_to(&mut project, single_slave.as_deref())
        .map_err(master::Error::from)?;
    if let Some(arithmetic) = options.time_arithmetic {
        project.time_arithmetic = arithmetic;
    }
    let (results, settings) = result_settings(&project, options);
    if let Some((path, checkpoint)) = checkpoint {
        checkpoint.settings.check(path, &settings)?;
    }
    let plan = import_and_plan(&mut project, kind, options, wd, &results)?;
    Ok(Prepared {
        project,
        plan,
        results,
        settings,
        not_in_msim,
        input_hashes,
    })
}

/// The project, what of it a `.msim` file cannot state, and the hashes of its input files
/// other than itself and the FMUs, read from `project_path` of `kind`.
///
/// # Errors
/// [`Error::Ssp`]; [`Error::Master`] for a project file error.
fn read(
    project_path: &Path,
    kind: InputKind,
    options: &Options,
    wd: &Path,
) -> Result<(Project, Vec<String>, Vec<FileHash>)> {
    let mut not_in_msim = Vec::new();
    let mut input_hashes = Vec::new();
    let project = if kind == InputKind::Fmu {
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
    Ok((project, not_in_msim, input_hashes))
}

/// How the results of `project` are written under `options`, and the settings a checkpoint
/// of the run records.
fn result_settings(project: &Project, options: &Options) -> (ResultOptions, RunSettings) {
    let formats = options
        .result_formats
        .clone()
        .unwrap_or_else(|| project.result_formats.clone());
    let results = ResultOptions {
        threshold: options.output_threshold.or(project.output_threshold),
        step_statistics: options.step_statistics,
        formats,
        // The session's own count: a `Loaded` (not `Clone`) makes one session.
        csv_on_disk: std::sync::Arc::default(),
    };
    let settings = RunSettings::new(
        &results.formats,
        results.threshold,
        &project.output_only,
        project.time_arithmetic,
    );
    (results, settings)
}

/// Imports the FMUs of `project` (of `kind`) into `wd/fmus`, connects the input table,
/// completes the settings from the FMUs' default experiments and validates the plan.
///
/// # Errors
/// [`Error::Master`] for an FMU, table or plan error.
fn import_and_plan(
    project: &mut Project,
    kind: InputKind,
    options: &Options,
    wd: &Path,
    results: &ResultOptions,
) -> Result<SimulationPlan> {
    let fmu_run = kind == InputKind::Fmu;
    log::info!("Importing FMUs");
    let import = ImportOptions {
        skip_unzip: options.skip_unzip,
        extract: fmi::archive::ExtractOptions {
            max_total_size: options.max_fmu_size,
        },
        isolate_all: options.isolate,
        call_timeout: options.step_timeout.map(|t| t.limit),
    };
    let fmus = master::import_fmus(project, wd, &import)?;
    if let Some(input) = &options.input {
        master::single_fmu::connect_input_table(project, input, &fmus)?;
    }
    let fallback = if fmu_run {
        Fallback::SingleFmu
    } else if kind == InputKind::Ssp {
        Fallback::System
    } else {
        Fallback::MasterSim
    };
    master::experiment::complete_settings(project, &fmus, fallback);
    let project = &*project;
    Ok(SimulationPlan::build(
        project,
        &PlanOptions {
            working_dir: wd.to_path_buf(),
            collect_parameters: results.formats.iter().any(|f| *f != ResultFormat::Csv),
        },
        |def| master::resolve_slave(project, def, &fmus),
    )?)
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
    prepare(Source::File(project_path, kind), options, wd.path(), None).map(drop)
}

fn is_fmu(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("fmu"))
}
