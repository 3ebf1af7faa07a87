//! Checkpoints that `--resume` must refuse: none written, corrupt, truncated, of another
//! format, not a regular file or beyond the size limit, or a project file, its `--set`
//! options, an FMU archive, a GUID, or a file an SSP system was read from (a nested `.ssd`,
//! an `.ssv`, an `.ssm`) changed since, or a resume with other result formats, output
//! threshold, output selection or time arithmetic than the interrupted run. Each row first runs the control loop (or the SSP
//! system) through the library to its tenth step and writes a checkpoint into
//! `wd/checkpoint/state.bin`, then breaks one thing; `mastersim --resume` must exit 2 with one
//! line naming the file and what is wrong. The rows `resume_valid_checkpoint`,
//! `resume_valid_checkpoint_with_the_same_result_formats` and `resume_valid_ssp_checkpoint`
//! are the positive controls: the same checkpoints unbroken resume and complete.

use std::path::PathBuf;

use mastersim::{Options, ResultFormat, Session};

use mastersim_tests::example_workspace;

use super::rows::{Case, Input, Sandbox, case, check_table, fmu_entries, replace_once, zip_bytes};

/// The control loop (Part1, Part2) with copied FMUs.
fn project_text() -> &'static str {
    "tStart 0 s\n\
     tEnd 1 s\n\
     hStart 0.01 s\n\
     simulator 0 0 Part1 #447cb4 \"fmus/Part1.fmu\"\n\
     simulator 1 1 Part2 #c38200 \"fmus/Part2.fmu\"\n\
     graph Part1.x1 Part2.x1\n"
}

/// Writes the project, runs it to the tenth step through the library and writes the
/// checkpoint; returns the input `mastersim --resume bad.msim`.
fn with_checkpoint(s: &Sandbox) -> Input {
    checkpoint_with(s, Options::default())
}

/// [`with_checkpoint`], the run under `options` (its working directory set to `wd`).
fn checkpoint_with(s: &Sandbox, options: Options) -> Input {
    s.copy_fmu("Part1");
    s.copy_fmu("Part2");
    let input = s.project(project_text());
    let project = s.dir().join("bad.msim");
    let options = Options {
        working_dir: Some(s.dir().join("wd")),
        ..options
    };
    let mut session = Session::open(&project, &options).expect("the valid project opens");
    for _ in 0..10 {
        session.step().expect("a step");
    }
    session
        .save_checkpoint(&options.checkpoint_path_for(&project))
        .expect("the checkpoint is written");
    drop(session);
    input.args(&["--resume"])
}

/// Options of a run that writes CSV and MAT results.
fn csv_and_mat() -> Options {
    Options {
        result_formats: Some(vec![ResultFormat::Csv, ResultFormat::Mat]),
        ..Options::default()
    }
}

/// Writes `sys/`: a system whose component `Inner` is the bundled example
/// `parameter_mapping.ssd` (which binds `gain.ssv` through `gain.ssm`), with those files and
/// `fmus/Scale.fmu`; runs it to the tenth step through the library and writes the checkpoint;
/// returns the input `mastersim --resume sys`.
fn with_ssp_checkpoint(s: &Sandbox) -> Input {
    let examples = example_workspace().join("projects/ssp");
    for file in [
        "parameter_mapping.ssd",
        "gain.ssv",
        "gain.ssm",
        "fmus/Scale.fmu",
    ] {
        let bytes = std::fs::read(examples.join(file)).expect("bundled SSP example");
        s.write(&format!("sys/{file}"), &bytes);
    }
    s.write(
        "sys/SystemStructure.ssd",
        br#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription name="outer" version="1.0"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription">
  <ssd:System name="Outer">
    <ssd:Elements>
      <ssd:Component name="Inner" source="parameter_mapping.ssd" type="application/x-ssp-definition"/>
    </ssd:Elements>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="2"/>
</ssd:SystemStructureDescription>
"#,
    );
    let system = s.dir().join("sys");
    let options = Options {
        working_dir: Some(s.dir().join("wd")),
        ..Options::default()
    };
    let mut session = Session::open(&system, &options).expect("the valid system opens");
    for _ in 0..10 {
        session.step().expect("a step");
    }
    let checkpoint = options.checkpoint_path_for(&mastersim::run_input(&system));
    session
        .save_checkpoint(&checkpoint)
        .expect("the checkpoint is written");
    drop(session);
    Input::project(system).args(&["--resume"])
}

