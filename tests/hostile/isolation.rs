//! Isolated slaves (`docs/isolation.md`) whose FMU crashes, aborts, exits or hangs, and
//! `isolate` lines that cannot be honoured.
//!
//! Each run-time row runs the own Faulty FMU as slave `F` in a helper process (an `isolate`
//! line) feeding a Scale FMU `S` (`S.u = F.y`, both `y = t` before the fault), 0 to 2 s by
//! 0.1 s, with one fault parameter at 0.95 s: it fires in `fmi2DoStep` from 0.9 s to 1.0 s.
//! mastersim itself must survive: exit code 1 (124 for the hang, `--step-timeout 1`) and one
//! error line naming the slave, `fmi2DoStep`, `t` and the signal or exit code. `values.csv`
//! holds exactly the rows of 0 to 0.9 s (`S.y = t`), and `summary.txt` says `Outcome=Failed`
//! (`TimedOut`) with the same message. The refusals end with exit code 2 before anything
//! runs, naming the project file and the `isolate` line.

use std::path::Path;

use mastersim_tests::read_summary;

use super::rows::{Case, Input, Sandbox, case, check_table, kept_rows};

/// The project of Faulty (`F`, isolated) feeding Scale (`S`) with `fault` at 0.95 s and
/// `extra` lines.
fn faulty_project(s: &Sandbox, fault: &str, extra: &str) -> Input {
    s.copy_fmu("Faulty");
    s.copy_fmu("Scale");
    s.project(&format!(
        "tStart 0 s\ntEnd 2 s\nhStart 0.1 s\nhOutputMin 0.1 s\nMasterMode GAUSS_SEIDEL\n\
         ErrorControlMode NONE\nmaxIterations 1\n\
         simulator 0 0 F #ff0000 \"fmus/Faulty.fmu\"\n\
         simulator 1 0 S #00ff00 \"fmus/Scale.fmu\"\n\
         graph F.y S.u\nparameter F.{fault} 0.95\n{extra}"
    ))
}

/// What is wrong with the results a run that `outcome` ended kept in `wd`: `values.csv` must
/// hold exactly the rows of 0, 0.1, …, 0.9 s with `S.y = t`, and `summary.txt` the outcome
/// with a message naming the slave and `fmi2DoStep`.
fn kept_to_last_point(wd: &Path, outcome: &str) -> Vec<String> {
    let mut problems = kept_rows(wd, 9, "S.y", |t| t, 1e-12, outcome);
    let summary = read_summary(&wd.join("log").join("summary.txt"));
    let message = summary.get("Message").cloned().unwrap_or_default();
    if !(message.contains("slave 'F'") && message.contains("fmi2DoStep")) {
        problems.push(format!("summary.txt Message {message:?}"));
    }
    problems
}

fn failed(wd: &Path) -> Vec<String> {
    kept_to_last_point(wd, "Failed")
}

fn timed_out(wd: &Path) -> Vec<String> {
    kept_to_last_point(wd, "TimedOut")
}

/// A crash row: exit code 1, `says` in the one error line besides the slave and function.
fn crash(name: &'static str, says: &'static [&'static str], build: fn(&Sandbox) -> Input) -> Case {
    case(name, 1, "slave 'F'", "fmi2DoStep", says, build)
}

fn cases() -> Vec<Case> {
    vec![
        crash(
            "isolated_segfault",
            &["t=0.9 s", "killed by SIGSEGV (signal 11)"],
            |s| faulty_project(s, "segfaultTime", "isolate F\n").check_results(failed),
        ),
        crash(
            "isolated_abort",
            &["t=0.9 s", "killed by SIGABRT (signal 6)"],
            |s| faulty_project(s, "abortTime", "isolate F\n").check_results(failed),
        ),
        crash("isolated_exit", &["t=0.9 s", "exited with code 7"], |s| {
            faulty_project(s, "exitTime", "parameter F.exitCode 7\nisolate F\n")
                .check_results(failed)
        }),
        case(
            "isolated_hang",
            124,
            "slave 'F'",
            "fmi2DoStep",
            &["t=0.9 s", "within 1 s"],
            |s| {
                faulty_project(s, "hangTime", "isolate F\n")
                    .args(&["--step-timeout", "1"])
                    .check_results(timed_out)
            },
        ),
        case(
            "isolate_platform_not_shipped",
            2,
            "bad.msim:12",
            "isolate",
            &["slave 'F'", "no binary for win32 (it ships linux64)"],
            |s| faulty_project(s, "errorTime", "isolate F platform=win32\n"),
        ),
        case(
            "isolate_model_exchange",
            2,
            "bad.msim:3",
            "isolate",
            &["slave 'M'", "co-simulation only", "Model Exchange"],
            |s| {
                s.copy_fmu("NanDerivative");
                s.project(
                    "tEnd 1 s\nsimulator 0 0 M #ff0000 \"fmus/NanDerivative.fmu\"\nisolate M\n",
                )
            },
        ),
        case(
            "isolate_unknown_platform",
            2,
            "bad.msim:12",
            "'sparc' is not a platform",
            &["expected 'isolate <slave>'"],
            |s| faulty_project(s, "errorTime", "isolate F platform=sparc\n"),
        ),
    ]
}

#[test]
fn hostile_isolation() {
    check_table("isolation", cases());
}
