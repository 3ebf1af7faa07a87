//! The keyword options of `mastersim.simulate` and `mastersim.Session`, turned into the
//! library's [`mastersim::Options`].
//!
//! Both take the same keywords, checked here once: an unknown keyword is a `TypeError` that
//! offers the keyword meant, a value of the wrong type a `TypeError`, a value out of range an
//! `InputError` from [`mastersim::Options::validate`].
//!
//! Spec: `docs/python.md` (options); the command line's options (`mastersim --help`), which
//! these mirror.

use std::path::PathBuf;

use mastersim::{Options, ResultFormat, TimeArithmetic};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyString};

/// The keywords [`RunOptions::from_kwargs`] knows, in the order of `docs/python.md`.
pub const KEYWORDS: [&str; 21] = [
    "start_time",
    "stop_time",
    "step_size",
    "working_dir",
    "result_formats",
    "output_threshold",
    "output_only",
    "set",
    "parameter_set",
    "real_time",
    "checkpoint_interval",
    "checkpoint_on_stop",
    "threads",
    "time_arithmetic",
    "input",
    "skip_unzip",
    "allow_outside_references",
    "fmu_logging",
    "fmi_type",
    "solver",
    "relative_tolerance",
];

/// The options of one run, as given from Python.
#[derive(Debug, Default)]
pub struct RunOptions {
    /// The library's options.
    options: Options,
}

impl RunOptions {
    /// Reads the keyword arguments `kwargs` (none: every default).
    ///
    /// # Errors
    /// `TypeError` for an unknown keyword (with the keyword meant) or a value of the wrong
    /// type (values out of range are refused when the session opens, by
    /// [`mastersim::Options::validate`]).
    pub fn from_kwargs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<RunOptions> {
        let mut run = RunOptions::default();
        let Some(kwargs) = kwargs else {
            return Ok(run);
        };
        for (key, value) in kwargs.iter() {
            let key: String = key.extract()?;
            if value.is_none() {
                check_keyword(&key)?;
                continue;
            }
            run.read(&key, &value)
                .map_err(|e| with_keyword(value.py(), &key, e))?;
        }
        Ok(run)
    }

    /// Takes the value of keyword `key`.
    fn read(&mut self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let o = &mut self.options;
        match key {
            "start_time" => o.start_time = Some(time(value)?),
            "stop_time" => o.stop_time = Some(time(value)?),
            "step_size" => o.step_size = Some(time(value)?),
            "working_dir" => o.working_dir = Some(value.extract::<PathBuf>()?),
            "result_formats" => o.result_formats = Some(formats(value)?),
            "output_threshold" => o.output_threshold = Some(value.extract()?),
            "output_only" => o.output_only = Some(patterns(value)?),
            "set" => o.overrides = overrides(value)?,
            "parameter_set" => o.parameter_set = Some(value.extract()?),
            "real_time" => o.real_time = Some(value.extract()?),
            "checkpoint_interval" => o.checkpoint_interval = Some(value.extract()?),
            "checkpoint_on_stop" => o.checkpoint_on_stop = flag(value)?,
            "threads" => o.threads = Some(value.extract()?),
            "time_arithmetic" => o.time_arithmetic = Some(arithmetic(value)?),
            "input" => o.input = Some(value.extract::<PathBuf>()?),
            "skip_unzip" => o.skip_unzip = flag(value)?,
            "allow_outside_references" => o.allow_outside_references = flag(value)?,
            "fmu_logging" => o.fmu_logging = flag(value)?,
            "fmi_type" => o.fmi_type = Some(parsed(key, value)?),
            "solver" => o.solver = Some(parsed(key, value)?),
            "relative_tolerance" => o.relative_tolerance = Some(value.extract()?),
            _ => check_keyword(key)?,
        }
        Ok(())
    }

    /// The library's options (the times typed, `set` as [`Options::overrides`], which win
    /// over the times as on the command line).
    pub fn library(&self) -> Options {
        self.options.clone()
    }
}

/// `TypeError` for an unknown keyword, naming the one meant.
fn check_keyword(key: &str) -> PyResult<()> {
    if KEYWORDS.contains(&key) {
        return Ok(());
    }
    let hint = mastersim::master::error::name_hint(key, KEYWORDS);
    Err(PyTypeError::new_err(format!(
        "unexpected keyword argument '{key}'{hint}"
    )))
}

/// `error` with the keyword it concerns in front.
fn with_keyword(py: Python<'_>, key: &str, error: PyErr) -> PyErr {
    if error.is_instance_of::<PyTypeError>(py) && KEYWORDS.contains(&key) {
        PyTypeError::new_err(format!("{key}: {}", error.value(py)))
    } else {
        error
    }
}

