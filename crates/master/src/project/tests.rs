//! Unit tests of the project parser (self-contained: every project is written inline).

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;

const FILE: &str = "/work/prj/test.msim";

fn parse(text: &str) -> Project {
    Project::parse(text, Path::new(FILE)).unwrap_or_else(|e| panic!("{e}"))
}

/// Parses `text`, expects an error and checks that the message names the file, the line and
/// contains every fragment.
fn error(text: &str, line: usize, fragments: &[&str]) -> ProjectError {
    let err = Project::parse(text, Path::new(FILE)).expect_err("expected an error");
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!("{FILE}:{line}: ")),
        "message does not start with file:line ({line}): {msg}"
    );
    assert!(msg.contains("expected"), "no 'expected' in: {msg}");
    for f in fragments {
        assert!(msg.contains(f), "'{f}' not in: {msg}");
    }
    assert_eq!(err.line(), Some(line));
    err
}

const SIM: &str = "simulator 0 0 A #447cb4 \"a.fmu\"\n";

#[test]
fn defaults_match_mastersim() {
    let p = parse("");
    assert_eq!(p.path, PathBuf::from(FILE));
    assert_eq!((p.t_start.seconds, p.t_start.unit), (0.0, TimeUnit::Year));
    assert_eq!((p.t_end.value, p.t_end.unit), (1.0, TimeUnit::Year));
    assert_eq!(p.t_end.seconds, 31_536_000.0);
    assert_eq!(p.h_max.seconds, 1800.0);
    assert_eq!(p.h_min.seconds, 1e-5);
    assert_eq!(p.h_fallback_limit.seconds, 1e-3);
    assert_eq!(p.h_start.seconds, 600.0);
    assert_eq!(p.h_output_min.seconds, 600.0);
    assert_eq!(p.t_end.line, None);
    assert_eq!(p.output_time_unit, TimeUnit::Second);
    assert!(!p.adjust_step_size);
    assert!(p.prevent_overstepping_of_end_time);
    assert_eq!((p.abs_tol, p.rel_tol), (1e-6, 1e-5));
    assert_eq!(p.master_algorithm, MasterAlgorithm::GaussSeidel);
    assert_eq!(p.error_control, ErrorControl::None);
    assert_eq!(p.max_iterations, 1);
    assert!(!p.write_internal_variables);
    assert!(!p.write_unconnected_file_reader_vars);
    assert!(p.simulators.is_empty() && p.graph.is_empty() && p.parameters.is_empty());
    assert!(p.output_only.is_empty());
}

#[test]
fn every_keyword() {
    let p = parse(
        "# Created:\tMo. 1\n# LastModified:\tDi. 2\n\n# description\n\
         tStart 1 min\ntEnd 6 h\nhMax 10 min\nhMin 1e-05 s\nhFallBackLimit 0.001 s\n\
         hStart 2 d\nhOutputMin 500 ms\noutputTimeUnit h\nadjustStepSize yes\n\
         preventOversteppingOfEndTime no\nabsTol 1e-7\nrelTol 2e-4\nMasterMode NEWTON\n\
         ErrorControlMode CHECK\nmaxIterations 5\nwriteInternalVariables true\n\
         writeUnconnectedFileReaderVars 1\n",
    );
    assert_eq!(p.t_start, TimeSetting::new(1.0, TimeUnit::Minute, Some(5)));
    assert_eq!(p.t_start.seconds, 60.0);
    assert_eq!(p.t_end.seconds, 21600.0);
    assert_eq!(p.h_max.seconds, 600.0);
    assert_eq!(p.h_min.seconds, 1e-5);
    assert_eq!(p.h_fallback_limit.seconds, 0.001);
    assert_eq!(p.h_start.seconds, 172_800.0);
    assert_eq!(p.h_output_min.seconds, 500.0 * (1.0 / 1000.0));
    assert_eq!(p.h_output_min.line, Some(11));
    assert_eq!(p.output_time_unit, TimeUnit::Hour);
    assert!(p.adjust_step_size);
    assert!(!p.prevent_overstepping_of_end_time);
    assert_eq!((p.abs_tol, p.rel_tol), (1e-7, 2e-4));
    assert_eq!(p.master_algorithm, MasterAlgorithm::Newton);
    assert_eq!(p.error_control, ErrorControl::Check);
    assert_eq!(p.max_iterations, 5);
    assert!(p.write_internal_variables);
    assert!(p.write_unconnected_file_reader_vars);
}

