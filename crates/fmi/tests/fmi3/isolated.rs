//! Isolated instances ([`Fmu::load_isolated`]) of the corpus's real FMUs: the Reference FMUs
//! (FMI 3.0 `corpus/fmi3`, FMI 2.0 `corpus/crosscheck/fmi2/TestFMUs-0.0.1`) in a linux64
//! helper against the same library in this process, bit for bit; their win64 libraries in a
//! Windows helper under Wine, which must find the resources through the translated resource
//! location (`file:///Z:/…` for FMI 2.0, `Z:\…\` for FMI 3.0); and the 20-sim Threetank's
//! linux32 library in the 32-bit helper. A platform that cannot run here fails the test with
//! what to install.

use std::path::Path;
use std::sync::Arc;

use fmi::isolation::{self, Platform};
use fmi::{Causality, DataType, Fmi3InstantiateOptions, Fmu, Interface, ValueRef};

use super::{corpus_dir, corpus_fmu, extract_and, serial};

/// `path` extracted and loaded isolated for `platform`; the directory lives as long as the
/// returned guard.
fn isolated(path: &Path, platform: Platform) -> (tempfile::TempDir, Arc<Fmu>) {
    if let Err(what) = isolation::availability(platform) {
        panic!("a {platform} helper cannot run here: {what}");
    }
    let (dir, _) = extract_and(path, |_| {});
    let fmu = Fmu::load_isolated(dir.path(), Interface::CoSimulation, platform, None)
        .unwrap_or_else(|e| panic!("loading {} for {platform}: {e}", path.display()));
    assert_eq!(fmu.isolation(), Some(platform));
    (dir, fmu)
}

/// `path` extracted and loaded in this process.
fn in_process(path: &Path) -> (tempfile::TempDir, Arc<Fmu>) {
    let (dir, fmu) = extract_and(path, |_| {});
    (
        dir,
        fmu.unwrap_or_else(|e| panic!("loading {}: {e}", path.display())),
    )
}

/// The value references of the Float64 outputs of an FMI 3.0 FMU.
fn float64_outputs(fmu: &Fmu) -> Vec<ValueRef> {
    (fmu.description().variables.iter())
        .filter(|v| v.causality == Causality::Output && v.data_type == DataType::Float64)
        .map(|v| v.value_reference)
        .collect()
}

/// An FMI 3.0 FMU stepped `steps` times by `h` (s) from 0 without Event Mode; the bits of its
/// Float64 outputs after every step.
fn run3(fmu: &Arc<Fmu>, steps: u32, h: f64) -> Vec<u64> {
    let outputs = float64_outputs(fmu);
    assert!(!outputs.is_empty());
    let mut instance = fmu
        .instantiate_fmi3("iso", &Fmi3InstantiateOptions::default())
        .expect("instantiate");
    instance.enter_initialization_mode(None, 0.0, None).unwrap();
    instance.exit_initialization_mode().unwrap();
    let mut values = vec![0.0; outputs.len()];
    let mut bits = Vec::new();
    for k in 0..steps {
        instance.do_step(f64::from(k) * h, h, true).unwrap();
        instance.get_float64(&outputs, &mut values).unwrap();
        bits.extend(values.iter().map(|v| v.to_bits()));
    }
    bits
}

#[test]
fn isolated_reference_fmus_are_bit_identical_to_in_process() {
    let _serial = serial();
    for model in ["VanDerPol", "BouncingBall", "Dahlquist"] {
        let path = corpus_fmu(model);
        let (_a, native) = in_process(&path);
        let (_b, helper) = isolated(&path, Platform::Linux64);
        assert_eq!(helper.get_version().as_deref(), Some("3.0"), "{model}");
        assert_eq!(
            helper.description().capabilities,
            native.description().capabilities
        );
        assert_eq!(
            run3(&helper, 200, 0.01),
            run3(&native, 200, 0.01),
            "{model}"
        );
    }
}

/// Resource (FMI 3.0) reads `resources/y.txt` through `resourcePath`: its win64 library under
/// Wine gets `Z:\…\resources\` and finds it.
#[test]
fn fmi3_resources_reach_a_win64_fmu_under_wine() {
    let _serial = serial();
    let path = corpus_fmu("Resource");
    let read_y = |fmu: &Arc<Fmu>| {
        let mut instance = fmu
            .instantiate_fmi3("resource", &Fmi3InstantiateOptions::default())
            .expect("instantiate");
        instance.enter_initialization_mode(None, 0.0, None).unwrap();
        instance.exit_initialization_mode().unwrap();
        instance.do_step(0.0, 0.1, true).unwrap();
        let mut y = [0];
        instance.get_int32(&[ValueRef(1)], &mut y).unwrap();
        y[0]
    };
    let (_a, native) = in_process(&path);
    let expected = read_y(&native);
    assert_eq!(expected, i32::from(b'a'), "the first character of y.txt");
    let (_b, windows) = isolated(&path, Platform::Win64);
    assert_eq!(read_y(&windows), expected);
}

