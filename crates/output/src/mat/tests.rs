use std::path::{Path, PathBuf};

use super::*;
use crate::error::MatProblem;

mod reading;

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn signal(name: &str, unit: &str, description: &str) -> MatSignal {
    MatSignal::new(name, unit, description)
}

fn parameter(name: &str, unit: &str, start: f64, stop: f64) -> MatParameter {
    MatParameter {
        signal: signal(name, unit, ""),
        start,
        stop,
    }
}

fn alias(name: &str, of: usize, negated: bool, parameter: bool) -> MatAlias {
    MatAlias {
        name: name.to_string(),
        unit: "-".to_string(),
        description: String::new(),
        of,
        negated,
        parameter,
    }
}

/// The little-endian i32 at `offset`.
fn int_at(bytes: &[u8], offset: usize) -> i32 {
    i32::from_le_bytes(bytes[offset..offset + 4].try_into().expect("4 bytes"))
}

/// The little-endian f64 at `offset`.
fn double_at(bytes: &[u8], offset: usize) -> f64 {
    f64::from_le_bytes(bytes[offset..offset + 8].try_into().expect("8 bytes"))
}

/// A matrix as found in the file: header fields, name and data bytes.
#[derive(Debug)]
struct Raw {
    header: [i32; 5],
    name: String,
    data: Vec<u8>,
}

/// Splits a little-endian MAT v4 file into its matrices (test oracle, independent of `reader`).
fn raw_matrices(bytes: &[u8]) -> Vec<Raw> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let header: [i32; 5] = std::array::from_fn(|i| int_at(bytes, at + 4 * i));
        let namlen = header[4] as usize;
        // Like SciPy: the name ends at the first NUL (a padding matrix's name is filler).
        let field = &bytes[at + 20..at + 20 + namlen - 1];
        let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
        let name = String::from_utf8_lossy(&field[..end]).into_owned();
        assert_eq!(bytes[at + 20 + namlen - 1], 0, "name is NUL-terminated");
        let size = match header[0] {
            0 => 8,
            20 => 4,
            51 => 1,
            other => panic!("unexpected type {other}"),
        };
        let len = header[1] as usize * header[2] as usize * size;
        let start = at + 20 + namlen;
        out.push(Raw {
            header,
            name,
            data: bytes[start..start + len].to_vec(),
        });
        at = start + len;
    }
    out
}

/// Lotka-Volterra-like file: 1 parameter, 2 signals, 3 aliases (one negated, one of a parameter).
fn sample_writer(path: &Path) -> Result<MatWriter> {
    MatWriter::create(
        path,
        &[parameter("LV.alpha", "1/s", 1.1, 1.1)],
        &[
            signal("LV.x", "-", "Prey population"),
            signal("LV.velocity", "m/s", ""),
        ],
        &[
            alias("LV.preyAlias", 0, false, false),
            alias("LV.minusV", 1, true, false),
            alias("LV.alphaAlias", 0, false, true),
        ],
        0.0,
        10.0,
    )
}

