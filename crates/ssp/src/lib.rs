//! SSP 1.0 and 2.0 system structures read into mastersim projects.
//!
//! [`load`] reads a `.ssp` archive, a folder holding `SystemStructure.ssd`, or an `.ssd` file,
//! with the parameter values (`.ssv`), mappings (`.ssm`) and signal dictionaries (`.ssb`) it
//! refers to, and returns the [`master::project::Project`] that runs it: one slave per FMU
//! component (nested systems, also those a component refers to by file or by `id`, are
//! flattened through their connectors), one `graph` edge per connection path from an FMU
//! output to an FMU input (through system connectors and signal dictionary entries; unit
//! conversions and linear transformations folded into offset and scale, mapping
//! transformations into a [`master::project::ValueMap`]), one `parameter` line per bound
//! value (per element of an array) that wins by SSP's precedence, and the time settings of
//! `DefaultExperiment` and the OSP step-size annotations. The master then validates and runs
//! it exactly as a `.msim` project: there is no second master.
//!
//! SSP 2.0 keeps the namespaces of 1.0; a file says which release it follows in its
//! `version` attribute. What 2.0 adds (types for FMI 3.0 variables, array dimensions, more
//! connector kinds, same-document system references) is read in files of either release.
//! What is supported, refused and warned about is listed in `docs/ssp.md`.
//!
//! Spec: SSP 2.0 (Modelica Association, 2024): §4 common content, §5 SSD, §6 SSV, §7 SSM,
//! §8 SSB; SSP 1.0 (2019); the OSP annotations as read by libcosim.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod build;
mod common;
mod dictionary;
mod error;
mod scope;
mod ssd;
mod types;
mod values;
mod xml;

use std::path::{Path, PathBuf};

pub use error::{ErrorKind, Result, SspError};
use master::project::Project;

/// The file name of the system structure in an `.ssp` archive or SSP folder.
pub const SSD_NAME: &str = "SystemStructure.ssd";