#[test]
fn enum_and_boolean_spellings() {
    for (text, mode) in [
        ("GAUSS_JACOBI", MasterAlgorithm::GaussJacobi),
        ("GAUSS_SEIDEL", MasterAlgorithm::GaussSeidel),
        ("NEWTON", MasterAlgorithm::Newton),
    ] {
        assert_eq!(parse(&format!("MasterMode {text}")).master_algorithm, mode);
    }
    for (text, mode) in [
        ("NONE", ErrorControl::None),
        ("CHECK", ErrorControl::Check),
        ("ADAPT_STEP", ErrorControl::Adapt),
        ("STEP_DOUBLING", ErrorControl::Adapt),
    ] {
        assert_eq!(
            parse(&format!("ErrorControlMode {text}")).error_control,
            mode
        );
    }
    for (text, value) in [("true", true), ("yes", true), ("1", true)] {
        assert_eq!(
            parse(&format!("adjustStepSize {text}")).adjust_step_size,
            value
        );
    }
    for text in ["false", "no", "0"] {
        let p = parse(&format!("preventOversteppingOfEndTime\t{text}"));
        assert!(!p.prevent_overstepping_of_end_time);
    }
}

#[test]
fn later_keyword_wins_and_whitespace_is_flexible() {
    let p = parse("tEnd 1 s\n   tEnd\t\t 2   s  \r\n");
    assert_eq!(p.t_end.seconds, 2.0);
    assert_eq!(p.t_end.line, Some(2));
}

#[test]
fn quantities_touching_units_and_stream_forms() {
    assert_eq!(parse("tEnd 10s").t_end.seconds, 10.0);
    assert_eq!(parse("tEnd +1e1min").t_end.seconds, 600.0);
    assert_eq!(parse("hMin 2ms").h_min.seconds, 2.0 * (1.0 / 1000.0));
    assert_eq!(parse("tStart -5 s").t_start.seconds, -5.0);
}

#[test]
fn quantity_errors() {
    error("\ntEnd 10", 2, &["tEnd", "'10'", "<number> <unit>"]);
    error("tEnd s", 1, &["invalid tEnd 's'", "<number> <unit>"]);
    error("tEnd 1e s", 1, &["<number> <unit>"]);
    let e = error(
        "tEnd 5 m",
        1,
        &["'m' is not a time unit in tEnd", "ms, s, min, h, d, a"],
    );
    assert!(matches!(e, ProjectError::NotATimeUnit { .. }));
    error("hMax 5 K", 1, &["'K'", "hMax"]);
    error("hStart 5 S", 1, &["'S'"]);
    error(
        "tEnd 5 s extra",
        1,
        &["'extra'", "after the value of tEnd", "comment"],
    );
    error(
        "outputTimeUnit m",
        1,
        &["'m' is not a time unit in outputTimeUnit"],
    );
    error("outputTimeUnit h min", 1, &["'min'", "outputTimeUnit"]);
}

