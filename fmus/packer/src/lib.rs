#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod check3;
mod xml;
mod xml3;

use std::ffi::OsString;
use std::fs;
use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

pub use xml::{FmiVersion, ModelDescription, ScalarVariable};
pub use xml3::ModelVariable3;

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

/// Every FMI 1.0 and 2.0 test FMU, in the order they are packed. Their tables are
/// [`fmu_support::Variable`]s; the FMI 3.0 FMUs are in [`MODELS3`].
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

/// Every FMI 3.0 test FMU, in the order they are packed. Their tables are
/// [`fmu_support::Variable3`]s, and their libraries come from a build of their own
/// ([`build_fmi3`]).
pub const MODELS3: &[ModelSpec] = &[
    ModelSpec {
        name: "Prey3",
        package: "fmu-lotka-volterra3",
        xml: "fmus/lotka_volterra3/models/Prey3/modelDescription.xml",
    },
    ModelSpec {
        name: "Predator3",
        package: "fmu-lotka-volterra3",
        xml: "fmus/lotka_volterra3/models/Predator3/modelDescription.xml",
    },
    ModelSpec {
        name: "AllTypes",
        package: "fmu-all-types",
        xml: "fmus/all_types/models/AllTypes/modelDescription.xml",
    },
    ModelSpec {
        name: "Ticker",
        package: "fmu-event-mode",
        xml: "fmus/event_mode/models/Ticker/modelDescription.xml",
    },
    ModelSpec {
        name: "EarlyReturn",
        package: "fmu-event-mode",
        xml: "fmus/event_mode/models/EarlyReturn/modelDescription.xml",
    },
];

/// Every Model Exchange test FMU (FMI 2.0, some also offering co-simulation, and FMI 3.0), in
/// the order they are packed. Their tables are [`fmu_support::Variable`]s; their libraries come from a build
/// of their own ([`build_me`]).
pub const MODELS_ME: &[ModelSpec] = &[
    ModelSpec {
        name: "Linear",
        package: "fmu-model-exchange",
        xml: "fmus/model_exchange/models/Linear/modelDescription.xml",
    },
    ModelSpec {
        name: "LinearDual",
        package: "fmu-model-exchange",
        xml: "fmus/model_exchange/models/LinearDual/modelDescription.xml",
    },
    ModelSpec {
        name: "Bounce",
        package: "fmu-model-exchange",
        xml: "fmus/model_exchange/models/Bounce/modelDescription.xml",
    },
    ModelSpec {
        name: "Steps",
        package: "fmu-model-exchange",
        xml: "fmus/model_exchange/models/Steps/modelDescription.xml",
    },
    ModelSpec {
        name: "Robertson",
        package: "fmu-model-exchange",
        xml: "fmus/model_exchange/models/Robertson/modelDescription.xml",
    },
    ModelSpec {
        name: "Plant",
        package: "fmu-model-exchange",
        xml: "fmus/model_exchange/models/Plant/modelDescription.xml",
    },
    ModelSpec {
        name: "NanDerivative",
        package: "fmu-model-exchange",
        xml: "fmus/model_exchange/models/NanDerivative/modelDescription.xml",
    },
    ModelSpec {
        name: "EventLoop",
        package: "fmu-model-exchange",
        xml: "fmus/model_exchange/models/EventLoop/modelDescription.xml",
    },
    ModelSpec {
        name: "Linear3",
        package: "fmu-model-exchange",
        xml: "fmus/model_exchange/models/Linear3/modelDescription.xml",
    },
    ModelSpec {
        name: "Bounce3",
        package: "fmu-model-exchange",
        xml: "fmus/model_exchange/models/Bounce3/modelDescription.xml",
    },
];

/// Every test FMU: [`MODELS`], then [`MODELS3`], then [`MODELS_ME`].
pub fn all_models() -> impl Iterator<Item = &'static ModelSpec> {
    MODELS.iter().chain(MODELS3).chain(MODELS_ME)
}

/// The packages of `models`, each once, in order.
fn packages_of(models: &[ModelSpec]) -> Vec<&'static str> {
    let mut packages: Vec<&'static str> = Vec::new();
    for model in models {
        if !packages.contains(&model.package) {
            packages.push(model.package);
        }
    }
    packages
}

/// The FMI 1.0/2.0 FMU packages, each once, in [`MODELS`] order.
pub fn packages() -> Vec<&'static str> {
    packages_of(MODELS)
}

/// The FMI 3.0 FMU packages, each once, in [`MODELS3`] order.
pub fn packages_fmi3() -> Vec<&'static str> {
    packages_of(MODELS3)
}

/// The Model Exchange FMU packages, each once, in [`MODELS_ME`] order.
pub fn packages_me() -> Vec<&'static str> {
    packages_of(MODELS_ME)
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

