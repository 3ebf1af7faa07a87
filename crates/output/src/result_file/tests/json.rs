//! The JSON reader: round trips through [`SignalTableWriter`] and the errors of hand-written
//! files.

use super::*;
use crate::JsonProblem;
use crate::signal_table::{
    AttributeMap, ParameterValue, SignalLayout, SignalTableWriter, SignalType, TableParameter,
    TableSignal, Variability,
};

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

fn parameter(name: &str, unit: &str, value: ParameterValue) -> TableParameter {
    TableParameter {
        name: name.to_string(),
        unit: unit.to_string(),
        info: String::new(),
        value,
    }
}

use crate::test_support::table_alias as alias;

/// Every kind of member mastersim writes: signals of the four types, parameters of the four
/// types, plain and negated aliases of both.
fn layout() -> SignalLayout {
    let mut prey = TableSignal::new("LV.x", SignalType::Real, "-");
    prey.info = "Prey population".to_string();
    let mut on = TableSignal::new("LV.on", SignalType::Boolean, "");
    on.variability = Variability::Discrete;
    let mut label = TableSignal::new("LV.label", SignalType::String, "");
    label.variability = Variability::Discrete;
    SignalLayout {
        time_unit: "ms".to_string(),
        signals: vec![
            prey,
            on,
            TableSignal::new("LV.n", SignalType::Integer, ""),
            TableSignal::new("LV.v", SignalType::Real, "m/s"),
            label,
        ],
        parameters: vec![
            parameter("LV.alpha", "1/s", ParameterValue::Real(1.1)),
            parameter("LV.steps", "", ParameterValue::Integer(i32::MIN.into())),
            parameter("LV.flag", "", ParameterValue::Boolean(true)),
            parameter(
                "LV.file",
                "",
                ParameterValue::String("in \"quotes\"\n".to_string()),
            ),
            parameter("LV.nan", "K", ParameterValue::Real(f64::NAN)),
        ],
        aliases: vec![
            alias("A.x", 0, false, false),
            alias("A.minusV", 3, true, false),
            alias("A.minusN", 2, true, false),
            alias("A.notOn", 1, true, false),
            alias("A.alpha", 0, false, true),
            alias("A.minusSteps", 1, true, true),
            alias("A.label", 4, false, false),
        ],
    }
}

/// What was written: the time, per row the values of `LV.x`, `LV.on`, `LV.n`, `LV.v` and
/// `LV.label`.
struct Written {
    time: Vec<f64>,
    x: Vec<f64>,
    on: Vec<bool>,
    n: Vec<i32>,
    v: Vec<f64>,
    label: Vec<String>,
}

/// Writes the sample table to `path` with the crate's writer.
fn write_sample(path: &Path, rows: usize) -> Result<Written> {
    let x = crate::test_support::reals(rows);
    let mut written = Written {
        time: (0..rows).map(|i| i as f64 * 0.1).collect(),
        x: x.clone(),
        on: (0..rows).map(|i| i % 3 == 0).collect(),
        n: (0..rows)
            .map(|i| if i == 1 { i32::MIN } else { i as i32 - 7 })
            .collect(),
        v: x.iter().rev().copied().collect(),
        label: (0..rows).map(|i| format!("s{}", i / 4)).collect(),
    };
    if rows > 3 {
        written.v[3] = f64::NAN;
    }
    let mut w = SignalTableWriter::create(path, &layout())?;
    for i in 0..rows {
        w.push_row(
            written.time[i],
            &[written.on[i]],
            &[written.n[i].into()],
            &[written.x[i], written.v[i]],
            &[&written.label[i]],
        )?;
    }
    let attributes = AttributeMap::new().with(
        "experiment",
        AttributeMap::new()
            .with("startTime", 0.0)
            .with("stopTime", 1.0),
    );
    w.finish(&attributes)?;
    Ok(written)
}