#[test]
fn value_errors() {
    error("tEnd", 1, &["'tEnd' has no value", "'tEnd <value>'"]);
    error(
        "MasterMode   # only a comment",
        1,
        &["'MasterMode' has no value"],
    );
    error(
        "adjustStepSize True",
        1,
        &["adjustStepSize", "'True'", "true, yes, 1"],
    );
    error(
        "writeInternalVariables on",
        1,
        &["writeInternalVariables", "'on'"],
    );
    let e = error(
        "MasterMode GAUSS",
        1,
        &["unknown MasterMode 'GAUSS'", "GAUSS_SEIDEL"],
    );
    assert!(matches!(
        e,
        ProjectError::BadEnum {
            keyword: "MasterMode",
            ..
        }
    ));
    error(
        "ErrorControlMode ADAPT",
        1,
        &["unknown ErrorControlMode 'ADAPT'", "STEP_DOUBLING"],
    );
    error("absTol 1e-6abc", 1, &["absTol", "'1e-6abc'", "number"]);
    error("relTol +1e-5", 1, &["relTol", "'+1e-5'"]);
    error("absTol 1 2", 1, &["'2'", "absTol"]);
    error(
        "maxIterations -1",
        1,
        &["maxIterations", "unsigned integer"],
    );
    error("maxIterations 2.5", 1, &["'2.5'"]);
    error("maxIterations 99999999999", 1, &["maxIterations"]);
}

#[test]
fn unknown_keywords_and_typos() {
    error(
        "binaryOutputFiles yes",
        1,
        &["'binaryOutputFiles' is not a keyword", "tStart"],
    );
    let e = error(
        &format!("{SIM}parameters A.x 1"),
        2,
        &["'parameters' is not a keyword", "did you mean 'parameter'?"],
    );
    assert!(matches!(
        e,
        ProjectError::UnknownKeyword {
            suggestion: Some("parameter"),
            ..
        }
    ));
    error("tend 5 s", 1, &["did you mean 'tEnd'?"]);
    error(
        "simulators 0 0 A #fff a.fmu",
        1,
        &["did you mean 'simulator'?"],
    );
    error("graphs A.x B.y", 1, &["did you mean 'graph'?"]);
    error("foo", 1, &["'foo' is not a keyword"]);
}

#[test]
fn trailing_comments_on_every_line_type() {
    let p = parse(
        "adjustStepSize yes # x\nMasterMode GAUSS_JACOBI\t# x\ntEnd 2 s # x\nabsTol 1e-3 #x\n\
         maxIterations 3 # x\noutputTimeUnit min # x\n\
         simulator 0 0 A #447cb4 \"a.fmu\" # first\n\
         simulator 1 0 B #447cb4 b.fmu #second\n\
         graph A.x B.y # plain\ngraph A.x B.y 1 2 # scaled\n\
         graph A.x B.y 1 2 0.8 #ff0000 # styled\n\
         parameter A.p 1.5 # comment\nparameter A.s \"a # b\" # comment\n\
         outputOnly A.* # comment\n",
    );
    assert!(p.adjust_step_size);
    assert_eq!(p.master_algorithm, MasterAlgorithm::GaussJacobi);
    assert_eq!(p.t_end.seconds, 2.0);
    assert_eq!(p.abs_tol, 1e-3);
    assert_eq!(p.max_iterations, 3);
    assert_eq!(p.output_time_unit, TimeUnit::Minute);
    assert_eq!(p.simulators.len(), 2);
    assert_eq!(p.simulators[1].path_text, "b.fmu");
    assert_eq!(p.graph.len(), 3);
    assert_eq!((p.graph[2].offset, p.graph[2].scale_factor), (1.0, 2.0));
    assert_eq!(p.parameters[0].value, "1.5");
    assert_eq!(p.parameters[1].value, "a # b");
    assert_eq!(p.output_only, vec![("A.*".to_owned(), 14)]);
}

