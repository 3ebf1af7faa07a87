//! Raw FFI: hand-written C typedefs per FMI version, the function table resolved once per shared
//! library, the logger callback and the C allocator.
//!
//! Nothing here is shared between versions (FMI 1.0 `fmiBoolean` is `char`, FMI 2.0
//! `fmi2Boolean` is `int`). Each table owns its `Library`; the table lives inside the `Fmu`, which
//! every instance holds through an `Arc`, so the library is unloaded only after the last
//! instance is freed.
//!
//! Spec: FMI 2.0.2 §2.1 (C API), FMI 1.0 for Co-Simulation §4, FMI 3.0 `fmi3FunctionTypes.h`.

pub(crate) mod fmi1;
pub(crate) mod fmi2;
pub(crate) mod fmi3;

use std::ffi::{CStr, c_char, c_int, c_void};
use std::fmt;
use std::path::Path;

use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};

use crate::{Error, FmiVersion, Interface, ModelDescription, Result};

/// The function table of one loaded shared library: FMI 1.0/2.0, called through
/// [`crate::Instance`], or FMI 3.0, called through [`crate::Instance3`].
///
/// Two levels rather than one enum with three variants, so that the FMI 1.0/2.0 instance code
/// matches on [`Functions`] alone and never has to name the FMI 3.0 table.
pub(crate) enum FunctionTable {
    /// FMI 1.0 or 2.0 (FMI 2.0: co-simulation or Model Exchange).
    Legacy(Functions),
    /// FMI 3.0 (co-simulation or Model Exchange).
    V3(fmi3::Fmi3Functions),
}

impl fmt::Debug for FunctionTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FunctionTable::Legacy(Functions::V1(_)) => f.write_str("Functions::V1"),
            FunctionTable::Legacy(Functions::V2(_)) => f.write_str("Functions::V2"),
            FunctionTable::V3(_) => f.write_str("Functions::V3"),
        }
    }
}

impl FunctionTable {
    /// Loads the shared library at `path` and resolves the function table for the FMI version
    /// of `description`. Capabilities whose functions are missing are switched off in
    /// `description` (with a warning).
    ///
    /// Only the functions of `interface` are required (FMI 1.0: co-simulation only).
    pub(crate) fn load(
        path: &Path,
        description: &mut ModelDescription,
        interface: Interface,
    ) -> Result<Self> {
        let library = open_library(path)?;
        Self::resolve(Symbols::Library(library), path, description, interface)
    }

    /// Resolves the function table of `description`'s FMI version from `symbols` (a loaded
    /// library, or the proxy functions of an isolated FMU), with the required functions and
    /// capability checks of [`FunctionTable::load`]. `path` names the library in messages.
    ///
    /// # Errors
    /// [`Error::MissingSymbol`] for a required function (proxies of FMI 1.0 functions do not
    /// exist: an FMI 1.0 table from proxies is refused naming `fmiInstantiateSlave`).
    pub(crate) fn resolve(
        symbols: Symbols<'_>,
        path: &Path,
        description: &mut ModelDescription,
        interface: Interface,
    ) -> Result<Self> {
        let capabilities = &mut description.capabilities;
        match (description.fmi_version, symbols) {
            (FmiVersion::V1, Symbols::Library(library)) => {
                fmi1::Fmi1Functions::load(library, path, &description.model_identifier)
                    .map(|f| FunctionTable::Legacy(Functions::V1(f)))
            }
            (FmiVersion::V1, Symbols::Proxies(_)) => Err(Error::MissingSymbol {
                library: path.to_owned(),
                symbol: format!("{}_fmiInstantiateSlave", description.model_identifier),
            }),
            (FmiVersion::V2, symbols) => {
                fmi2::Fmi2Functions::load(symbols, path, capabilities, interface)
                    .map(|f| FunctionTable::Legacy(Functions::V2(f)))
            }
            (FmiVersion::V3, symbols) => {
                fmi3::Fmi3Functions::load(symbols, path, capabilities, interface)
                    .map(FunctionTable::V3)
            }
        }
    }

    /// `fmi2GetTypesPlatform` / `fmiGetTypesPlatform`, when exported (FMI 3.0 has none).
    pub(crate) fn types_platform(&self) -> Option<String> {
        let function = match self {
            FunctionTable::Legacy(Functions::V1(f)) => f.get_types_platform?,
            FunctionTable::Legacy(Functions::V2(f)) => f.get_types_platform?,
            FunctionTable::V3(_) => return None,
        };
        // SAFETY: the function takes no arguments and returns a pointer to a static,
        // NUL-terminated string (or NULL, which `copy_c_string` handles); it may be called
        // at any time, even without an instance (FMI 2.0.2 §2.1.4, FMI 1.0 CS §4.1).
        unsafe { copy_c_string(function()) }
    }

