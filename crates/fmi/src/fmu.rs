//! A loaded FMU: model description plus shared library, shared by its instances.
//!
//! Loading happens once per FMU: parse `modelDescription.xml`, find
//! `binaries/linux64/<modelIdentifier>.so` (FMI 1.0/2.0) or
//! `binaries/x86_64-linux/<modelIdentifier>.so` (FMI 3.0), `dlopen` it and resolve the function
//! table. The resulting [`Fmu`] is shared through `Arc`; every [`Instance`](crate::Instance) and
//! [`Instance3`](crate::Instance3) holds a clone, so the library stays loaded until the last
//! instance has been freed. [`Fmu::instantiate`] and [`Fmu::instantiate_fmi3`] are implemented
//! in the `instance` and `instance3` modules, next to the instance types, so that this module
//! does not depend on them. This module has no `unsafe`: all of it lives in `ffi`, `instance`,
//! `instance3` and `isolated`.
//!
//! An isolated FMU ([`Fmu::load_isolated`], module `isolated`) is the same [`Fmu`] with a table
//! of proxy functions instead of a loaded library, and an `Isolation`: its instances run in
//! helper processes.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use isolation::{Helper, Platform};

use crate::elf::ElfTarget;
use crate::ffi::{FunctionTable, Functions, fmi3};
use crate::{Error, FmiVersion, Interface, ModelDescription, Result};

/// Platform folder under `binaries/` whose FMI 1.0/2.0 libraries this build can load.
const PLATFORM: &str = "linux64";
/// Platform tuple (folder under `binaries/`) whose FMI 3.0 libraries this build can load.
///
/// Spec: FMI 3.0, FMU distribution (platform tuples `<architecture>-<operating system>`).
const PLATFORM_FMI3: &str = "x86_64-linux";
/// File extension of shared libraries on this platform.
const LIBRARY_EXTENSION: &str = "so";

/// An extracted and loaded FMU, shared by all its instances through `Arc`.
///
/// The capabilities in [`Fmu::description`] are the *effective* ones: a capability declared
/// in the XML whose functions the library does not export is switched off at load time (with a
/// warning).
///
/// Spec: FMI 2.0.2 §2.1 / §4.2, FMI 1.0 CS §4, FMI 3.0 (common and co-simulation API).
#[derive(Debug)]
pub struct Fmu {
    description: ModelDescription,
    directory: PathBuf,
    library_path: PathBuf,
    functions: FunctionTable,
    /// The interface the FMU was loaded for.
    interface: Interface,
    /// Number of live instances (for `canBeInstantiatedOnlyOncePerProcess`).
    live_instances: AtomicUsize,
    /// Set when any instance returned Fatal: no instance of this FMU may be called again.
    fatal: AtomicBool,
    /// `Some` for an FMU whose instances run in helper processes (see [`Fmu::isolation`]).
    isolation: Option<Isolation>,
}

/// How the instances of an isolated FMU run: one helper process per instance, for the
/// platform of the library loaded; made by `Fmu::load_isolated` (module `isolated`).
pub(crate) struct Isolation {
    /// The platform of the FMU's library (the helper's).
    pub(crate) platform: Platform,
    /// A call that takes longer kills the helper (see [`isolation::Launch::call_timeout`]).
    pub(crate) call_timeout: Option<Duration>,
    /// The helper started at load time (which told the functions the library exports), kept
    /// for the first instance; later instances start their own.
    pub(crate) spare: Mutex<Option<Helper>>,
    /// `fmi2GetTypesPlatform` / `fmi2GetVersion` / `fmi3GetVersion`, asked at load time.
    pub(crate) types_platform: Option<String>,
    /// See `types_platform`.
    pub(crate) version: Option<String>,
}

impl fmt::Debug for Isolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Isolation")
            .field("platform", &self.platform)
            .field("call_timeout", &self.call_timeout)
            .finish_non_exhaustive()
    }
}