/// A row that writes the SSP checkpoint, then replaces `from` by `to` once in `sys/<file>`.
macro_rules! ssp_changed {
    ($file:expr, $from:expr, $to:expr) => {
        |s| {
            let input = with_ssp_checkpoint(s);
            let path = s.dir().join("sys").join($file);
            let text = std::fs::read_to_string(&path).expect("SSP file");
            s.write(
                &format!("sys/{}", $file),
                replace_once(&text, $from, $to).as_bytes(),
            );
            input
        }
    };
}

/// The checkpoint file of a row.
fn state(s: &Sandbox) -> PathBuf {
    s.dir().join("wd").join("checkpoint").join("state.bin")
}

/// Rewrites the checkpoint file through `edit`.
fn edit_state(s: &Sandbox, edit: impl Fn(&mut Vec<u8>)) {
    let path = state(s);
    let mut bytes = std::fs::read(&path).expect("checkpoint");
    edit(&mut bytes);
    std::fs::write(&path, bytes).expect("rewrite checkpoint");
}

fn cases() -> Vec<Case> {
    vec![
        case("resume_valid_checkpoint", 0, "", "", &[], with_checkpoint),
        case(
            "resume_without_checkpoint",
            2,
            "state.bin",
            "no checkpoint exists",
            &["--checkpoint-interval"],
            |s| {
                s.copy_fmu("Part1");
                s.copy_fmu("Part2");
                s.project(project_text()).args(&["--resume"])
            },
        ),
        case(
            "resume_after_project_changed",
            2,
            "bad.msim",
            "changed since the checkpoint",
            &["same project"],
            |s| {
                let input = with_checkpoint(s);
                s.write(
                    "bad.msim",
                    (project_text().to_owned() + "# edited\n").as_bytes(),
                );
                input
            },
        ),
        case(
            "resume_with_other_overrides",
            2,
            "bad.msim",
            "or its --set and --input options changed since the checkpoint",
            &["same project and options"],
            |s| with_checkpoint(s).args(&["--set", "tEnd=2 s"]),
        ),
        case(
            "resume_after_fmu_archive_changed",
            2,
            "Part2.fmu",
            "FMU archive of slave 'Part2'",
            &["changed since the checkpoint"],
            |s| {
                let input = with_checkpoint(s);
                let mut entries = fmu_entries("Part2");
                entries.push(("documentation/extra.txt".to_owned(), b"changed".to_vec()));
                s.write("fmus/Part2.fmu", &zip_bytes(&entries));
                input
            },
        ),
        case(
            "resume_after_guid_changed",
            2,
            "Part1.fmu",
            "GUID of slave 'Part1'",
            &["changed since the checkpoint"],
            |s| {
                let input = with_checkpoint(s);
                let mut entries = fmu_entries("Part1");
                let (_, xml) = entries
                    .iter_mut()
                    .find(|(n, _)| n == "modelDescription.xml")
                    .expect("XML");
                let text = String::from_utf8(xml.clone()).expect("UTF-8");
                let start = text.find("guid=\"").expect("a guid") + 6;
                let end = start + text[start..].find('"').expect("guid end");
                let guid = &text[start..end];
                *xml = replace_once(&text, guid, "{00000000-0000-0000-0000-000000000000}")
                    .into_bytes();
                s.write("fmus/Part1.fmu", &zip_bytes(&entries));
                input
            },
        ),
        case(
            "resume_corrupt_checkpoint",
            2,
            "state.bin",
            "corrupt",
            &["SHA-256"],
            |s| {
                let input = with_checkpoint(s);
                edit_state(s, |b| {
                    let middle = b.len() / 2;
                    b[middle] ^= 0x55;
                });
                input
            },
        ),
        case(
            "resume_truncated_checkpoint",
            2,
            "state.bin",
            "truncated",
            &[],
            |s| {
                let input = with_checkpoint(s);
                edit_state(s, |b| b.truncate(b.len() * 2 / 3));
                input
            },
        ),
        case(
            "resume_checkpoint_of_another_format",
            2,
            "state.bin",
            "checkpoint format 99",
            &["reads format 3"],
            |s| {
                let input = with_checkpoint(s);
                edit_state(s, |b| b[8..12].copy_from_slice(&99u32.to_le_bytes()));
                input
            },
        ),
        case(
            "resume_valid_ssp_checkpoint",
            0,
            "",
            "",
            &[],
            with_ssp_checkpoint,
        ),
        case(
            "resume_after_parameter_values_changed",
            2,
            "sys/gain.ssv",
            "which the project",
            &["changed since the checkpoint", "read the same files"],
            ssp_changed!("gain.ssv", "value=\"4\"", "value=\"5\""),
        ),
        case(
            "resume_after_parameter_mapping_changed",
            2,
            "sys/gain.ssm",
            "which the project",
            &["changed since the checkpoint"],
            ssp_changed!("gain.ssm", "factor=\"0.01\"", "factor=\"0.02\""),
        ),
        case(
            "resume_after_nested_system_changed",
            2,
            "sys/parameter_mapping.ssd",
            "which the project",
            &["changed since the checkpoint"],
            ssp_changed!(
                "parameter_mapping.ssd",
                "stopTime=\"1\"",
                "stopTime=\"1.0\""
            ),
        ),
        case(
            "resume_from_a_device",
            2,
            "state.bin",
            "not a regular file",
            &[],
            |s| {
                let input = with_checkpoint(s);
                std::fs::remove_file(state(s)).expect("remove the checkpoint");
                std::os::unix::fs::symlink("/dev/zero", state(s)).expect("symlink");
                input.limit(std::time::Duration::from_secs(10))
            },
        ),
        case(
            "resume_from_a_fifo",
            2,
            "state.bin",
            "not a regular file",
            &[],
            |s| {
                let input = with_checkpoint(s);
                std::fs::remove_file(state(s)).expect("remove the checkpoint");
                let made = std::process::Command::new("mkfifo")
                    .arg(state(s))
                    .status()
                    .expect("mkfifo runs");
                assert!(made.success(), "mkfifo failed");
                input.limit(std::time::Duration::from_secs(10))
            },
        ),
        case(
            "resume_from_a_directory",
            2,
            "state.bin",
            "not a regular file",
            &[],
            |s| {
                let input = with_checkpoint(s);
                std::fs::remove_file(state(s)).expect("remove the checkpoint");
                std::fs::create_dir(state(s)).expect("a directory in its place");
                input
            },
        ),
        case(
            "resume_from_a_huge_file",
            2,
            "state.bin",
            "larger than the 4 GiB",
            &[],
            |s| {
                let input = with_checkpoint(s);
                // Sparse: 5 GiB long, nothing on the disk.
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(state(s))
                    .expect("the checkpoint");
                file.set_len(5 << 30).expect("sparse length");
                input.limit(std::time::Duration::from_secs(10))
            },
        ),
        case(
            "resume_valid_checkpoint_with_the_same_result_formats",
            0,
            "",
            "",
            &[],
            |s| checkpoint_with(s, csv_and_mat()).args(&["--result-format", "csv,mat"]),
        ),
        case(
            "resume_with_other_result_formats",
            2,
            "state.bin",
            "different result formats",
            &[
                "interrupted run used 'csv,mat'",
                "this resume asks for 'csv'",
            ],
            |s| checkpoint_with(s, csv_and_mat()).args(&["--result-format", "csv"]),
        ),
        case(
            "resume_with_another_output_threshold",
            2,
            "state.bin",
            "different output threshold",
            &["used 'off'", "asks for '0.01'"],
            |s| with_checkpoint(s).args(&["--output-threshold", "0.01"]),
        ),
        case(
            "resume_with_another_output_selection",
            2,
            "state.bin",
            "different output selection (outputOnly)",
            &["used 'every output'", "asks for 'Part1.*'"],
            |s| {
                let input = with_checkpoint(s);
                s.write(
                    "bad.msim",
                    (project_text().to_owned() + "outputOnly Part1.*\n").as_bytes(),
                );
                input
            },
        ),
        case(
            "resume_with_another_time_arithmetic",
            2,
            "state.bin",
            "different time arithmetic",
            &["used 'exact'", "asks for 'mastersim'"],
            |s| with_checkpoint(s).args(&["--time-arithmetic", "mastersim"]),
        ),
        case(
            "resume_not_a_checkpoint",
            2,
            "state.bin",
            "not a mastersim checkpoint",
            &[],
            |s| {
                let input = with_checkpoint(s);
                edit_state(s, |b| b[..8].copy_from_slice(b"NOTACKPT"));
                input
            },
        ),
    ]
}

#[test]
fn hostile_checkpoints() {
    check_table("checkpoints", cases());
}
