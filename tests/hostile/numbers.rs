//! Numbers that would make a run allocate without bound or never end, and numbers beyond the
//! range of their type, which are refused alike wherever they are read.
//!
//! - Cycle numbers are only an order: `4294967295` runs (nothing is sized by it), one more is
//!   refused by the parser.
//! - A communication step that does not advance time (`t + h == t` somewhere between tStart
//!   and tEnd: `hStart 1e-300 s`, a start time of 1e20 s with a step of 0.1 s, a default step
//!   of a thousandth of a span too short for those times, `hMin` below the resolution with
//!   variable steps) is refused before anything runs, naming the keyword and the resolution;
//!   so is a span `tEnd - tStart` beyond the largest double.
//! - An output spacing below the time resolution (`hOutputMin 1e-300 s`) is legal: every
//!   communication point gets a row, and the run ends in time (positive controls with a short
//!   limit).
//! - A parameter beyond its type's range (`1e400`, `-1e400`, a Float32 of `1e39`) or written
//!   `inf` or `nan` is refused like `tEnd 1e400 s` and an `.ssv` value `1e400`, naming the
//!   line and the range.
//!
//! Every project is the bundled Lotka-Volterra pair (lines 1–4 set the times, lines 5–6 the
//! slaves, lines 7–8 connect them) unless a row says otherwise; extra lines start at line 9.

use std::time::Duration;

use super::rows::{Case, Input, Sandbox, case, check_table, fmu_entries, zip_bytes};

/// A project of Prey and Predator with `times` as its lines 1–4 and `extra` from line 7.
fn lv(s: &Sandbox, times: &str, extra: &str) -> Input {
    s.copy_fmu("Prey");
    s.copy_fmu("Predator");
    assert_eq!(times.lines().count(), 4, "four time lines");
    s.project(&format!(
        "{times}\nsimulator 0 0 Prey #ff8c00 \"fmus/Prey.fmu\"\n\
         simulator 1 0 Predator #008000 \"fmus/Predator.fmu\"\n\
         graph Predator.y Prey.y\ngraph Prey.x Predator.x\n{extra}\n"
    ))
}

/// The limit of the rows that must end quickly.
const QUICK: Duration = Duration::from_secs(10);

const TIMES: &str = "tStart 0 s\ntEnd 1 s\nhStart 0.1 s\nhOutputMin 0.1 s";

/// A row with the four time lines `$times` and no extra lines.
macro_rules! times {
    ($times:expr) => {
        |s| lv(s, $times, "")
    };
}

/// A row with the standard times and `$extra` from line 9.
macro_rules! extra {
    ($extra:expr) => {
        |s| lv(s, TIMES, $extra)
    };
}

/// A project of one `AllTypes.fmu` slave with the parameter line `line` (line 5).
fn all_types_parameter(s: &Sandbox, line: &str) -> Input {
    s.write("all.fmu", &zip_bytes(&fmu_entries("AllTypes")));
    s.project(&format!(
        "tStart 0 s\ntEnd 0.2 s\nhStart 0.1 s\nsimulator 0 0 A #ff0000 \"all.fmu\"\n{line}\n"
    ))
}

/// Rows of cycle numbers, steps and output spacing.
fn time_cases() -> Vec<Case> {
    vec![
        case("largest_cycle_number", 0, "", "", &[], |s| {
            s.copy_fmu("Prey");
            s.copy_fmu("Predator");
            s.project(
                "tEnd 1 s\nhStart 0.1 s\n\
                 simulator 0 4294967295 Prey #ff8c00 \"fmus/Prey.fmu\"\n\
                 simulator 1 0 Predator #008000 \"fmus/Predator.fmu\"\n",
            )
            .limit(QUICK)
        }),
        case(
            "cycle_number_beyond_u32",
            2,
            "bad.msim:3:",
            "invalid simulator cycle '4294967296'",
            &[],
            |s| {
                s.copy_fmu("Prey");
                s.project(
                    "tEnd 1 s\nhStart 0.1 s\nsimulator 0 4294967296 Prey #ff8c00 \"fmus/Prey.fmu\"\n",
                )
            },
        ),
        case(
            "step_of_1e_300",
            2,
            "bad.msim:3:",
            "hStart = 1e-300 s does not advance time",
            &["expected a step ≥ 4.440892098500626e-16 s"],
            times!("tStart 0 s\ntEnd 1 s\nhStart 1e-300 s\nhOutputMin 0.1 s"),
        ),
        case(
            "large_start_time_small_step",
            2,
            "bad.msim:3:",
            "hStart = 0.1 s does not advance time",
            &["tStart = 1e20 s", "resolved to 32768 s"],
            times!("tStart 1e20 s\ntEnd 1.00000001e20 s\nhStart 0.1 s\nhOutputMin 0.1 s"),
        ),
        case(
            "default_step_below_resolution",
            2,
            "bad.msim:3:",
            "does not advance time",
            &["hStart = 65.536 s"],
            times!("tStart 1e20 s\ntEnd 100000000000000065536 s\nhStart 0 s\nhOutputMin 0.1 s"),
        ),
        case(
            "negative_times_small_step",
            2,
            "bad.msim:3:",
            "hStart = 1 s does not advance time",
            &[],
            times!("tStart -1e18 s\ntEnd -9.99999999e17 s\nhStart 1 s\nhOutputMin 1 s"),
        ),
        case(
            "span_beyond_the_largest_double",
            2,
            "bad.msim:2:",
            "must be greater than tStart",
            &[],
            times!("tStart -1e308 s\ntEnd 1e308 s\nhStart 1e305 s\nhOutputMin 1e305 s"),
        ),
        case(
            "minimum_step_below_resolution",
            2,
            "bad.msim:",
            "hMin = 1e-300 s does not advance time",
            &[],
            extra!("adjustStepSize yes\nmaxIterations 3\nhMin 1e-300 s\nhMax 1 s"),
        ),
        case("output_spacing_of_1e_300", 0, "", "", &[], |s| {
            times!("tStart 0 s\ntEnd 1 s\nhStart 0.1 s\nhOutputMin 1e-300 s")(s).limit(QUICK)
        }),
        case(
            "output_spacing_below_resolution_at_large_times",
            0,
            "",
            "",
            &[],
            |s| {
                times!("tStart 1e9 s\ntEnd 1000000001 s\nhStart 0.1 s\nhOutputMin 1e-12 s")(s)
                    .limit(QUICK)
            },
        ),
    ]
}