#[test]
fn headers_and_matrices_byte_by_byte() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("r.mat");
    let mut w = sample_writer(&path)?;
    w.write_row(0.0, &[10.0, -0.5])?;
    w.write_row(0.5, &[9.5, 0.25])?;
    assert_eq!(w.rows(), 2);
    w.finish()?;
    let bytes = std::fs::read(&path).expect("read");
    let m = raw_matrices(&bytes);
    let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Aclass",
            "name",
            "description",
            "dataInfo",
            "data_1",
            "data_2"
        ]
    );

    // Aclass: 4×11 text, lines as rows, column-major, space padded.
    assert_eq!(m[0].header, [51, 4, 11, 0, 7]);
    assert_eq!(
        &bytes[..7 + 20],
        b"\x33\0\0\0\x04\0\0\0\x0b\0\0\0\0\0\0\0\x07\0\0\0Aclass\0"
    );
    let line = |r: usize| -> String { (0..11).map(|c| m[0].data[c * 4 + r] as char).collect() };
    assert_eq!(line(0), "Atrajectory");
    assert_eq!(line(1), "1.1        ");
    assert_eq!(line(2), "           ");
    assert_eq!(line(3), "binTrans   ");

    // name: transposed, one space-padded name per column.
    let longest = "LV.alphaAlias".len() as i32;
    assert_eq!(m[1].header, [51, longest, 7, 0, 5]);
    let column = |m: &Raw, i: usize| -> String {
        let rows = m.header[1] as usize;
        String::from_utf8(m.data[i * rows..(i + 1) * rows].to_vec()).expect("ASCII")
    };
    let expected_names = [
        "Time",
        "LV.x",
        "LV.velocity",
        "LV.alpha",
        "LV.preyAlias",
        "LV.minusV",
        "LV.alphaAlias",
    ];
    for (i, name) in expected_names.iter().enumerate() {
        assert_eq!(column(&m[1], i), format!("{name:<13}"));
    }
    // description: the unit in brackets at the end.
    assert_eq!(m[2].header[0], 51);
    assert_eq!(m[2].header[2], 7);
    let descriptions: Vec<String> = (0..7)
        .map(|i| column(&m[2], i).trim_end().to_string())
        .collect();
    assert_eq!(
        descriptions,
        [
            "Time [s]",
            "Prey population [-]",
            "[m/s]",
            "[1/s]",
            "[-]",
            "[-]",
            "[-]"
        ]
    );

    // dataInfo: int32, 4 × variables.
    assert_eq!(m[3].header, [20, 4, 7, 0, 9]);
    let info: Vec<i32> = (0..28).map(|i| int_at(&m[3].data, 4 * i)).collect();
    assert_eq!(
        info,
        [
            0, 1, 0, -1, // Time
            2, 2, 0, -1, // LV.x
            2, 3, 0, -1, // LV.velocity
            1, 2, 0, -1, // LV.alpha
            2, 2, 0, -1, // LV.preyAlias
            2, -3, 0, -1, // LV.minusV
            1, 2, 0, -1, // LV.alphaAlias
        ]
    );

    // data_1: (1 + parameters) × 2, columns (tStart, start values), (tStop, stop values).
    assert_eq!(m[4].header, [0, 2, 2, 0, 7]);
    let data_1: Vec<f64> = (0..4).map(|i| double_at(&m[4].data, 8 * i)).collect();
    assert_eq!(data_1, [0.0, 1.1, 10.0, 1.1]);

    // data_2: (1 + signals) × rows, one contiguous column per time point.
    assert_eq!(m[5].header, [0, 3, 2, 0, 7]);
    let data_2: Vec<f64> = (0..6).map(|i| double_at(&m[5].data, 8 * i)).collect();
    assert_eq!(data_2, [0.0, 10.0, -0.5, 0.5, 9.5, 0.25]);
    Ok(())
}

#[test]
fn round_trip_with_aliases_and_parameters() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("r.mat");
    let mut w = sample_writer(&path)?;
    let rows = [
        (0.0, [10.0, -0.5]),
        (0.5, [9.5, -0.0]),
        (1.0, [f64::NAN, 1e300]),
    ];
    for (t, values) in rows {
        w.write_row(t, &values)?;
    }
    w.finish()?;
    let file = read(&path)?;
    let names: Vec<&str> = file.signals.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "LV.x",
            "LV.velocity",
            "LV.alpha",
            "LV.preyAlias",
            "LV.minusV",
            "LV.alphaAlias"
        ]
    );
    let x = file.signal("LV.x").expect("LV.x");
    assert_eq!(*x.time, [0.0, 0.5, 1.0]);
    assert_eq!(
        (x.description.as_str(), x.unit.as_str()),
        ("Prey population", "-")
    );
    assert_eq!(x.values[..2], [10.0, 9.5]);
    assert!(x.values[2].is_nan());
    let v = file.signal("LV.velocity").expect("velocity");
    assert_eq!((v.description.as_str(), v.unit.as_str()), ("", "m/s"));
    let bits = |values: &[f64]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&v.values), bits(&[-0.5, -0.0, 1e300]));
    // Signals of one matrix share the time vector.
    assert!(Arc::ptr_eq(&x.time, &v.time));

    let alpha = file.signal("LV.alpha").expect("alpha");
    assert_eq!((*alpha.time).clone(), [0.0, 10.0]);
    assert_eq!(alpha.values, [1.1, 1.1]);
    assert_eq!(alpha.unit, "1/s");
    let prey = file.signal("LV.preyAlias").expect("alias");
    assert_eq!(bits(&prey.values), bits(&x.values));
    let minus = file.signal("LV.minusV").expect("negated alias");
    assert_eq!(bits(&minus.values), bits(&[0.5, 0.0, -1e300]));
    assert_eq!(file.signal("LV.alphaAlias").expect("p").values, [1.1, 1.1]);
    // Parameters and their aliases are told apart from signals and theirs.
    let parameters: Vec<&str> = file
        .signals
        .iter()
        .filter(|s| s.parameter)
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(parameters, ["LV.alpha", "LV.alphaAlias"]);
    Ok(())
}