impl Fmu {
    /// Parses `<dir>/modelDescription.xml` and loads
    /// `<dir>/binaries/<platform>/<modelIdentifier>.so`, where the platform folder depends on
    /// the FMI version the description declares: `linux64` for FMI 1.0 and 2.0,
    /// `x86_64-linux` for FMI 3.0.
    ///
    /// `dir` is an extracted FMU (see [`crate::archive::extract`]). The library is opened with
    /// `RTLD_NOW | RTLD_LOCAL`, and all required functions are resolved immediately.
    ///
    /// # Errors
    /// - [`Error::MissingModelDescription`]: no `modelDescription.xml` in `dir`;
    /// - the errors of [`ModelDescription::from_file`] (one that is not a regular file, or
    ///   larger than the limit, among them);
    /// - [`Error::MissingLibrary`]: no library for this platform (the message lists the
    ///   platforms the FMU does have);
    /// - [`Error::WrongArchitecture`]: the library's ELF header names another architecture
    ///   than this machine's (checked before `dlopen`);
    /// - [`Error::LoadLibrary`]: `dlopen` failed (not an ELF file, missing dependencies, …);
    /// - [`Error::MissingSymbol`]: a required FMI function is not exported;
    /// - [`Error::Io`]: `dir` cannot be resolved to an absolute path.
    ///
    /// Spec: FMI 2.0.2 §2.3 (FMU layout: `binaries/<platform>/<modelIdentifier>.so`), FMI 1.0
    /// CS §4 (function names prefixed with `<modelIdentifier>_`), FMI 3.0 FMU distribution
    /// (platform tuple `x86_64-linux`).
    pub fn load(dir: &Path) -> Result<Arc<Fmu>> {
        let description_path = dir.join("modelDescription.xml");
        // Something that is there but not a file (a pipe, a device) is refused by `from_file`,
        // which says what it is.
        if std::fs::metadata(&description_path).is_err() {
            return Err(Error::MissingModelDescription {
                path: description_path,
            });
        }
        let description = ModelDescription::from_file(&description_path)?;
        Self::load_described(dir, description)
    }

    /// As [`Fmu::load`], with `<dir>/modelDescription.xml` already read into `description`
    /// (by [`ModelDescription::from_file`]): a caller that reads the description first (e.g.
    /// to refuse clocks before any library code runs) does not read it twice, nor log its
    /// warnings twice.
    ///
    /// # Errors
    /// As [`Fmu::load`], except those of reading the description.
    pub fn load_described(dir: &Path, description: ModelDescription) -> Result<Arc<Fmu>> {
        Self::load_described_as(dir, description, Interface::CoSimulation)
    }

    /// As [`Fmu::load`], for `interface`: with [`Interface::ModelExchange`], the library, the
    /// model identifier and the capabilities are those of the `ModelExchange` element (which
    /// may differ from `CoSimulation`'s), only the Model Exchange functions are required, and
    /// instances are made with [`Fmu::instantiate_model_exchange`] (FMI 2.0) or
    /// [`Fmu::instantiate_fmi3_model_exchange`] (FMI 3.0). The description is read with
    /// [`ModelDescription::from_file_for`].
    ///
    /// # Errors
    /// As [`Fmu::load`]; for Model Exchange, instead of [`Error::NoCoSimulation`]:
    /// [`Error::InterfaceMissing`] (the FMU has no `ModelExchange` element; the message names
    /// the interfaces it offers), [`Error::ModelStructure`] (its states or event indicators
    /// are ambiguous), [`Error::Fmi1ModelExchange`] (FMI 1.0), and [`Error::MissingSymbol`]
    /// naming a missing Model Exchange function.
    ///
    /// Spec: FMI 2.0.2 §3 (Model Exchange), FMI 3.0 §3 (Model Exchange).
    pub fn load_as(dir: &Path, interface: Interface) -> Result<Arc<Fmu>> {
        let description_path = dir.join("modelDescription.xml");
        if std::fs::metadata(&description_path).is_err() {
            return Err(Error::MissingModelDescription {
                path: description_path,
            });
        }
        let description = ModelDescription::from_file_for(&description_path, interface)?;
        Self::load_described_as(dir, description, interface)
    }

