//! [`ModelExchangeCalls`] of the FMU-backed slaves: an FMI 2.0 instance in an
//! [`FmuSlave`], an FMI 3.0 instance in an [`Fmi3Slave`]. Their value access, FMU states and
//! `terminate` serve the Model Exchange slave as they are; only the Model Exchange calls are
//! added here. And [`instantiate`]: a Model Exchange slave of a loaded FMU.
//!
//! Spec: FMI 2.0.2 §3.2, FMI 3.0 §3.2.

use std::sync::Arc;

use fmi::{Fmi3InstantiateOptions, FmiVersion, Fmu, InstantiateOptions};

use super::{EventUpdate, MeOptions, MeSlave, ModelExchangeCalls, StepEnd};
use crate::fmi3_slave::Fmi3Slave;
use crate::fmu_slave::FmuSlave;
use crate::slave::Slave;
use crate::{Error, Result};

/// An FMI call's result as the master's, naming `slave`.
fn fmi<T>(slave: &str, result: fmi::Result<T>) -> Result<T> {
    result.map_err(|source| Error::Fmi {
        slave: slave.to_string(),
        source: Box::new(source),
    })
}

/// The name of the derivative of state `index` of `fmu`.
fn derivative_name(fmu: &Fmu, index: usize) -> String {
    let d = fmu.description();
    d.continuous_states
        .get(index)
        .and_then(|s| d.variables.get(s.derivative_index.wrapping_sub(1)))
        .map_or_else(|| format!("derivative {index}"), |v| v.name.clone())
}

macro_rules! model_exchange_calls {
    ($slave:ty, $update:ident) => {
        impl ModelExchangeCalls for $slave {
            fn number_of_continuous_states(&self) -> usize {
                self.fmu().description().continuous_states.len()
            }
            fn number_of_event_indicators(&self) -> usize {
                self.fmu().description().number_of_event_indicators
            }
            fn derivative_name(&self, index: usize) -> String {
                derivative_name(self.fmu(), index)
            }
            fn set_time(&mut self, t: f64) -> Result<()> {
                let r = self.instance_mut().set_time(t);
                fmi(self.name(), r).map(drop)
            }
            fn set_continuous_states(&mut self, x: &[f64]) -> Result<()> {
                let r = self.instance_mut().set_continuous_states(x);
                fmi(self.name(), r).map(drop)
            }
            fn get_continuous_states(&mut self, x: &mut [f64]) -> Result<()> {
                let r = self.instance_mut().get_continuous_states(x);
                fmi(self.name(), r).map(drop)
            }
            fn get_derivatives(&mut self, dx: &mut [f64]) -> Result<()> {
                let r = self.instance_mut().get_derivatives(dx);
                fmi(self.name(), r).map(drop)
            }
            fn get_event_indicators(&mut self, g: &mut [f64]) -> Result<()> {
                let r = self.instance_mut().get_event_indicators(g);
                fmi(self.name(), r).map(drop)
            }
            fn get_nominals_of_continuous_states(&mut self, nominals: &mut [f64]) -> Result<()> {
                let r = self
                    .instance_mut()
                    .get_nominals_of_continuous_states(nominals);
                fmi(self.name(), r).map(drop)
            }
            fn enter_event_mode(&mut self) -> Result<()> {
                let r = self.instance_mut().enter_event_mode();
                fmi(self.name(), r).map(drop)
            }
            fn enter_continuous_time_mode(&mut self) -> Result<()> {
                let r = self.instance_mut().enter_continuous_time_mode();
                fmi(self.name(), r).map(drop)
            }
            fn completed_integrator_step(&mut self, no_set_prior: bool) -> Result<StepEnd> {
                let r = self.instance_mut().completed_integrator_step(no_set_prior);
                let end = fmi(self.name(), r)?;
                Ok(StepEnd {
                    enter_event_mode: end.enter_event_mode,
                    terminate_simulation: end.terminate_simulation,
                })
            }
            fn update_discrete_states(&mut self) -> Result<EventUpdate> {
                let r = self.instance_mut().$update();
                fmi(self.name(), r).map(EventUpdate::from)
            }
            fn no_state_held(&self) -> bool {
                <$slave>::no_state_held(self)
            }
        }
    };
}

model_exchange_calls!(FmuSlave, new_discrete_states);
model_exchange_calls!(Fmi3Slave, update_discrete_states);

/// A Model Exchange slave named `name` of `fmu` (loaded for Model Exchange), with the
/// integrator settings `options`; `logging_on` is passed to the instantiate call.
///
/// # Errors
/// [`Error::Fmi`] when the FMU cannot be instantiated.
pub(crate) fn instantiate(
    name: &str,
    fmu: &Arc<Fmu>,
    options: MeOptions,
    logging_on: bool,
) -> Result<MeSlave> {
    let inner: Box<dyn ModelExchangeCalls> = if fmu.description().fmi_version == FmiVersion::V3 {
        let instance_options = Fmi3InstantiateOptions {
            visible: false,
            logging_on,
            event_mode_used: false,
            early_return_allowed: false,
        };
        let instance = fmu.instantiate_fmi3_model_exchange(name, &instance_options);
        Box::new(Fmi3Slave::new(
            name.to_string(),
            fmi(name, instance)?,
            false,
        ))
    } else {
        let instance_options = InstantiateOptions {
            visible: false,
            logging_on,
        };
        let instance = fmu.instantiate_model_exchange(name, &instance_options);
        Box::new(FmuSlave::new(name.to_string(), fmi(name, instance)?))
    };
    Ok(MeSlave::new(inner, options).hold_early_inputs(fmu.description()))
}
