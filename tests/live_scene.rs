//! Scenes over HTTP, without a browser: `mastersim view --scene` sends the checked scene in
//! `/api/meta`, its variables resolved to the row columns; a bad scene ends `view` and a
//! `--live` run of a project naming it with exit code 2 before anything is served, naming the
//! scene file, its line and the unknown variable. The browser test of the flight scene is in `tests/live/scene.rs`.

use std::process::Command;

use mastersim_tests::live_run::LiveRun;
use mastersim_tests::{example_workspace, mastersim_bin, run_mastersim};

#[test]
fn a_scene_is_served_checked_and_a_bad_one_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let project = example_workspace().join("projects/lotka_volterra.msim");
    let wd = tmp.path().join("wd");
    run_mastersim(&project, &wd, &[]).assert_success();
    let csv = wd.join("results/values.csv");
    let scene = example_workspace().join("projects/lotka_volterra.scene.toml");
    let view = LiveRun::spawn(
        &[
            "view".as_ref(),
            csv.as_os_str(),
            "--scene".as_ref(),
            scene.as_os_str(),
        ],
        &wd,
    );
    let meta = view.get("meta").json();
    let orbit = &meta["scene"]["objects"][0];
    assert_eq!(orbit["id"], "orbit", "{meta}");
    assert_eq!(orbit["kind"], "trace");
    // Row column 0 is the time; Prey.x and Predator.y are result columns 0 and 1.
    assert_eq!(meta["columns"][0]["name"], "Prey.x");
    assert_eq!(orbit["attributes"]["x"]["col"], 1);
    assert_eq!(orbit["attributes"]["y"]["col"], 2);
    assert_eq!(meta["scene"]["frame"]["x"], serde_json::Value::Null);
    drop(view);

    let bad = tmp.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[[object]]\nid = \"state\"\nkind = \"point\"\nx = \"Prey.x\"\ny = \"Predator.z\"\n",
    )
    .unwrap();
    let expected = format!(
        "{}:5: object 'state': y: variable 'Predator.z' does not exist in the project's \
         results; expected a numeric result variable such as Predator.y",
        bad.display()
    );
    let view = Command::new(mastersim_bin())
        .arg("view")
        .arg(&csv)
        .arg("--scene")
        .arg(&bad)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&view.stderr);
    assert_eq!(view.status.code(), Some(2), "{said}");
    assert!(said.contains(&format!("--scene: {expected}")), "{said}");
    // A --live run whose project names the same scene (`--set scene=` replaces the bundled
    // project's line) ends before it serves the view or starts.
    let set = format!("scene={}", bad.display());
    let run = run_mastersim(
        &project,
        &tmp.path().join("live"),
        &["--live", "--set", &set],
    );
    assert_eq!(run.code(), 2, "{}", run.said());
    assert!(
        run.said().contains(&format!("scene: {expected}")),
        "{}",
        run.said()
    );
    assert!(!run.said().contains("Live view:"), "{}", run.said());
}