#[test]
fn round_trip_keeps_every_value_bit_for_bit() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("results.json");
    let rows = 2000;
    let w = write_sample(&path, rows)?;
    let file = read(&path)?;
    assert_eq!(file.time_unit, "ms");

    let summary = kinds(&file);
    use SeriesKind::{Parameter, Variable};
    assert_eq!(
        summary,
        [
            ("LV.x", "-", Variable),
            ("LV.on", "", Variable),
            ("LV.n", "", Variable),
            ("LV.v", "m/s", Variable),
            ("LV.alpha", "1/s", Parameter),
            ("LV.steps", "", Parameter),
            ("LV.flag", "", Parameter),
            ("LV.nan", "K", Parameter),
            ("A.x", "u", Variable),
            ("A.minusV", "u", Variable),
            ("A.minusN", "u", Variable),
            ("A.notOn", "u", Variable),
            ("A.alpha", "u", Parameter),
            ("A.minusSteps", "u", Parameter),
        ]
    );
    let series = |name: &str| {
        file.series
            .iter()
            .find(|s| s.name == name)
            .expect("series present")
    };
    let time = &series("LV.x").time;
    assert_eq!(bits(time), bits(&w.time));
    for s in file.series.iter().filter(|s| s.kind == Variable) {
        assert!(
            Arc::ptr_eq(&s.time, time),
            "{} shares the time axis",
            s.name
        );
    }

    assert_eq!(bits(&series("LV.x").values), bits(&w.x));
    assert_eq!(bits(&series("A.x").values), bits(&w.x));
    let on: Vec<f64> = w.on.iter().map(|&b| f64::from(u8::from(b))).collect();
    assert_eq!(series("LV.on").values, on);
    let not_on: Vec<f64> = on.iter().map(|b| 1.0 - b).collect();
    assert_eq!(series("A.notOn").values, not_on);
    let n: Vec<f64> = w.n.iter().map(|&n| f64::from(n)).collect();
    assert_eq!(series("LV.n").values, n);
    let minus_n: Vec<f64> = n.iter().map(|n| -n).collect();
    assert_eq!(series("A.minusN").values, minus_n);
    assert_eq!(series("A.minusN").values[1], 2_147_483_648.0);
    // NaN is written as null and read back as NaN.
    let v = &series("LV.v").values;
    assert!(v[3].is_nan());
    assert_eq!(bits(&v[4..]), bits(&w.v[4..]));
    let minus_v: Vec<f64> = w.v.iter().map(|v| -v).collect();
    assert_eq!(bits(&series("A.minusV").values[4..]), bits(&minus_v[4..]));

    // Parameters: their value at the first and the last time point.
    let last = w.time[rows - 1];
    let alpha = series("LV.alpha");
    assert_eq!((*alpha.time).clone(), [0.0, last]);
    assert_eq!(alpha.values, [1.1, 1.1]);
    assert!(Arc::ptr_eq(&alpha.time, &series("LV.flag").time));
    assert_eq!(series("LV.steps").values, [-2_147_483_648.0; 2]);
    assert_eq!(series("A.minusSteps").values, [2_147_483_648.0; 2]);
    assert_eq!(series("LV.flag").values, [1.0, 1.0]);
    assert!(series("LV.nan").values.iter().all(|v| v.is_nan()));
    assert_eq!(series("A.alpha").values, [1.1, 1.1]);

    assert_eq!(
        file.text_columns,
        [
            TextColumn {
                name: "LV.label".to_string(),
                line: 1,
                text: "s0".to_string()
            },
            TextColumn {
                name: "LV.file".to_string(),
                line: 1,
                text: "in \"quotes\"\n".to_string()
            },
            TextColumn {
                name: "A.label".to_string(),
                line: 1,
                text: "s0".to_string()
            },
        ]
    );

    let table = file.table()?;
    assert_eq!(
        table.names,
        [
            "LV.x", "LV.on", "LV.n", "LV.v", "A.x", "A.minusV", "A.minusN", "A.notOn"
        ]
    );
    assert_eq!(table.units[3], "m/s");
    assert_eq!(bits(&table.time), bits(&w.time));
    assert_eq!(bits(&table.columns[0]), bits(&w.x));
    assert!(table.columns.iter().all(|c| c.len() == rows));
    Ok(())
}