    /// As [`Fmu::load_as`], with `<dir>/modelDescription.xml` already read into
    /// `description` (by any of the readers of [`ModelDescription`]). A description read for
    /// co-simulation whose Model Exchange parts were ambiguous (read with a warning) is read
    /// again for Model Exchange, to report the problem as an error.
    ///
    /// # Errors
    /// As [`Fmu::load_as`], except those of reading the description;
    /// [`Error::NoCoSimulation`] for co-simulation of a description without `CoSimulation`.
    pub fn load_described_as(
        dir: &Path,
        description: ModelDescription,
        interface: Interface,
    ) -> Result<Arc<Fmu>> {
        let (directory, mut description) = Fmu::for_interface(dir, description, interface)?;
        let folder = Fmu::platform_folder(description.fmi_version);
        let library_path = Fmu::library_in(&directory, &description, folder, LIBRARY_EXTENSION)?;
        // Before dlopen, whose message for a library of another architecture is "No such file
        // or directory".
        if let (Some(found), Some(host)) = (ElfTarget::of_file(&library_path), ElfTarget::host())
            && found != host
        {
            return Err(Error::WrongArchitecture {
                library: library_path,
                found: found.describe(),
                host: host.describe(),
            });
        }
        let functions = FunctionTable::load(&library_path, &mut description, interface)?;
        Ok(Fmu::assemble(
            description,
            directory,
            library_path,
            functions,
            interface,
            None,
        ))
    }

    /// The checks of [`Fmu::load_described_as`] before any library is looked for: the
    /// description offers `interface` (for Model Exchange its model identifier and
    /// capabilities replace co-simulation's), and `dir` as an absolute, canonical path.
    pub(crate) fn for_interface(
        dir: &Path,
        mut description: ModelDescription,
        interface: Interface,
    ) -> Result<(PathBuf, ModelDescription)> {
        let description_path = dir.join("modelDescription.xml");
        match interface {
            Interface::CoSimulation if !description.interfaces.co_simulation => {
                return Err(Error::NoCoSimulation {
                    path: description_path,
                    version: description.fmi_version,
                    interfaces: description.interfaces,
                });
            }
            Interface::CoSimulation => {}
            Interface::ModelExchange => {
                if description.model_exchange.is_none() {
                    // Refused by this reading, with the error that says why.
                    description = ModelDescription::from_file_for(&description_path, interface)?;
                }
                let me =
                    description
                        .model_exchange
                        .as_ref()
                        .ok_or_else(|| Error::InterfaceMissing {
                            path: description_path.clone(),
                            interface,
                            interfaces: description.interfaces,
                        })?;
                description.model_identifier = me.model_identifier.clone();
                description.capabilities = me.capabilities;
            }
        }
        let directory = dir.canonicalize().map_err(|source| Error::Io {
            path: dir.to_owned(),
            source,
        })?;
        Ok((directory, description))
    }

    /// `<directory>/binaries/<folder>/<modelIdentifier>.<extension>`, checked to exist and to
    /// lie inside `directory` (a symbolic link out of the FMU is refused).
    ///
    /// # Errors
    /// [`Error::MissingLibrary`] (listing the platform folders the FMU has),
    /// [`Error::LibraryOutsideFmu`], [`Error::Io`].
    pub(crate) fn library_in(
        directory: &Path,
        description: &ModelDescription,
        folder: &str,
        extension: &str,
    ) -> Result<PathBuf> {
        let library_path = directory
            .join("binaries")
            .join(folder)
            .join(format!("{}.{extension}", description.model_identifier));
        if !library_path.is_file() {
            let platforms = available_platforms(&directory.join("binaries"));
            return Err(Error::MissingLibrary {
                library: library_path,
                platforms,
            });
        }
        // A second guard next to the modelIdentifier check of the parser: never dlopen (and
        // run the constructors of) a library outside the FMU, e.g. through a symbolic link
        // in a directory reused with --skip-unzip.
        let resolved = library_path.canonicalize().map_err(|source| Error::Io {
            path: library_path.clone(),
            source,
        })?;
        if !resolved.starts_with(directory) {
            return Err(Error::LibraryOutsideFmu {
                library: library_path,
                resolved,
                directory: directory.to_owned(),
            });
        }
        Ok(library_path)
    }

