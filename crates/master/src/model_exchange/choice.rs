//! Which interface of its FMU a slave runs, and the integrator settings of a Model Exchange
//! slave, from the project's `fmiType` lines and the FMU's description.
//!
//! - A slave without an `fmiType` line (or with `auto`) runs its FMU as co-simulation when the
//!   FMU offers it, else as Model Exchange; a line chooses, and the FMU must offer what it
//!   chooses. Solver settings of a slave that runs as co-simulation are warned about once.
//! - Integrator settings: the line's, else the method CVODE, the relative tolerance of the
//!   FMU's `DefaultExperiment`, else 1e-6 (FMPy's defaults); the absolute tolerance the
//!   relative one; the largest step the communication step size.
//!
//! Spec: FMPy `simulate_fmu` (`fmi_type`: co-simulation first; `relative_tolerance`), FMI 2.0.2
//! §2.2.1 (the interfaces of a model description, `DefaultExperiment`).

use std::path::Path;

use super::MeOptions;
use crate::project::{FmiType, Project, SolverSettings};
use crate::{Error, Result};

/// The interface that slave `slave` (of the `simulator` line `line`) runs of the FMU at `fmu`
/// with `description`.
///
/// # Errors
/// [`Error::InvalidSetting`] naming the `fmiType` line when the FMU lacks the interface it
/// chooses, or the `simulator` line when the FMU offers neither co-simulation nor Model
/// Exchange.
pub fn interface_of(
    project: &Project,
    slave: &str,
    line: usize,
    fmu: &Path,
    description: &fmi::ModelDescription,
) -> Result<FmiType> {
    let offered = description.interfaces;
    let offers = |t: FmiType| match t {
        FmiType::CoSimulation => offered.co_simulation,
        FmiType::ModelExchange => offered.model_exchange,
    };
    let refusal = |line: usize, reason: String| Error::InvalidSetting {
        at: project.location(Some(line)),
        keyword: "fmiType",
        reason,
    };
    let def = project.fmi_types.iter().find(|d| d.slave == slave);
    if let Some((def, fmi_type)) = def.and_then(|d| Some((d, d.fmi_type?))) {
        if !offers(fmi_type) {
            return Err(refusal(
                def.line,
                format!(
                    "slave '{slave}': FMU '{}' has no {} interface (it offers {})",
                    fmu.display(),
                    fmi_type.keyword(),
                    offered.describe()
                ),
            ));
        }
        return Ok(fmi_type);
    }
    match (offered.co_simulation, offered.model_exchange) {
        (true, _) => {
            if let Some(def) = def.filter(|d| d.solver != SolverSettings::default()) {
                log::warn!(
                    "{}: slave '{slave}' runs its FMU as co-simulation: the Model Exchange solver settings are not used",
                    project.location(Some(def.line))
                );
            }
            Ok(FmiType::CoSimulation)
        }
        (false, true) => Ok(FmiType::ModelExchange),
        (false, false) => Err(refusal(
            line,
            format!(
                "slave '{slave}': FMU '{}' offers neither co-simulation nor Model Exchange (it offers {})",
                fmu.display(),
                offered.describe()
            ),
        )),
    }
}

/// The integrator settings of Model Exchange slave `slave` of an FMU with `description`.
pub fn options_of(
    project: &Project,
    slave: &str,
    description: &fmi::ModelDescription,
) -> MeOptions {
    let defaults = MeOptions::default();
    let settings = project
        .fmi_types
        .iter()
        .find(|d| d.slave == slave)
        .map(|d| d.solver)
        .unwrap_or_default();
    let fmu_tolerance = description
        .default_experiment
        .as_ref()
        .and_then(|e| e.tolerance)
        .filter(|t| t.is_finite() && *t > 0.0);
    MeOptions {
        method: settings.method.unwrap_or(defaults.method),
        rel_tol: settings
            .rel_tol
            .or(fmu_tolerance)
            .unwrap_or(defaults.rel_tol),
        abs_tol: settings.abs_tol,
        max_step: settings.max_step.map(|t| t.seconds),
    }
}
