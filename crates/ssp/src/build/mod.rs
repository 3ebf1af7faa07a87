//! From a read SSD to the project that runs it: nested systems flattened, every component's
//! FMU read and its connectors checked against it, signal dictionary references resolved,
//! then the connections (`connections`), the parameter bindings (`parameters`) and the time
//! settings.
//!
//! Spec: SSP 2.0 §5.2 (elements and connectors, checked against the FMU), §5.3 (systems,
//! connections, signal dictionaries), §5.2.3 (parameter bindings), §4.4.2 (unit conversion),
//! §6–§8; the same in SSP 1.0.

mod connections;
mod parameter_values;
mod parameters;
mod transfer;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use fmi::{ModelDescription, ScalarVariable};
use master::project::{
    Communication, CommunicationDef, FmiTypeDef, Project, SimulatorDef, SolverSettings,
    TimeSetting, TimeUnit,
};

use crate::common::{Enumeration, Unit};
use crate::error::{Result, SspError};
use crate::ssd::{self, Component, Element, Ssd};
use crate::types::{ConnectorType, Extent};
use crate::{LoadOptions, System, values};

#[cfg(test)]
pub(crate) use transfer::Transfer;

/// A component with what the build needs of it.
struct Comp<'a> {
    /// The SSD element.
    element: &'a Component,
    /// The system it is in (index into `Builder::systems`).
    system: usize,
    /// Slave name in the project.
    slave: String,
    /// The FMU file.
    fmu: PathBuf,
    /// Its model description.
    description: ModelDescription,
}

/// A system with its place in the hierarchy.
struct Sys<'a> {
    element: &'a ssd::System,
    /// Dotted path of element names from the top-level system (empty for it).
    path: String,
    /// The system that holds it (`None` for the top-level system).
    parent: Option<usize>,
    /// Its components (indices into `Builder::comps`), nested systems (into `systems`) and
    /// signal dictionary references (into `refs`), by element name.
    children: HashMap<&'a str, Child>,
}

/// A signal dictionary reference, resolved.
struct Ref {
    /// The dictionary: the system that declares it and its position there.
    dictionary: (usize, usize),
    /// Its connectors, each with the type of its entry where it states none.
    connectors: Vec<ssd::Connector>,
}

#[derive(Clone, Copy)]
enum Child {
    Comp(usize),
    Sys(usize),
    Ref(usize),
}

/// An FMU variable a connector or parameter names: a scalar, or the elements of an FMI 3.0
/// array in row-major order.
pub(crate) enum FmuVariable<'d> {
    /// A scalar variable.
    Scalar(&'d ScalarVariable),
    /// The elements of an array variable.
    Array(Vec<&'d ScalarVariable>),
}

impl<'d> FmuVariable<'d> {
    /// The first (or only) scalar: its type is the variable's.
    pub fn first(&self) -> &'d ScalarVariable {
        match self {
            FmuVariable::Scalar(v) => v,
            FmuVariable::Array(elements) => elements[0],
        }
    }
}

/// The variable named `name`: a scalar of that name (the first, when an FMU repeats a name),
/// else the elements of the FMI 3.0 array of that name.
pub(crate) fn fmu_variable<'d>(
    description: &'d ModelDescription,
    name: &str,
) -> Option<FmuVariable<'d>> {
    if let Some(v) = description.variables.iter().find(|v| v.name == name) {
        return Some(FmuVariable::Scalar(v));
    }
    let mut elements: Vec<&ScalarVariable> = description
        .variables
        .iter()
        .filter(|v| v.array.as_ref().is_some_and(|a| a.array == name))
        .collect();
    elements.sort_by_key(|v| v.array.as_ref().map(|a| a.offset));
    (!elements.is_empty()).then_some(FmuVariable::Array(elements))
}