#[test]
fn short_tables_give_parameters_as_many_points_as_there_are() -> Result<()> {
    let dir = temp();
    let cases: [(usize, &[f64]); 3] = [(0, &[]), (1, &[0.0]), (2, &[0.0, 0.1])];
    for (rows, parameter_time) in cases {
        let path = dir.path().join(format!("rows{rows}.json"));
        write_sample(&path, rows)?;
        let file = read(&path)?;
        let alpha = file.series.iter().find(|s| s.name == "LV.alpha");
        let alpha = alpha.expect("LV.alpha");
        assert_eq!(*alpha.time, parameter_time);
        assert_eq!(alpha.values, vec![1.1; rows]);
        assert_eq!(file.series[0].values.len(), rows);
        // Without rows, String signals have no first string: they read as empty series.
        let texts: Vec<&str> = file.text_columns.iter().map(|c| c.name.as_str()).collect();
        let expected: &[&str] = if rows == 0 {
            &["LV.file"]
        } else {
            &["LV.label", "LV.file", "A.label"]
        };
        assert_eq!(texts, expected);
    }

    let path = dir.path().join("empty.json");
    SignalTableWriter::create(&path, &SignalLayout::default())?.finish(&AttributeMap::new())?;
    let file = read(&path)?;
    assert_eq!(file.time_unit, "s");
    assert!(file.series.is_empty() && file.text_columns.is_empty());
    assert!(matches!(file.table(), Err(Error::NoVariable)));
    Ok(())
}

#[test]
fn pretty_printed_tables_read_the_same_with_their_lines() -> Result<()> {
    let dir = temp();
    let compact = dir.path().join("compact.json");
    write_sample(&compact, 5)?;
    let value: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&compact).expect("read")).expect("JSON");
    let pretty = dir.path().join("pretty.json");
    let text = serde_json::to_string_pretty(&value).expect("pretty");
    std::fs::write(&pretty, format!("\u{feff}{text}")).expect("write");
    let (a, b) = (read(&compact)?, read(&pretty)?);
    // serde_json's maps sort the keys, so compare by name.
    let sorted = |file: &ResultFile| {
        let mut series: Vec<_> = file
            .series
            .iter()
            .map(|s| {
                (
                    s.name.clone(),
                    s.unit.clone(),
                    bits(&s.values),
                    bits(&s.time),
                )
            })
            .collect();
        series.sort();
        series
    };
    assert_eq!(sorted(&a), sorted(&b));
    assert_eq!(a.time_unit, b.time_unit);
    let label = b.text_columns.iter().find(|c| c.name == "LV.label");
    let label = label.expect("LV.label");
    // Its first string is the first "s0" of the text, one value per line.
    let line = text.lines().position(|l| l.contains("\"s0\""));
    assert_eq!(Some(label.line), line.map(|l| l + 1));
    assert!(label.line > 1);
    // A first string with escapes is no slice of the file: the member's name gives the line.
    let parameter = b.text_columns.iter().find(|c| c.name == "LV.file");
    let parameter = parameter.expect("LV.file");
    assert_eq!(parameter.text, "in \"quotes\"\n");
    let line = text.lines().position(|l| l.contains("\"LV.file\""));
    assert_eq!(Some(parameter.line), line.map(|l| l + 1));
    assert!(parameter.line > 1);
    Ok(())
}