/// Options of [`load`].
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--parameter-set NAME`: on every element that binds a parameter set of this name, only
    /// the bindings of that set apply (see `docs/ssp.md`, parameter sets). `None`: the first
    /// set of each element.
    pub parameter_set: Option<String>,
    /// Where an `.ssp` archive is extracted (created when missing). Unused for folders and
    /// `.ssd` files.
    pub extract_dir: PathBuf,
    /// Let `source` references (FMUs, nested `.ssd`, `.ssv`, `.ssm`) lead outside the archive
    /// or folder (`--allow-outside-references`). By default they must stay inside: inside
    /// the archive, the folder, or the folder of an `.ssd` given alone (see `docs/ssp.md`).
    pub allow_outside_references: bool,
    /// The limits on extracting an `.ssp` archive (mastersim's `--max-fmu-size`).
    pub extract: fmi::archive::ExtractOptions,
}

/// An SSP system read into a project.
#[derive(Debug)]
pub struct System {
    /// The project that runs it. [`Project::path`] is the `.ssd` file (inside
    /// [`LoadOptions::extract_dir`] for an archive), so messages name its lines.
    pub project: Project,
    /// What the project holds that a `.msim` file cannot state (for `mastersim convert`),
    /// each naming the SSD element and line; empty when it converts.
    pub not_in_msim: Vec<String>,
    /// Every file the system was read from, each once: the `.ssd` first, then the nested
    /// `.ssd`, `.ssv` and `.ssm` files and the FMUs it refers to (a checkpoint hashes them,
    /// so that a resume notices any of them changed).
    pub files: Vec<PathBuf>,
}

/// True when `path` is SSP input: an `.ssp` or `.ssd` file, or a folder holding
/// [`SSD_NAME`].
pub fn is_ssp(path: &Path) -> bool {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    matches!(extension.as_deref(), Some("ssp" | "ssd")) || path.join(SSD_NAME).is_file()
}

/// Reads the SSP system at `path` (an `.ssp` archive, a folder holding
/// `SystemStructure.ssd`, or an `.ssd` file) into a project.
///
/// An archive is extracted into [`LoadOptions::extract_dir`] with the same protection as an
/// FMU (no entry outside the directory, no links, a size limit). The FMUs of the components
/// are read (their model descriptions, without extracting them) to resolve parameter names,
/// types and units; they are extracted and loaded later by the master.
///
/// # Errors
/// An [`SspError`] naming the file, the line and the element: malformed XML, a reference to
/// nothing (element, connector, `.ssv`/`.ssm` file, unit, enumeration item), type or unit
/// dimension mismatches, a loop of connections through system connectors, and everything
/// mastersim does not support ([`ErrorKind::Unsupported`]). Names in parameter sets that
/// match no variable are warnings (`log`), as SSP allows.
///
/// Spec: SSP 2.0 §5.3 (systems, elements, connections), §5.2.3 (parameter bindings and their
/// precedence), §6, §7, §8; SSP 1.0 §5–§7.
pub fn load(path: &Path, options: &LoadOptions) -> Result<System> {
    let ssd_path = locate(path, options)?;
    let doc = xml::Doc::read(&ssd_path)?;
    let root = ssd_path.parent().unwrap_or(Path::new("."));
    let archive = path.is_file() && has_extension(path, "ssp");
    let scope = scope::Scope::new(
        root,
        archive.then_some(path),
        options.allow_outside_references,
    );
    let ssd = ssd::Ssd::read(&doc, scope)?;
    let mut system = build::build(&ssd, options)?;
    system.files = std::iter::once(ssd_path)
        .chain(ssd.scope.admitted())
        .collect();
    Ok(system)
}

/// Parses the text of an `.ssd` file as [`load`] does, without reading any FMU: the
/// well-formedness, structure and attribute checks of the SSD itself (the entry point of the
/// fuzz target `ssd`). Files it references (`.ssv`, `.ssm`, nested `.ssd`) are not read.
///
/// # Errors
/// As [`load`], for what the SSD alone shows; `path` names the file in messages.
///
/// Spec: SSP 2.0 §5, SSP 1.0 §5.
pub fn check_ssd(text: &str, path: &Path) -> Result<()> {
    let doc = xml::Doc::parse(text, path)?;
    let root = path.parent().unwrap_or(Path::new("."));
    ssd::Ssd::read(&doc, scope::Scope::new(root, None, false)).map(|_| ())
}

/// Whether the file name of `path` ends in `.<extension>` (any case).
fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case(extension))
}

/// The `.ssd` file of `path`, extracting an archive first.
fn locate(path: &Path, options: &LoadOptions) -> Result<PathBuf> {
    if path.is_dir() {
        let ssd = path.join(SSD_NAME);
        if !ssd.is_file() {
            return Err(SspError::file(
                ErrorKind::Io,
                path,
                format!("the folder holds no {SSD_NAME}"),
            ));
        }
        return Ok(std::path::absolute(&ssd).unwrap_or(ssd));
    }
    if !path.is_file() {
        let problem = output::input::why_not_a_file(path);
        return Err(SspError::file(
            ErrorKind::Io,
            path,
            format!("the file {problem}"),
        ));
    }
    if !has_extension(path, "ssp") {
        return Ok(std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
    }
    fmi::archive::extract(path, &options.extract_dir, &options.extract).map_err(|e| {
        let kind = match e {
            fmi::Error::Io { .. } => ErrorKind::Io,
            _ => ErrorKind::Invalid,
        };
        // The archive errors name the file first; the SspError names it already.
        let text = e.to_string().replace("FMU archive", "SSP archive");
        let prefix = format!("{}: ", path.display());
        SspError::file(kind, path, text.strip_prefix(&prefix).unwrap_or(&text))
    })?;
    let ssd = options.extract_dir.join(SSD_NAME);
    if !ssd.is_file() {
        return Err(SspError::file(
            ErrorKind::Invalid,
            path,
            format!("the archive holds no {SSD_NAME} at its top level"),
        ));
    }
    Ok(std::path::absolute(&ssd).unwrap_or(ssd))
}

#[cfg(test)]
mod tests;