struct Builder<'a> {
    ssd: &'a Ssd,
    systems: Vec<Sys<'a>>,
    comps: Vec<Comp<'a>>,
    refs: Vec<Ref>,
    units: HashMap<String, Unit>,
    not_in_msim: Vec<String>,
    /// FMU inputs connected to a connector that no connection drives (reported once the
    /// parameter bindings are known).
    undriven: Vec<connections::Undriven>,
    /// The (file, unit) pairs already warned about as undeclared.
    warned_units: RefCell<HashSet<(PathBuf, String)>>,
}

/// Builds the project of `ssd` (see the crate documentation).
pub(crate) fn build(ssd: &Ssd, options: &LoadOptions) -> Result<System> {
    let mut b = Builder {
        ssd,
        systems: Vec::new(),
        comps: Vec::new(),
        refs: Vec::new(),
        units: HashMap::new(),
        not_in_msim: Vec::new(),
        undriven: Vec::new(),
        warned_units: RefCell::new(HashSet::new()),
    };
    for unit in &ssd.units {
        b.units
            .entry(unit.name.clone())
            .or_insert_with(|| unit.clone());
    }
    b.collect(&ssd.system, String::new(), None)?;
    b.name_slaves();
    let mut project = Project::with_defaults(ssd.path.clone());
    b.settings(&mut project);
    for comp in &b.comps {
        project.simulators.push(SimulatorDef {
            index: project.simulators.len() as i64,
            cycle: 0,
            name: comp.slave.clone(),
            color: 0xff44_7cb4,
            path_text: comp.fmu.to_string_lossy().into_owned(),
            path: comp.fmu.clone(),
            line: comp.element.line,
        });
        if let Some(fmi_type) = comp.element.implementation {
            project.fmi_types.push(FmiTypeDef {
                slave: comp.slave.clone(),
                fmi_type: Some(fmi_type),
                solver: SolverSettings::default(),
                line: comp.element.line,
            });
        }
        if let Some((h, line)) = comp.element.step_size_hint {
            project.communication.push(CommunicationDef {
                slave: comp.slave.clone(),
                setting: Communication::Interval(TimeSetting::new(h, TimeUnit::Second, Some(line))),
                line,
            });
        }
    }
    b.connections(&mut project)?;
    b.parameters(&mut project, options)?;
    b.report_undriven(&project);
    Ok(System {
        project,
        not_in_msim: b.not_in_msim,
        files: Vec::new(),
    })
}

/// A slave name the `.msim` format accepts: blanks, dots, quotes and `#` become `_`.
pub(crate) fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_whitespace() || matches!(c, '.' | '"' | '\'' | '#') {
                '_'
            } else {
                c
            }
        })
        .collect();
    if s.is_empty() { "_".into() } else { s }
}

impl<'a> Builder<'a> {
    /// Walks the systems depth first, reading every component's FMU and resolving every
    /// signal dictionary reference.
    fn collect(
        &mut self,
        system: &'a ssd::System,
        path: String,
        parent: Option<usize>,
    ) -> Result<usize> {
        let index = self.systems.len();
        self.systems.push(Sys {
            element: system,
            path: path.clone(),
            parent,
            children: HashMap::new(),
        });
        for element in &system.elements {
            let child = match element {
                Element::Component(c) => {
                    let (fmu, description) = self.read_fmu(c)?;
                    self.check_connectors(c, &description)?;
                    self.comps.push(Comp {
                        element: c,
                        system: index,
                        slave: String::new(),
                        fmu,
                        description,
                    });
                    Child::Comp(self.comps.len() - 1)
                }
                Element::System(s) => {
                    let sub = if path.is_empty() {
                        s.name.clone()
                    } else {
                        format!("{path}.{}", s.name)
                    };
                    Child::Sys(self.collect(s, sub, Some(index))?)
                }
                Element::Reference(r) => {
                    let resolved = self.resolve_reference(r, index)?;
                    self.refs.push(resolved);
                    Child::Ref(self.refs.len() - 1)
                }
            };
            self.systems[index].children.insert(element.name(), child);
        }
        Ok(index)
    }