    /// The loaded FMU: `functions` resolved for `interface` (which updated the capabilities in
    /// `description`), `isolation` for an FMU whose calls go to helper processes.
    pub(crate) fn assemble(
        mut description: ModelDescription,
        directory: PathBuf,
        library_path: PathBuf,
        functions: FunctionTable,
        interface: Interface,
        isolation: Option<Isolation>,
    ) -> Arc<Fmu> {
        if let Some(me) = description.model_exchange.as_mut()
            && interface == Interface::ModelExchange
        {
            me.capabilities = description.capabilities;
        }
        log::debug!(
            "loaded {} (FMI {:?}, {} variables{})",
            library_path.display(),
            description.fmi_version,
            description.variables.len(),
            match &isolation {
                Some(isolation) => format!(", isolated: {}", isolation.platform),
                None => String::new(),
            }
        );
        Arc::new(Fmu {
            description,
            directory,
            library_path,
            functions,
            interface,
            isolation,
            live_instances: AtomicUsize::new(0),
            fatal: AtomicBool::new(false),
        })
    }

    /// The folder under `binaries/` whose shared libraries this build loads for an FMU of
    /// `version`: `linux64` for FMI 1.0 and 2.0, `x86_64-linux` for FMI 3.0.
    ///
    /// Spec: FMI 2.0.2 §2.3 (`binaries/linux64`), FMI 3.0 FMU distribution (platform tuple
    /// `x86_64-linux`).
    pub fn platform_folder(version: FmiVersion) -> &'static str {
        match version {
            FmiVersion::V1 | FmiVersion::V2 => PLATFORM,
            FmiVersion::V3 => PLATFORM_FMI3,
        }
    }

    /// The interface the FMU was loaded for: [`Interface::CoSimulation`] by [`Fmu::load`],
    /// the one asked for by [`Fmu::load_as`].
    pub fn interface(&self) -> Interface {
        self.interface
    }

    /// The parsed model description, with the effective capabilities (and model identifier)
    /// of the interface the FMU was loaded for.
    pub fn description(&self) -> &ModelDescription {
        &self.description
    }

    /// The directory the FMU was extracted into, as an absolute, canonical path.
    pub fn directory(&self) -> &Path {
        &self.directory
    }

    /// The loaded shared library (`<directory>/binaries/linux64/<modelIdentifier>.so`, or
    /// `binaries/x86_64-linux/…` for FMI 3.0).
    pub fn library_path(&self) -> &Path {
        &self.library_path
    }

    /// The platform of the helper processes that run this FMU's instances; `None` when they
    /// run in this process (loaded by [`Fmu::load`] and its variants rather than
    /// [`Fmu::load_isolated`]).
    pub fn isolation(&self) -> Option<Platform> {
        self.isolation.as_ref().map(|isolation| isolation.platform)
    }

    /// The isolation settings of an isolated FMU.
    pub(crate) fn isolation_settings(&self) -> Option<&Isolation> {
        self.isolation.as_ref()
    }

    /// `fmi2GetTypesPlatform` / `fmiGetTypesPlatform`: the platform types the library was
    /// compiled with (`"default"` for FMI 2.0, `"standard32"` for FMI 1.0); `None` when the
    /// function is not exported, and always for FMI 3.0 (which has no such function).
    ///
    /// Spec: FMI 2.0.2 §2.1.4, FMI 1.0 CS §4.1.
    pub fn get_types_platform(&self) -> Option<String> {
        if let Some(isolation) = &self.isolation {
            return isolation.types_platform.clone();
        }
        self.functions.types_platform()
    }

    /// `fmi3GetVersion` / `fmi2GetVersion` / `fmiGetVersion`: the version of the FMI headers
    /// the library was compiled with (`"3.0"`, `"2.0"`, `"1.0"`); `None` when the function is
    /// not exported.
    ///
    /// Spec: FMI 2.0.2 §2.1.4, FMI 1.0 CS §4.1, FMI 3.0 `fmi3GetVersion`.
    pub fn get_version(&self) -> Option<String> {
        if let Some(isolation) = &self.isolation {
            return isolation.version.clone();
        }
        self.functions.version()
    }

    /// The FMI 1.0/2.0 function table.
    ///
    /// # Panics
    /// For an FMI 3.0 FMU. Only [`crate::Instance`] calls this, and `Instance::new` refuses an
    /// FMI 3.0 FMU before its first call.
    pub(crate) fn functions(&self) -> &Functions {
        match &self.functions {
            FunctionTable::Legacy(functions) => functions,
            FunctionTable::V3(_) => {
                unreachable!("invariant: an Instance is never created for an FMI 3.0 FMU")
            }
        }
    }

    /// The FMI 3.0 function table; `None` for an FMI 1.0/2.0 FMU.
    pub(crate) fn fmi3_functions(&self) -> Option<&fmi3::Fmi3Functions> {
        match &self.functions {
            FunctionTable::V3(functions) => Some(functions),
            FunctionTable::Legacy(_) => None,
        }
    }

    /// Registers a new instance; refused when the FMU may only have one and already has it.
    pub(crate) fn acquire_instance_slot(&self, instance_name: &str) -> Result<()> {
        // Each instance of an isolated FMU has a process of its own.
        if self
            .description
            .capabilities
            .can_be_instantiated_only_once_per_process
            && self.isolation.is_none()
        {
            self.live_instances
                .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Acquire)
                .map_err(|_| Error::InstantiatedTwice {
                    instance: instance_name.to_owned(),
                    fmu: self.directory.clone(),
                })?;
        } else {
            self.live_instances.fetch_add(1, Ordering::AcqRel);
        }
        Ok(())
    }

    /// Unregisters an instance (after it was freed, or when instantiation failed).
    pub(crate) fn release_instance_slot(&self) {
        self.live_instances.fetch_sub(1, Ordering::AcqRel);
    }

    /// Records that an instance returned Fatal.
    pub(crate) fn mark_fatal(&self) {
        self.fatal.store(true, Ordering::Release);
    }

    /// True once any instance of this FMU returned Fatal.
    pub(crate) fn is_fatal(&self) -> bool {
        self.fatal.load(Ordering::Acquire)
    }
}