/// Rows of values beyond their type's range.
fn range_cases() -> Vec<Case> {
    const FINITE: &str = "as a finite Real number (magnitude at most 1.7976931348623157e308)";
    vec![
        case(
            "parameter_1e400",
            2,
            "bad.msim:9:",
            "cannot read '1e400'",
            &[FINITE],
            extra!("parameter Prey.alpha 1e400"),
        ),
        case(
            "parameter_minus_1e400",
            2,
            "bad.msim:9:",
            "cannot read '-1e400'",
            &[FINITE],
            extra!("parameter Prey.alpha -1e400"),
        ),
        case(
            "parameter_inf",
            2,
            "bad.msim:9:",
            "cannot read 'inf'",
            &[FINITE],
            extra!("parameter Prey.alpha inf"),
        ),
        case(
            "parameter_nan",
            2,
            "bad.msim:9:",
            "cannot read 'NaN'",
            &[FINITE],
            extra!("parameter Prey.alpha NaN"),
        ),
        case(
            "float32_parameter_1e39",
            2,
            "bad.msim:5:",
            "cannot read '1e39'",
            &["as a finite Float32 number (magnitude at most 3.4028235e38)"],
            |s| all_types_parameter(s, "parameter A.float32_in 1e39"),
        ),
        case("float32_parameter_at_its_largest", 0, "", "", &[], |s| {
            all_types_parameter(s, "parameter A.float32_in 3.4028235e38")
        }),
        case(
            "set_option_1e400",
            2,
            "--set Prey.alpha=1e400",
            "cannot read '1e400'",
            &[FINITE],
            |s| lv(s, TIMES, "").args(&["--set", "Prey.alpha=1e400"]),
        ),
        case(
            "end_time_1e400",
            2,
            "tEnd",
            "invalid tEnd '1e400 s'",
            &[],
            times!("tStart 0 s\ntEnd 1e400 s\nhStart 0.1 s\nhOutputMin 0.1 s"),
        ),
    ]
}

#[test]
fn hostile_numbers() {
    let mut cases = time_cases();
    cases.extend(range_cases());
    check_table("numbers", cases);
}

/// SIGTERM still ends a run whose output spacing is finer than doubles resolve (before the
/// fix, its schedule looped without reaching a communication point, where the stop flag is
/// read): exit 143 within seconds, with the rows so far.
#[test]
fn sigterm_ends_a_run_with_an_output_spacing_below_the_resolution() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let s = super::rows::sandbox(tmp.path(), "sigterm");
    let input = lv(
        &s,
        "tStart 0 s\ntEnd 1000000 s\nhStart 0.01 s\nhOutputMin 1e-300 s",
        "",
    );
    let wd = tmp.path().join("wd");
    let mut child = std::process::Command::new(mastersim_tests::mastersim_bin())
        .args(["--verbosity-level", "0", "--working-dir"])
        .arg(&wd)
        .arg(input.path())
        .spawn()
        .expect("mastersim starts");
    std::thread::sleep(Duration::from_millis(500));
    assert!(child.try_wait().expect("status").is_none(), "still running");
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("status") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("SIGTERM did not end the run within 10 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(143));
    let rows = std::fs::read_to_string(wd.join("results/values.csv")).expect("values.csv");
    assert!(
        rows.lines().count() > 100,
        "rows written at every point before the stop"
    );
}
