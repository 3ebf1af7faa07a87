//! Helpers of FMI 3.0 instantiation: the resource path handed to the FMU, the retry without
//! Event Mode for a co-simulation FMU that refuses it, and the instantiation of an isolated FMU.
//!
//! Spec: FMI 3.0 `fmi3InstantiateCoSimulation` (`resourcePath`, `eventModeUsed`).

use std::cell::RefCell;
use std::ffi::CString;

use crate::ffi::{self, fmi3};
use crate::fmu::Isolation;
use crate::{Fmu, isolated};

/// `<directory>/resources/` as a NUL-terminated native path ending in `/`; `Ok(None)` when the
/// FMU has no `resources` folder.
pub(super) fn resource_path(fmu: &Fmu) -> std::result::Result<Option<CString>, std::ffi::NulError> {
    use std::os::unix::ffi::OsStringExt;
    let resources = fmu.directory().join("resources");
    if !resources.is_dir() {
        return Ok(None);
    }
    let mut bytes = resources.into_os_string().into_vec();
    bytes.push(b'/');
    CString::new(bytes).map(Some)
}

/// Instantiates with Event Mode through `instantiate` (called with `eventModeUsed`), and when
/// the FMU returns NULL although it declares `hasEventMode` (a published Reference FMU does),
/// once more without Event Mode. The second instance is taken with one warning that says what
/// was assumed and what the FMU logged about the refusal (held until then, so that it is not
/// shown as an error of the run). Returns the instance (NULL when both calls failed, after
/// logging what the FMU said) and whether it uses Event Mode.
///
/// Spec: FMI 3.0 `fmi3InstantiateCoSimulation` (`eventModeUsed` only when `hasEventMode`);
/// FMPy also instantiates such FMUs without Event Mode.
pub(super) fn without_event_mode_if_refused(
    name: &str,
    fmu: &Fmu,
    instantiate: impl Fn(bool) -> fmi3::fmi3Instance,
) -> (fmi3::fmi3Instance, bool) {
    let held = ffi::HeldMessages::start();
    let instance = instantiate(true);
    if !instance.is_null() {
        return (instance, true);
    }
    let said = held.take();
    let retried = instantiate(false);
    if retried.is_null() {
        ffi::HeldMessages::log(said);
        return (retried, false);
    }
    let said: Vec<&str> = said.iter().map(|(_, text)| text.as_str()).collect();
    let said = if said.is_empty() {
        String::new()
    } else {
        format!(" (it logged: {})", said.join("; "))
    };
    log::warn!(
        target: "fmi3",
        "instance '{name}' of FMU {}: fmi3InstantiateCoSimulation returned NULL with \
         eventModeUsed = true although the FMU declares hasEventMode=\"true\"{said}; \
         instantiated without Event Mode, so the FMU handles its events inside its steps",
        fmu.directory().display()
    );
    (retried, false)
}

/// `fmi3InstantiateCoSimulation` of an isolated FMU (in a helper process), with the retry
/// without Event Mode of [`without_event_mode_if_refused`] when `arguments` ask for Event Mode:
/// the instance (a proxy, or NULL when the FMU returned NULL) and whether it uses Event Mode.
///
/// # Errors
/// The transport's, when the helper does not start or dies.
pub(super) fn isolated(
    name: &str,
    fmu: &Fmu,
    isolation: &Isolation,
    arguments: isolated::Fmi3Arguments<'_>,
) -> isolation::Result<(fmi3::fmi3Instance, bool)> {
    let event_mode_used = arguments.flags[2];
    let transport = RefCell::new(None);
    let instantiate = |event_mode_used: bool| {
        if transport.borrow().is_some() {
            // The helper died: no retry without Event Mode.
            return std::ptr::null_mut();
        }
        let mut arguments = arguments;
        arguments.flags[2] = event_mode_used;
        isolated::instantiate_fmi3(fmu, isolation, &arguments).unwrap_or_else(|error| {
            transport.replace(Some(error));
            std::ptr::null_mut()
        })
    };
    let made = if event_mode_used {
        without_event_mode_if_refused(name, fmu, instantiate)
    } else {
        (instantiate(false), false)
    };
    match transport.take() {
        Some(error) => Err(error),
        None => Ok(made),
    }
}