#[test]
fn without_parameters_or_signals_the_file_holds_time_only() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("r.mat");
    let mut w = MatWriter::create(&path, &[], &[], &[], 0.0, 1.0)?;
    w.write_row(0.0, &[])?;
    w.write_row(1.0, &[])?;
    let m = raw_matrices(&std::fs::read(&path).expect("read"));
    assert_eq!(m[4].header, [0, 1, 2, 0, 7]); // data_1: time only
    assert_eq!(m[5].header, [0, 1, 2, 0, 7]); // data_2: two time points
    assert!(read(&path)?.signals.is_empty());
    Ok(())
}

#[test]
fn the_file_is_readable_after_every_row() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("r.mat");
    let mut w = sample_writer(&path)?;
    // A copy taken right after `create` is valid too.
    assert!(read(&path)?.signal("LV.x").expect("x").values.is_empty());
    for row in 0..20 {
        let t = row as f64 * 0.1;
        w.write_row(t, &[t.sin(), t.cos()])?;
        // What another process (or a post-mortem look after SIGKILL) sees now.
        let snapshot = dir.path().join(format!("copy{row}.mat"));
        std::fs::copy(&path, &snapshot).expect("copy");
        let file = read(&snapshot)?;
        let x = file.signal("LV.x").expect("x");
        assert_eq!(x.values.len(), row + 1);
        assert_eq!(x.values[row], t.sin());
        assert_eq!(file.signal("LV.minusV").expect("v").values[row], -t.cos());
    }
    Ok(())
}

/// After each of the three writes of `write_row` (a process killed there) the file is a
/// valid MAT file: SciPy-style sequential parsing succeeds, and `read` returns the rows
/// written before (the announced point, time NaN, dropped) and then the new row too.
#[test]
fn every_intermediate_state_of_an_append_is_a_valid_file() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("r.mat");
    let mut w = sample_writer(&path)?;
    w.write_row(0.0, &[1.0, 2.0])?;
    for steps in 0..3 {
        w.write_row_steps(1.0, &[3.0, 4.0], steps)?;
        let bytes = std::fs::read(&path).expect("read");
        let names: Vec<String> = raw_matrices(&bytes).into_iter().map(|m| m.name).collect();
        assert!(
            names.contains(&"data_2".to_string()),
            "step {steps}: {names:?}"
        );
        assert_eq!(
            read(&path)?.signal("LV.x").expect("x").values,
            [1.0],
            "after {steps} writes"
        );
    }
    w.write_row(1.0, &[3.0, 4.0])?;
    assert_eq!(read(&path)?.signal("LV.x").expect("x").values, [1.0, 3.0]);
    // Many rows: the padding is extended, and the file stays valid throughout.
    for i in 2..5000 {
        w.write_row(i as f64, &[i as f64, 0.5])?;
    }
    assert_eq!(read(&path)?.signal("LV.x").expect("x").values.len(), 5000);
    w.finish()?;
    let bytes = std::fs::read(&path).expect("read");
    assert_eq!(
        raw_matrices(&bytes).last().expect("matrices").name,
        "data_2",
        "padding removed"
    );
    assert_eq!(
        read(&path)?
            .signal("LV.velocity")
            .expect("velocity")
            .values
            .len(),
        5000
    );
    Ok(())
}