#[test]
fn simulator_lines() {
    let p = parse(
        "simulator 0 0 Part1 #447cb4 \"fmus/IBK/Part1.fmu\"\n\
         simulator  1\t1 Part2 #ffc38200 \"fmus with spaces/IBK/Predator 2.fmu\"\n\
         simulator 7 0 values 4286611584 ..\\data\\.\\values.csv\n\
         simulator -1 3 Abs #00FF0000 /abs/x.fmu\n",
    );
    let s = &p.simulators;
    assert_eq!(
        (s[0].index, s[0].cycle, s[0].name.as_str()),
        (0, 0, "Part1")
    );
    assert_eq!(s[0].color, 0xff44_7cb4);
    assert_eq!(s[0].path_text, "fmus/IBK/Part1.fmu");
    assert_eq!(s[0].path, PathBuf::from("/work/prj/fmus/IBK/Part1.fmu"));
    assert_eq!(s[0].line, 1);
    assert_eq!((s[1].index, s[1].cycle), (1, 1));
    assert_eq!(s[1].color, 0xffc3_8200);
    assert_eq!(
        s[1].path,
        PathBuf::from("/work/prj/fmus with spaces/IBK/Predator 2.fmu")
    );
    assert_eq!(s[2].color, 4_286_611_584);
    assert_eq!(s[2].path_text, "../data/./values.csv");
    assert_eq!(s[2].path, PathBuf::from("/work/data/values.csv"));
    assert_eq!((s[3].index, s[3].cycle), (-1, 3));
    assert_eq!(s[3].color, 0x00ff_0000);
    assert_eq!(s[3].path, PathBuf::from("/abs/x.fmu"));
}

#[test]
fn relative_project_path_becomes_absolute() {
    let p = Project::parse(SIM, Path::new("sub/../p.msim")).unwrap();
    assert!(p.path.is_absolute());
    assert!(p.path.ends_with("p.msim"));
    assert_eq!(p.simulators[0].path, p.path.parent().unwrap().join("a.fmu"));
}

#[test]
fn simulator_errors() {
    let form = "'simulator <index> <cycle> <name> <color> \"<path>\"'";
    let e = error(
        "\n\nsimulator 0 0 A #fff000 fmus/with space.fmu",
        3,
        &["6 field(s)", form],
    );
    assert!(matches!(e, ProjectError::BadSimulator { found: 6, .. }));
    error("simulator 0 0 A \"a.fmu\"", 1, &["4 field(s)", form]);
    error("simulator", 1, &["0 field(s)", form]);
    error(
        "simulator 0 0 A #447cb4 a.fmu extra # c",
        1,
        &["6 field(s)"],
    );
    error(
        "simulator x 0 A #447cb4 a.fmu",
        1,
        &["simulator index 'x'", "an integer"],
    );
    error(
        "simulator 0 -1 A #447cb4 a.fmu",
        1,
        &["simulator cycle '-1'", "unsigned integer"],
    );
    error("simulator 0 1x A #447cb4 a.fmu", 1, &["cycle '1x'"]);
    error(
        "simulator 0 0 A.B #447cb4 a.fmu",
        1,
        &["simulator name 'A.B'", "without dots"],
    );
    error(
        "simulator 0 0 \"A B\" #447cb4 a.fmu",
        1,
        &["name '\"A B\"'"],
    );
    error(
        "simulator 0 0 A red a.fmu",
        1,
        &["invalid colour 'red'", "'#rrggbb'"],
    );
    error("simulator 0 0 A #12345 a.fmu", 1, &["colour '#12345'"]);
    error(
        "simulator 0 0 A #447cb4 \"\"",
        1,
        &["simulator path", ".fmu"],
    );
    error(
        "simulator 0 0 A #447cb4 \"a.fmu",
        1,
        &["unterminated double quote"],
    );
    let e = error(
        &format!("{SIM}\nsimulator 1 0 A #447cb4 b.fmu"),
        3,
        &["'A'", "line 1", "unique"],
    );
    assert!(matches!(
        e,
        ProjectError::DuplicateSlave { first_line: 1, .. }
    ));
}

