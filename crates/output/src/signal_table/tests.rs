use serde_json::{Value, json};

use super::*;

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn layout() -> SignalLayout {
    let mut prey = TableSignal::new("LV.x", SignalType::Real, "-");
    prey.info = "Prey population".to_string();
    let mut count = TableSignal::new("LV.n", SignalType::Integer, "");
    count.variability = Variability::Discrete;
    let mut on = TableSignal::new("LV.on", SignalType::Boolean, "");
    on.variability = Variability::Discrete;
    let mut label = TableSignal::new("LV.label", SignalType::String, "");
    label.variability = Variability::Discrete;
    let alias = crate::test_support::table_alias;
    SignalLayout {
        time_unit: "s".to_string(),
        signals: vec![
            prey,
            on,
            count,
            TableSignal::new("LV.v", SignalType::Real, "m/s"),
            label,
        ],
        parameters: vec![
            TableParameter {
                name: "LV.alpha".to_string(),
                unit: "1/s".to_string(),
                info: "Growth rate".to_string(),
                value: ParameterValue::Real(1.1),
            },
            TableParameter {
                name: "LV.steps".to_string(),
                unit: String::new(),
                info: String::new(),
                value: ParameterValue::Integer(i32::MIN.into()),
            },
            TableParameter {
                name: "LV.flag".to_string(),
                unit: String::new(),
                info: String::new(),
                value: ParameterValue::Boolean(true),
            },
            TableParameter {
                name: "LV.file".to_string(),
                unit: String::new(),
                info: String::new(),
                value: ParameterValue::String("in \"quotes\"\n".to_string()),
            },
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

fn attributes() -> AttributeMap {
    AttributeMap::new()
        .with(
            "experiment",
            AttributeMap::new()
                .with("startTime", 0.0)
                .with("stopTime", 10.0)
                .with("interval", 0.5)
                .with("tolerance", 1e-6),
        )
        .with(
            "tool",
            AttributeMap::new()
                .with("name", "mastersim")
                .with("version", "0.1.0"),
        )
}

/// Writes the sample table and returns its text.
fn sample(dir: &Path) -> Result<String> {
    let path = dir.join("table.json");
    let mut w = SignalTableWriter::create(&path, &layout())?;
    w.push_row(0.0, &[true], &[3], &[10.0, -0.5], &["a"])?;
    w.push_row(0.5, &[false], &[i32::MIN.into()], &[f64::NAN, 0.25], &["a"])?;
    w.push_row(1.0, &[true], &[7], &[f64::INFINITY, -0.0], &["b\u{e9}"])?;
    assert_eq!(w.rows(), 3);
    w.finish(&attributes())?;
    Ok(std::fs::read_to_string(&path).expect("read"))
}

#[test]
fn structure_follows_the_signal_table_format() -> Result<()> {
    let dir = temp();
    let text = sample(dir.path())?;
    let v: Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(v["_class"], "SignalTable");
    assert_eq!(
        v["time"],
        json!({"_class": "Var", "values": [0.0, 0.5, 1.0], "unit": "s", "independent": true})
    );
    assert_eq!(
        v["LV.x"],
        json!({"_class": "Var", "values": [10.0, null, null], "unit": "-",
               "variability": "continuous", "info": "Prey population"})
    );
    assert_eq!(
        v["LV.on"],
        json!({"_class": "Var", "values": [true, false, true], "variability": "discrete"})
    );
    assert_eq!(v["LV.n"]["values"], json!([3, i32::MIN, 7]));
    assert!(v["LV.n"]["values"][0].is_i64());
    assert_eq!(v["LV.v"]["unit"], "m/s");
    assert_eq!(v["LV.label"]["values"], json!(["a", "a", "b\u{e9}"]));
    assert_eq!(
        v["LV.alpha"],
        json!({"_class": "Par", "value": 1.1, "unit": "1/s", "info": "Growth rate"})
    );
    assert_eq!(v["LV.steps"], json!({"_class": "Par", "value": i32::MIN}));
    assert_eq!(v["LV.flag"], json!({"_class": "Par", "value": true}));
    assert_eq!(v["LV.file"]["value"], "in \"quotes\"\n");

    // Plain aliases refer to the stored member, with their own unit and info.
    assert_eq!(
        v["A.x"],
        json!({"_class": "Var", "alias": "LV.x", "unit": "u", "info": "alias A.x"})
    );
    assert_eq!(v["A.alpha"]["_class"], "Par");
    assert_eq!(v["A.alpha"]["alias"], "LV.alpha");
    assert_eq!(v["A.label"]["alias"], "LV.label");
    assert!(v["A.x"].get("values").is_none());
    // Negated aliases are stored in full.
    assert_eq!(v["A.minusV"]["values"], json!([0.5, -0.25, 0.0]));
    assert_eq!(v["A.minusV"]["variability"], "continuous");
    assert_eq!(v["A.minusN"]["values"], json!([-3, 2_147_483_648_i64, -7]));
    assert_eq!(v["A.notOn"]["values"], json!([false, true, false]));
    assert_eq!(v["A.minusSteps"]["value"], json!(2_147_483_648_i64));
    assert!(v["A.minusV"].get("alias").is_none());

    assert_eq!(
        v["attributes"],
        json!({"_class": "Map",
               "experiment": {"_class": "Map", "startTime": 0.0, "stopTime": 10.0,
                              "interval": 0.5, "tolerance": 1e-6},
               "tool": {"_class": "Map", "name": "mastersim", "version": "0.1.0"}})
    );

    // Members in column order: time, signals, parameters, aliases, attributes.
    let keys = [
        "\"_class\"",
        "\"time\"",
        "\"LV.x\"",
        "\"LV.on\"",
        "\"LV.n\"",
        "\"LV.v\"",
        "\"LV.label\"",
        "\"LV.alpha\"",
        "\"LV.file\"",
        "\"A.x\"",
        "\"A.label\"",
        "\"attributes\"",
    ];
    let positions: Vec<usize> = keys
        .iter()
        .map(|k| text.find(&format!("{k}:")).expect("key present"))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    assert!(text.ends_with("}\n"));
    Ok(())
}

#[test]
fn reals_survive_the_json_text_bit_for_bit() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("reals.json");
    let layout = SignalLayout {
        signals: vec![TableSignal::new("x", SignalType::Real, "")],
        ..SignalLayout::default()
    };
    // The awkward values, then pseudo-random finite ones of every magnitude.
    let values = crate::test_support::reals(2010);
    let mut w = SignalTableWriter::create(&path, &layout)?;
    for (i, &v) in values.iter().enumerate() {
        w.push_row(i as f64 * 0.1, &[], &[], &[v], &[] as &[&str])?;
    }
    w.finish(&AttributeMap::new())?;
    let text = std::fs::read_to_string(&path).expect("read");
    let v: Value = serde_json::from_str(&text).expect("valid JSON");
    let read: Vec<u64> = v["x"]["values"]
        .as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number").to_bits())
        .collect();
    let expected: Vec<u64> = values.iter().map(|x| x.to_bits()).collect();
    assert_eq!(read, expected);
    let times = v["time"]["values"].as_array().expect("array");
    assert_eq!(times[3].as_f64(), Some(3.0 * 0.1));
    Ok(())
}

#[test]
fn non_finite_values_are_null() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("nan.json");
    let layout = SignalLayout {
        signals: vec![TableSignal::new("x", SignalType::Real, "")],
        parameters: vec![TableParameter {
            name: "p".to_string(),
            unit: String::new(),
            info: String::new(),
            value: ParameterValue::Real(f64::NAN),
        }],
        ..SignalLayout::default()
    };
    let mut w = SignalTableWriter::create(&path, &layout)?;
    for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.5] {
        w.push_row(0.0, &[], &[], &[v], &[] as &[&str])?;
    }
    w.finish(&AttributeMap::new().with("bad", f64::NAN))?;
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
    assert_eq!(v["x"]["values"], json!([null, null, null, 1.5]));
    assert_eq!(v["p"]["value"], Value::Null);
    assert_eq!(v["attributes"], json!({"_class": "Map", "bad": null}));
    Ok(())
}