    /// The FMU file of component `c` and its model description.
    fn read_fmu(&self, c: &Component) -> Result<(PathBuf, ModelDescription)> {
        let element = format!("Component '{}'", c.name);
        let fmu = values::resolve(
            &c.file,
            c.line,
            &element,
            (c.file.parent().unwrap_or(Path::new(".")), &self.ssd.scope),
            &c.source,
        )?;
        if !fmu.is_file() {
            return Err(SspError::at(
                &c.file,
                c.line,
                element,
                format!(
                    "the FMU '{}' {}",
                    fmu.display(),
                    output::input::why_not_a_file(&fmu)
                ),
            ));
        }
        // Any interface: the component's `implementation` (or the default choice) picks the one
        // the slave runs, and an interface the FMU lacks is refused when its slave is loaded.
        let description = fmi::archive::describe(&fmu, &fmi::archive::ExtractOptions::default())
            .map_err(|e| {
                SspError::at(
                    &c.file,
                    c.line,
                    element,
                    format!("cannot read the FMU: {e}"),
                )
            })?
            .description;
        Ok((fmu, description))
    }

    /// The dictionary that reference `r` (in system `system`) names, looked up in its system
    /// and then in each enclosing one, and its connectors typed by their entries.
    fn resolve_reference(&self, r: &ssd::Reference, system: usize) -> Result<Ref> {
        let element = format!("SignalDictionaryReference '{}'", r.name);
        let mut at = Some(system);
        let dictionary = loop {
            let Some(s) = at else {
                return Err(SspError::at(
                    &r.file,
                    r.line,
                    element,
                    format!(
                        "no enclosing system declares the signal dictionary '{}'",
                        r.dictionary
                    ),
                ));
            };
            let dictionaries = &self.systems[s].element.dictionaries;
            if let Some(d) = dictionaries.iter().position(|d| d.name == r.dictionary) {
                break (s, d);
            }
            at = self.systems[s].parent;
        };
        let declared = &self.systems[dictionary.0].element.dictionaries[dictionary.1];
        let mut connectors = r.connectors.clone();
        for k in &mut connectors {
            let entry = declared.entry(&k.name).ok_or_else(|| {
                SspError::at(
                    &r.file,
                    k.line,
                    format!("{element}/Connector '{}'", k.name),
                    format!(
                        "the signal dictionary '{}' ({}:{}) has no entry '{}'",
                        declared.name,
                        declared.file.display(),
                        declared.line,
                        k.name
                    ),
                )
            })?;
            if k.ty == ConnectorType::Unknown {
                k.ty = entry.ty.clone();
            } else if k.ty.class() != entry.ty.class() {
                return Err(SspError::at(
                    &r.file,
                    k.line,
                    format!("{element}/Connector '{}'", k.name),
                    format!(
                        "the connector is {} but the dictionary entry is {}",
                        k.ty.name(),
                        entry.ty.name()
                    ),
                ));
            }
            if k.dimensions.is_empty() {
                k.dimensions = entry.dimensions.clone();
            }
        }
        Ok(Ref {
            dictionary,
            connectors,
        })
    }

    /// Checks each declared connector of `c` against its FMU: the variable exists, has the
    /// connector's type and, where the connector states them, its array dimensions. A unit
    /// the SSD does not declare is an error.
    fn check_connectors(&self, c: &Component, description: &ModelDescription) -> Result<()> {
        for k in &c.connectors {
            let element = format!("Component '{}'/Connector '{}'", c.name, k.name);
            let error = |message: String| SspError::at(&c.file, k.line, element.clone(), message);
            let variable = fmu_variable(description, &k.name).ok_or_else(|| {
                error(format!(
                    "the FMU '{}' has no variable '{}'",
                    c.source, k.name
                ))
            })?;
            if let Some(unit) = k.ty.unit() {
                self.unit(&c.file, unit, k.line, &element)?;
            }
            let first = variable.first();
            if !k.ty.matches(first.data_type) {
                return Err(error(format!(
                    "the connector is {} but the FMU's variable '{}' is {}",
                    k.ty.name(),
                    k.name,
                    first.data_type.name()
                )));
            }
            if let ConnectorType::Enumeration(name) = &k.ty {
                self.enumeration(&c.file, name, k.line, &element)?;
            }
            check_dimensions(&k.dimensions, &variable).map_err(error)?;
        }
        Ok(())
    }

