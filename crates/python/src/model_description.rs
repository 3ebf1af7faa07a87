//! `mastersim.read_model_description`: an FMU's `modelDescription.xml` as Python objects
//! with FMPy's attribute names, read by mastersim's FMI layer.
//!
//! Spec: FMPy 0.3 `model_description.ModelDescription`, `ScalarVariable`, `CoSimulation`,
//! `DefaultExperiment`; FMI 2.0.2 §2.2, FMI 3.0 §2.4.

use std::path::{Path, PathBuf};

use fmi::model_description::{ModelDescription, ScalarVariable};
use fmi::{DataType, FmiVersion, Initial, Variability};
use mastersim::describe::causality_name;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::InputError;

/// A `types.SimpleNamespace` with the attributes of `fields`.
fn namespace<'py>(py: Python<'py>, fields: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyAny>> {
    py.import("types")?
        .getattr("SimpleNamespace")?
        .call((), Some(fields))
}

/// FMPy's `variability` text.
pub(crate) fn variability(v: Variability) -> &'static str {
    match v {
        Variability::Constant => "constant",
        Variability::Fixed => "fixed",
        Variability::Tunable => "tunable",
        Variability::Discrete => "discrete",
        Variability::Continuous => "continuous",
    }
}

/// FMPy's `type` of a variable: FMI 1.0/2.0 `Real`, `Integer`, `Enumeration`, `Boolean`,
/// `String`; FMI 3.0 the element name (`Float64`, `Int8`, …, `Enumeration`).
pub(crate) fn type_name(v: &ScalarVariable, version: FmiVersion) -> &'static str {
    if v.is_enumeration {
        return "Enumeration";
    }
    match (version, v.data_type) {
        (FmiVersion::V3, dt) => dt.name(),
        (_, DataType::Float64) => "Real",
        (_, DataType::Int32) => "Integer",
        (_, dt) => dt.name(),
    }
}

/// The start value as FMPy gives it: `float`, `int`, `bool` or `str` (Binary: the hex text).
fn start_value<'py>(py: Python<'py>, v: &ScalarVariable) -> PyResult<Bound<'py, PyAny>> {
    let Some(text) = &v.start else {
        return Ok(py.None().into_bound(py));
    };
    let builtins = py.import("builtins")?;
    let converted = match v.data_type {
        DataType::Float32 | DataType::Float64 => builtins.call_method1("float", (text,)),
        DataType::Boolean => Ok(matches!(text.trim(), "true" | "1")
            .into_pyobject(py)?
            .to_owned()
            .into_any()),
        DataType::String | DataType::Binary => Ok(text.into_pyobject(py)?.into_any()),
        _ => builtins.call_method1("int", (text.trim(),)),
    };
    // A start value the type cannot hold is kept as written.
    Ok(converted.unwrap_or_else(|_| text.into_pyobject(py).expect("a str converts").into_any()))
}

fn variable<'py>(
    py: Python<'py>,
    v: &ScalarVariable,
    version: FmiVersion,
) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    d.set_item("name", &v.name)?;
    d.set_item("valueReference", v.value_reference.0)?;
    d.set_item("type", type_name(v, version))?;
    d.set_item("causality", causality_name(v.causality))?;
    d.set_item("variability", variability(v.variability))?;
    d.set_item(
        "initial",
        crate::fmpy::validate::initial(v, version).map(|i| match i {
            Initial::Exact => "exact",
            Initial::Approx => "approx",
            Initial::Calculated => "calculated",
        }),
    )?;
    d.set_item("start", start_value(py, v)?)?;
    d.set_item("unit", &v.unit)?;
    d.set_item("displayUnit", &v.display_unit)?;
    d.set_item("declaredType", &v.declared_type)?;
    d.set_item("description", &v.description)?;
    namespace(py, &d)
}

fn co_simulation<'py>(py: Python<'py>, md: &ModelDescription) -> PyResult<Bound<'py, PyAny>> {
    let c = &md.capabilities;
    let d = PyDict::new(py);
    d.set_item("modelIdentifier", &md.model_identifier)?;
    d.set_item(
        "canHandleVariableCommunicationStepSize",
        c.can_handle_variable_communication_step_size,
    )?;
    d.set_item("canInterpolateInputs", c.can_interpolate_inputs)?;
    d.set_item("canGetAndSetFMUstate", c.can_get_and_set_fmu_state)?;
    d.set_item("canSerializeFMUstate", c.can_serialize_fmu_state)?;
    d.set_item(
        "canBeInstantiatedOnlyOncePerProcess",
        c.can_be_instantiated_only_once_per_process,
    )?;
    d.set_item(
        "providesDirectionalDerivative",
        c.provides_directional_derivative,
    )?;
    d.set_item("canRunAsynchronuously", c.can_run_asynchronuously)?;
    d.set_item("maxOutputDerivativeOrder", c.max_output_derivative_order)?;
    d.set_item("hasEventMode", c.has_event_mode)?;
    d.set_item(
        "mightReturnEarlyFromDoStep",
        c.might_return_early_from_do_step,
    )?;
    d.set_item(
        "canReturnEarlyAfterIntermediateUpdate",
        c.can_return_early_after_intermediate_update,
    )?;
    d.set_item("fixedInternalStepSize", c.fixed_internal_step_size)?;
    namespace(py, &d)
}