#[test]
fn an_empty_table_has_time_and_attributes() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("empty.json");
    let w = SignalTableWriter::create(&path, &SignalLayout::default())?;
    w.finish(&AttributeMap::new())?;
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
    assert_eq!(
        v,
        json!({"_class": "SignalTable",
               "time": {"_class": "Var", "values": [], "unit": "s", "independent": true},
               "attributes": {"_class": "Map"}})
    );
    Ok(())
}

#[test]
fn wrong_row_lengths_are_errors_and_store_nothing() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("t.json");
    let mut w = SignalTableWriter::create(&path, &layout())?;
    let err = w.push_row(0.0, &[true], &[1], &[1.0], &["s"]);
    assert!(matches!(
        err,
        Err(Error::RowLength {
            ty: SignalType::Real,
            expected: 2,
            found: 1,
            ..
        })
    ));
    let err = w.push_row(0.0, &[], &[1], &[1.0, 2.0], &["s"]);
    assert!(matches!(
        err,
        Err(Error::RowLength {
            ty: SignalType::Boolean,
            expected: 1,
            found: 0,
            ..
        })
    ));
    let err = w.push_row(0.0, &[true], &[1], &[1.0, 2.0], &[] as &[&str]);
    assert!(matches!(
        err,
        Err(Error::RowLength {
            ty: SignalType::String,
            ..
        })
    ));
    assert_eq!(w.rows(), 0);
    w.push_row(0.0, &[true], &[1], &[1.0, 2.0], &["s".to_string()])?;
    assert_eq!(w.rows(), 1);
    Ok(())
}

