//! A loaded FMU: model description plus shared library. (CONTRACT STUB: the fmi helper fills it.)

use std::path::Path;
use std::sync::Arc;

use crate::{Instance, InstantiateOptions, ModelDescription, Result};

/// An extracted and loaded FMU, shared by all its instances through `Arc`.
///
/// Spec: FMI 2.0.2 §2.1 / §4.2, FMI 1.0 CS §4.
#[derive(Debug)]
pub struct Fmu {
    description: ModelDescription,
}

impl Fmu {
    /// Parses `<dir>/modelDescription.xml` and loads `<dir>/binaries/linux64/<modelIdentifier>.so`.
    pub fn load(dir: &Path) -> Result<Arc<Fmu>> {
        let _ = dir;
        todo!()
    }
    /// The parsed model description.
    pub fn description(&self) -> &ModelDescription {
        &self.description
    }
    /// The directory the FMU was extracted into.
    pub fn directory(&self) -> &Path {
        todo!()
    }
    /// Creates an instance named `instance_name`.
    pub fn instantiate(self: &Arc<Self>, instance_name: &str, options: &InstantiateOptions) -> Result<Instance> {
        let _ = (instance_name, options);
        todo!()
    }
}