/// The target directory of the FMI 3.0 build: `<target_dir>/fmu-packer-fmi3`. Apart from
/// [`packer_target_dir`] because that build turns on fmu-support's `fmi3` feature: in one
/// directory, a dependency of an FMI 3.0 crate (`fmu-lotka-volterra` for the Lotka–Volterra
/// twins) would be rebuilt with the feature over the FMI 2.0 library of the same name.
pub fn packer_target_dir_fmi3(workspace_root: &Path) -> PathBuf {
    target_dir(workspace_root).join("fmu-packer-fmi3")
}

/// The target directory of the Model Exchange build: `<target_dir>/fmu-packer-me`. Apart from
/// [`packer_target_dir`] because that build turns on fmu-support's `me` feature, which would
/// otherwise change the library of every FMI 2.0 co-simulation FMU built in the same directory.
pub fn packer_target_dir_me(workspace_root: &Path) -> PathBuf {
    target_dir(workspace_root).join("fmu-packer-me")
}

/// The packed FMUs the SSP examples use, which `cargo pack-fmus` also copies into
/// [`SSP_EXAMPLE_DIR`]: an SSP's references must stay inside its folder, so the examples keep
/// their FMUs next to them.
pub const SSP_EXAMPLE_FMUS: [&str; 5] = [
    "AllTypes",
    "FourVarsFeedThrough",
    "Predator",
    "Prey",
    "Scale",
];

/// Where the SSP examples keep their FMUs, relative to the workspace root.
pub const SSP_EXAMPLE_DIR: &str = "projects/ssp/fmus";

/// Copies the [`SSP_EXAMPLE_FMUS`] from `packed` (a directory of packed FMUs) into `to`.
///
/// # Errors
/// [`Error::Io`] naming the file that cannot be copied.
pub fn copy_ssp_example_fmus(packed: &Path, to: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(to).map_err(io_error(to))?;
    for name in SSP_EXAMPLE_FMUS {
        let from = packed.join(format!("{name}.fmu"));
        std::fs::copy(&from, to.join(format!("{name}.fmu"))).map_err(io_error(&from))?;
    }
    Ok(())
}

/// The directory written by `cargo pack-fmus` and committed: `<workspace_root>/fmus/packed`.
pub fn default_out_dir(workspace_root: &Path) -> PathBuf {
    workspace_root.join("fmus/packed")
}

/// Builds every FMI 1.0/2.0 FMU package ([`packages`]) in release mode with its `export`
/// feature and returns the directory holding the shared libraries
/// (`<packer_target_dir>/release`).
///
/// Runs `$CARGO` (or `cargo`) `build --release --target-dir <packer_target_dir>
/// -p <pkg>… --features <pkg>/export…` in the workspace root; cargo's own output goes to this
/// process's stderr. None of these packages turns on fmu-support's `fmi3` feature, so their
/// libraries do not depend on the FMI 3.0 layer at all.
///
/// # Errors
/// [`Error::CargoSpawn`] if cargo cannot be started, [`Error::CargoFailed`] if the build fails.
pub fn build(workspace_root: &Path) -> Result<PathBuf, Error> {
    cargo_build(
        workspace_root,
        &packages(),
        &packer_target_dir(workspace_root),
    )
}

/// Builds every FMI 3.0 FMU package ([`packages_fmi3`]) like [`build`], into
/// [`packer_target_dir_fmi3`], and returns `<packer_target_dir_fmi3>/release`.
///
/// # Errors
/// As for [`build`].
pub fn build_fmi3(workspace_root: &Path) -> Result<PathBuf, Error> {
    cargo_build(
        workspace_root,
        &packages_fmi3(),
        &packer_target_dir_fmi3(workspace_root),
    )
}

/// Builds every Model Exchange FMU package ([`packages_me`]) like [`build`], into
/// [`packer_target_dir_me`], and returns `<packer_target_dir_me>/release`.
///
/// # Errors
/// As for [`build`].
pub fn build_me(workspace_root: &Path) -> Result<PathBuf, Error> {
    cargo_build(
        workspace_root,
        &packages_me(),
        &packer_target_dir_me(workspace_root),
    )
}

fn cargo_build(
    workspace_root: &Path,
    packages: &[&str],
    target_dir: &Path,
) -> Result<PathBuf, Error> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(&cargo);
    command
        .current_dir(workspace_root)
        .arg("build")
        .arg("--release")
        .arg("--manifest-path")
        .arg(workspace_root.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir);
    for package in packages {
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
    Ok(target_dir.join("release"))
}

/// The symbol every library of this FMI version and model identifier must export.
fn probe_symbol(description: &ModelDescription) -> String {
    match description.fmi_version {
        FmiVersion::V1 => format!("{}_fmiDoStep", description.model_identifier),
        FmiVersion::V2 if !description.model_exchange.is_empty() => "fmi2GetDerivatives".to_owned(),
        FmiVersion::V2 => "fmi2DoStep".to_owned(),
        FmiVersion::V3 if !description.model_exchange.is_empty() => {
            "fmi3GetContinuousStateDerivatives".to_owned()
        }
        FmiVersion::V3 => "fmi3DoStep".to_owned(),
    }
}