#[test]
fn aliases_resolve_through_chains_and_to_the_time() -> Result<()> {
    let dir = temp();
    let path = write(
        &dir,
        "chain.json",
        r#"{"_class":"SignalTable",
            "c":{"_class":"Var","alias":"b","unit":"m"},
            "time":{"_class":"Var","values":[0,1],"unit":"s","independent":true},
            "b":{"_class":"Var","alias":"a"},
            "a":{"_class":"Var","values":[true,null]},
            "t":{"_class":"Var","alias":"time"},
            "other":{"_class":"Map","values":"anything","unit":3},
            "p":{"_class":"Par","value":2,"values":[1,2,3]},
            "attributes":{"_class":"Map","x":[1,{"y":null}]}}"#,
    );
    let file = read(&path)?;
    let summary = kinds(&file);
    assert_eq!(
        summary,
        [
            ("c", "m", SeriesKind::Variable),
            ("b", "", SeriesKind::Variable),
            ("a", "", SeriesKind::Variable),
            ("t", "", SeriesKind::Variable),
            ("p", "", SeriesKind::Parameter),
        ]
    );
    assert_eq!(file.series[0].values[0], 1.0);
    assert!(file.series[0].values[1].is_nan());
    assert_eq!(file.series[3].values, [0.0, 1.0]);
    assert_eq!(file.series[4].values, [2.0, 2.0]);
    Ok(())
}

/// The syntax or type error of reading `text` as `name`: line, column and the message
/// after the file's name.
fn syntax_error(dir: &tempfile::TempDir, name: &str, text: &str) -> (usize, usize, String) {
    let path = write(dir, name, text);
    let error = read(&path).expect_err("an error");
    let message = error.to_string();
    let Error::JsonSyntax { line, column, .. } = error else {
        panic!("{error:?}");
    };
    let prefix = format!("'{}' line ", path.display());
    assert!(message.starts_with(&prefix), "{message}");
    (line, column, message[prefix.len()..].to_string())
}

/// A table with the time and the given members (a text after `"time": ...,`).
fn table(members: &str) -> String {
    let separator = if members.is_empty() { "" } else { ",\n" };
    format!(
        "{{\"_class\": \"SignalTable\",\n\"time\": {{\"_class\": \"Var\", \"values\": [0, 1], \
         \"independent\": true}}{separator}{members}}}\n"
    )
}

#[test]
fn syntax_errors_have_the_parsers_line_and_column() {
    let dir = temp();
    let (line, column, message) = syntax_error(
        &dir,
        "comma.json",
        "{\"_class\": \"SignalTable\",\n\"time\": {\"values\": [0, 1,]}}",
    );
    assert_eq!((line, column), (2, 26));
    assert_eq!(message, "2 column 26: trailing comma");

    let cases = [
        (
            "array.json",
            "[1, 2]",
            "1 column 1: invalid type: sequence, expected a Signal Table (a JSON object)",
        ),
        ("empty.json", "", "1 column 0: EOF while parsing a value"),
        (
            "cut.json",
            "{\"_class\": \"Signal",
            "1 column 18: EOF while parsing a string",
        ),
        // The byte order mark is skipped: columns count from after it.
        (
            "bom.json",
            "\u{feff}{,}",
            "1 column 2: key must be a string",
        ),
    ];
    for (name, text, expected) in cases {
        assert_eq!(syntax_error(&dir, name, text).2, expected);
    }
    let (_, _, message) = syntax_error(&dir, "trailing.json", &(table("") + "x"));
    assert_eq!(message, "3 column 1: trailing characters");
}

#[test]
fn wrong_value_types_say_what_was_expected_where() {
    let dir = temp();
    let cases = [
        (
            "\"_class\": 1}",
            "1 column 12: invalid type: integer `1`, expected a string",
        ),
        (
            "\"time\": 5}",
            "1 column 10: invalid type: integer `5`, expected an object with \"_class\" \
             \"Var\", \"Par\" or \"Map\"",
        ),
        (
            "\"x\": {\"unit\": [\"m\"]}}",
            "1 column 15: invalid type: sequence, expected a string",
        ),
        (
            "\"x\": {\"independent\": 1}}",
            "1 column 23: invalid type: integer `1`, expected a boolean",
        ),
        (
            "\"x\": {\"values\": {}}}",
            "1 column 19: invalid type: map, expected an array of numbers, Booleans, nulls or \
             strings",
        ),
        (
            "\"x\": {\"values\": [1, [2]]}}",
            "1 column 22: invalid type: sequence, expected a number, Boolean, null or string",
        ),
        (
            "\"p\": {\"value\": {\"a\": 1}}}",
            "1 column 17: invalid type: map, expected a number, Boolean, null or string",
        ),
    ];
    for (i, (text, expected)) in cases.into_iter().enumerate() {
        let (_, _, message) = syntax_error(&dir, &format!("type{i}.json"), &format!("{{{text}"));
        assert_eq!(message, expected);
    }
}