    /// `fmi3GetVersion` / `fmi2GetVersion` / `fmiGetVersion`, when exported.
    pub(crate) fn version(&self) -> Option<String> {
        let function = match self {
            FunctionTable::Legacy(Functions::V1(f)) => f.get_version?,
            FunctionTable::Legacy(Functions::V2(f)) => f.get_version?,
            FunctionTable::V3(f) => f.table.get_version?,
        };
        // SAFETY: as in `types_platform`: no arguments, a static string or NULL in return
        // (FMI 3.0 `fmi3GetVersion` may also be called at any time).
        unsafe { copy_c_string(function()) }
    }
}

/// The FMI 1.0 or 2.0 function table of one loaded shared library.
pub(crate) enum Functions {
    /// FMI 1.0 co-simulation.
    V1(fmi1::Fmi1Functions),
    /// FMI 2.0 co-simulation.
    V2(fmi2::Fmi2Functions),
}

/// Opens a shared library with `RTLD_NOW | RTLD_LOCAL`.
///
/// `RTLD_NOW` reports unresolved dependencies at load time, not at the first call;
/// `RTLD_LOCAL` keeps the FMU's symbols (the same `fmi2*` names in every FMU) out of the global
/// namespace. No `RTLD_DEEPBIND`, so that sanitizers keep intercepting the FMU's allocations.
fn open_library(path: &Path) -> Result<Library> {
    // SAFETY: dlopen runs the library's initialisation routines (and later its finalisers).
    // Running the FMU's native code is the purpose of this crate: the user chose this FMU, and
    // from here on its code is trusted like any other FFI dependency.
    unsafe { Library::open(Some(path.as_os_str()), RTLD_NOW | RTLD_LOCAL) }.map_err(|error| {
        Error::LoadLibrary {
            library: path.to_owned(),
            message: error_chain(&error),
        }
    })
}

/// An error's message followed by those of its sources (libloading puts the dlerror text in
/// the source).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}

/// Where the functions of a table come from.
pub(crate) enum Symbols<'a> {
    /// The symbols of a loaded shared library.
    Library(Library),
    /// The proxy functions of an isolated FMU (module `isolated`): the address of the
    /// proxy for an FMI symbol name, `None` when the helper's library does not export it.
    /// The proxy of a name has exactly the C prototype of the FMI function of that name.
    Proxies(&'a dyn Fn(&str) -> Option<*const c_void>),
}

impl Symbols<'_> {
    /// The library, for the table to own; `None` for proxies.
    pub(crate) fn into_library(self) -> Option<Library> {
        match self {
            Symbols::Library(library) => Some(library),
            Symbols::Proxies(_) => None,
        }
    }
}

/// Looks up symbols `<prefix><name>` in one library (or among the proxies of an isolated FMU).
pub(crate) struct Resolver<'a> {
    pub(crate) symbols: &'a Symbols<'a>,
    pub(crate) path: &'a Path,
    pub(crate) prefix: &'a str,
}

impl Resolver<'_> {
    /// The function `<prefix><name>`, or `None` when the library does not export it (or
    /// exports it as NULL).
    ///
    /// # Safety
    /// `T` must be an `unsafe extern "C" fn` pointer type matching the C prototype of the symbol.
    pub(crate) unsafe fn optional<T: Copy>(&self, name: &str) -> Option<T> {
        let symbol = format!("{}{name}", self.prefix);
        match self.symbols {
            Symbols::Library(library) => {
                // SAFETY: `Option<T>` of a function-pointer type `T` (caller's guarantee) has
                // the layout of a nullable pointer, so reading the symbol's address as
                // `Option<T>` is sound and a NULL address becomes `None`.
                let found = unsafe { library.get::<Option<T>>(symbol.as_str()) };
                found.ok().and_then(|s| *s)
            }
            Symbols::Proxies(proxy) => {
                const { assert!(size_of::<T>() == size_of::<*const c_void>()) };
                // SAFETY: `T` is a function-pointer type of the symbol's prototype (caller's
                // guarantee), and the proxy of that name has that prototype (`Symbols`); a
                // function pointer and a data pointer have the same size on supported
                // platforms (checked above).
                proxy(&symbol).map(|address| unsafe { std::mem::transmute_copy(&address) })
            }
        }
    }

    /// Like [`Resolver::optional`], but a missing symbol is an [`Error::MissingSymbol`].
    ///
    /// # Safety
    /// As for [`Resolver::optional`].
    pub(crate) unsafe fn required<T: Copy>(&self, name: &str) -> Result<T> {
        // SAFETY: forwarded from the caller.
        unsafe { self.optional(name) }.ok_or_else(|| Error::MissingSymbol {
            library: self.path.to_owned(),
            symbol: format!("{}{name}", self.prefix),
        })
    }
}