#[test]
fn graph_lines() {
    let p = parse(
        "graph values.Predator.y Prey.y\n\
         graph \"w.Outdoor temperature\" \"B.T in\" -1.5 2e3\n\
         graph A.x B.y 0 1 0.2 #ff00ff\n",
    );
    let g = &p.graph;
    assert_eq!(g[0].output.slave, "values");
    assert_eq!(g[0].output.variable, "Predator.y");
    assert_eq!(
        (g[0].input.slave.as_str(), g[0].input.variable.as_str()),
        ("Prey", "y")
    );
    assert_eq!((g[0].offset, g[0].scale_factor, g[0].line), (0.0, 1.0, 1));
    assert_eq!(g[1].output.variable, "Outdoor temperature");
    assert_eq!(g[1].input.variable, "T in");
    assert_eq!((g[1].offset, g[1].scale_factor), (-1.5, 2000.0));
    assert_eq!(g[2].line, 3);
}

#[test]
fn graph_errors() {
    let form =
        "'graph <slave>.<output> <slave>.<input> [<offset> <scaleFactor> [<lineWidth> <color>]]'";
    error("graph A.x", 1, &["1 field(s)", form]);
    error("graph A.x B.y 1", 1, &["3 field(s)", form]);
    error("graph A.x B.y 1 2 3", 1, &["5 field(s)"]);
    error("graph A.x B.y 1 2 3 #fff000 x", 1, &["7 field(s)"]);
    error(
        "graph Ax B.y",
        1,
        &["variable reference 'Ax'", "'<slave>.<variable>'"],
    );
    error("graph A.x .y", 1, &["variable reference '.y'"]);
    error("graph A.x B.", 1, &["'B.'"]);
    error("graph A.x B.y +1 2", 1, &["graph offset '+1'", "number"]);
    error("graph A.x B.y 1 2x", 1, &["graph scale factor '2x'"]);
    error(
        "graph A.x B.y 1 2 wide #ff0000",
        1,
        &["graph line width 'wide'"],
    );
    error("graph A.x B.y 1 2 1 # comment", 1, &["5 field(s)"]);
    error(
        "graph A.x B.y 1 2 1 #12345",
        1,
        &["invalid colour '#12345'"],
    );
    error("graph A.x \"B.y", 1, &["unterminated double quote"]);
}

#[test]
fn parameter_lines() {
    let p = parse(&format!(
        "{SIM}parameter A.x 14.3\nparameter A.s   \"  padded  \"\n\
         parameter\tA.path C:\\\\dir\\\\file.txt\nparameter A.lines a\\nb\n\
         parameter A.q \"\nparameter A.e \"\"\nparameter A.sub.var text with spaces\n\
         parameter A.x 2\n"
    ));
    let v: Vec<(&str, &str, usize)> = p
        .parameters
        .iter()
        .map(|d| (d.variable.as_str(), d.value.as_str(), d.line))
        .collect();
    assert_eq!(
        v,
        vec![
            ("x", "14.3", 2),
            ("s", "  padded  ", 3),
            ("path", "C:\\dir\\file.txt", 4),
            ("lines", "a\nb", 5),
            ("q", "\"", 6),
            ("e", "", 7),
            ("sub.var", "text with spaces", 8),
            ("x", "2", 9),
        ]
    );
    assert!(p.parameters.iter().all(|d| d.slave == "A"));
    // MasterSim replaces `\\` first, so `\\n` ends up as a newline too.
    let p = parse(&format!("{SIM}parameter A.x a\\\\nb"));
    assert_eq!(p.parameters[0].value, "a\nb");
}

