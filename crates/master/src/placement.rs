//! Where a slave's FMU code runs: in the master's process, or in a helper process of its own
//! ("isolated"), and which of the binaries its FMU ships.
//!
//! - An `isolate` line (or `--isolate` for every FMU slave) isolates a slave. Its `platform=`
//!   chooses the binary, which the FMU must ship and a helper must be able to run here; without
//!   it the binary for this machine runs in a helper, or, when the FMU has none, the first
//!   binary a helper can run.
//! - A slave that is not asked to be isolated runs in-process when its FMU has a binary for this
//!   machine. Otherwise it is isolated automatically, with the first binary a helper can run
//!   (in the order linux64, linux32, win64, win32), and one warning says so.
//! - An FMU whose binaries none can run here is refused: the message lists the platforms it
//!   ships and, for each, what to install.
//! - Isolation covers FMI 2.0 and 3.0 co-simulation in this version: a Model Exchange or FMI
//!   1.0 slave with an `isolate` line (or without a binary for this machine) is refused with a
//!   message that says so; `--isolate` leaves such a slave in-process, with one warning.
//!
//! Spec: `docs/isolation.md`; FMI 2.0.2 §2.3 and FMI 3.0 §2.5.1 (platform folders under
//! `binaries/`).

use std::collections::BTreeMap;
use std::path::Path;

use fmi::ShippedPlatform;
use fmi::isolation::{self, Platform};

use crate::project::{Project, SimulatorDef};
use crate::{Error, Result};

/// How the FMU of a slave is loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// In the master's process, with the binary for this machine.
    InProcess,
    /// In a helper process of its own, with the binary for the platform.
    Isolated(Platform),
}

impl Placement {
    /// The platform of an isolated slave, `None` in-process.
    pub fn isolated(self) -> Option<Platform> {
        match self {
            Placement::InProcess => None,
            Placement::Isolated(platform) => Some(platform),
        }
    }
}

/// What is asked of one slave: isolation from its `isolate` line or `--isolate`, and the line
/// that asked (for messages).
#[derive(Debug, Clone, Copy)]
pub struct Request {
    /// The slave is to be isolated.
    pub isolate: bool,
    /// The platform its line names.
    pub platform: Option<Platform>,
    /// The `isolate` line, if one asked.
    pub line: Option<usize>,
}

impl Request {
    /// What `project` (and `isolate_all`, the run's `--isolate`) asks of slave `slave`.
    pub fn of(project: &Project, slave: &str, isolate_all: bool) -> Request {
        match project.isolated.iter().find(|d| d.slave == slave) {
            Some(def) => Request {
                isolate: true,
                platform: def.platform,
                line: Some(def.line),
            },
            None => Request {
                isolate: isolate_all,
                platform: None,
                line: None,
            },
        }
    }
}

/// The FMU as far as the choice needs it.
#[derive(Debug, Clone, Copy)]
pub struct Offer<'a> {
    /// The `.fmu` file.
    pub fmu: &'a Path,
    /// Its FMI version.
    pub version: fmi::FmiVersion,
    /// The slave runs it as Model Exchange.
    pub model_exchange: bool,
    /// The platforms it ships a library for, with whether a helper can run each here
    /// ([`fmi::shipped_platforms`]).
    pub shipped: &'a [ShippedPlatform],
}