/// The description of the FMU at `path`: an `.fmu` archive (read without extracting it), a
/// folder of an extracted FMU, or a `modelDescription.xml` file.
fn read(path: &Path) -> Result<ModelDescription, String> {
    let options = fmi::archive::ExtractOptions::default();
    let result = if path.is_dir() {
        std::fs::read(path.join("modelDescription.xml"))
            .map_err(|e| fmi::Error::Io {
                path: path.join("modelDescription.xml"),
                source: e,
            })
            .and_then(|bytes| {
                ModelDescription::from_bytes_any_interface(
                    bytes,
                    &path.join("modelDescription.xml"),
                )
            })
            .map(|(md, _)| md)
    } else if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xml"))
    {
        std::fs::read(path)
            .map_err(|e| fmi::Error::Io {
                path: path.to_path_buf(),
                source: e,
            })
            .and_then(|bytes| ModelDescription::from_bytes_any_interface(bytes, path))
            .map(|(md, _)| md)
    } else {
        fmi::archive::describe(path, &options).map(|c| c.description)
    };
    result.map_err(|e| e.to_string())
}

/// Reads the model description of `filename` (an `.fmu`, an extracted FMU folder or a
/// `modelDescription.xml`) and returns an object with FMPy's attribute names: `fmiVersion`,
/// `modelName`, `guid` (FMI 3.0: the instantiation token, also as `instantiationToken`),
/// `description`, `generationTool`, `coSimulation` (`modelIdentifier` and the capability
/// flags; `None` without that interface), `modelExchange` (`modelIdentifier`; `None`
/// without), `defaultExperiment` (`startTime`, `stopTime` in s, `tolerance`, `stepSize` in s;
/// each `None` when not given; `None` without the element) and `modelVariables` (a list, in
/// file order, of objects with `name`, `valueReference`, `type`, `causality`, `variability`,
/// `initial`, `start`, `unit`, `displayUnit`, `declaredType`, `description`).
///
/// `validate=True` refuses a description that breaks the rules FMPy checks (see
/// `fmpy::validate`); `validate=False` reads it (mastersim's reader accepts harmless breaks of
/// the standard).
///
/// # Errors
/// `InputError` naming the file and the problem.
#[pyfunction]
#[pyo3(signature = (filename, validate=true))]
pub fn read_model_description(
    py: Python<'_>,
    filename: PathBuf,
    validate: bool,
) -> PyResult<Bound<'_, PyAny>> {
    let md = read(&filename).map_err(InputError::new_err)?;
    crate::fmpy::validate::refuse_invalid(&md, &filename, validate, "reads it")?;
    let d = PyDict::new(py);
    let version = match md.fmi_version {
        FmiVersion::V1 => "1.0",
        FmiVersion::V2 => "2.0",
        FmiVersion::V3 => "3.0",
    };
    d.set_item("fmiVersion", version)?;
    d.set_item("modelName", &md.model_name)?;
    d.set_item("guid", &md.guid)?;
    d.set_item(
        "instantiationToken",
        (md.fmi_version == FmiVersion::V3).then_some(&md.guid),
    )?;
    d.set_item("description", &md.description)?;
    d.set_item("generationTool", &md.generation_tool)?;
    if md.interfaces.co_simulation {
        d.set_item("coSimulation", co_simulation(py, &md)?)?;
    } else {
        d.set_item("coSimulation", py.None())?;
    }
    if md.interfaces.model_exchange {
        let me = PyDict::new(py);
        me.set_item("modelIdentifier", &md.model_identifier)?;
        d.set_item("modelExchange", namespace(py, &me)?)?;
    } else {
        d.set_item("modelExchange", py.None())?;
    }
    match &md.default_experiment {
        Some(e) => {
            let de = PyDict::new(py);
            de.set_item("startTime", e.start_time)?;
            de.set_item("stopTime", e.stop_time)?;
            de.set_item("tolerance", e.tolerance)?;
            de.set_item("stepSize", e.step_size)?;
            d.set_item("defaultExperiment", namespace(py, &de)?)?;
        }
        None => d.set_item("defaultExperiment", py.None())?,
    }
    let variables = PyList::empty(py);
    for v in crate::fmpy::variable_order(&md) {
        variables.append(variable(py, v, md.fmi_version)?)?;
    }
    d.set_item("modelVariables", variables)?;
    namespace(py, &d)
}