#[test]
fn parameter_errors() {
    let form = "'parameter <slave>.<variable> <value>'";
    error(
        &format!("{SIM}parameter A.x"),
        2,
        &["malformed parameter line", form],
    );
    error(&format!("{SIM}parameter A.x   # no value"), 2, &[form]);
    error(&format!("{SIM}parameter"), 2, &[form]);
    error(
        &format!("{SIM}parameter Ax 1"),
        2,
        &["parameter name 'Ax'", "'<slave>.<variable>'"],
    );
    error(&format!("{SIM}parameter .x 1"), 2, &["parameter name '.x'"]);
    let e = error(
        &format!("parameter A.x 1\n{SIM}"),
        1,
        &["unknown slave 'A'", "'simulator' line defining 'A' above"],
    );
    assert!(matches!(e, ProjectError::UnknownParameterSlave { .. }));
}

#[test]
fn output_only_keeps_the_whole_pattern() {
    let p = parse("outputOnly   Part1.x*  \n");
    assert_eq!(p.output_only, vec![("Part1.x*".to_owned(), 1)]);
    error("outputOnly  # nothing", 1, &["'outputOnly' has no value"]);
}

#[test]
fn crlf_bom_and_comments() {
    let p = parse(
        "\u{feff}# header\r\n\r\n  # indented comment\r\ntEnd 3 s\r\n\tMasterMode NEWTON\r\n",
    );
    assert_eq!(p.t_end.seconds, 3.0);
    assert_eq!(p.t_end.line, Some(4));
    assert_eq!(p.master_algorithm, MasterAlgorithm::Newton);
    error("\u{feff}tEnd\r\n", 1, &["'tEnd' has no value"]);
}

#[test]
fn from_file_reads_and_reports_io_and_utf8_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.msim");
    std::fs::write(&path, "tEnd 7 s\nsimulator 0 0 A #447cb4 \"x/a.fmu\"\n").unwrap();
    let p = Project::from_file(&path).unwrap();
    assert_eq!(p.t_end.seconds, 7.0);
    assert_eq!(p.simulators[0].path, dir.path().join("x/a.fmu"));

    let missing = dir.path().join("missing.msim");
    let err = Project::from_file(&missing).unwrap_err();
    assert!(matches!(err, ProjectError::Io { .. }));
    assert!(err.to_string().contains("missing.msim"));
    assert_eq!(err.line(), None);

    std::fs::write(&path, b"tEnd 7 s\n\ntEnd \xff s\n").unwrap();
    let err = Project::from_file(&path).unwrap_err();
    assert!(matches!(err, ProjectError::InvalidUtf8 { line: 3, .. }));
    assert!(err.to_string().contains("p.msim:3:"));
}

proptest! {
    #[test]
    fn parser_never_panics_on_arbitrary_lines(
        lines in proptest::collection::vec(
            prop_oneof![
                "\\PC{0,40}",
                "(simulator|graph|parameter|outputOnly|tEnd|MasterMode|absTol)[ \t][ -~]{0,30}",
                "simulator [0-9] [0-9] [A-Z] #[0-9a-f]{6} \"?[a-z ]{0,5}\"?( #.*)?",
            ],
            0..8,
        )
    ) {
        let text = lines.join("\n");
        match Project::parse(&text, Path::new("p.msim")) {
            Ok(_) => {}
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(msg.starts_with("p.msim:"), "{}", msg);
                prop_assert!(e.line().is_some());
            }
        }
    }
}