/// Switches a declared capability off when its functions are missing, with a warning.
pub(crate) fn downgrade(
    path: &Path,
    flag: &mut bool,
    present: bool,
    attribute: &str,
    functions: &str,
) {
    if *flag && !present {
        log::warn!(
            "{}: declares {attribute}=\"true\" but does not export {functions}; \
             treating the capability as absent",
            path.display()
        );
        *flag = false;
    }
}

/// Copies a C string returned by an FMU; `None` for NULL.
///
/// # Safety
/// `ptr` must be NULL or point to a NUL-terminated string that stays valid during this call.
pub(crate) unsafe fn copy_c_string(ptr: *const c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: non-NULL and NUL-terminated, guaranteed by the caller.
    Some(
        unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// Copies a C string returned by an FMU into `target`, replacing its contents; false (and
/// `target` unchanged) for NULL. Invalid UTF-8 becomes U+FFFD, as in
/// [`String::from_utf8_lossy`]. Allocates only when the copied text does not fit in `target`'s
/// capacity.
///
/// # Safety
/// `ptr` must be NULL or point to a NUL-terminated string that stays valid during this call.
pub(crate) unsafe fn copy_c_string_into(ptr: *const c_char, target: &mut String) -> bool {
    if ptr.is_null() {
        return false;
    }
    // SAFETY: non-NULL and NUL-terminated, guaranteed by the caller.
    let bytes = unsafe { CStr::from_ptr(ptr) }.to_bytes();
    target.clear();
    for chunk in bytes.utf8_chunks() {
        target.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            target.push(char::REPLACEMENT_CHARACTER);
        }
    }
    true
}

// ------------------------------------------------------------------------------------------
// Callbacks handed to the FMU
// ------------------------------------------------------------------------------------------

unsafe extern "C" {
    /// The C shim in `src/logger.c`: formats the printf-style message and forwards it to
    /// [`mastersim_fmi_log_message`]. Serves as both `fmiCallbackLogger` and
    /// `fmi2CallbackLogger` (identical ABI: pointer, string, int, string, string, ...).
    fn mastersim_fmi_logger(
        component: *mut c_void,
        instance_name: *const c_char,
        status: c_int,
        category: *const c_char,
        message: *const c_char,
        ...
    );
    /// C `calloc`, the FMU's `allocateMemory`.
    fn calloc(nobj: usize, size: usize) -> *mut c_void;
    /// C `free`, the FMU's `freeMemory`.
    fn free(obj: *mut c_void);
}

/// Callback table for FMI 2.0; boxed because the FMU may keep the pointer until
/// `fmi2FreeInstance`. Spec: FMI 2.0.2 §2.1.5 (`fmi2CallbackFunctions`).
pub(crate) fn fmi2_callbacks() -> Box<fmi2::fmi2CallbackFunctions> {
    Box::new(fmi2::fmi2CallbackFunctions {
        logger: mastersim_fmi_logger,
        allocateMemory: calloc,
        freeMemory: free,
        stepFinished: None,
        componentEnvironment: std::ptr::null_mut(),
    })
}

/// Callback table for FMI 1.0 CS (passed by value). Spec: FMI 1.0 CS §4.1.
pub(crate) fn fmi1_callbacks() -> fmi1::fmiCallbackFunctions {
    fmi1::fmiCallbackFunctions {
        logger: mastersim_fmi_logger,
        allocateMemory: calloc,
        freeMemory: free,
        stepFinished: None,
    }
}

/// Called by the C shim with the formatted message. Never unwinds into C.
#[unsafe(no_mangle)]
extern "C" fn mastersim_fmi_log_message(
    instance_name: *const c_char,
    status: c_int,
    category: *const c_char,
    message: *const c_char,
) {
    // A panic (for example in a log backend) must not cross into the FMU's C code.
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: the shim passes NULL or NUL-terminated strings that stay valid during this
        // call (the FMU's own strings, or the shim's formatting buffer).
        let (instance, category, message) = unsafe {
            (
                copy_c_string(instance_name),
                copy_c_string(category),
                copy_c_string(message),
            )
        };
        log_fmu_message(
            instance.as_deref().unwrap_or(""),
            status,
            category.as_deref().unwrap_or(""),
            message.as_deref().unwrap_or(""),
        );
    });
}

