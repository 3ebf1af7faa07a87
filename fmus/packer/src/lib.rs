#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod xml;

use std::ffi::OsString;
use std::fs;
use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

pub use xml::{FmiVersion, ModelDescription, ScalarVariable};

/// Errors of building, reading and packing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Cargo could not be started.
    #[error("cannot run {cargo:?}: {source}")]
    CargoSpawn {
        /// The cargo executable.
        cargo: OsString,
        /// The underlying error.
        source: std::io::Error,
    },
    /// `cargo build` failed.
    #[error("`cargo build --release` of the FMU crates failed ({status})")]
    CargoFailed {
        /// Exit status of cargo.
        status: ExitStatus,
    },
    /// The built shared library is not where it was expected.
    #[error("shared library {path} not found after the build")]
    MissingLibrary {
        /// The expected path.
        path: PathBuf,
    },
    /// The shared library does not export the FMI functions (for example, it was built
    /// without the crate's `export` feature).
    #[error("shared library {path} does not export {symbol}")]
    MissingExport {
        /// The library.
        path: PathBuf,
        /// The symbol looked for.
        symbol: String,
    },
    /// A modelDescription.xml could not be read.
    #[error("modelDescription.xml: {message}")]
    Xml {
        /// What is wrong.
        message: String,
    },
    /// The zip archive could not be written.
    #[error("zip: {0}")]
    Zip(#[from] zip::result::ZipError),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_owned(),
        source,
    }
}

/// One test FMU: which crate builds its shared library and where its modelDescription is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelSpec {
    /// Model name; also the `.fmu` file name (`<name>.fmu`).
    pub name: &'static str,
    /// Cargo package that builds the shared library.
    pub package: &'static str,
    /// Path of the modelDescription.xml, relative to the workspace root.
    pub xml: &'static str,
}

impl ModelSpec {
    /// File name of the shared library cargo builds: `lib<package with _>.so`.
    pub fn library_file_name(&self) -> String {
        format!("lib{}.so", self.package.replace('-', "_"))
    }

    /// Absolute path of the modelDescription.xml.
    pub fn xml_path(&self, workspace_root: &Path) -> PathBuf {
        workspace_root.join(self.xml)
    }

    /// Reads and parses this model's modelDescription.xml.
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be read, [`Error::Xml`] if it does not parse.
    pub fn read_model_description(&self, workspace_root: &Path) -> Result<ModelDescription, Error> {
        let path = self.xml_path(workspace_root);
        let text = fs::read_to_string(&path).map_err(io_error(&path))?;
        ModelDescription::parse(&text)
    }
}

/// Every test FMU, in the order they are packed.
pub const MODELS: &[ModelSpec] = &[
    ModelSpec {
        name: "Prey",
        package: "fmu-lotka-volterra",
        xml: "fmus/lotka_volterra/models/Prey/modelDescription.xml",
    },
    ModelSpec {
        name: "Predator",
        package: "fmu-lotka-volterra",
        xml: "fmus/lotka_volterra/models/Predator/modelDescription.xml",
    },
    ModelSpec {
        name: "Part1",
        package: "fmu-control-loop",
        xml: "fmus/control_loop/models/Part1/modelDescription.xml",
    },
    ModelSpec {
        name: "Part2",
        package: "fmu-control-loop",
        xml: "fmus/control_loop/models/Part2/modelDescription.xml",
    },
    ModelSpec {
        name: "Part3",
        package: "fmu-control-loop",
        xml: "fmus/control_loop/models/Part3/modelDescription.xml",
    },
    ModelSpec {
        name: "FourVars",
        package: "fmu-four-vars",
        xml: "fmus/four_vars/models/FourVars/modelDescription.xml",
    },
    ModelSpec {
        name: "FourVarsFeedThrough",
        package: "fmu-four-vars",
        xml: "fmus/four_vars/models/FourVarsFeedThrough/modelDescription.xml",
    },
    ModelSpec {
        name: "Oscillator",
        package: "fmu-oscillator-fmi1",
        xml: "fmus/oscillator_fmi1/models/Oscillator/modelDescription.xml",
    },
    ModelSpec {
        name: "Gain",
        package: "fmu-algebraic-loop",
        xml: "fmus/algebraic_loop/models/Gain/modelDescription.xml",
    },
    ModelSpec {
        name: "Faulty",
        package: "fmu-fault-injection",
        xml: "fmus/fault_injection/models/Faulty/modelDescription.xml",
    },
    ModelSpec {
        name: "Scale",
        package: "fmu-workload",
        xml: "fmus/workload/models/Scale/modelDescription.xml",
    },
    ModelSpec {
        name: "ScaleOnce",
        package: "fmu-workload",
        xml: "fmus/workload/models/ScaleOnce/modelDescription.xml",
    },
    ModelSpec {
        name: "Busy",
        package: "fmu-workload",
        xml: "fmus/workload/models/Busy/modelDescription.xml",
    },
    ModelSpec {
        name: "Sampler",
        package: "fmu-multirate",
        xml: "fmus/multirate/models/Sampler/modelDescription.xml",
    },
    ModelSpec {
        name: "Aircraft",
        package: "fmu-multirate",
        xml: "fmus/multirate/models/Aircraft/modelDescription.xml",
    },
    ModelSpec {
        name: "Controller",
        package: "fmu-multirate",
        xml: "fmus/multirate/models/Controller/modelDescription.xml",
    },
    ModelSpec {
        name: "NavFilter",
        package: "fmu-multirate",
        xml: "fmus/multirate/models/NavFilter/modelDescription.xml",
    },
];

