//! Turning `simulator` lines into slaves: importing FMU archives into the working directory,
//! loading tables, and instantiating.
//!
//! Spec: MasterSim reference §5 (FMU extraction directories), §6.1 (import order), §6.5
//! (instantiation).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use fmi::archive::ExtractOptions;
use fmi::{Fmi3InstantiateOptions, Fmu, InstantiateOptions};

use crate::any_slave::AnySlave;
use crate::error::Location;
use crate::file_reader::FileReaderSlave;
use crate::fmi3_slave::Fmi3Slave;
use crate::fmu_slave::FmuSlave;
use crate::model_exchange;
use crate::placement::{self, Offer, Placement};
use crate::plan::{SimulationPlan, SlaveKind};
use crate::project::{FmiType, Project, SimulatorDef};
use crate::table::Table;
use crate::{Error, Result};

/// How a `simulator` path is handled, by its extension (case-insensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlaveFile {
    Fmu,
    Table,
    Unknown,
}

fn slave_file(path: &Path) -> SlaveFile {
    match path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .as_deref()
    {
        Some("fmu") => SlaveFile::Fmu,
        Some("csv" | "tsv") => SlaveFile::Table,
        _ => SlaveFile::Unknown,
    }
}

/// Options of [`import_fmus`].
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Do not extract; expect `<working_dir>/fmus/<name>` to hold the extracted FMU already.
    pub skip_unzip: bool,
    /// Limits applied while extracting.
    pub extract: ExtractOptions,
    /// Run every FMU slave in a helper process of its own (`--isolate`), as if each had an
    /// `isolate` line (a slave's own line keeps its platform).
    pub isolate_all: bool,
    /// The longest one call into an isolated slave may take (`--step-timeout`): a call that
    /// takes longer ends its helper process, and the call fails (default: no limit).
    pub call_timeout: Option<Duration>,
}

/// The FMUs of a project, loaded, keyed by the absolute path of their `.fmu` file: each once
/// per interface its slaves run (co-simulation, Model Exchange) and per placement (in-process,
/// isolated with one platform's binary); and where each slave runs.
#[derive(Debug, Default)]
pub struct ImportedFmus {
    fmus: BTreeMap<PathBuf, Vec<(Placement, Arc<Fmu>)>>,
    placements: BTreeMap<String, Placement>,
}

impl ImportedFmus {
    /// The loaded FMU of an `.fmu` path, if it was imported (loaded for the interface of its
    /// first slave).
    pub fn get(&self, path: &Path) -> Option<&Arc<Fmu>> {
        self.fmus
            .get(path)
            .and_then(|loaded| loaded.first())
            .map(|(_, fmu)| fmu)
    }

    /// The FMU of an `.fmu` path loaded for `interface` and `placement`, if it was imported so.
    pub fn get_as(
        &self,
        path: &Path,
        interface: fmi::Interface,
        placement: Placement,
    ) -> Option<&Arc<Fmu>> {
        self.fmus
            .get(path)?
            .iter()
            .find(|(p, fmu)| *p == placement && fmu.interface() == interface)
            .map(|(_, fmu)| fmu)
    }

    /// Where slave `slave` runs its FMU (in-process for a slave that is no FMU or unknown).
    pub fn placement(&self, slave: &str) -> Placement {
        self.placements
            .get(slave)
            .copied()
            .unwrap_or(Placement::InProcess)
    }

    /// Number of distinct FMU files.
    pub fn len(&self) -> usize {
        self.fmus.len()
    }

    /// True when the project uses no FMU.
    pub fn is_empty(&self) -> bool {
        self.fmus.is_empty()
    }
}