/// The FMI 3.0 `logMessage` callback: forwards the (already formatted) message to the `log`
/// crate like the FMI 1.0/2.0 shim does. Never unwinds into C.
///
/// `instance_environment` is what the instance passed to `fmi3InstantiateCoSimulation`: NULL
/// or its NUL-terminated instance name, which lives until after `fmi3FreeInstance`.
///
/// Spec: FMI 3.0 `fmi3LogMessageCallback`.
pub(crate) extern "C" fn fmi3_log_message(
    instance_environment: fmi3::fmi3InstanceEnvironment,
    status: fmi3::fmi3Status,
    category: fmi3::fmi3String,
    message: fmi3::fmi3String,
) {
    // A panic (for example in a log backend) must not cross into the FMU's C code.
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: the instance environment is NULL or the instance's NUL-terminated name (see
        // above); category and message are NULL or NUL-terminated strings that the FMU keeps
        // valid during this call.
        let (instance, category, message) = unsafe {
            (
                copy_c_string(instance_environment.cast_const().cast::<c_char>()),
                copy_c_string(category),
                copy_c_string(message),
            )
        };
        log_fmu_message(
            instance.as_deref().unwrap_or(""),
            status,
            category.as_deref().unwrap_or(""),
            message.as_deref().unwrap_or(""),
        );
    });
}

/// Logs one FMU message with target `fmu`: Warning as `warn`, Error and Fatal as `error`,
/// everything else as `info`. Status codes are the same in FMI 1.0, 2.0 and 3.0. While
/// [`HeldMessages`] holds this thread's messages, the message is kept instead.
fn log_fmu_message(instance: &str, status: c_int, category: &str, message: &str) {
    let level = match status {
        1 => log::Level::Warn,
        3 | 4 => log::Level::Error,
        _ => log::Level::Info,
    };
    let text = format!("[{instance}:{category}] {message}");
    let kept = HELD.with(|held| match held.borrow_mut().as_mut() {
        Some(messages) => {
            messages.push((level, text.clone()));
            true
        }
        None => false,
    });
    if !kept {
        log::log!(target: "fmu", level, "{text}");
    }
}

thread_local! {
    /// The FMU messages held on this thread, while a [`HeldMessages`] exists.
    static HELD: std::cell::RefCell<Option<Vec<(log::Level, String)>>> =
        const { std::cell::RefCell::new(None) };
}

/// Holds the FMU log messages of this thread (those an FMU sends from inside a call made on
/// it) until they are released: for a call whose failure is tolerated, so that a message
/// about a refusal the master works around is not shown as an error. Dropping it logs what
/// was held, as it would have been logged.
pub(crate) struct HeldMessages(());

impl HeldMessages {
    /// Starts holding this thread's FMU messages.
    pub(crate) fn start() -> HeldMessages {
        HELD.with(|held| *held.borrow_mut() = Some(Vec::new()));
        HeldMessages(())
    }

    /// Stops holding and returns the messages held (level and text), without logging them.
    pub(crate) fn take(self) -> Vec<(log::Level, String)> {
        let messages = HELD
            .with(|held| held.borrow_mut().take())
            .unwrap_or_default();
        std::mem::forget(self);
        messages
    }

    /// Logs `messages` (from [`HeldMessages::take`]) as they would have been logged.
    pub(crate) fn log(messages: Vec<(log::Level, String)>) {
        for (level, text) in messages {
            log::log!(target: "fmu", level, "{text}");
        }
    }
}