/// The FMU packages, each once, in [`MODELS`] order.
pub fn packages() -> Vec<&'static str> {
    let mut packages: Vec<&'static str> = Vec::new();
    for model in MODELS {
        if !packages.contains(&model.package) {
            packages.push(model.package);
        }
    }
    packages
}

/// The workspace root this crate was compiled in (two levels above its manifest).
pub fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .ancestors()
        .nth(2)
        .expect("invariant: the packer manifest is at <root>/fmus/packer")
        .to_owned()
}

/// The cargo target directory: `$CARGO_TARGET_DIR` (relative paths against the current
/// directory) if set, else `<workspace_root>/target`.
pub fn target_dir(workspace_root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => workspace_root.join("target"),
    }
}

/// The target directory the packer builds into: `<target_dir>/fmu-packer`. A directory of its
/// own, so that other release builds of the workspace, whose FMU crates are built without the
/// `export` feature, never replace the libraries between building and packing.
pub fn packer_target_dir(workspace_root: &Path) -> PathBuf {
    target_dir(workspace_root).join("fmu-packer")
}

/// The directory written by `cargo pack-fmus` and committed: `<workspace_root>/fmus/packed`.
pub fn default_out_dir(workspace_root: &Path) -> PathBuf {
    workspace_root.join("fmus/packed")
}

/// Builds every FMU package in release mode with its `export` feature and returns the
/// directory holding the shared libraries (`<packer_target_dir>/release`).
///
/// Runs `$CARGO` (or `cargo`) `build --release --target-dir <packer_target_dir>
/// -p <pkg>… --features <pkg>/export…` in the workspace root; cargo's own output goes to this
/// process's stderr.
///
/// # Errors
/// [`Error::CargoSpawn`] if cargo cannot be started, [`Error::CargoFailed`] if the build fails.
pub fn build(workspace_root: &Path) -> Result<PathBuf, Error> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(&cargo);
    command
        .current_dir(workspace_root)
        .arg("build")
        .arg("--release")
        .arg("--manifest-path")
        .arg(workspace_root.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(packer_target_dir(workspace_root));
    let packages = packages();
    for package in &packages {
        command.arg("-p").arg(package);
    }
    let features: Vec<String> = packages.iter().map(|p| format!("{p}/export")).collect();
    command.arg("--features").arg(features.join(","));
    let status = command
        .status()
        .map_err(|source| Error::CargoSpawn { cargo, source })?;
    if !status.success() {
        return Err(Error::CargoFailed { status });
    }
    Ok(packer_target_dir(workspace_root).join("release"))
}

/// The symbol every library of this FMI version and model identifier must export.
fn probe_symbol(description: &ModelDescription) -> String {
    match description.fmi_version {
        FmiVersion::V1 => format!("{}_fmiDoStep", description.model_identifier),
        FmiVersion::V2 => "fmi2DoStep".to_owned(),
    }
}

/// Whether the library's dynamic string table holds `symbol` (a NUL-terminated match).
fn mentions_symbol(library: &[u8], symbol: &str) -> bool {
    let mut needle = symbol.as_bytes().to_vec();
    needle.push(0);
    library
        .windows(needle.len())
        .any(|w| w == needle.as_slice())
}

