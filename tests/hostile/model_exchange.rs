//! Model Exchange FMUs that fail at run time or cannot be run: derivatives that turn NaN
//! (`NanDerivative`, from `tNan` = 0.5 s), an event iteration that never ends
//! (`EventLoop`, at `tLoop` = 0.5 s), and a model description that declares `ModelExchange`
//! over a co-simulation-only library (the own `Gain`, whose library exports no `fmi2SetTime`,
//! `fmi2GetDerivatives`, …: `nm -D` lists only the co-simulation and common functions).
//!
//! Each project (`bad.msim`) runs one slave `M` of `fmus/<Model>.fmu` from 0 to 1 s by 0.1 s.
//! The run-time faults end with exit code 1 and an error naming the slave and t = 0.5 s. The
//! communication step from 0.4 to 0.5 s reaches the fault at its end (the integrator evaluates
//! the derivatives at 0.5 s; the time event at 0.5 s belongs to that step), so it fails, and the
//! results of the steps before are kept: `values.csv` has exactly the rows of 0 to 0.4 s, each
//! equal to the model's exact solution (x = e^(−t), x = t), and `summary.txt` says
//! `Outcome=Failed`. The library without Model Exchange functions is refused when the FMU is
//! imported, before anything is simulated (exit code 2): the error names the slave, the start
//! time t = 0 s, the FMU file and the first missing function.

use std::path::Path;

use super::rows::{
    Case, Input, Sandbox, case, check_table, fmu_entries, kept_rows, replace_once, zip_bytes,
};

/// The project of one Model Exchange slave `M` of `fmus/<model>.fmu`, 0 to 1 s by 0.1 s.
fn me_project(s: &Sandbox, model: &str) -> Input {
    s.project(&format!(
        "tStart 0 s\ntEnd 1 s\nhStart 0.1 s\nhOutputMin 0.1 s\n\
         simulator 0 0 M #ff0000 \"fmus/{model}.fmu\"\n"
    ))
}

/// A row running the own packed ME FMU `model` with its results checked by `kept`.
fn packed_me(s: &Sandbox, model: &str, kept: fn(&Path) -> Vec<String>) -> Input {
    s.copy_fmu(model);
    me_project(s, model).check_results(kept)
}

/// What is wrong with the results a failed run kept in `wd`: `values.csv` must hold exactly
/// the rows of 0, 0.1, …, 0.4 s with `M.x` = `exact(t)` (within 1e-5, the integrator's
/// tolerance with margin), and `summary.txt` must say `Outcome=Failed`.
fn kept_before_half(wd: &Path, exact: fn(f64) -> f64) -> Vec<String> {
    kept_rows(wd, 4, "M.x", exact, 1e-5, "Failed")
}

/// `Gain.fmu` with its `CoSimulation` element renamed `ModelExchange`: a Model Exchange FMU
/// whose library lacks every Model Exchange function.
fn co_simulation_library_as_me(s: &Sandbox) -> Input {
    let mut entries = fmu_entries("Gain");
    let (_, xml) = entries
        .iter_mut()
        .find(|(name, _)| name == "modelDescription.xml")
        .expect("Gain has a modelDescription.xml");
    let text = String::from_utf8(xml.clone()).expect("UTF-8");
    let text = replace_once(&text, "<CoSimulation", "<ModelExchange");
    let text = text.replace("</CoSimulation>", "</ModelExchange>");
    *xml = text.into_bytes();
    s.write("fmus/Gain.fmu", &zip_bytes(&entries));
    me_project(s, "Gain")
}

fn cases() -> Vec<Case> {
    vec![
        case(
            "nan_derivative",
            1,
            "slave 'M'",
            "t=0.5",
            &["derivative 'der(x)' is NaN"],
            |s| {
                packed_me(s, "NanDerivative", |wd| {
                    kept_before_half(wd, |t| (-t).exp())
                })
            },
        ),
        case(
            "event_iteration_never_ends",
            1,
            "slave 'M'",
            "t=0.5",
            &["event iteration"],
            |s| packed_me(s, "EventLoop", |wd| kept_before_half(wd, |t| t)),
        ),
        case(
            "library_without_model_exchange_functions",
            2,
            "Gain.fmu",
            "t=0 s",
            &[
                "slave 'M' (Model Exchange) cannot be created",
                "missing required function",
                "fmi2SetTime",
            ],
            co_simulation_library_as_me,
        ),
    ]
}

#[test]
fn hostile_model_exchange() {
    check_table("model exchange", cases());
}