/// Extracts (unless skipped) and loads every distinct FMU of `project`, in lexicographic order
/// of their absolute paths, into `<working_dir>/fmus/<file stem>[_N]`.
///
/// # Errors
/// [`Error::SlaveFileNotFound`] for a missing `.fmu` file, [`Error::Io`] when the `fmus`
/// directory cannot be created, [`Error::Import`] for archive, model-description or library
/// errors.
pub fn import_fmus(
    project: &Project,
    working_dir: &Path,
    options: &ImportOptions,
) -> Result<ImportedFmus> {
    let base = working_dir.join("fmus");
    std::fs::create_dir_all(&base).map_err(|source| Error::Io {
        path: base.clone(),
        source,
    })?;
    let mut files: BTreeMap<&Path, Vec<&SimulatorDef>> = BTreeMap::new();
    for def in project
        .simulators
        .iter()
        .filter(|d| slave_file(&d.path) == SlaveFile::Fmu)
    {
        files.entry(&def.path).or_default().push(def);
    }
    // The helpers of isolated slaves start now, while their FMUs are extracted and read.
    let _prestarted = placement::prestart_helpers(project, &files, options.isolate_all);
    let mut used_dirs: Vec<String> = Vec::new();
    let mut imported = ImportedFmus::default();
    for (path, defs) in files {
        let def = defs[0];
        if !path.is_file() {
            return Err(Error::SlaveFileNotFound {
                at: project.location(Some(def.line)),
                slave: def.name.clone(),
                path: path.to_path_buf(),
                problem: file_problem(path),
            });
        }
        // One component inside `fmus/`, whatever the file is called (`..fmu` has the stem `.`).
        let stem = path
            .file_stem()
            .map(|s| crate::path_name::component(&s.to_string_lossy()))
            .unwrap_or_else(|| "fmu".into());
        let mut dir_name = stem.clone();
        let mut n = 2;
        while used_dirs.contains(&dir_name) {
            dir_name = format!("{stem}_{n}");
            n += 1;
        }
        used_dirs.push(dir_name.clone());
        let dir = base.join(&dir_name);
        log::info!("{}", path.file_name().unwrap_or_default().to_string_lossy());
        log::debug!("{}", path.display());
        let import_error = |source| Error::Import {
            fmu: path.to_path_buf(),
            source: Box::new(source),
        };
        if !options.skip_unzip {
            // Reuses an unchanged extraction, or replaces a stale one (it logs which).
            fmi::archive::extract(path, &dir, &options.extract).map_err(import_error)?;
        }
        // Clocks are refused before the library is loaded (FMI 3.0 only has them); a missing
        // description is left to `Fmu::load`, which says so.
        let md = dir.join("modelDescription.xml");
        let description = if md.is_file() {
            Some(fmi::ModelDescription::from_file_any_interface(&md).map_err(import_error)?)
        } else {
            None
        };
        if let Some(description) = &description
            && let Some(clock) = description.clocks.first()
        {
            return Err(Error::ClockFmu {
                fmu: path.to_path_buf(),
                clock: clock.name.clone(),
                causality: clock.causality,
                count: description.clocks.len(),
            });
        }
        // Read once: its warnings (e.g. repeated variable names) are logged once.
        let Some(description) = description else {
            let fmu = Fmu::load(&dir).map_err(import_error)?;
            imported
                .fmus
                .insert(path.to_path_buf(), vec![(Placement::InProcess, fmu)]);
            continue;
        };
        // The loads in the order first used, each with the slaves that use it.
        let mut loads: Vec<((fmi::Interface, Placement), Vec<&str>)> = Vec::new();
        for def in defs {
            let chosen =
                model_exchange::interface_of(project, &def.name, def.line, path, &description)?;
            let placement = place(project, def, options, path, &dir, &description, chosen)?;
            imported.placements.insert(def.name.clone(), placement);
            let load = (fmi::Interface::from(chosen), placement);
            match loads.iter_mut().find(|(l, _)| *l == load) {
                Some((_, slaves)) => slaves.push(&def.name),
                None => loads.push((load, vec![&def.name])),
            }
        }
        let mut loaded = Vec::new();
        for ((interface, placement), slaves) in loads {
            let fmu = match placement {
                Placement::InProcess => {
                    Fmu::load_described_as(&dir, description.clone(), interface)
                }
                Placement::Isolated(platform) => Fmu::load_described_isolated(
                    &dir,
                    description.clone(),
                    interface,
                    platform,
                    options.call_timeout,
                ),
            };
            let fmu = fmu.map_err(|source| Error::SlaveImport {
                slaves: slaves.join("', '"),
                interface,
                t: project.t_start.seconds,
                fmu: path.to_path_buf(),
                source: Box::new(source),
            })?;
            loaded.push((placement, fmu));
        }
        imported.fmus.insert(path.to_path_buf(), loaded);
    }
    Ok(imported)
}

/// Where slave `def` runs its FMU `fmu` (extracted into `dir`, described by `description`) as
/// `interface` ([`placement::choose`]).
///
/// # Errors
/// The refusals of [`placement::choose`].
fn place(
    project: &Project,
    def: &SimulatorDef,
    options: &ImportOptions,
    fmu: &Path,
    dir: &Path,
    description: &fmi::ModelDescription,
    interface: FmiType,
) -> Result<Placement> {
    let model_exchange = interface == FmiType::ModelExchange;
    let shipped = fmi::shipped_platforms(dir, description);
    let offer = Offer {
        fmu,
        version: description.fmi_version,
        model_exchange,
        shipped: &shipped,
    };
    let request = placement::Request::of(project, &def.name, options.isolate_all);
    placement::choose(project, def, request, offer)
}