#[test]
fn wrong_row_length_is_an_error_and_writes_nothing() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("r.mat");
    let mut w = sample_writer(&path)?;
    w.write_row(0.0, &[1.0, 2.0])?;
    let before = std::fs::read(&path).expect("read");
    match w.write_row(1.0, &[1.0]) {
        Err(Error::ColumnCount {
            expected: 2,
            found: 1,
            path: p,
        }) => assert_eq!(p, path),
        other => panic!("unexpected {other:?}"),
    }
    assert!(w.write_row(1.0, &[1.0, 2.0, 3.0]).is_err());
    assert_eq!(std::fs::read(&path).expect("read"), before);
    assert_eq!(w.rows(), 1);
    w.write_row(1.0, &[3.0, 4.0])?;
    assert_eq!(read(&path)?.signal("LV.x").expect("x").values, [1.0, 3.0]);
    Ok(())
}

#[test]
fn a_thousand_columns() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("wide.mat");
    let n = 1000;
    let signals: Vec<MatSignal> = (0..n)
        .map(|i| signal(&format!("S{}.v{i}", i % 7), "K", &"d".repeat(i % 40)))
        .collect();
    let aliases: Vec<MatAlias> = (0..n)
        .step_by(97)
        .map(|i| alias(&format!("A.{i}"), i, i % 2 == 1, false))
        .collect();
    let mut w = MatWriter::create(&path, &[], &signals, &aliases, 0.0, 1.0)?;
    let value = |row: usize, i: usize| (row * n + i) as f64 * 0.001 - 3.0;
    let mut row_values = vec![0.0; n];
    for row in 0..37 {
        for (i, v) in row_values.iter_mut().enumerate() {
            *v = value(row, i);
        }
        w.write_row(row as f64 / 36.0, &row_values)?;
    }
    w.finish()?;
    let m = raw_matrices(&std::fs::read(&path).expect("read"));
    assert_eq!(m[5].header, [0, n as i32 + 1, 37, 0, 7]);
    let file = read(&path)?;
    assert_eq!(file.signals.len(), n + aliases.len());
    for i in [0, 1, 499, 998, 999] {
        let s = &file.signals[i];
        assert_eq!(s.name, format!("S{}.v{i}", i % 7));
        assert_eq!(s.description, "d".repeat(i % 40));
        assert_eq!(s.values[36], value(36, i));
    }
    let a = file.signal("A.97").expect("alias");
    assert_eq!(a.values[5], -value(5, 97));
    Ok(())
}

fn series(name: &str, time: &[f64], values: &[f64]) -> MatSeries {
    MatSeries {
        signal: signal(name, "-", ""),
        time: time.to_vec(),
        values: values.to_vec(),
    }
}