#[test]
fn multirate_lines() {
    let sims = "simulator 0 0 A #ff0000 a.fmu\nsimulator 1 0 B #00ff00 b.fmu\n";
    let p = parse(&format!(
        "communicationInterval A 10 ms\n{sims}communicationOffset A 5ms # comment\n\
         communicationTrigger B A\ncommunicationInterval C 0.25\nsimulator 2 0 C #0000ff c.fmu\n"
    ));
    assert_eq!(p.communication.len(), 4);
    assert_eq!(p.communication[0].slave, "A");
    assert_eq!(
        p.communication[0].setting,
        Communication::Interval(TimeSetting::new(10.0, TimeUnit::Millisecond, Some(1)))
    );
    assert_eq!(
        p.communication[1].setting,
        Communication::Offset(TimeSetting::new(5.0, TimeUnit::Millisecond, Some(4)))
    );
    assert_eq!(
        p.communication[2].setting,
        Communication::Trigger("A".into())
    );
    assert_eq!(
        p.communication[3].setting,
        Communication::Interval(TimeSetting::new(0.25, TimeUnit::Second, Some(6)))
    );
    error(
        &format!("{sims}communicationTrigger B A\ncommunicationInterval B 1 s\n"),
        4,
        &[
            "'B' has a communicationTrigger and a communicationInterval (line 3)",
            "no clock",
        ],
    );
    error(
        &format!("{sims}communicationInterval A 1 s\ncommunicationInterval A 2 s\n"),
        4,
        &["communicationInterval for slave 'A' is already given on line 3"],
    );
    error(
        &format!("{sims}communicationInterval A 1 parsec\n"),
        3,
        &["'parsec' is not a time unit"],
    );
    error(
        &format!("{sims}communicationInterval A fast\n"),
        3,
        &["invalid communicationInterval value 'fast'"],
    );
    error(
        &format!("{sims}communicationTrigger A A\n"),
        3,
        &["cycle: A -> A"],
    );
    error(
        &format!("{sims}communicationTrigger A C\n"),
        3,
        &["unknown slave 'C' (slaves: A, B)"],
    );
    error(
        "communicationOffset A 1 s 2\n",
        1,
        &["malformed communicationOffset line"],
    );
}

/// `--set` overrides act as more lines at the end of the file; errors name the option, and
/// what an override set is located at the option.
#[test]
fn overrides_are_lines_at_the_end_and_errors_name_the_option() {
    let text = "tEnd 20 s\nhStart 0.1 s\nsimulator 0 0 Prey #ff0000 prey.fmu\n\
                parameter Prey.alpha 1.0\n";
    let mut project = parse(text);
    project
        .apply_overrides(
            &[
                "tEnd=10 s".into(),
                "MasterMode=NEWTON".into(),
                "Prey.alpha=1.5".into(),
                "Prey.name=a # b".into(),
            ],
            None,
        )
        .unwrap();
    assert_eq!(project.t_end.seconds, 10.0);
    assert_eq!(project.master_algorithm, MasterAlgorithm::Newton);
    let last = project.parameters.last().unwrap();
    assert_eq!(
        (last.variable.as_str(), last.value.as_str()),
        ("name", "a # b")
    );
    assert_eq!(project.parameters[1].value, "1.5");
    // What an override set is located at the option, what the file set at its line.
    let at = project.location(project.keyword_lines.get("tEnd").copied());
    assert_eq!(at.to_string(), "--set tEnd=10 s");
    assert_eq!(project.location(Some(4)).to_string(), format!("{FILE}:4"));
    assert_eq!(project.location(None).to_string(), FILE);
    assert_eq!(
        project.command_line,
        [
            "--set tEnd=10 s",
            "--set MasterMode=NEWTON",
            "--set Prey.alpha=1.5",
            "--set Prey.name=a # b"
        ]
    );

    let refused = |text: &str, fragments: &[&str]| {
        let mut p = parse("simulator 0 0 Prey #ff0000 prey.fmu\n");
        let e = p.apply_overrides(&[text.to_owned()], None).unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with(&format!("--set {text}: ")), "{msg}");
        assert!(!msg.contains(":18446744073709551615"), "{msg}");
        for f in fragments {
            assert!(msg.contains(f), "'{f}' not in: {msg}");
        }
    };
    refused("tEnd=ten s", &["invalid tEnd 'ten s'", "expected"]);
    refused("tEnd=10 parsec", &["'parsec' is not a time unit"]);
    refused("tend=10 s", &["did you mean 'tEnd'?"]);
    refused("MasterMode=FAST", &["GAUSS_JACOBI, GAUSS_SEIDEL, NEWTON"]);
    refused("tEnd", &["no '='", "<keyword>=<value>"]);
    refused(
        "Wolf.alpha=1",
        &["'Wolf' is neither a keyword nor a slave", "Prey"],
    );
    refused("simulator=0 0 A #fff a.fmu", &["is not a keyword"]);
}

