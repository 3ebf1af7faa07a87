//! Input paths that are not regular files: a named pipe, a device, a directory in the place of
//! a project, a table, an `.ssv` file or a nested `.ssd`. Opening a named pipe for reading
//! waits for a writer, and a device such as `/dev/zero` never ends; every input file is
//! therefore opened without waiting and refused unless it is a regular file, before a byte is
//! read (`output::input`). Each row must end within [`QUICK`] with exit 2 and one line naming
//! the file and what it is.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::rows::{Case, Input, Sandbox, case, check_table};

/// The limit of every row: a refusal is immediate.
const QUICK: Duration = Duration::from_secs(10);

/// Makes a named pipe at `path`.
fn fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo '{}' failed", path.display());
}

/// Puts a symbolic link to `/dev/zero` at `path`.
fn zero(path: &Path) {
    std::os::unix::fs::symlink("/dev/zero", path).expect("symlink");
}

/// The project of the table rows: the table slave `Table` reads `table.csv`.
fn table_project(s: &Sandbox) -> Input {
    s.copy_fmu("FourVarsFeedThrough");
    s.project(
        "tStart 0 s\ntEnd 1 s\nhStart 0.5 s\n\
         simulator 0 0 Table #4682b4 \"table.csv\"\n\
         simulator 1 0 Feed #6a5acd \"fmus/FourVarsFeedThrough.fmu\"\n\
         graph Table.a Feed.InReal\n",
    )
}

/// An SSP folder `sys/` whose component binds `params.ssv`; returns the folder.
fn ssp_folder(s: &Sandbox) -> PathBuf {
    s.write("sys/fmus/Scale.fmu", &super::rows::packed_fmu("Scale"));
    s.write(
        "sys/SystemStructure.ssd",
        br#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription name="s" version="1.0"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription">
  <ssd:System name="S">
    <ssd:Elements>
      <ssd:Component name="Gain" source="fmus/Scale.fmu">
        <ssd:ParameterBindings><ssd:ParameterBinding source="params.ssv"/></ssd:ParameterBindings>
      </ssd:Component>
      <ssd:Component name="Inner" source="inner.ssd" type="application/x-ssp-definition"/>
    </ssd:Elements>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="1"/>
</ssd:SystemStructureDescription>
"#,
    );
    s.dir().join("sys")
}

fn cases() -> Vec<Case> {
    vec![
        case(
            "project_is_a_named_pipe",
            2,
            "bad.msim",
            "not a regular file (a named pipe)",
            &[],
            |s| {
                let project = s.dir().join("bad.msim");
                fifo(&project);
                Input::project(project).limit(QUICK)
            },
        ),
        case(
            "project_is_dev_zero",
            2,
            "bad.msim",
            "not a regular file (a character device)",
            &[],
            |s| {
                let project = s.dir().join("bad.msim");
                zero(&project);
                Input::project(project).limit(QUICK)
            },
        ),
        case(
            "table_is_a_named_pipe",
            2,
            "table.csv",
            "not a regular file (a named pipe)",
            &[],
            |s| {
                fifo(&s.dir().join("table.csv"));
                table_project(s).limit(QUICK)
            },
        ),
        case(
            "table_is_dev_zero",
            2,
            "table.csv",
            "not a regular file (a character device)",
            &[],
            |s| {
                zero(&s.dir().join("table.csv"));
                table_project(s).limit(QUICK)
            },
        ),
        case(
            "table_is_a_directory",
            2,
            "table.csv",
            "a directory",
            &[],
            |s| {
                std::fs::create_dir(s.dir().join("table.csv")).expect("a directory");
                table_project(s).limit(QUICK)
            },
        ),
        case(
            "parameter_values_are_a_named_pipe",
            2,
            "params.ssv",
            "not a regular file (a named pipe)",
            &[],
            |s| {
                let system = ssp_folder(s);
                fifo(&system.join("params.ssv"));
                // The nested system is read first: make it valid enough to get past it.
                s.write(
                    "sys/inner.ssd",
                    br#"<ssd:SystemStructureDescription name="i" version="1.0" xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"><ssd:System name="I"/></ssd:SystemStructureDescription>"#,
                );
                Input::project(system).limit(QUICK)
            },
        ),
        case(
            "nested_system_is_a_named_pipe",
            2,
            "inner.ssd",
            "not a regular file (a named pipe)",
            &[],
            |s| {
                let system = ssp_folder(s);
                s.write("sys/params.ssv", b"<unused/>");
                fifo(&system.join("inner.ssd"));
                Input::project(system).limit(QUICK)
            },
        ),
        case(
            "nested_system_is_dev_zero",
            2,
            "inner.ssd",
            "refers to a file outside the SSP",
            &[],
            |s| {
                let system = ssp_folder(s);
                s.write("sys/params.ssv", b"<unused/>");
                zero(&system.join("inner.ssd"));
                Input::project(system).limit(QUICK)
            },
        ),
    ]
}

#[test]
fn hostile_special_files() {
    check_table("special_files", cases());
}
