//! Reading files of other tools, malformed and damaged files.

use super::*;

/// Builds a MAT v4 file by hand, as other tools write them.
struct Builder {
    bytes: Vec<u8>,
    big_endian: bool,
}

impl Builder {
    fn new(big_endian: bool) -> Self {
        Builder {
            bytes: Vec::new(),
            big_endian,
        }
    }

    fn int(&mut self, v: i32) {
        let b = if self.big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.bytes.extend_from_slice(&b);
    }

    fn header(&mut self, code: i32, mrows: usize, ncols: usize, name: &str) {
        let code = code + if self.big_endian { 1000 } else { 0 };
        for v in [code, mrows as i32, ncols as i32, 0, name.len() as i32 + 1] {
            self.int(v);
        }
        self.bytes.extend_from_slice(name.as_bytes());
        self.bytes.push(0);
    }

    /// Text matrix with the strings as rows (`transposed == false`) or columns, NUL padded.
    fn text(&mut self, name: &str, strings: &[&str], transposed: bool) {
        let width = strings.iter().map(|s| s.len()).max().unwrap_or(0);
        let char_at = |i: usize, c: usize| strings[i].as_bytes().get(c).copied().unwrap_or(0);
        if transposed {
            self.header(51, width, strings.len(), name);
            for i in 0..strings.len() {
                for c in 0..width {
                    self.bytes.push(char_at(i, c));
                }
            }
        } else {
            self.header(51, strings.len(), width, name);
            for c in 0..width {
                for i in 0..strings.len() {
                    self.bytes.push(char_at(i, c));
                }
            }
        }
    }

    /// Single-precision matrix, column-major.
    fn floats(&mut self, name: &str, mrows: usize, ncols: usize, values: &[f32]) {
        self.header(10, mrows, ncols, name);
        for v in values {
            let b = if self.big_endian {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            };
            self.bytes.extend_from_slice(&b);
        }
    }

    fn ints(&mut self, name: &str, mrows: usize, ncols: usize, values: &[i32]) {
        self.header(20, mrows, ncols, name);
        for &v in values {
            self.int(v);
        }
    }

    fn write(&self, path: &Path) -> PathBuf {
        std::fs::write(path, &self.bytes).expect("write");
        path.to_path_buf()
    }
}

/// A `binNormal` file in another tool's style: NUL padding, float data, dataInfo rows.
fn bin_normal(big_endian: bool) -> Builder {
    let mut b = Builder::new(big_endian);
    b.text("Aclass", &["Atrajectory", "1.1", "", "binNormal"], false);
    b.text("name", &["time", "k", "x", "y"], false);
    b.text(
        "description",
        &[
            "Time in [s]",
            "Gain",
            "Position [m]",
            "Negated position [m]",
        ],
        false,
    );
    // nVars × 4, column-major: column 1 = j, column 2 = k, ...
    #[rustfmt::skip]
    let info = [
        0, 1, 2, 2, // j
        1, 2, 2, -2, // k
        0, 0, 0, 0,
        -1, 0, -1, -1,
    ];
    b.ints("dataInfo", 4, 4, &info);
    // data_1: 2 time points × (time, k), column-major.
    b.floats("data_1", 2, 2, &[0.0, 2.0, 3.0, 3.0]);
    // data_2: 3 time points × (time, x).
    b.floats("data_2", 3, 2, &[0.0, 1.0, 2.0, 0.5, 0.25, 0.125]);
    b
}

#[test]
fn reads_bin_normal_files_of_other_tools_in_both_byte_orders() -> Result<()> {
    let dir = temp();
    for big_endian in [false, true] {
        let path = bin_normal(big_endian).write(&dir.path().join("n.mat"));
        let file = read(&path)?;
        let names: Vec<&str> = file.signals.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["k", "x", "y"]);
        let k = &file.signals[0];
        assert_eq!((k.description.as_str(), k.unit.as_str()), ("Gain", ""));
        assert_eq!((*k.time).clone(), [0.0, 2.0]);
        assert_eq!(k.values, [3.0, 3.0]);
        assert!(k.parameter);
        let y = &file.signals[2];
        assert_eq!(
            (y.description.as_str(), y.unit.as_str()),
            ("Negated position", "m")
        );
        assert_eq!((*y.time).clone(), [0.0, 1.0, 2.0]);
        assert_eq!(y.values, [-0.5, -0.25, -0.125]);
        assert!(!y.parameter);
    }
    Ok(())
}

#[test]
fn reads_nul_padded_bin_trans_files() -> Result<()> {
    let dir = temp();
    let mut b = Builder::new(false);
    b.text("Aclass", &["Atrajectory", "1.1", "", "binTrans"], false);
    b.text("name", &["time", "der(x)", "x"], true);
    b.text("description", &["", "", "State"], true);
    b.ints("dataInfo", 4, 3, &[0, 1, 0, -1, 2, 2, 0, -1, 2, 3, 0, -1]);
    b.floats("data_1", 1, 2, &[0.0, 1.0]);
    b.floats("data_2", 3, 2, &[0.0, -1.0, 1.0, 1.0, -0.5, 0.5]);
    let file = read(b.write(&dir.path().join("om.mat")))?;
    let x = file.signal("x").expect("x");
    assert_eq!((x.description.as_str(), x.unit.as_str()), ("State", ""));
    assert_eq!(x.values, [1.0, 0.5]);
    assert_eq!(file.signal("der(x)").expect("der").values, [-1.0, -0.5]);
    Ok(())
}

