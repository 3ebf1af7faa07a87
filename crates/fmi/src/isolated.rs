//! FMUs in their own process: an isolated FMU's function table holds proxy functions (Rust
//! `extern "C"` functions) whose component pointer is a [`proxy::Proxy`] that owns a helper
//! process (crate `isolation`), in which the FMU's library is loaded and called. Everything
//! above the table — [`crate::Instance`], [`crate::Instance3`], and the master on top — runs
//! unchanged, so an isolated instance gives the same results as the same library in-process.
//! Only instantiation differs ([`instantiate_fmi2`], [`instantiate_fmi3`]: they start the
//! helper), and freeing (the proxy ends the helper).
//!
//! One round trip per communication step: setters are deferred until the next call, and the
//! getters a master makes after `doStep` are sent along with the next `doStep` and answered
//! from what came back (module `proxy`).
//!
//! Covered: FMI 2.0 and FMI 3.0 co-simulation. FMI 1.0 and Model Exchange are refused
//! ([`Error::IsolationRefused`]).
//!
//! Spec: FMI 2.0.2 §2.1, §4.2; FMI 3.0 common and co-simulation API; FMI 2.0.2 §2.5 and FMI 3.0
//! §2.5.1.4 (platform folders under `binaries/`).

mod common;
mod fmi2;
mod fmi3;
mod proxy;

use std::ffi::{CStr, c_void};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use isolation::protocol::{self, FN_FMI2_INSTANTIATE, FN_FMI3_INSTANTIATE_CO_SIMULATION};
use isolation::{Helper, Launch, Platform};

use crate::ffi::{FunctionTable, Symbols, fmi2 as c2, fmi3 as c3};
use crate::fmu::{Isolation, file_uri};
use crate::{Error, FmiVersion, Fmu, Interface, ModelDescription, Result};
use proxy::{LogSink, OK, Proxy};

/// One platform an FMU ships a library for, and whether this installation can run it.
///
/// Spec: FMI 2.0.2 §2.5 (`binaries/<platform>`), FMI 3.0 §2.5.1.4 (platform tuples).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShippedPlatform {
    /// The platform.
    pub platform: Platform,
    /// `<dir>/binaries/<folder>/<modelIdentifier>.<so|dll>`.
    pub library: PathBuf,
    /// `Ok` when a helper for the platform can run here (always for the native platform,
    /// which also runs in-process); `Err` says what to install (Debian package names) and why
    /// ([`isolation::availability`]).
    pub availability: std::result::Result<(), String>,
}

/// The platforms whose library `<dir>/binaries/<folder>/<modelIdentifier>.<so|dll>` the FMU
/// described by `description` ships (FMI 2.0 folder names for FMI 1.0/2.0, FMI 3.0 platform
/// tuples for FMI 3.0), in the order of [`Platform::ALL`] (native first), each with whether
/// this installation can run it. Empty when the FMU has no library for any of the four.
///
/// Used by `mastersim info` and to choose a platform when the FMU has no native library.
pub fn shipped_platforms(dir: &Path, description: &ModelDescription) -> Vec<ShippedPlatform> {
    Platform::ALL
        .into_iter()
        .filter_map(|platform| {
            let library = library_path(dir, description, platform);
            library.is_file().then(|| ShippedPlatform {
                platform,
                availability: isolation::availability(platform),
                library,
            })
        })
        .collect()
}

/// Where the FMU's library for `platform` is: the folder by FMI version, the extension by
/// platform.
fn library_path(dir: &Path, description: &ModelDescription, platform: Platform) -> PathBuf {
    let folder = match description.fmi_version {
        FmiVersion::V1 | FmiVersion::V2 => platform.fmi2_folder(),
        FmiVersion::V3 => platform.fmi3_folder(),
    };
    dir.join("binaries").join(folder).join(format!(
        "{}.{}",
        description.model_identifier,
        platform.library_extension()
    ))
}

