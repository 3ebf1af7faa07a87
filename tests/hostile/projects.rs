//! Project files beyond `bad_input.rs`: syntax (quotes, colours, numbers, keywords, encoding),
//! definitions out of order, connections and settings that cannot work together.
//!
//! Every row appends its lines to a valid project at line 9 (the row `valid_base_project`
//! runs it unchanged), so the error names `bad.msim:9:` unless said otherwise.
//!
//! Decided here: an empty project file (or one with only comments) is an input error, exit 2,
//! naming the file and that no `simulator` line was found: a run without slaves has nothing
//! to compute.

use super::rows::{Case, Input, Sandbox, case, check_table};

/// Lines 1–8 of every project: two control-loop parts and the four-variable pair, with the
/// FMUs copied into the sandbox.
fn base(s: &Sandbox) -> String {
    for model in [
        "Part1",
        "Part2",
        "FourVars",
        "FourVarsFeedThrough",
        "Oscillator",
    ] {
        s.copy_fmu(model);
    }
    "tStart 0 s\n\
     tEnd 1 s\n\
     hStart 0.1 s\n\
     simulator 0 0 Part1 #447cb4 \"fmus/Part1.fmu\"\n\
     simulator 1 1 Part2 #c38200 \"fmus/Part2.fmu\"\n\
     simulator 2 1 Gen #ff0000 \"fmus/FourVars.fmu\"\n\
     simulator 3 2 Feed #ff0000 \"fmus/FourVarsFeedThrough.fmu\"\n\
     graph Part1.x1 Part2.x1\n"
        .to_owned()
}

/// The base project with `extra` from line 9 on.
fn with(s: &Sandbox, extra: &str) -> Input {
    s.project(&(base(s) + extra + "\n"))
}

/// A row that appends `$extra` to the base project.
macro_rules! extra {
    ($extra:expr) => {
        |s| with(s, $extra)
    };
}

const AT9: &str = "bad.msim:9:";