/// The directory under `binaries/` that holds the library of an FMU of this version:
/// `linux64` for FMI 1.0/2.0, the platform tuple `x86_64-linux` for FMI 3.0.
///
/// Spec: FMI 2.0.2 §2.3 (FMU distribution); FMI 3.0 §2.5.1.4 (platform tuples).
pub fn platform_dir(version: FmiVersion) -> &'static str {
    match version {
        FmiVersion::V1 | FmiVersion::V2 => "linux64",
        FmiVersion::V3 => "x86_64-linux",
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

/// Zips a modelDescription and a shared library into the `.fmu` bytes of an FMI 1.0/2.0 FMU:
/// [`pack_library`] with the platform `linux64`.
///
/// # Errors
/// [`Error::Zip`] if the archive cannot be written.
pub fn pack_bytes(
    model_description: &[u8],
    model_identifier: &str,
    library: &[u8],
) -> Result<Vec<u8>, Error> {
    pack_library(model_description, "linux64", model_identifier, library)
}

/// Zips a modelDescription and a shared library into `.fmu` bytes.
///
/// The archive holds exactly `binaries/<platform>/<model_identifier>.so` and
/// `modelDescription.xml`, in that (sorted) order, deflated, with the fixed timestamp
/// 1980-01-01 00:00:00 and fixed Unix permissions. So equal inputs give equal bytes.
///
/// # Errors
/// [`Error::Zip`] if the archive cannot be written.
pub fn pack_library(
    model_description: &[u8],
    platform: &str,
    model_identifier: &str,
    library: &[u8],
) -> Result<Vec<u8>, Error> {
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .last_modified_time(DateTime::default());
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file(
        format!("binaries/{platform}/{model_identifier}.so"),
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
/// The library goes to `binaries/<platform_dir>/` for the modelDescription's FMI version
/// ([`platform_dir`]).
///
/// # Errors
/// [`Error::Io`], [`Error::Xml`], [`Error::MissingLibrary`], [`Error::MissingExport`] (the
/// library lacks `fmi3DoStep`, `fmi2DoStep` or `<modelIdentifier>_fmiDoStep`) or
/// [`Error::Zip`].
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
    let bytes = pack_library(
        &xml,
        platform_dir(description.fmi_version),
        &description.model_identifier,
        &library,
    )?;
    fs::create_dir_all(out_dir).map_err(io_error(out_dir))?;
    let out = out_dir.join(format!("{}.fmu", model.name));
    fs::write(&out, bytes).map_err(io_error(&out))?;
    Ok(out)
}

/// Builds every FMU crate ([`build`], [`build_fmi3`], then [`build_me`]) and packs every
/// model of [`MODELS`], [`MODELS3`] and [`MODELS_ME`] into `<out_dir>/<name>.fmu`. Returns the
/// paths written, in [`all_models`] order.
///
/// # Errors
/// As for [`build`] and [`pack_model`].
pub fn build_and_pack(workspace_root: &Path, out_dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let library_dir = build(workspace_root)?;
    let library_dir3 = build_fmi3(workspace_root)?;
    let library_dir_me = build_me(workspace_root)?;
    let fmi12 = MODELS.iter().map(|m| (m, &library_dir));
    let fmi3 = MODELS3.iter().map(|m| (m, &library_dir3));
    let me = MODELS_ME.iter().map(|m| (m, &library_dir_me));
    fmi12
        .chain(fmi3)
        .chain(me)
        .map(|(model, dir)| pack_model(model, workspace_root, dir, out_dir))
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
    fn fmi3_archives_use_the_platform_tuple() {
        let bytes =
            pack_library(b"<xml/>", platform_dir(FmiVersion::V3), "M", b"lib").expect("pack");
        let archive = zip::ZipArchive::new(Cursor::new(bytes)).expect("readable zip");
        let names: Vec<String> = archive
            .file_names()
            .map(|n| n.expect("valid name").into_owned())
            .collect();
        assert_eq!(
            names,
            ["binaries/x86_64-linux/M.so", "modelDescription.xml"]
        );
    }

    #[test]
    fn every_model_description_parses_and_names_its_library() {
        let root = workspace_root();
        for model in all_models() {
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
        assert_eq!(packages_fmi3().len(), 3);
        assert_eq!(packages_me(), ["fmu-model-exchange"]);
        for model in MODELS_ME {
            let md = model.read_model_description(&root).expect("readable");
            assert!(!md.model_exchange.is_empty(), "{}", model.name);
            let probe = match md.fmi_version {
                FmiVersion::V3 => "fmi3GetContinuousStateDerivatives",
                _ => "fmi2GetDerivatives",
            };
            assert_eq!(probe_symbol(&md), probe, "{}", model.name);
        }
        for model in MODELS3 {
            let md = model.read_model_description(&root).expect("readable");
            assert_eq!(md.fmi_version, FmiVersion::V3, "{}", model.name);
        }
        for model in MODELS {
            let md = model.read_model_description(&root).expect("readable");
            assert_ne!(md.fmi_version, FmiVersion::V3, "{}", model.name);
        }
    }
}