/// Zips a modelDescription and a shared library into `.fmu` bytes.
///
/// The archive holds exactly `binaries/linux64/<model_identifier>.so` and
/// `modelDescription.xml`, in that (sorted) order, deflated, with the fixed timestamp
/// 1980-01-01 00:00:00 and fixed Unix permissions. So equal inputs give equal bytes.
///
/// # Errors
/// [`Error::Zip`] if the archive cannot be written.
pub fn pack_bytes(
    model_description: &[u8],
    model_identifier: &str,
    library: &[u8],
) -> Result<Vec<u8>, Error> {
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .last_modified_time(DateTime::default());
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file(
        format!("binaries/linux64/{model_identifier}.so"),
        options.unix_permissions(0o755),
    )?;
    zip.write_all(library).map_err(zip::result::ZipError::Io)?;
    zip.start_file("modelDescription.xml", options.unix_permissions(0o644))?;
    zip.write_all(model_description)
        .map_err(zip::result::ZipError::Io)?;
    Ok(zip.finish()?.into_inner())
}

/// Packs one model from an already built library directory into `<out_dir>/<name>.fmu`;
/// returns the path written.
///
/// # Errors
/// [`Error::Io`], [`Error::Xml`], [`Error::MissingLibrary`], [`Error::MissingExport`] (the
/// library lacks `fmi2DoStep` or `<modelIdentifier>_fmiDoStep`) or [`Error::Zip`].
pub fn pack_model(
    model: &ModelSpec,
    workspace_root: &Path,
    library_dir: &Path,
    out_dir: &Path,
) -> Result<PathBuf, Error> {
    let xml_path = model.xml_path(workspace_root);
    let xml = fs::read(&xml_path).map_err(io_error(&xml_path))?;
    let text = String::from_utf8(xml.clone()).map_err(|_| Error::Xml {
        message: format!("{} is not UTF-8", xml_path.display()),
    })?;
    let description = ModelDescription::parse(&text)?;
    let library_path = library_dir.join(model.library_file_name());
    if !library_path.is_file() {
        return Err(Error::MissingLibrary { path: library_path });
    }
    let library = fs::read(&library_path).map_err(io_error(&library_path))?;
    let symbol = probe_symbol(&description);
    if !mentions_symbol(&library, &symbol) {
        return Err(Error::MissingExport {
            path: library_path,
            symbol,
        });
    }
    let bytes = pack_bytes(&xml, &description.model_identifier, &library)?;
    fs::create_dir_all(out_dir).map_err(io_error(out_dir))?;
    let out = out_dir.join(format!("{}.fmu", model.name));
    fs::write(&out, bytes).map_err(io_error(&out))?;
    Ok(out)
}

/// Builds every FMU crate ([`build`]) and packs every model of [`MODELS`] into
/// `<out_dir>/<name>.fmu`. Returns the paths written, in [`MODELS`] order.
///
/// # Errors
/// As for [`build`] and [`pack_model`].
pub fn build_and_pack(workspace_root: &Path, out_dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let library_dir = build(workspace_root)?;
    MODELS
        .iter()
        .map(|model| pack_model(model, workspace_root, &library_dir, out_dir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_is_deterministic_and_sorted() {
        let a = pack_bytes(b"<xml/>", "Model", b"\x7fELF library bytes").expect("pack");
        let b = pack_bytes(b"<xml/>", "Model", b"\x7fELF library bytes").expect("pack");
        assert_eq!(a, b);
        let archive = zip::ZipArchive::new(Cursor::new(a)).expect("readable zip");
        let names: Vec<String> = archive
            .file_names()
            .map(|n| n.expect("valid name").into_owned())
            .collect();
        assert_eq!(names, ["binaries/linux64/Model.so", "modelDescription.xml"]);
    }

    #[test]
    fn symbol_probe() {
        assert!(mentions_symbol(b"\0fmi2DoStep\0fmi2Reset\0", "fmi2DoStep"));
        assert!(!mentions_symbol(b"\0fmi2DoStepX\0", "fmi2DoStep"));
    }

    #[test]
    fn every_model_description_parses_and_names_its_library() {
        let root = workspace_root();
        for model in MODELS {
            let md = model
                .read_model_description(&root)
                .expect("readable modelDescription");
            assert_eq!(md.model_name, model.name);
            assert_eq!(
                md.model_identifier, model.name,
                "the library is named after the model"
            );
        }
        assert_eq!(packages().len(), 8);
    }
}