impl Fmu {
    /// As [`Fmu::load_as`], but the FMU's instances run in helper processes (one per
    /// instance) that load `binaries/<platform folder>/<modelIdentifier>.<so|dll>` for
    /// `platform`. A helper is started here, which loads the library and says which
    /// functions it exports (the table holds proxies for exactly those); it is kept for the
    /// first instance. `call_timeout`: an FMI call that takes longer kills the helper, and the
    /// call fails with [`Error::Isolated`] (a [`isolation::Error::Timeout`]).
    ///
    /// The helper dies with the thread that loads the FMU (`PR_SET_PDEATHSIG`): load and
    /// instantiate from a thread that lives as long as the instances.
    ///
    /// # Errors
    /// - [`Error::IsolationRefused`]: FMI 1.0, or `interface` is Model Exchange;
    /// - [`Error::MissingLibrary`] (listing the folders the FMU has), [`Error::LibraryOutsideFmu`];
    /// - [`Error::IsolatedLoad`]: the platform cannot run here (the message says what to
    ///   install), the helper did not start, or the library did not load;
    /// - [`Error::MissingSymbol`]: the library lacks a required FMI function;
    /// - those of reading the description ([`Fmu::load`]).
    ///
    /// Spec: as [`Fmu::load_as`]; FMI 2.0.2 §2.5, FMI 3.0 §2.5.1.4 (platform folders).
    pub fn load_isolated(
        dir: &Path,
        interface: Interface,
        platform: Platform,
        call_timeout: Option<Duration>,
    ) -> Result<Arc<Fmu>> {
        let description_path = dir.join("modelDescription.xml");
        if std::fs::metadata(&description_path).is_err() {
            return Err(Error::MissingModelDescription {
                path: description_path,
            });
        }
        let description = ModelDescription::from_file_for(&description_path, interface)?;
        Self::load_described_isolated(dir, description, interface, platform, call_timeout)
    }

    /// As [`Fmu::load_isolated`], with `<dir>/modelDescription.xml` already read into
    /// `description`.
    ///
    /// # Errors
    /// As [`Fmu::load_isolated`], except those of reading the description.
    pub fn load_described_isolated(
        dir: &Path,
        description: ModelDescription,
        interface: Interface,
        platform: Platform,
        call_timeout: Option<Duration>,
    ) -> Result<Arc<Fmu>> {
        let refused = |reason| Error::IsolationRefused {
            fmu: dir.to_owned(),
            reason,
        };
        let fmi_version = match description.fmi_version {
            FmiVersion::V1 => return Err(refused("FMI 1.0 FMUs run in the master's process only")),
            FmiVersion::V2 => 2,
            FmiVersion::V3 => 3,
        };
        if interface == Interface::ModelExchange {
            return Err(refused(
                "Model Exchange FMUs run in the master's process only; isolation covers \
                 co-simulation",
            ));
        }
        let (directory, mut description) = Fmu::for_interface(dir, description, interface)?;
        let folder = match fmi_version {
            2 => platform.fmi2_folder(),
            _ => platform.fmi3_folder(),
        };
        let library = Fmu::library_in(
            &directory,
            &description,
            folder,
            platform.library_extension(),
        )?;
        let mut helper = Helper::launch(&Launch {
            platform,
            library: &library,
            fmi_version,
            call_timeout,
        })
        .map_err(|source| Error::IsolatedLoad {
            library: library.clone(),
            source,
        })?;
        let proxies = |name: &str| {
            let exported = protocol::function_id(name).is_some_and(|id| helper.exports(id));
            match fmi_version {
                2 => fmi2::proxy_address(name),
                _ => fmi3::proxy_address(name),
            }
            .filter(|_| exported)
        };
        let functions = FunctionTable::resolve(
            Symbols::Proxies(&proxies),
            &library,
            &mut description,
            interface,
        )?;
        let (types_platform, version) = library_strings(&mut helper, fmi_version);
        let isolation = Isolation {
            platform,
            call_timeout,
            spare: Mutex::new(Some(helper)),
            types_platform,
            version,
        };
        Ok(Fmu::assemble(
            description,
            directory,
            library,
            functions,
            interface,
            Some(isolation),
        ))
    }
}

