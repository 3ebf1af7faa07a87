//! Names that become paths: slave names (from `.msim` files and SSP component names) that hold
//! separators, `..` or an absolute path, and FMU file names that are only dots. A slave of an
//! FMU with a `ResultsRootDir` parameter gets the folder `<working dir>/slaves/<name>`
//! (MasterSim 0.9.8's convention), created by the master and handed to the FMU; whatever the
//! name, that folder must be one component inside `slaves/` (`master::path_name`).
//!
//! The FMU is the own `AllTypes.fmu` (FMI 3.0) with its String input `string_in` (#23)
//! declared as the parameter `ResultsRootDir`: the master sets it, and the FMU copies it to
//! `string_out`, so `strings.csv` shows the folder the FMU was given. A `.msim` slave name
//! with a dot is refused (exit 2: graph lines split `<name>.<variable>` at the first dot), so
//! `..` never reaches a path from there; names with separators but no dots are legal and run
//! (exit 0), as do SSP component names (whose dots become `_`). Each row aims at a path
//! outside (`must_not_create`), and the sentinel folder beside the project must not change.
//! `slave_folders_are_escaped_names_inside_slaves` checks the folders themselves.

use super::rows::{
    Case, Input, Sandbox, case, check_table, fmu_entries, patched_entries, replace_once, zip_bytes,
};

/// `AllTypes.fmu` whose `string_in` is the String parameter `ResultsRootDir`, as `rr.fmu`.
fn results_root_fmu(s: &Sandbox) {
    let entries = patched_entries("AllTypes", |xml| {
        replace_once(
            xml,
            r#"<String name="string_in" valueReference="23" causality="input" variability="discrete">"#,
            r#"<String name="ResultsRootDir" valueReference="23" causality="parameter" variability="fixed">"#,
        )
    });
    s.write("rr.fmu", &zip_bytes(&entries));
}

/// A project of one slave of `rr.fmu` named `name`.
fn named(s: &Sandbox, name: &str) -> Input {
    results_root_fmu(s);
    s.project(&format!(
        "tStart 0 s\ntEnd 0.2 s\nhStart 0.1 s\nsimulator 0 0 {name} #ff0000 \"rr.fmu\"\n"
    ))
}

/// A row: slave `$name`, which must not create `$target` (relative to the sandbox's parent
/// when it starts with `../`, absolute when it starts with `/`, else in the sandbox).
macro_rules! slave_named {
    ($name:expr, $target:expr) => {
        |s| {
            let target: &str = $target;
            let target = match target.strip_prefix("../") {
                Some(rest) => s.outside().join(rest),
                None => s.dir().join(target),
            };
            named(s, $name).must_not_create(target)
        }
    };
}

/// An SSP folder whose one component (of `rr.fmu`) is named `name`.
fn ssp_component(s: &Sandbox, name: &str) -> Input {
    results_root_fmu(s);
    let ssd = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription" version="1.0" name="names">
  <ssd:System name="root">
    <ssd:Elements>
      <ssd:Component name="{name}" source="rr.fmu" type="application/x-fmu-sharedlibrary"/>
    </ssd:Elements>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="0.2"/>
</ssd:SystemStructureDescription>
"#
    );
    Input::project(s.write("SystemStructure.ssd", ssd.as_bytes()))
}

fn cases() -> Vec<Case> {
    vec![
        case(
            "plain_name",
            0,
            "",
            "",
            &[],
            slave_named!("Plain", "unused"),
        ),
        case(
            "absolute_path",
            0,
            "",
            "",
            &[],
            slave_named!(
                "/tmp/mastersim-hostile-absolute-name",
                "/tmp/mastersim-hostile-absolute-name"
            ),
        ),
        case(
            "nested_separators",
            0,
            "",
            "",
            &[],
            slave_named!("sub/dir/name", "sub"),
        ),
        case(
            "doubled_separators",
            0,
            "",
            "",
            &[],
            slave_named!(
                "//tmp//mastersim-hostile-doubled",
                "/tmp/mastersim-hostile-doubled"
            ),
        ),
        case(
            "backslashes",
            0,
            "",
            "",
            &[],
            slave_named!("\\tmp\\mastersim-hostile-back", "unused"),
        ),
        case("very_long_name", 0, "", "", &[], |s| {
            named(s, &"n".repeat(400))
        }),
        case(
            "parent_of_parent",
            2,
            "bad.msim:4:",
            "invalid simulator name '../../sentinel/x'",
            &["expected a name without dots"],
            slave_named!("../../sentinel/x", "sentinel/x"),
        ),
        case(
            "up_and_out",
            2,
            "bad.msim:4:",
            "invalid simulator name",
            &["expected a name without dots"],
            slave_named!("../../../escaped-by-name", "../escaped-by-name"),
        ),
        case(
            "only_dots",
            2,
            "bad.msim:4:",
            "invalid simulator name '..'",
            &["expected a name without dots"],
            slave_named!("..", "slaves"),
        ),
        case("ssp_component_with_separators", 0, "", "", &[], |s| {
            ssp_component(s, "../../sentinel/x").must_not_create(s.sentinel().join("x"))
        }),
        case("ssp_component_absolute", 0, "", "", &[], |s| {
            ssp_component(s, "/tmp/mastersim-hostile-ssp-name")
                .must_not_create("/tmp/mastersim-hostile-ssp-name".into())
        }),
        case("fmu_file_named_dot", 0, "", "", &[], |s| {
            s.write("..fmu", &zip_bytes(&fmu_entries("AllTypes")));
            s.project("tStart 0 s\ntEnd 0.2 s\nhStart 0.1 s\nsimulator 0 0 A #ff0000 \"..fmu\"\n")
        }),
    ]
}

#[test]
fn hostile_names() {
    check_table("names", cases());
}

/// The folders the master made and handed to the FMU are the escaped names, one component
/// inside `<working dir>/slaves/`.
#[test]
fn slave_folders_are_escaped_names_inside_slaves() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let s = super::rows::sandbox(tmp.path(), "folders");
    let input = named(&s, "/sub/dir");
    let wd = tmp.path().join("wd");
    let run = mastersim_tests::run_mastersim(input.path(), &wd, &[]);
    run.assert_success();
    let folder = wd.join("slaves").join("%2Fsub%2Fdir");
    assert!(folder.is_dir(), "no folder '{}'", folder.display());
    let strings = std::fs::read_to_string(wd.join("results/strings.csv")).expect("strings.csv");
    assert!(
        strings.contains(&folder.display().to_string()),
        "the FMU was not given '{}':\n{strings}",
        folder.display()
    );
}