/// Where slave `def` of `project` runs the FMU `offer`, as asked by `request`.
///
/// # Errors
/// [`Error::InvalidSetting`] naming the `isolate` line (or the `simulator` line): a platform
/// the FMU does not ship or no helper can run here (with what to install); an isolated Model
/// Exchange or FMI 1.0 slave; an FMU without a binary for this machine whose other binaries
/// cannot run here either.
pub fn choose(
    project: &Project,
    def: &SimulatorDef,
    request: Request,
    offer: Offer<'_>,
) -> Result<Placement> {
    let native = Platform::native().fmi2_folder();
    let (keyword, line) = match request.line {
        Some(line) => ("isolate", line),
        None => ("simulator", def.line),
    };
    let refusal = |reason: String| Error::InvalidSetting {
        at: project.location(Some(line)),
        keyword,
        reason: format!("slave '{}': {reason}", def.name),
    };
    let ships = |platform: Platform| offer.shipped.iter().find(|s| s.platform == platform);
    let has_native = ships(Platform::native()).is_some();
    if !request.isolate && has_native {
        return Ok(Placement::InProcess);
    }
    if !request.isolate && offer.shipped.is_empty() {
        // No binaries at all: loading says so, naming the library it looked for.
        return Ok(Placement::InProcess);
    }
    let shipped = names(offer.shipped);
    let fmu = offer.fmu.display();
    if offer.model_exchange || offer.version == fmi::FmiVersion::V1 {
        let what = if offer.model_exchange {
            "Model Exchange"
        } else {
            "FMI 1.0"
        };
        if request.line.is_none() && has_native {
            // `--isolate` asks for every slave: this one keeps to the process, said once.
            log::warn!(
                "{}: slave '{}' runs in-process despite --isolate: helper processes run FMI 2.0 \
                 and 3.0 co-simulation only, and it is {what}",
                project.location(Some(def.line)),
                def.name
            );
            return Ok(Placement::InProcess);
        }
        let why = if request.isolate {
            "asked to run in a helper process".to_owned()
        } else {
            format!("FMU '{fmu}' has no binary for {native} (it ships {shipped})")
        };
        return Err(refusal(format!(
            "{why}, but helper processes run FMI 2.0 and 3.0 co-simulation only; {what} FMUs \
             run in-process with a {native} binary"
        )));
    }
    let platform = match request.platform {
        Some(platform) => {
            let Some(binary) = ships(platform) else {
                return Err(refusal(format!(
                    "FMU '{fmu}' has no binary for {} (it ships {shipped})",
                    platform.fmi2_folder()
                )));
            };
            binary.availability.clone().map_err(refusal)?;
            platform
        }
        None if has_native => Platform::native(),
        None => pick(offer.shipped).map_err(|missing| {
            refusal(format!(
                "FMU '{fmu}' has no binary for {native}, and none of its binaries ({shipped}) \
                 can run here: {missing}"
            ))
        })?,
    };
    if !request.isolate {
        log::warn!(
            "{}: slave '{}': FMU '{fmu}' has no binary for {native}; its {} binary runs in a \
             helper process{}",
            project.location(Some(def.line)),
            def.name,
            platform.fmi2_folder(),
            if platform.is_windows() {
                " under Wine"
            } else {
                ""
            }
        );
    }
    Ok(Placement::Isolated(platform))
}

/// The first of `shipped` other than this machine's that a helper can run here; else what
/// each needs, in one sentence.
///
/// # Errors
/// Each platform with what it needs (from [`fmi::isolation::availability`]), `; `-separated.
fn pick(shipped: &[ShippedPlatform]) -> std::result::Result<Platform, String> {
    let others = shipped.iter().filter(|s| s.platform != Platform::native());
    let mut missing = Vec::new();
    for binary in others {
        match &binary.availability {
            Ok(()) => return Ok(binary.platform),
            Err(what) => missing.push(format!("{}: {what}", binary.platform.fmi2_folder())),
        }
    }
    if missing.is_empty() {
        return Err("it ships no binary of another platform".into());
    }
    Err(missing.join("; "))
}

/// `linux64, win64`, or `no binaries`.
fn names(platforms: &[ShippedPlatform]) -> String {
    if platforms.is_empty() {
        return "no binaries".to_owned();
    }
    platforms
        .iter()
        .map(|p| p.platform.fmi2_folder())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Starts ahead the helper processes that the FMUs of `project` will need to load when their
/// slaves are isolated as asked (an `isolate` line, or `isolate_all` for `--isolate`): one per
/// FMU file and platform, the platform an `isolate` line names, else this machine's
/// ([`isolation::prestart`]; helpers already started ahead count). `fmus` holds the FMU slaves grouped by file. Their helpers'
/// process start then overlaps the extraction and reading of the FMUs. A helper left untaken
/// (its slave runs in-process after all: Model Exchange, FMI 1.0; or on another of the FMU's
/// platforms) is reaped when the guards are dropped.
pub fn prestart_helpers(
    project: &Project,
    fmus: &BTreeMap<&Path, Vec<&SimulatorDef>>,
    isolate_all: bool,
) -> Vec<isolation::Prestarted> {
    let mut counts: BTreeMap<Platform, usize> = BTreeMap::new();
    for defs in fmus.values() {
        let mut platforms: Vec<Platform> = defs
            .iter()
            .map(|def| Request::of(project, &def.name, isolate_all))
            .filter(|request| request.isolate)
            .map(|request| request.platform.unwrap_or_else(Platform::native))
            .collect();
        platforms.sort();
        platforms.dedup();
        for platform in platforms {
            *counts.entry(platform).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .map(|(platform, count)| isolation::prestart(platform, count))
        .collect()
}