#[test]
fn structural_errors_name_the_member() {
    let dir = temp();
    let check = |name: &str, text: &str, member: Option<&str>, problem: JsonProblem| {
        let path = write(&dir, name, text);
        let error = read(&path).expect_err("an error");
        let message = error.to_string();
        match error {
            Error::JsonFormat {
                member: found_member,
                problem: found,
                ..
            } => {
                assert_eq!(found_member.as_deref(), member, "{name}");
                assert_eq!(found, problem, "{name}");
            }
            other => panic!("{name}: {other:?}"),
        }
        let at = member.map_or_else(String::new, |m| format!(" member '{m}'"));
        assert_eq!(message, format!("'{}'{at}: {problem}", path.display()));
        message
    };
    let var = |values: &str| format!("{{\"_class\": \"Var\", \"values\": {values}}}");

    let message = check(
        "no_class.json",
        "{\"time\": {}}",
        None,
        JsonProblem::NotSignalTable { class: None },
    );
    assert!(message.ends_with(
        "json': the table has no \"_class\", expected \"_class\": \"SignalTable\" (a Signal \
         Table)"
    ));
    check(
        "map.json",
        "{\n  \"_class\": \"Map\"}",
        None,
        JsonProblem::NotSignalTable {
            class: Some("Map".to_string()),
        },
    );
    let message = check(
        "class.json",
        &table("\"x\": {\"_class\": \"Vector\"}"),
        Some("x"),
        JsonProblem::Class {
            class: Some("Vector".to_string()),
        },
    );
    assert!(message.ends_with(
        "json' member 'x': it has \"_class\" \"Vector\", expected \"Var\", \"Par\" or \"Map\""
    ));
    check(
        "no_member_class.json",
        &table("\"x\": {\"values\": [1, 2]}"),
        Some("x"),
        JsonProblem::Class { class: None },
    );
    let message = check(
        "twice.json",
        &table(&format!(
            "\"x\": {},\n\"x\": {}",
            var("[1, 2]"),
            var("[1, 2]")
        )),
        Some("x"),
        JsonProblem::DuplicateMember,
    );
    assert!(message.ends_with("member 'x': appears twice, expected unique member names"));
    let message = check(
        "no_values.json",
        &table("\"x\": {\"_class\": \"Var\", \"unit\": \"m\"}"),
        Some("x"),
        JsonProblem::NoValues {
            class: "Var",
            field: "values",
        },
    );
    assert!(
        message.ends_with("member 'x': a Var without \"values\", expected \"values\" or \"alias\"")
    );
    check(
        "no_value.json",
        &table("\"p\": {\"_class\": \"Par\", \"values\": [1, 2]}"),
        Some("p"),
        JsonProblem::NoValues {
            class: "Par",
            field: "value",
        },
    );
    check(
        "no_time_values.json",
        "{\"_class\": \"SignalTable\", \"t\": {\"_class\": \"Var\", \"independent\": true, \
         \"alias\": \"x\"}, \"x\": {\"_class\": \"Var\", \"values\": [1]}}",
        Some("t"),
        JsonProblem::NoValues {
            class: "Var",
            field: "values",
        },
    );
    let message = check(
        "mixed.json",
        &table(&format!("\"x\": {}", var("[1, \"a\"]"))),
        Some("x"),
        JsonProblem::MixedValues,
    );
    assert!(message.ends_with(
        "member 'x': \"values\" mix strings with numbers, expected either numbers, Booleans \
         and nulls, or strings and nulls"
    ));
    check(
        "mixed_strings_first.json",
        &table(&format!("\"x\": {}", var("[null, \"a\", true]"))),
        Some("x"),
        JsonProblem::MixedValues,
    );
    check(
        "mixed_time.json",
        "{\"_class\": \"SignalTable\", \"time\": {\"_class\": \"Var\", \"independent\": true, \
         \"values\": [0, \"1\"]}}",
        Some("time"),
        JsonProblem::MixedValues,
    );
    let message = check(
        "no_time.json",
        &format!("{{\"_class\": \"SignalTable\", \"x\": {}}}", var("[1]")),
        None,
        JsonProblem::NoIndependent,
    );
    assert!(message.ends_with(
        "json': no independent variable, expected a Var with \"independent\": true (mastersim \
         writes \"time\")"
    ));
    let message = check(
        "two_times.json",
        &table("\"t2\": {\"_class\": \"Var\", \"values\": [0, 1], \"independent\": true}"),
        Some("t2"),
        JsonProblem::TwoIndependent {
            first: "time".to_string(),
        },
    );
    assert!(
        message.ends_with("member 't2': a second independent variable after 'time', expected one")
    );
    check(
        "text_time.json",
        "{\"_class\": \"SignalTable\", \"time\": {\"_class\": \"Var\", \"independent\": true, \
         \"values\": [\"0\"]}}",
        Some("time"),
        JsonProblem::TextTime,
    );
    let message = check(
        "count.json",
        &table(&format!("\"x\": {}", var("[1, 2, 3]"))),
        Some("x"),
        JsonProblem::ValueCount {
            found: 3,
            independent: "time".to_string(),
            expected: 2,
        },
    );
    assert!(message.ends_with(
        "member 'x': 3 values, but the independent variable 'time' has 2; expected one value \
         per time point"
    ));
    // The count is checked at the member with the values, not at its aliases.
    check(
        "count_alias.json",
        &table(&format!(
            "\"a\": {{\"_class\": \"Var\", \"alias\": \"x\"}},\n\"x\": {}",
            var("[1]")
        )),
        Some("x"),
        JsonProblem::ValueCount {
            found: 1,
            independent: "time".to_string(),
            expected: 2,
        },
    );
    let message = check(
        "alias.json",
        &table("\"a\": {\"_class\": \"Var\", \"alias\": \"nothing\"}"),
        Some("a"),
        JsonProblem::AliasTarget {
            target: "nothing".to_string(),
            class: "Var",
        },
    );
    assert!(message.ends_with(
        "member 'a': an alias of 'nothing', which is no Var; expected the name of a Var"
    ));
    check(
        "alias_class.json",
        &table("\"p\": {\"_class\": \"Par\", \"alias\": \"time\"}"),
        Some("p"),
        JsonProblem::AliasTarget {
            target: "time".to_string(),
            class: "Par",
        },
    );
    // The end of a chain of aliases is named.
    check(
        "alias_chain.json",
        &table(
            "\"a\": {\"_class\": \"Var\", \"alias\": \"b\"},\n\"b\": {\"_class\": \"Var\", \
             \"alias\": \"map\"},\n\"map\": {\"_class\": \"Map\"}",
        ),
        Some("b"),
        JsonProblem::AliasTarget {
            target: "map".to_string(),
            class: "Var",
        },
    );
    let message = check(
        "alias_cycle.json",
        &table(
            "\"c\": {\"_class\": \"Var\", \"alias\": \"a\"},\n\"a\": {\"_class\": \"Var\", \
             \"alias\": \"b\"},\n\"b\": {\"_class\": \"Var\", \"alias\": \"a\"}",
        ),
        Some("c"),
        JsonProblem::AliasCycle {
            cycle: vec!["a".to_string(), "b".to_string(), "a".to_string()],
            class: "Var",
        },
    );
    assert!(message.ends_with(
        "member 'c': its aliases 'a' -> 'b' -> 'a' form a cycle, expected a chain of aliases \
         that ends at a Var with values"
    ));
    check(
        "alias_self.json",
        &table("\"a\": {\"_class\": \"Var\", \"alias\": \"a\"}"),
        Some("a"),
        JsonProblem::AliasCycle {
            cycle: vec!["a".to_string(), "a".to_string()],
            class: "Var",
        },
    );
}