#[test]
fn series_share_matrices_by_identical_time_axes() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("s.mat");
    let t1 = [0.0, 0.5, 1.0];
    let t2 = [0.0, 1.0];
    // Equal as numbers but not bit-identical: a matrix of its own.
    let t3 = [-0.0, 1.0];
    let all = [
        series("a", &t1, &[1.0, 2.0, 3.0]),
        series("b", &t2, &[4.0, 5.0]),
        series("c", &t1, &[6.0, 7.0, 8.0]),
        series("d", &t3, &[9.0, 10.0]),
        series("e", &t2, &[11.0, 12.0]),
    ];
    let params = [parameter("p", "m", 1.0, 2.0)];
    let aliases = [alias("minus_e", 4, true, false), alias("q", 0, true, true)];
    write_series(&path, &params, &all, &aliases, 0.0, 1.0)?;
    let m = raw_matrices(&std::fs::read(&path).expect("read"));
    let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Aclass",
            "name",
            "description",
            "dataInfo",
            "data_1",
            "data_2",
            "data_3",
            "data_4"
        ]
    );
    assert_eq!(m[5].header[1..3], [3, 3]); // a, c on t1
    assert_eq!(m[6].header[1..3], [3, 2]); // b, e on t2
    assert_eq!(m[7].header[1..3], [2, 2]); // d on t3
    let info: Vec<i32> = (0..36).map(|i| int_at(&m[3].data, 4 * i)).collect();
    let jk: Vec<(i32, i32)> = info.chunks(4).map(|c| (c[0], c[1])).collect();
    assert_eq!(
        jk,
        [
            (0, 1),
            (2, 2),
            (3, 2),
            (2, 3),
            (4, 2),
            (3, 3),
            (1, 2),
            (3, -3),
            (1, -2)
        ]
    );
    let data_3: Vec<f64> = (0..6).map(|i| double_at(&m[6].data, 8 * i)).collect();
    assert_eq!(data_3, [0.0, 4.0, 11.0, 1.0, 5.0, 12.0]);

    let file = read(&path)?;
    for s in &all {
        let r = file.signal(&s.signal.name).expect("series");
        assert_eq!(
            r.time.iter().map(|t| t.to_bits()).collect::<Vec<_>>(),
            s.time.iter().map(|t| t.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(r.values, s.values);
    }
    assert!(Arc::ptr_eq(
        &file.signal("b").expect("b").time,
        &file.signal("e").expect("e").time
    ));
    assert_eq!(
        file.signal("minus_e").expect("alias").values,
        [-11.0, -12.0]
    );
    assert_eq!(file.signal("q").expect("alias").values, [-1.0, -2.0]);
    assert_eq!(*file.signal("p").expect("p").time, [0.0, 1.0]);
    Ok(())
}

#[test]
fn write_series_without_series_has_an_empty_data_2() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("s.mat");
    write_series(&path, &[parameter("p", "-", 3.0, 3.0)], &[], &[], 0.0, 1.0)?;
    let m = raw_matrices(&std::fs::read(&path).expect("read"));
    assert_eq!(m.len(), 6);
    assert_eq!(m[5].header, [0, 1, 0, 0, 7]);
    assert_eq!(read(&path)?.signal("p").expect("p").values, [3.0, 3.0]);
    Ok(())
}

#[test]
fn invalid_input_is_rejected_before_the_file_is_created() {
    let dir = temp();
    let path = dir.path().join("bad.mat");
    let signals = [signal("x", "-", ""), signal("y", "-", "")];
    let result = MatWriter::create(
        &path,
        &[],
        &signals,
        &[alias("z", 2, false, false)],
        0.0,
        1.0,
    );
    assert!(matches!(
        result,
        Err(Error::AliasTarget {
            of: 2,
            count: 2,
            parameter: false,
            ..
        })
    ));
    let result = MatWriter::create(
        &path,
        &[],
        &signals,
        &[alias("z", 0, false, true)],
        0.0,
        1.0,
    );
    assert!(matches!(
        result,
        Err(Error::AliasTarget {
            of: 0,
            count: 0,
            parameter: true,
            ..
        })
    ));
    let result = MatWriter::create(
        &path,
        &[],
        &signals,
        &[alias("x", 1, false, false)],
        0.0,
        1.0,
    );
    assert!(matches!(result, Err(Error::DuplicateName { ref name, .. }) if name == "x"));
    let result = MatWriter::create(&path, &[], &[signal("Time", "s", "")], &[], 0.0, 1.0);
    assert!(matches!(result, Err(Error::DuplicateName { ref name, .. }) if name == "Time"));
    let bad_series = [series("s", &[0.0, 1.0], &[1.0])];
    let result = write_series(&path, &[], &bad_series, &[], 0.0, 1.0);
    assert!(matches!(
        result,
        Err(Error::SeriesLength {
            times: 2,
            values: 1,
            ..
        })
    ));
    assert!(!path.exists());
    let missing = dir.path().join("no").join("r.mat");
    assert!(matches!(
        MatWriter::create(&missing, &[], &[], &[], 0.0, 1.0),
        Err(Error::Create { .. })
    ));
}