/// `fmi2GetTypesPlatform` and `fmi2GetVersion` (FMI 3.0: `None` and `fmi3GetVersion`), asked
/// from the helper at load time (they have no instance argument, so no proxy). `None` when
/// the library does not export one, or the helper does not answer.
fn library_strings(helper: &mut Helper, fmi_version: u32) -> (Option<String>, Option<String>) {
    let mut ask = |id: u32| -> Option<String> {
        if !helper.exports(id) {
            return None;
        }
        helper.request().call(id);
        let mut response = helper.round_trip().ok()?;
        (response.status().ok()? == OK).then_some(())?;
        let text = response.string().ok()??;
        Some(String::from_utf8_lossy(text).into_owned())
    };
    match fmi_version {
        2 => (
            ask(protocol::FN_FMI2_GET_TYPES_PLATFORM),
            ask(protocol::FN_FMI2_GET_VERSION),
        ),
        _ => (None, ask(protocol::FN_FMI3_GET_VERSION)),
    }
}

/// The helper for a new instance of `fmu`: the one kept since load (or since an
/// instantiation that returned NULL), or a new one.
fn helper_for(fmu: &Fmu, isolation: &Isolation) -> isolation::Result<Helper> {
    let spare = isolation
        .spare
        .lock()
        .map_or(None, |mut spare| spare.take());
    match spare {
        Some(helper) => Ok(helper),
        None => Helper::launch(&Launch {
            platform: isolation.platform,
            library: fmu.library_path(),
            fmi_version: match fmu.description().fmi_version {
                FmiVersion::V3 => 3,
                _ => 2,
            },
            call_timeout: isolation.call_timeout,
        }),
    }
}

/// Sends the instantiate call `write`s in `proxy`'s helper: the proxy as a component pointer
/// when the FMU made an instance; NULL (and the helper kept as `isolation`'s spare) when it
/// returned NULL.
fn instantiate_in(
    isolation: &Isolation,
    mut proxy: Proxy,
    function: u32,
    write: impl FnOnce(&mut isolation::Request<'_>),
) -> isolation::Result<*mut c_void> {
    let status = proxy.call(function, write, |_| Ok(()));
    if let Some(error) = proxy.failure() {
        return Err(error.clone());
    }
    if status != OK {
        if let Ok(mut spare) = isolation.spare.lock() {
            *spare = Some(proxy.into_helper());
        }
        return Ok(std::ptr::null_mut());
    }
    Ok(Box::into_raw(Box::new(proxy)).cast())
}

/// `fmi2Instantiate` of an isolated FMU: starts (or takes) a helper and instantiates there
/// with the same arguments, the resource location translated for the helper
/// (`file:///Z:/…` under Wine). Log records go to `callbacks.logger`, which must stay valid
/// until the instance is freed. Returns the component (a proxy), or NULL when the FMU
/// returned NULL.
///
/// # Errors
/// The transport's, when the helper does not start or dies.
///
/// Spec: FMI 2.0.2 §2.1.5 (`fmi2Instantiate`).
#[allow(clippy::too_many_arguments)] // the arguments of fmi2Instantiate
pub(crate) fn instantiate_fmi2(
    fmu: &Fmu,
    isolation: &Isolation,
    name: &CStr,
    fmu_type: c2::fmi2Type,
    guid: &CStr,
    callbacks: &c2::fmi2CallbackFunctions,
    visible: bool,
    logging_on: bool,
) -> isolation::Result<*mut c_void> {
    let helper = helper_for(fmu, isolation)?;
    let resources = fmu.directory().join("resources");
    let location = match helper.platform().is_windows() {
        true => helper.helper_file_uri(&resources),
        false => file_uri(&resources),
    };
    let log = LogSink::Fmi2 {
        logger: callbacks.logger,
        environment: callbacks.componentEnvironment,
    };
    let proxy = Proxy::new(helper, name, log);
    instantiate_in(isolation, proxy, FN_FMI2_INSTANTIATE, |request| {
        request
            .string(Some(name.to_bytes()))
            .i32(fmu_type)
            .string(Some(guid.to_bytes()))
            .string(Some(location.as_bytes()))
            .i32(i32::from(visible))
            .i32(i32::from(logging_on));
    })
}

/// The FMI 3.0 instantiation arguments an isolated instance passes on.
#[derive(Clone, Copy)]
pub(crate) struct Fmi3Arguments<'a> {
    /// `instanceName`.
    pub(crate) name: &'a CStr,
    /// `instantiationToken`.
    pub(crate) token: &'a CStr,
    /// Whether the FMU has a `resources` folder (`resourcePath` NULL otherwise).
    pub(crate) has_resources: bool,
    /// `visible`, `loggingOn`, `eventModeUsed`, `earlyReturnAllowed`.
    pub(crate) flags: [bool; 4],
    /// `instanceEnvironment`, handed to `log_message` with each record.
    pub(crate) environment: *mut c_void,
    /// `logMessage`.
    pub(crate) log_message: Option<c3::fmi3LogMessageCallback>,
}