/// Names of the folders under `binaries/`, sorted; `None` when there is no `binaries` folder.
fn available_platforms(binaries: &Path) -> Option<Vec<String>> {
    let entries = std::fs::read_dir(binaries).ok()?;
    let mut platforms: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    platforms.sort();
    Some(platforms)
}

/// A `file:` URI for an absolute path: `file:///a/b%20c`.
///
/// Bytes that may not appear in a URI path segment are percent-encoded (RFC 3986: unreserved
/// characters, sub-delimiters, `:` and `@` stay, `/` separates segments).
pub(crate) fn file_uri(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut uri = String::from("file://");
    for &byte in path.as_os_str().as_bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&byte);
        if keep {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const MINIMAL_V2: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="m" guid="{g}">
  <CoSimulation modelIdentifier="model"/>
  <ModelVariables>
    <ScalarVariable name="x" valueReference="1" causality="output"><Real/></ScalarVariable>
  </ModelVariables>
</fmiModelDescription>"#;

    const MINIMAL_V3: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="m" instantiationToken="{t}">
  <CoSimulation modelIdentifier="model"/>
  <ModelVariables>
    <Float64 name="x" valueReference="1" causality="output"/>
  </ModelVariables>
  <ModelStructure>
    <Output valueReference="1"/>
  </ModelStructure>
</fmiModelDescription>"#;

    #[test]
    fn missing_model_description() {
        let tmp = tempfile::tempdir().unwrap();
        let err = Fmu::load(tmp.path()).unwrap_err();
        assert!(
            matches!(&err, Error::MissingModelDescription { path } if path.ends_with("modelDescription.xml"))
        );
        assert!(err.to_string().contains("modelDescription.xml"), "{err}");
        // One that is there but is a named pipe is not missing: it is refused unopened.
        let made = std::process::Command::new("mkfifo")
            .arg(tmp.path().join("modelDescription.xml"))
            .status()
            .unwrap();
        assert!(made.success());
        let err = Fmu::load(tmp.path()).unwrap_err();
        assert!(
            matches!(
                err,
                Error::NotAFile {
                    kind: "a named pipe",
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn library_linked_outside_the_fmu_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let fmu = tmp.path().join("fmu");
        fs::create_dir_all(fmu.join("binaries/linux64")).unwrap();
        fs::write(fmu.join("modelDescription.xml"), MINIMAL_V2).unwrap();
        fs::write(tmp.path().join("outside.so"), b"not a library").unwrap();
        std::os::unix::fs::symlink(
            tmp.path().join("outside.so"),
            fmu.join("binaries/linux64/model.so"),
        )
        .unwrap();
        let err = Fmu::load(&fmu).unwrap_err();
        assert!(matches!(err, Error::LibraryOutsideFmu { .. }), "{err}");
        assert!(
            err.to_string().contains("outside the FMU directory"),
            "{err}"
        );
    }

    #[test]
    fn missing_binaries_folder() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("modelDescription.xml"), MINIMAL_V2).unwrap();
        let err = Fmu::load(tmp.path()).unwrap_err();
        assert!(
            matches!(
                &err,
                Error::MissingLibrary {
                    platforms: None,
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("no 'binaries' folder"), "{err}");
    }

    #[test]
    fn missing_linux64_lists_other_platforms() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("modelDescription.xml"), MINIMAL_V2).unwrap();
        for platform in ["win64", "darwin64"] {
            fs::create_dir_all(tmp.path().join("binaries").join(platform)).unwrap();
        }
        let err = Fmu::load(tmp.path()).unwrap_err();
        let Error::MissingLibrary {
            library,
            platforms: Some(platforms),
        } = &err
        else {
            panic!("unexpected error: {err}");
        };
        assert!(
            library.ends_with("binaries/linux64/model.so"),
            "{}",
            library.display()
        );
        assert_eq!(platforms, &["darwin64", "win64"]);
        assert!(err.to_string().contains("darwin64, win64"), "{err}");
    }

    /// An FMI 3.0 FMU is looked for under `binaries/x86_64-linux`, not `linux64`.
    #[test]
    fn fmi3_library_is_looked_for_under_x86_64_linux() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("modelDescription.xml"), MINIMAL_V3).unwrap();
        fs::create_dir_all(tmp.path().join("binaries/linux64")).unwrap();
        fs::write(tmp.path().join("binaries/linux64/model.so"), b"").unwrap();
        let err = Fmu::load(tmp.path()).unwrap_err();
        let Error::MissingLibrary {
            library,
            platforms: Some(platforms),
        } = &err
        else {
            panic!("unexpected error: {err}");
        };
        assert!(
            library.ends_with("binaries/x86_64-linux/model.so"),
            "{}",
            library.display()
        );
        assert_eq!(platforms, &["linux64"]);
        let text = err.to_string();
        assert!(
            text.contains("x86_64-linux") && text.contains("only has binaries for: linux64"),
            "{text}"
        );
    }

    #[test]
    fn library_that_is_not_elf() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("modelDescription.xml"), MINIMAL_V2).unwrap();
        let dir = tmp.path().join("binaries/linux64");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("model.so"), b"definitely not an ELF file").unwrap();
        let err = Fmu::load(tmp.path()).unwrap_err();
        assert!(matches!(err, Error::LoadLibrary { .. }), "{err}");
        let text = err.to_string();
        assert!(text.contains("model.so") && text.contains("ldd"), "{text}");
    }

    #[test]
    fn invalid_model_description_is_reported_before_the_library() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(
            tmp.path().join("modelDescription.xml"),
            "<fmiModelDescription fmiVersion=\"4.0\"/>",
        )
        .unwrap();
        let err = Fmu::load(tmp.path()).unwrap_err();
        assert!(matches!(err, Error::UnsupportedVersion { .. }), "{err}");
    }

    #[test]
    fn file_uri_encodes_unsafe_bytes() {
        assert_eq!(
            file_uri(Path::new("/tmp/a b/c%d/ü")),
            "file:///tmp/a%20b/c%25d/%C3%BC"
        );
        assert_eq!(
            file_uri(Path::new("/x/res-1_2.~(a)")),
            "file:///x/res-1_2.~(a)"
        );
        assert_eq!(file_uri(Path::new("/x/#?[]")), "file:///x/%23%3F%5B%5D");
    }
}