fn cases() -> Vec<Case> {
    vec![
        case("valid_base_project", 0, "", "", &[], extra!("")),
        case(
            "unclosed_quote",
            2,
            AT9,
            "unterminated double quote",
            &["expected a closing '\"'"],
            extra!("simulator 4 2 Part3 #ff0000 \"fmus/Part1.fmu"),
        ),
        case(
            "bad_colour",
            2,
            AT9,
            "invalid colour '#ggg000'",
            &["expected '#rrggbb'"],
            extra!("simulator 4 2 Part3 #ggg000 \"fmus/Part1.fmu\""),
        ),
        case(
            "negative_cycle",
            2,
            AT9,
            "invalid simulator cycle '-1'",
            &["expected an unsigned integer"],
            extra!("simulator 4 -1 Part3 #ff0000 \"fmus/Part1.fmu\""),
        ),
        case(
            "duplicate_slave_name",
            2,
            AT9,
            "slave name 'Part1' is already defined on line 4",
            &[],
            extra!("simulator 4 2 Part1 #ff0000 \"fmus/Part1.fmu\""),
        ),
        case(
            "parameter_before_its_simulator",
            2,
            AT9,
            "parameter for unknown slave 'Osc'",
            &["'simulator' line defining 'Osc' above this line"],
            extra!("parameter Osc.omega 3\nsimulator 4 3 Osc #ff0000 \"fmus/Oscillator.fmu\""),
        ),
        case(
            "parameters_typo",
            2,
            AT9,
            "'parameters' is not a keyword",
            &["did you mean 'parameter'?"],
            extra!("parameters Part1.r 2"),
        ),
        case(
            "graph_with_three_fields",
            2,
            AT9,
            "malformed graph line with 3 field(s)",
            &["graph <slave>.<output> <slave>.<input>"],
            extra!("graph Part1.x2 Part2.x2 Part2.x4"),
        ),
        case(
            "string_output_to_real_input",
            2,
            AT9,
            "type mismatch",
            &["'Gen.VString' (String)", "'Feed.InReal' (Real)"],
            extra!("graph Gen.VString Feed.InReal"),
        ),
        case(
            "output_only_bad_glob",
            2,
            AT9,
            "invalid outputOnly",
            &["bad pattern 'Part1.[x'"],
            extra!("outputOnly Part1.[x"),
        ),
        case("not_utf8", 2, AT9, "invalid UTF-8", &[], |s| {
            let mut bytes = base(s).into_bytes();
            bytes.extend_from_slice(b"tEnd 2 s # caf\xe9 latin-1\n");
            s.project_bytes(&bytes)
        }),
        case(
            "empty_file",
            2,
            "bad.msim",
            "no 'simulator' line",
            &[],
            |s| s.project(""),
        ),
        case(
            "only_comments",
            2,
            "bad.msim",
            "no 'simulator' line",
            &[],
            |s| s.project("# nothing here\n\n   # still nothing\n"),
        ),
        case(
            "h_output_min_zero",
            2,
            AT9,
            "invalid hOutputMin: 0 s",
            &["expected a spacing > 0"],
            extra!("hOutputMin 0 s"),
        ),
        case(
            "t_end_equals_t_start",
            2,
            AT9,
            "invalid tEnd",
            &["must be greater than tStart = 0 s"],
            extra!("tEnd 0 s"),
        ),
        case(
            // The error names tEnd's line (2), where the end time is set.
            "t_end_before_t_start",
            2,
            "bad.msim:2:",
            "invalid tEnd",
            &["tEnd = 1 s must be greater than tStart = 5 s"],
            extra!("tStart 5 s"),
        ),
        case(
            "max_iterations_zero",
            2,
            AT9,
            "invalid maxIterations: 0",
            &["expected at least 1"],
            extra!("maxIterations 0"),
        ),
        case(
            "gauss_jacobi_with_max_iterations_2",
            2,
            "bad.msim:10:",
            "invalid maxIterations",
            &["Gauss-Jacobi never iterates", "expected maxIterations 1"],
            extra!("MasterMode GAUSS_JACOBI\nmaxIterations 2"),
        ),
        case(
            "newton_with_fmi1_slave",
            2,
            "Oscillator.fmu",
            "slave 'Osc'",
            &["does not provide canGetAndSetFMUstate", "MasterMode NEWTON"],
            extra!(
                "MasterMode NEWTON\nmaxIterations 3\n\
                 simulator 4 3 Osc #ff0000 \"fmus/Oscillator.fmu\""
            ),
        ),
        case(
            "unsupported_slave_file_extension",
            2,
            AT9,
            "'Part3'",
            &["model.zip"],
            |s| {
                s.write("model.zip", b"PK");
                with(s, "simulator 4 2 Part3 #ff0000 \"model.zip\"")
            },
        ),
        case(
            // The scene of a --live run names a variable the run does not have: the run is
            // refused before the view is served and the run starts (docs/live.md, "Scenes").
            "scene_naming_an_unknown_variable",
            2,
            "views/scene.toml:7:",
            "object 'dot': x: variable 'Part1.x9' does not exist in the project's results",
            &[
                "bad.msim:9: scene",
                "expected a numeric result variable such as Part1.",
            ],
            |s| {
                let scene = "[frame]\nx = [0, 1]\n\n[[object]]\nid = \"dot\"\n\
                             kind = \"point\"\nx = \"Part1.x9\"\ny = 0\n";
                s.write("views/scene.toml", scene.as_bytes());
                with(s, "scene views/scene.toml").args(&["--live"])
            },
        ),
        case(
            // Without --live nothing draws the scene, and the run does not read it.
            "scene_naming_an_unknown_variable_without_live",
            0,
            "",
            "",
            &[],
            |s| {
                s.write(
                    "views/scene.toml",
                    b"[[object]]\nid = \"p\"\nkind = \"point\"\nx = \"A.b\"\ny = 0\n",
                );
                with(s, "scene views/scene.toml")
            },
        ),
    ]
}

#[test]
fn hostile_projects() {
    check_table("projects", cases());
}