#[test]
fn invalid_layouts_are_rejected() {
    let dir = temp();
    let path = dir.path().join("bad.json");
    let mut l = layout();
    l.aliases[0].of = 5;
    assert!(matches!(
        SignalTableWriter::create(&path, &l),
        Err(Error::AliasTarget {
            of: 5,
            count: 5,
            parameter: false,
            ..
        })
    ));
    let mut l = layout();
    l.aliases[4].of = 4;
    assert!(matches!(
        SignalTableWriter::create(&path, &l),
        Err(Error::AliasTarget {
            parameter: true,
            ..
        })
    ));
    let mut l = layout();
    l.aliases[6].negated = true;
    assert!(matches!(
        SignalTableWriter::create(&path, &l),
        Err(Error::NegatedStringAlias { .. })
    ));
    let mut l = layout();
    l.aliases[1].negated = false;
    l.aliases[1].name = "LV.alpha".to_string();
    assert!(matches!(
        SignalTableWriter::create(&path, &l),
        Err(Error::DuplicateName { ref name, .. }) if name == "LV.alpha"
    ));
    for reserved in ["time", "attributes", "_class"] {
        let mut l = layout();
        l.signals[0].name = reserved.to_string();
        assert!(matches!(
            SignalTableWriter::create(&path, &l),
            Err(Error::DuplicateName { .. })
        ));
    }
    assert!(!path.exists());
}

#[test]
fn attribute_maps_keep_keys_unique_and_ordered() {
    let mut m = AttributeMap::new().with("b", 1).with("a", "x");
    m.insert("b", true);
    m.insert("_class", "ignored");
    assert_eq!(
        m.entries()[0],
        ("b".to_string(), AttributeValue::Boolean(true))
    );
    assert_eq!(m.get("a"), Some(&AttributeValue::String("x".to_string())));
    assert_eq!(m.entries().len(), 3);
}

#[test]
fn equal_strings_of_consecutive_rows_share_their_text() -> Result<()> {
    let dir = temp();
    let layout = SignalLayout {
        signals: vec![
            TableSignal::new("s1", SignalType::String, ""),
            TableSignal::new("s2", SignalType::String, ""),
        ],
        ..SignalLayout::default()
    };
    let mut w = SignalTableWriter::create(dir.path().join("s.json"), &layout)?;
    w.push_row(0.0, &[], &[], &[], &["same", "x"])?;
    w.push_row(1.0, &[], &[], &[], &["same", "y"])?;
    let s = &w.data.strings;
    assert!(Arc::ptr_eq(&s[0], &s[2]));
    assert!(!Arc::ptr_eq(&s[1], &s[3]));
    Ok(())
}