/// What backs the slave of `def`: an imported FMU or a table read from its file.
///
/// # Errors
/// [`Error::SlaveFileNotFound`], [`Error::UnsupportedSlaveFile`], or a [`Error::Table`] error.
pub fn resolve_slave(
    project: &Project,
    def: &SimulatorDef,
    fmus: &ImportedFmus,
) -> Result<SlaveKind> {
    let at = || project.location(Some(def.line));
    let not_found = || Error::SlaveFileNotFound {
        at: at(),
        slave: def.name.clone(),
        path: def.path.clone(),
        problem: file_problem(&def.path),
    };
    match slave_file(&def.path) {
        SlaveFile::Fmu => {
            let any = fmus.get(&def.path).ok_or_else(not_found)?;
            let interface = model_exchange::interface_of(
                project,
                &def.name,
                def.line,
                &def.path,
                any.description(),
            )?;
            let placement = fmus.placement(&def.name);
            let fmu = fmus
                .get_as(&def.path, interface.into(), placement)
                .ok_or_else(not_found)?
                .clone();
            let model_exchange = (interface == FmiType::ModelExchange)
                .then(|| model_exchange::options_of(project, &def.name, fmu.description()));
            Ok(SlaveKind::Fmu {
                fmu,
                path: def.path.clone(),
                model_exchange,
                placement,
            })
        }
        SlaveFile::Table => {
            if !def.path.is_file() {
                return Err(not_found());
            }
            Ok(SlaveKind::FileReader {
                table: Arc::new(Table::from_file(&def.path)?),
            })
        }
        SlaveFile::Unknown => Err(Error::UnsupportedSlaveFile {
            at: at(),
            slave: def.name.clone(),
            path: def.path.clone(),
        }),
    }
}

/// Instantiates every slave of `plan` in project order (on the calling thread).
///
/// `logging_on` is passed to the FMUs' instantiate call.
///
/// # Errors
/// [`Error::Fmi`] when an FMU cannot be instantiated (including a second instance of an FMU
/// that may be instantiated only once), [`Error::InvalidSetting`] for an
/// [`SlaveKind::External`] slave, which the caller must instantiate itself.
pub fn instantiate(plan: &SimulationPlan, logging_on: bool) -> Result<Vec<AnySlave>> {
    log::info!("Instantiating simulation slaves");
    let options = InstantiateOptions {
        visible: false,
        logging_on,
    };
    plan.slaves
        .iter()
        .map(|s| -> Result<AnySlave> {
            match &s.kind {
                SlaveKind::Fmu {
                    fmu,
                    model_exchange: Some(me),
                    ..
                } => model_exchange::instantiate(&s.name, fmu, *me, logging_on).map(Into::into),
                SlaveKind::Fmu { fmu, .. } => {
                    let fmi_error = |source| Error::Fmi {
                        slave: s.name.clone(),
                        source: Box::new(source),
                    };
                    if fmu.description().fmi_version == fmi::FmiVersion::V3 {
                        let event_mode = fmu.description().capabilities.has_event_mode;
                        let options = Fmi3InstantiateOptions {
                            visible: false,
                            logging_on,
                            event_mode_used: event_mode,
                            early_return_allowed: true,
                        };
                        let instance =
                            fmu.instantiate_fmi3(&s.name, &options).map_err(fmi_error)?;
                        // The FMU may have refused Event Mode and run without it.
                        let event_mode = instance.event_mode_used();
                        return Ok(Fmi3Slave::new(s.name.clone(), instance, event_mode).into());
                    }
                    let instance = fmu.instantiate(&s.name, &options).map_err(fmi_error)?;
                    Ok(FmuSlave::new(s.name.clone(), instance).into())
                }
                SlaveKind::FileReader { table } => {
                    Ok(FileReaderSlave::new(s.name.clone(), table.clone())
                        .with_held_columns(&s.held_columns)
                        .into())
                }
                SlaveKind::External { .. } => Err(Error::InvalidSetting {
                    at: Location {
                        file: plan.project_path.clone(),
                        line: None,
                    },
                    keyword: "simulator",
                    reason: format!(
                        "slave '{}' is external and must be instantiated by the caller",
                        s.name
                    ),
                }),
            }
        })
        .collect()
}

/// What is wrong with the slave file `path` that is not a regular file: "not found" (MasterSim's
/// words) when it does not exist, else what it is.
fn file_problem(path: &Path) -> String {
    match output::input::why_not_a_file(path).as_str() {
        "does not exist" => "not found".to_owned(),
        other => other.to_owned(),
    }
}