/// A time, s: a number of seconds, or a text with a unit ("2 min"), read with the project
/// format's time units ([`Options::parse_time`]).
fn time(value: &Bound<'_, PyAny>) -> PyResult<f64> {
    if let Ok(text) = value.cast::<PyString>() {
        return Options::parse_time(&text.to_cow()?).map_err(crate::errors::InputError::new_err);
    }
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(
            "expected a number of seconds or a text with a unit",
        ));
    }
    value.extract().map_err(|_| {
        PyTypeError::new_err("expected a number of seconds or a text with a unit ('2 min')")
    })
}

/// `output_only`: a sequence of glob patterns of `<slave>.<variable>` names (or one as a
/// string); only matching variables are recorded.
fn patterns(value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(vec![text.to_cow()?.to_string()]);
    }
    value.extract().map_err(|_| {
        PyTypeError::new_err("expected a list of name patterns (['Prey.*', 'Predator.y'])")
    })
}

/// `x` as the shortest text that reads back as `x` (Rust's `Display` of `f64`, as Python's
/// `repr`).
fn number_text(x: f64) -> String {
    format!("{x}")
}

/// A flag: exactly `True` or `False`.
fn flag(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    value
        .cast::<PyBool>()
        .map(|b| b.is_true())
        .map_err(|_| PyTypeError::new_err("expected True or False"))
}

/// `result_formats`: a sequence of "csv", "mat", "json" (or one of them as a string).
fn formats(value: &Bound<'_, PyAny>) -> PyResult<Vec<ResultFormat>> {
    let names: Vec<String> = if let Ok(text) = value.cast::<PyString>() {
        vec![text.to_cow()?.to_string()]
    } else {
        value.extract().map_err(|_| {
            PyTypeError::new_err("expected a list of result formats ('csv', 'mat', 'json')")
        })?
    };
    names
        .iter()
        .map(|name| match name.to_ascii_lowercase().as_str() {
            "csv" => Ok(ResultFormat::Csv),
            "mat" => Ok(ResultFormat::Mat),
            "json" => Ok(ResultFormat::Json),
            _ => Err(crate::errors::InputError::new_err(format!(
                "result format '{name}'{}",
                mastersim::master::error::name_hint(name, ["csv", "mat", "json"])
            ))),
        })
        .collect()
}

/// A name read with its type's `FromStr` (`fmi_type`: "ModelExchange", "CoSimulation", "me",
/// "cs"; `solver`: "CVode", "Euler"; any case); an unknown name is an `InputError` saying what
/// was expected, after the keyword `key`.
fn parsed<T: std::str::FromStr<Err: std::fmt::Display>>(
    key: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<T> {
    let name: String = value.extract()?;
    name.parse()
        .map_err(|e: T::Err| crate::errors::InputError::new_err(format!("{key}: {e}")))
}

/// `time_arithmetic`: "exact" or "mastersim".
fn arithmetic(value: &Bound<'_, PyAny>) -> PyResult<TimeArithmetic> {
    let name: String = value.extract()?;
    match name.as_str() {
        "exact" => Ok(TimeArithmetic::Exact),
        "mastersim" => Ok(TimeArithmetic::MasterSim),
        _ => Err(crate::errors::InputError::new_err(format!(
            "time arithmetic '{name}': expected 'exact' or 'mastersim'"
        ))),
    }
}

/// `set`: a mapping of names (`<slave>.<variable>`, a project keyword such as `tEnd`, or in a
/// run of one FMU `<variable>`) to values, each made one `<name>=<value>` override.
fn overrides(value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let mapping = value.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err("expected a dict of names to values ({'Prey.alpha': 1.2})")
    })?;
    mapping
        .iter()
        .map(|(name, value)| {
            let name: String = name
                .extract()
                .map_err(|_| PyTypeError::new_err("expected names as str"))?;
            Ok(format!("{name}={}", override_value(&name, &value)?))
        })
        .collect()
}

/// The project text of one `set` value: a bool as `true`/`false`, a number in full
/// precision, a text as it is ("10 s").
fn override_value(name: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(if b.is_true() { "true" } else { "false" }.into());
    }
    if let Ok(i) = value.extract::<i64>() {
        return Ok(i.to_string());
    }
    if let Ok(x) = value.extract::<f64>() {
        return Ok(number_text(x));
    }
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(text.to_cow()?.to_string());
    }
    Err(PyTypeError::new_err(format!(
        "value of '{name}': expected a bool, int, float or str, not {}",
        value.get_type().name()?
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers of `set` values keep their full precision as project text.
    #[test]
    fn numbers_read_back_exactly() {
        assert_eq!(number_text(0.1), "0.1");
        assert_eq!(number_text(1e-7), "0.0000001");
    }
}