/// `fmi3InstantiateCoSimulation` of an isolated FMU: as [`instantiate_fmi2`], with
/// `resourcePath` the helper's path of `<dir>/resources/` (`Z:\…\` under Wine), no required
/// intermediate variables and no intermediate-update callback.
///
/// # Errors
/// The transport's, when the helper does not start or dies.
///
/// Spec: FMI 3.0 `fmi3InstantiateCoSimulation`.
pub(crate) fn instantiate_fmi3(
    fmu: &Fmu,
    isolation: &Isolation,
    arguments: &Fmi3Arguments<'_>,
) -> isolation::Result<*mut c_void> {
    let helper = helper_for(fmu, isolation)?;
    let resources = arguments.has_resources.then(|| {
        let mut path = helper.helper_path(&fmu.directory().join("resources"));
        path.push(if helper.platform().is_windows() {
            '\\'
        } else {
            '/'
        });
        path
    });
    let log = LogSink::Fmi3 {
        log_message: arguments.log_message,
        environment: arguments.environment,
    };
    let proxy = Proxy::new(helper, arguments.name, log);
    let [visible, logging_on, event_mode_used, early_return_allowed] = arguments.flags;
    instantiate_in(
        isolation,
        proxy,
        FN_FMI3_INSTANTIATE_CO_SIMULATION,
        |request| {
            request
                .string(Some(arguments.name.to_bytes()))
                .string(Some(arguments.token.to_bytes()))
                .string(resources.as_deref().map(str::as_bytes))
                .scalar(visible)
                .scalar(logging_on)
                .scalar(event_mode_used)
                .scalar(early_return_allowed)
                .u32s(&[]);
        },
    )
}

/// What an isolated instance's helper did so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelperCalls {
    /// The helper's process id (under Wine: of the Wine process that runs it).
    pub pid: u32,
    /// The helper's platform.
    pub platform: Platform,
    /// Round trips between master and helper so far, instantiation included. With deferred
    /// setters and prefetched getters, a communication step of set inputs, `doStep` and get
    /// outputs is one round trip.
    pub round_trips: u64,
}

/// The helper calls of the isolated instance `component`.
///
/// # Safety
/// `component` must be the live component of an isolated instance (a proxy).
pub(crate) unsafe fn helper_calls(component: *mut c_void) -> Option<HelperCalls> {
    // SAFETY: guaranteed by the caller.
    let proxy = unsafe { proxy::proxy(component) }?;
    Some(HelperCalls {
        pid: proxy.helper().pid(),
        platform: proxy.helper().platform(),
        round_trips: proxy.round_trips(),
    })
}

/// The transport error that ended the helper of the isolated instance `component`, if any.
///
/// # Safety
/// As [`helper_calls`].
pub(crate) unsafe fn failure(component: *mut c_void) -> Option<isolation::Error> {
    // SAFETY: guaranteed by the caller.
    unsafe { proxy::proxy(component) }?.failure().cloned()
}

/// Drops the proxy of an isolated instance without calling `freeInstance` (after Fatal):
/// the helper process is ended and reaped.
///
/// # Safety
/// `component` must be NULL or the component of an isolated instance, not used afterwards.
pub(crate) unsafe fn discard(component: *mut c_void) {
    if !component.is_null() {
        // SAFETY: made by `Box::into_raw` at instantiation, freed only here or by the
        // `freeInstance` proxy (guaranteed by the caller).
        drop(unsafe { Box::from_raw(component.cast::<Proxy>()) });
    }
}