/// In a run of one FMU, a name that is not a keyword is the FMU's variable, with or without
/// the slave prefix.
#[test]
fn single_fmu_projects_and_their_overrides() {
    let mut project = Project::for_fmu(Path::new("/work/models/Bouncing Ball.v2.fmu"));
    assert_eq!(project.path, Path::new("/work/models/Bouncing Ball.v2.fmu"));
    let name = project.simulators[0].name.clone();
    assert_eq!(name, "Bouncing_Ball_v2");
    project
        .apply_overrides(
            &[
                "e=0.5".into(),
                "Bouncing_Ball_v2.h=2".into(),
                "der(v)=1".into(),
                "tEnd=3 s".into(),
            ],
            Some(&name),
        )
        .unwrap();
    let set: Vec<(&str, &str)> = project
        .parameters
        .iter()
        .map(|p| (p.variable.as_str(), p.value.as_str()))
        .collect();
    assert_eq!(set, [("e", "0.5"), ("h", "2"), ("der(v)", "1")]);
    assert_eq!(project.t_end.seconds, 3.0);
}

/// A written project reads back to the same project.
#[test]
fn written_projects_read_back_equal() {
    let text = "tStart 1 min\ntEnd 2 h\nhStart 0.5 s\nhMax 2 min\nhMin 1 ms\nadjustStepSize yes\n\
                maxIterations 3\nErrorControlMode ADAPT_STEP\nresultFormats csv,mat\n\
                outputThreshold 0.001\ntimeArithmetic MASTERSIM\n\
                simulator 0 0 A #ff447cb4 \"sub dir/a.fmu\"\n\
                simulator 1 1 B #80123456 /elsewhere/b.fmu\n\
                simulator 2 1 C #ff000000 table.tsv\n\
                graph A.x B.u 0.5 2\ngraph \"C.col one\" A.u\n\
                parameter A.name \"with # hash\"\nparameter A.path a\\\\b\nparameter B.k 1e-3\n\
                communicationInterval A 10 ms\ncommunicationTrigger B A\n\
                outputOnly A.* B.y\n";
    let project = parse(text);
    let written = project.to_text(Path::new("/work/prj"), "made by a test\nsecond line");
    assert!(
        written.starts_with("# made by a test\n# second line\n"),
        "{written}"
    );
    assert!(written.contains("\"sub dir/a.fmu\""), "{written}");
    assert!(written.contains("/elsewhere/b.fmu"), "{written}");
    let mut back =
        Project::parse(&written, Path::new(FILE)).unwrap_or_else(|e| panic!("{e}\n{written}"));
    // Line numbers differ; everything else is equal.
    back.keyword_lines = project.keyword_lines.clone();
    let unline = |p: &mut Project| {
        for t in [
            &mut p.t_start,
            &mut p.t_end,
            &mut p.h_max,
            &mut p.h_min,
            &mut p.h_fallback_limit,
            &mut p.h_start,
            &mut p.h_output_min,
        ] {
            t.line = None;
        }
        p.simulators.iter_mut().for_each(|s| s.line = 0);
        p.graph.iter_mut().for_each(|g| g.line = 0);
        p.parameters.iter_mut().for_each(|x| x.line = 0);
        p.communication.iter_mut().for_each(|c| {
            c.line = 0;
            if let Communication::Interval(t) | Communication::Offset(t) = &mut c.setting {
                t.line = None;
            }
        });
        p.output_only.iter_mut().for_each(|o| o.1 = 0);
        p.simulators.iter_mut().for_each(|s| s.path_text.clear());
    };
    let mut original = project.clone();
    unline(&mut original);
    unline(&mut back);
    assert_eq!(back, original);
}