fn problem(result: Result<MatFile>) -> (String, MatProblem) {
    match result {
        Err(Error::MatFormat {
            matrix, problem, ..
        }) => (matrix, problem),
        other => panic!("expected a format error, got {other:?}"),
    }
}

#[test]
fn malformed_files_name_the_matrix() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("r.mat");
    let mut w = sample_writer(&path)?;
    w.write_row(0.0, &[1.0, 2.0])?;
    drop(w);
    let good = std::fs::read(&path).expect("read");
    let m = raw_matrices(&good);
    let offset_of = |index: usize| -> usize {
        m[..index]
            .iter()
            .map(|m| 20 + m.header[4] as usize + m.data.len())
            .sum()
    };

    // Truncated inside the data of `description`.
    std::fs::write(&path, &good[..offset_of(2) + 40]).expect("write");
    let (matrix, p) = problem(read(&path));
    assert_eq!(matrix, "description");
    assert!(matches!(p, MatProblem::Truncated { .. }));

    // Truncated inside a header: the matrix has no name yet.
    std::fs::write(&path, &good[..offset_of(3) + 10]).expect("write");
    assert_eq!(problem(read(&path)).0, "#4");

    // Unknown type code (sparse) of `dataInfo`.
    let mut bytes = good.clone();
    bytes[offset_of(3)..offset_of(3) + 4].copy_from_slice(&22i32.to_le_bytes());
    std::fs::write(&path, &bytes).expect("write");
    assert_eq!(
        problem(read(&path)),
        ("#4".to_string(), MatProblem::UnknownType { code: 22 })
    );

    // Imaginary part.
    let mut bytes = good.clone();
    bytes[offset_of(4) + 12..offset_of(4) + 16].copy_from_slice(&1i32.to_le_bytes());
    std::fs::write(&path, &bytes).expect("write");
    assert_eq!(
        problem(read(&path)),
        ("data_1".to_string(), MatProblem::Imaginary)
    );

    // Not a trajectory.
    let mut bytes = good.clone();
    bytes[offset_of(0) + 27] = b'X'; // first character of Aclass
    std::fs::write(&path, &bytes).expect("write");
    let (matrix, p) = problem(read(&path));
    assert_eq!(matrix, "Aclass");
    assert!(matches!(p, MatProblem::NotTrajectory { .. }));

    // Missing dataInfo: rename it.
    let mut bytes = good.clone();
    bytes[offset_of(3) + 20] = b'D';
    std::fs::write(&path, &bytes).expect("write");
    assert_eq!(
        problem(read(&path)),
        ("dataInfo".to_string(), MatProblem::Missing)
    );

    // A reference to a missing column (LV.x → column 9 of data_2).
    let mut bytes = good.clone();
    let at = offset_of(3) + 20 + 9 + 16 + 4;
    bytes[at..at + 4].copy_from_slice(&9i32.to_le_bytes());
    std::fs::write(&path, &bytes).expect("write");
    let (matrix, p) = problem(read(&path));
    assert_eq!(matrix, "dataInfo");
    assert_eq!(
        p,
        MatProblem::BadReference {
            variable: "LV.x".to_string(),
            data: 2,
            column: 9
        }
    );

    assert!(matches!(
        read(dir.path().join("none.mat")),
        Err(Error::Read { .. })
    ));
    Ok(())
}

#[test]
fn damaged_files_never_panic() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("r.mat");
    let mut w = sample_writer(&path)?;
    w.write_row(0.0, &[1.0, 2.0])?;
    w.write_row(1.0, &[3.0, 4.0])?;
    drop(w);
    let good = std::fs::read(&path).expect("read");
    let damaged = dir.path().join("d.mat");
    for len in 0..good.len() {
        std::fs::write(&damaged, &good[..len]).expect("write");
        let _ = read(&damaged);
    }
    for at in 0..good.len() {
        for value in [0x00, 0x80, 0xFF] {
            let mut bytes = good.clone();
            bytes[at] = value;
            std::fs::write(&damaged, &bytes).expect("write");
            let _ = read(&damaged);
        }
    }
    Ok(())
}

#[test]
fn unit_is_the_text_in_the_final_brackets() {
    let split = |s: &str| super::split_unit(s);
    assert_eq!(split("Current [A]"), ("Current".into(), "A".into()));
    assert_eq!(split("[m/s]"), (String::new(), "m/s".into()));
    assert_eq!(
        split("Array [2] element [kg]"),
        ("Array [2] element".into(), "kg".into())
    );
    assert_eq!(
        split("Force [N] applied"),
        ("Force [N] applied".into(), String::new())
    );
    assert_eq!(split(""), (String::new(), String::new()));
    assert_eq!(split("x []"), ("x".into(), String::new()));
}

#[test]
fn an_empty_text_matrix_cannot_claim_more_variables_than_data_info() {
    let dir = temp();
    let mut b = Builder::new(false);
    b.text("Aclass", &["Atrajectory", "1.1", "", "binTrans"], false);
    // Zero rows: no data bytes, but two billion (empty) names.
    b.header(51, 0, i32::MAX as usize, "name");
    b.text("description", &["", ""], true);
    b.ints("dataInfo", 4, 2, &[0, 1, 0, -1, 1, 2, 0, -1]);
    b.floats("data_1", 2, 2, &[0.0, 1.0, 1.0, 1.0]);
    let (matrix, p) = problem(read(b.write(&dir.path().join("huge.mat"))));
    assert_eq!(matrix, "name");
    assert_eq!(
        p,
        MatProblem::Count {
            expected: 2,
            found: i32::MAX as usize
        }
    );
}
