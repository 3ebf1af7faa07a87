//! FMI 1.0 co-simulation FMUs from other tools (`corpus/fmi1`), checked by identity and by
//! physics (there are no reference results).

use std::path::PathBuf;

use mastersim_tests::{ResultTable, corpus_dir, run_mastersim};

/// The corpus directory of the FMI 1.0 FMUs.
fn fmi1_dir() -> PathBuf {
    corpus_dir().join("fmi1")
}

#[test]
fn fmi1_identity_outputs_equal_inputs() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let table = tmp.path().join("inputs.tsv");
    std::fs::write(
        &table,
        "time [s]\treal\tint\tbool\n0\t0.5\t1\t0\n1\t1.5\t2\t1\n2\t-3.25\t-7\t0\n3\t4\t9\t1\n",
    )
    .expect("write table");
    let project = tmp.path().join("identity.msim");
    std::fs::write(
        &project,
        format!(
            "tStart 0 s\ntEnd 3 s\nhStart 0.25 s\nhOutputMin 0.25 s\nMasterMode GAUSS_SEIDEL\n\
             simulator 0 0 Inputs #ff0000 \"inputs.tsv\"\n\
             simulator 1 0 Identity #00ff00 \"{}\"\n\
             graph Inputs.real Identity.realIn\ngraph Inputs.int Identity.integerIn\ngraph Inputs.bool Identity.booleanIn\n\
             parameter Identity.stringIn hello world\n",
            fmi1_dir().join("identity/identity.fmu").display()
        ),
    )
    .expect("write project");
    let run = run_mastersim(&project, &tmp.path().join("wd"), &[]);
    run.assert_success();
    let values = ResultTable::read(&run.path("results/values.csv"));
    assert_eq!(values.rows.len(), 13, "rows every 0.25 s from 0 to 3");
    for (input, output) in [
        ("Inputs.real", "Identity.realOut"),
        ("Inputs.int", "Identity.integerOut"),
        ("Inputs.bool", "Identity.booleanOut"),
    ] {
        let (i, o) = (values.numbers(input), values.numbers(output));
        assert_eq!(i, o, "{output} must equal {input}");
    }
    assert!(values.numbers("Inputs.real").contains(&-3.25));
    let strings = ResultTable::read(&run.path("results/strings.csv"));
    let c = strings.column("Identity.stringOut");
    assert!(
        strings.rows.iter().all(|r| r[c] == "hello world"),
        "stringOut must equal stringIn: {:?}",
        strings.rows
    );
}

#[test]
fn fmi1_mass_spring_damper_energy_decays() {
    let dir = fmi1_dir().join("mass_spring_damper");
    let (m, k) = (10.0, 5.0);
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = tmp.path().join("msd.msim");
    let fmu = |name: &str| dir.join(format!("{name}.fmu")).display().to_string();
    std::fs::write(
        &project,
        format!(
            "tStart 0 s\ntEnd 20 s\nhStart 0.001 s\nhOutputMin 0.05 s\nMasterMode GAUSS_SEIDEL\n\
             simulator 0 0 Mass #ff0000 \"{}\"\nsimulator 1 0 Spring #00ff00 \"{}\"\nsimulator 2 0 Damper #0000ff \"{}\"\n\
             graph Mass.out_l_u Spring.dis_xx\ngraph Mass.out_l_w Spring.dis_yx\n\
             graph Spring.for_xx Mass.in_l_u\ngraph Spring.for_yx Mass.in_l_w\n\
             graph Mass.out_f_u Damper.lv_0\ngraph Mass.out_f_w Damper.lv_1\n\
             graph Damper.df_0 Mass.in_f_u\ngraph Damper.df_1 Mass.in_f_w\n\
             parameter Mass.mass {m}\nparameter Mass.initialPositionX 1.0\n\
             parameter Mass.inGravityField false\nparameter Mass.enableDrag false\nparameter Mass.livePlotting false\n\
             parameter Spring.springStiffness {k}\nparameter Spring.livePlotting false\n\
             parameter Damper.livePlotting false\n",
            fmu("Mass"),
            fmu("Spring"),
            fmu("Damper")
        ),
    )
    .expect("write project");
    let run = run_mastersim(&project, &tmp.path().join("wd"), &[]);
    run.assert_success();
    let values = ResultTable::read(&run.path("results/values.csv"));
    let (x, y) = (
        values.numbers("Mass.out_l_u"),
        values.numbers("Mass.out_l_w"),
    );
    let (vx, vy) = (
        values.numbers("Mass.out_f_u"),
        values.numbers("Mass.out_f_w"),
    );
    let energy: Vec<f64> = (0..x.len())
        .map(|i| 0.5 * m * (vx[i] * vx[i] + vy[i] * vy[i]) + 0.5 * k * (x[i] * x[i] + y[i] * y[i]))
        .collect();
    assert!(
        (energy[0] - 0.5 * k).abs() < 1e-6,
        "initial energy is the spring's: {}",
        energy[0]
    );
    // The mass oscillates: x changes sign.
    assert!(x.iter().any(|&v| v < -0.1), "the mass swings through zero");
    // Damping: energy at the end is well below the start, and no peak exceeds the start.
    let last = *energy.last().expect("rows");
    assert!(
        last < 0.5 * energy[0],
        "energy must decay: start {} end {last}",
        energy[0]
    );
    assert!(
        energy.iter().all(|&e| e <= energy[0] * 1.01),
        "energy never grows beyond its start"
    );
    assert!(
        y.iter().all(|v| v.abs() < 1e-12),
        "without gravity the motion stays on the x axis"
    );
}