/// Resource (FMI 2.0, Reference FMUs 0.0.1) reads `y.txt` through the `file:` URI of its
/// resources: its win64 library under Wine gets `file:///Z:/…/resources` and finds it.
#[test]
fn fmi2_resources_reach_a_win64_fmu_under_wine() {
    let _serial = serial();
    let path = corpus_dir().join("crosscheck/fmi2/TestFMUs-0.0.1/Resource/Resource.fmu");
    assert!(path.is_file(), "corpus FMU missing: '{}'", path.display());
    let read_y = |fmu: &Arc<Fmu>| {
        let y = fmu.description().variable_by_name("y").expect("y");
        let mut instance = fmu
            .instantiate("resource", &fmi::InstantiateOptions::default())
            .expect("instantiate");
        instance.setup_experiment(None, 0.0, None).unwrap();
        instance.enter_initialization_mode().unwrap();
        instance.exit_initialization_mode().unwrap();
        instance.do_step(0.0, 0.1, true).unwrap();
        let mut value = [0.0];
        instance.get_real(&[y.value_reference], &mut value).unwrap();
        value[0]
    };
    let (_a, native) = in_process(&path);
    let expected = read_y(&native);
    assert_eq!(expected, f64::from(b'a'), "the first character of y.txt");
    let (_b, windows) = isolated(&path, Platform::Win64);
    assert_eq!(read_y(&windows), expected);
}

/// OpenModelica's WaterTank_Control (FMI 2.0) in the 32-bit helper: the linux32 library gives
/// the outputs of the linux64 one in this process (another compilation of the same model:
/// equal within 1e-9 relative).
#[test]
fn linux32_library_in_the_32_bit_helper() {
    let _serial = serial();
    let path = corpus_dir()
        .join("crosscheck/fmi2/OpenModelica/v1.11.0/WaterTank_Control/WaterTank_Control.fmu");
    assert!(path.is_file(), "corpus FMU missing: '{}'", path.display());
    let run = |fmu: &Arc<Fmu>| {
        let outputs: Vec<ValueRef> = (fmu.description().variables.iter())
            .filter(|v| v.causality == Causality::Output && v.data_type == DataType::Float64)
            .map(|v| v.value_reference)
            .collect();
        assert!(!outputs.is_empty());
        let mut instance = fmu
            .instantiate("tank", &fmi::InstantiateOptions::default())
            .expect("instantiate");
        instance.setup_experiment(None, 0.0, None).unwrap();
        instance.enter_initialization_mode().unwrap();
        instance.exit_initialization_mode().unwrap();
        let mut values = vec![0.0; outputs.len()];
        let mut all = Vec::new();
        for k in 0..100 {
            instance.do_step(f64::from(k) * 0.01, 0.01, true).unwrap();
            instance.get_real(&outputs, &mut values).unwrap();
            all.extend_from_slice(&values);
        }
        all
    };
    let (_a, native) = in_process(&path);
    let (_b, helper) = isolated(&path, Platform::Linux32);
    let (expected, found) = (run(&native), run(&helper));
    assert_eq!(found.len(), expected.len());
    for (f, e) in found.iter().zip(&expected) {
        assert!((f - e).abs() <= 1e-9 * e.abs().max(1.0), "{f} vs {e}");
    }
}

/// The four platforms of 20-sim's Threetank are listed native first, each with whether it can
/// run here; win32 needs Wine's 32-bit part.
#[test]
fn shipped_platforms_of_a_four_platform_fmu() {
    let _serial = serial();
    let path = corpus_dir().join("crosscheck/fmi2/20sim/4.6.4.8004/Threetank/Threetank.fmu");
    assert!(path.is_file(), "corpus FMU missing: '{}'", path.display());
    let (dir, _) = extract_and(&path, |_| {});
    let description = fmi::ModelDescription::from_file(&dir.path().join("modelDescription.xml"))
        .expect("description");
    let shipped = fmi::shipped_platforms(dir.path(), &description);
    let platforms: Vec<Platform> = shipped.iter().map(|s| s.platform).collect();
    assert_eq!(platforms, Platform::ALL);
    for entry in &shipped {
        assert_eq!(entry.availability, isolation::availability(entry.platform));
        assert!(entry.library.is_file(), "{}", entry.library.display());
    }
    assert!(shipped[3].library.ends_with("binaries/win32/Threetank.dll"));
}