impl Drop for HeldMessages {
    fn drop(&mut self) {
        HeldMessages::log(
            HELD.with(|held| held.borrow_mut().take())
                .unwrap_or_default(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Capabilities;
    use std::ffi::CString;
    use std::sync::Mutex;

    /// Collects every record logged with target `fmu`.
    struct Capture(Mutex<Vec<(log::Level, String)>>);

    impl log::Log for Capture {
        fn enabled(&self, _: &log::Metadata<'_>) -> bool {
            true
        }
        fn log(&self, record: &log::Record<'_>) {
            if record.target() == "fmu" {
                self.0
                    .lock()
                    .unwrap()
                    .push((record.level(), record.args().to_string()));
            }
        }
        fn flush(&self) {}
    }

    static CAPTURE: Capture = Capture(Mutex::new(Vec::new()));

    /// The C shim formats printf arguments, including messages longer than its stack buffer.
    #[test]
    fn logger_shim_formats_and_does_not_truncate() {
        let _ = log::set_logger(&CAPTURE);
        log::set_max_level(log::LevelFilter::Trace);
        let name = CString::new("inst").unwrap();
        let category = CString::new("cat").unwrap();
        let format = CString::new("value %d and %s").unwrap();
        let long = CString::new("x".repeat(5000)).unwrap();
        // SAFETY: all strings are valid NUL-terminated C strings; the format matches the
        // arguments (one int, one string).
        unsafe {
            mastersim_fmi_logger(
                std::ptr::null_mut(),
                name.as_ptr(),
                1,
                category.as_ptr(),
                format.as_ptr(),
                42 as c_int,
                long.as_ptr(),
            );
            mastersim_fmi_logger(
                std::ptr::null_mut(),
                std::ptr::null(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            );
        }
        let records = CAPTURE.0.lock().unwrap();
        let expected = format!("[inst:cat] value 42 and {}", "x".repeat(5000));
        assert!(
            records.contains(&(log::Level::Warn, expected)),
            "{:?}",
            records.len()
        );
        assert!(records.contains(&(log::Level::Info, "[:] ".to_owned())));
    }

    /// The FMI 3.0 callback takes the instance name from the instance environment; NULL
    /// pointers become empty texts.
    #[test]
    fn fmi3_log_message_forwards_with_the_instance_name() {
        let _ = log::set_logger(&CAPTURE);
        log::set_max_level(log::LevelFilter::Trace);
        let name = CString::new("fmi3inst").unwrap();
        let category = CString::new("logStatusError").unwrap();
        let message = CString::new("100% done").unwrap();
        fmi3_log_message(
            name.as_ptr().cast_mut().cast(),
            fmi3::fmi3Error,
            category.as_ptr(),
            message.as_ptr(),
        );
        fmi3_log_message(
            std::ptr::null_mut(),
            fmi3::fmi3Warning,
            std::ptr::null(),
            std::ptr::null(),
        );
        let records = CAPTURE.0.lock().unwrap();
        assert!(records.contains(&(
            log::Level::Error,
            "[fmi3inst:logStatusError] 100% done".to_owned()
        )));
        assert!(records.contains(&(log::Level::Warn, "[:] ".to_owned())));
    }

    /// Same text as `copy_c_string` (invalid UTF-8 included), written into the existing
    /// allocation when it is large enough; NULL leaves the target alone.
    #[test]
    fn copy_c_string_into_reuses_the_target() {
        let mut target = String::with_capacity(16);
        let allocation = target.as_ptr();
        for text in [&b"a\xffb\xe2\x82c\0"[..], b"\0", b"plain ASCII\0"] {
            let c_text = CStr::from_bytes_with_nul(text).unwrap();
            // SAFETY: `c_text` is NUL-terminated and outlives both calls.
            let (copied, expected) = unsafe {
                (
                    copy_c_string_into(c_text.as_ptr(), &mut target),
                    copy_c_string(c_text.as_ptr()),
                )
            };
            assert!(copied);
            assert_eq!(Some(&target), expected.as_ref());
            assert_eq!(target.as_ptr(), allocation);
        }
        assert_eq!(target, "plain ASCII");
        // SAFETY: NULL is allowed.
        assert!(!unsafe { copy_c_string_into(std::ptr::null(), &mut target) });
        assert_eq!(target, "plain ASCII");
    }

    #[test]
    fn downgrade_switches_off_declared_but_missing() {
        let mut caps = Capabilities {
            can_get_and_set_fmu_state: true,
            ..Default::default()
        };
        downgrade(
            Path::new("x.so"),
            &mut caps.can_get_and_set_fmu_state,
            false,
            "a",
            "b",
        );
        assert!(!caps.can_get_and_set_fmu_state);
        let mut flag = true;
        downgrade(Path::new("x.so"), &mut flag, true, "a", "b");
        assert!(flag);
    }
}
