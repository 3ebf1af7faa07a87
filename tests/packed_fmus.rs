//! The committed example FMUs in `fmus/packed/` still match their source: same model
//! descriptions, same simulation results as FMUs freshly built and packed from the current
//! source. And every model description agrees with its crate's value-reference table, read with
//! the importer's own parser.

use std::io::Read;
use std::path::Path;

use fmi::{Causality, ModelDescription, VarType};
use fmu_support::{Causality as FmuCausality, VarType as FmuVarType, Variable};
use mastersim_tests::{example_workspace, run_mastersim, workspace_root};

fn model_description_in(fmu: &Path) -> String {
    let file =
        std::fs::File::open(fmu).unwrap_or_else(|e| panic!("cannot open '{}': {e}", fmu.display()));
    let mut zip = zip::ZipArchive::new(file).expect("a zip archive");
    let mut text = String::new();
    zip.by_name("modelDescription.xml")
        .expect("modelDescription.xml")
        .read_to_string(&mut text)
        .expect("UTF-8");
    text
}

#[test]
fn committed_model_descriptions_match_source() {
    for model in fmu_packer::all_models() {
        let committed = workspace_root()
            .join("fmus/packed")
            .join(format!("{}.fmu", model.name));
        let fresh = example_workspace()
            .join("fmus/packed")
            .join(format!("{}.fmu", model.name));
        assert_eq!(
            model_description_in(&committed),
            model_description_in(&fresh),
            "{}: fmus/packed is stale, run `cargo pack-fmus`",
            model.name
        );
    }
}

/// The SSP examples' copies of packed FMUs (`projects/ssp/fmus/`) are those of `fmus/packed/`,
/// byte for byte: `cargo pack-fmus` writes both.
#[test]
fn ssp_example_fmus_are_copies_of_the_packed_ones() {
    let root = workspace_root();
    for name in fmu_packer::SSP_EXAMPLE_FMUS {
        let read = |dir: &str| {
            let path = root.join(dir).join(format!("{name}.fmu"));
            std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read '{}': {e}", path.display()))
        };
        assert!(
            read(fmu_packer::SSP_EXAMPLE_DIR) == read("fmus/packed"),
            "{name}.fmu in {} differs from fmus/packed: run `cargo pack-fmus`",
            fmu_packer::SSP_EXAMPLE_DIR
        );
    }
}

/// Every bundled project gives byte-identical results with the committed and the fresh FMUs.
#[test]
fn committed_fmus_simulate_like_fresh_ones() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let projects = workspace_root().join("projects");
    let mut checked = 0;
    for entry in std::fs::read_dir(&projects).expect("projects/") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "msim") {
            continue;
        }
        let name = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let committed = run_mastersim(&path, &tmp.path().join(format!("committed-{name}")), &[]);
        committed.assert_success();
        let fresh_project = example_workspace()
            .join("projects")
            .join(format!("{name}.msim"));
        let fresh = run_mastersim(
            &fresh_project,
            &tmp.path().join(format!("fresh-{name}")),
            &[],
        );
        fresh.assert_success();
        for file in ["results/values.csv", "results/strings.csv"] {
            let (a, b) = (committed.path(file), fresh.path(file));
            assert_eq!(a.is_file(), b.is_file(), "{name}: {file}");
            if a.is_file() {
                assert_eq!(
                    std::fs::read(&a).expect("read"),
                    std::fs::read(&b).expect("read"),
                    "{name}: {file} differs"
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 6, "bundled projects found: {checked}");
}

fn var_type(t: FmuVarType) -> VarType {
    match t {
        FmuVarType::Real => VarType::Real,
        FmuVarType::Integer => VarType::Integer,
        FmuVarType::Boolean => VarType::Boolean,
        FmuVarType::String => VarType::String,
    }
}

fn causality(c: FmuCausality) -> Causality {
    match c {
        FmuCausality::Parameter => Causality::Parameter,
        FmuCausality::Input => Causality::Input,
        FmuCausality::Output => Causality::Output,
        FmuCausality::Local => Causality::Local,
    }
}

/// The importer's parser reads each modelDescription.xml to exactly the variables (name, value
/// reference, type, causality) of the crate's `VR_*` table.
#[test]
fn model_descriptions_agree_with_value_reference_tables() {
    let tables: [(&str, &[Variable]); 17] = [
        ("Prey", fmu_lotka_volterra::PREY_VARIABLES),
        ("Predator", fmu_lotka_volterra::PREDATOR_VARIABLES),
        ("Part1", fmu_control_loop::PART1_VARIABLES),
        ("Part2", fmu_control_loop::PART2_VARIABLES),
        ("Part3", fmu_control_loop::PART3_VARIABLES),
        ("FourVars", fmu_four_vars::FOUR_VARS_VARIABLES),
        ("FourVarsFeedThrough", fmu_four_vars::FEED_THROUGH_VARIABLES),
        ("Oscillator", fmu_oscillator_fmi1::VARIABLES),
        ("Gain", fmu_algebraic_loop::GAIN_VARIABLES),
        ("Faulty", fmu_fault_injection::FAULTY_VARIABLES),
        ("Scale", fmu_workload::SCALE_VARIABLES),
        ("ScaleOnce", fmu_workload::SCALE_VARIABLES),
        ("Busy", fmu_workload::BUSY_VARIABLES),
        ("Sampler", fmu_multirate::SAMPLER_VARIABLES),
        ("Aircraft", fmu_multirate::AIRCRAFT_VARIABLES),
        ("Controller", fmu_multirate::CONTROLLER_VARIABLES),
        ("NavFilter", fmu_multirate::NAV_FILTER_VARIABLES),
    ];
    assert_eq!(tables.len(), fmu_packer::MODELS.len());
    for (name, table) in tables {
        let spec = fmu_packer::MODELS
            .iter()
            .find(|m| m.name == name)
            .expect("model listed by the packer");
        let md = ModelDescription::from_file(&spec.xml_path(&workspace_root()))
            .expect("valid modelDescription");
        let parsed: Vec<_> = md
            .variables
            .iter()
            .map(|v| {
                (
                    v.name.as_str(),
                    v.value_reference.0,
                    v.var_type,
                    v.causality,
                )
            })
            .collect();
        let expected: Vec<_> = table
            .iter()
            .map(|v| (v.name, v.vr, var_type(v.ty), causality(v.causality)))
            .collect();
        assert_eq!(parsed, expected, "{name}");
        assert_eq!(md.model_identifier, name, "{name}: model identifier");
    }
}