    fn unit(&self, file: &Path, name: &str, line: usize, element: &str) -> Result<&Unit> {
        self.units.get(name).ok_or_else(|| {
            SspError::at(
                file,
                line,
                element,
                format!("the unit '{name}' is not declared in the SSD's Units"),
            )
        })
    }

    fn enumeration(
        &self,
        file: &Path,
        name: &str,
        line: usize,
        element: &str,
    ) -> Result<&Enumeration> {
        self.ssd
            .enumerations
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| {
                SspError::at(
                    file,
                    line,
                    element,
                    format!("the enumeration '{name}' is not declared in the SSD's Enumerations"),
                )
            })
    }

    /// Gives every component a unique slave name: its own name made valid, prefixed by its
    /// system path where two would clash.
    fn name_slaves(&mut self) {
        let base: Vec<String> = self
            .comps
            .iter()
            .map(|c| sanitize(&c.element.name))
            .collect();
        let mut taken: HashSet<String> = HashSet::new();
        for i in 0..self.comps.len() {
            let clashes = base.iter().filter(|b| **b == base[i]).count() > 1;
            let path = &self.systems[self.comps[i].system].path;
            let mut name = if clashes && !path.is_empty() {
                sanitize(&format!("{path}.{}", self.comps[i].element.name))
            } else {
                base[i].clone()
            };
            let stem = name.clone();
            let mut n = 2;
            while !taken.insert(name.clone()) {
                name = format!("{stem}_{n}");
                n += 1;
            }
            if name != self.comps[i].element.name {
                log::warn!(
                    "{}:{}: component '{}' runs as slave '{name}' (slave names hold no blanks, \
                     dots, quotes or '#' and are unique)",
                    self.comps[i].element.file.display(),
                    self.comps[i].element.line,
                    self.comps[i].element.name
                );
            }
            self.comps[i].slave = name;
        }
    }

    /// Start and stop time from `DefaultExperiment`, the communication step from
    /// `osp:FixedStepAlgorithm`; a row per communication point.
    fn settings(&self, project: &mut Project) {
        let e = &self.ssd.experiment;
        if let Some((t, line)) = e.start {
            project.t_start = TimeSetting::new(t, TimeUnit::Second, Some(line));
        }
        if let Some((t, line)) = e.stop {
            project.t_end = TimeSetting::new(t, TimeUnit::Second, Some(line));
        }
        if let Some((h, line)) = e.base_step {
            project.h_start = TimeSetting::new(h, TimeUnit::Second, Some(line));
            project.h_output_min = TimeSetting::new(h, TimeUnit::Second, Some(line));
        }
    }
}

/// Checks a connector's `Dimension`s against the FMU variable it names: a scalar has none; an
/// array has as many, each of the same size where the connector states a size.
fn check_dimensions(dimensions: &[Extent], variable: &FmuVariable<'_>) -> Result<(), String> {
    if dimensions.is_empty() {
        return Ok(());
    }
    let shape = match variable {
        FmuVariable::Scalar(v) => {
            return Err(format!(
                "the connector has {} dimension(s) but the FMU's variable '{}' is a scalar",
                dimensions.len(),
                v.name
            ));
        }
        FmuVariable::Array(elements) => elements[0]
            .array
            .as_ref()
            .map(|a| a.dimensions.clone())
            .unwrap_or_default(),
    };
    let sizes_differ = dimensions.iter().zip(&shape).any(|(d, n)| match d {
        Extent::Size(size) => *size != *n as u64,
        Extent::Connector(_) | Extent::Open => false,
    });
    if dimensions.len() != shape.len() || sizes_differ {
        let shape: Vec<String> = shape.iter().map(usize::to_string).collect();
        return Err(format!(
            "the connector's dimensions do not match the FMU's array of shape [{}]",
            shape.join(", ")
        ));
    }
    Ok(())
}
