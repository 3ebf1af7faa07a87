//! The README's quick start works on a fresh clone: the repository is cloned (committed files
//! only) and the two commands of the README's "Quick start" block run in it, exactly as
//! written, with a target directory of their own. Prints how long each took, the figures the
//! README states.
//!
//! Run with `cargo test --release -p mastersim-tests --test fresh_clone -- --nocapture` (a
//! separate target: it builds the workspace from scratch and runs the whole self-contained
//! suite once more, so it takes as long as both README commands on a new machine).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use mastersim_tests::workspace_root;

/// The commands of the first ```sh block after "## Quick start" in `readme`.
fn quick_start_commands(readme: &str) -> Vec<String> {
    let section = readme
        .split("\n## Quick start\n")
        .nth(1)
        .expect("README.md has a '## Quick start' section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the quick start has a ```sh block");
    block
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// Runs `command` with `sh -c` in `dir`; returns its output, panicking with it on failure.
fn run(command: &str, dir: &Path, target: &Path) -> String {
    let started = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .expect("sh runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "`{command}` failed in the fresh clone:\n{text}"
    );
    println!(
        "`{command}` on a fresh clone: {:.0} s",
        started.elapsed().as_secs_f64()
    );
    text
}

#[test]
fn the_readme_quick_start_works_on_a_fresh_clone() {
    let root = workspace_root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let commands = quick_start_commands(&readme);
    assert_eq!(
        commands.len(),
        2,
        "the quick start has exactly two commands: {commands:?}"
    );
    let tmp = tempfile::tempdir().expect("temp dir");
    let clone = tmp.path().join("mastersim");
    let status = Command::new("git")
        .args(["clone", "--quiet", "--no-hardlinks"])
        .arg(&root)
        .arg(&clone)
        .status()
        .expect("git runs");
    assert!(status.success(), "git clone of '{}'", root.display());
    let target = tmp.path().join("target");

    let first = run(&commands[0], &clone, &target);
    assert!(
        first.contains("Results are in"),
        "the example says where its results are:\n{first}"
    );
    let values = clone.join("projects/lotka_volterra/results/values.csv");
    let text =
        std::fs::read_to_string(&values).unwrap_or_else(|e| panic!("'{}': {e}", values.display()));
    assert!(text.lines().count() > 100, "{}", values.display());

    let second = run(&commands[1], &clone, &target);
    let passed: u64 = second
        .lines()
        .filter_map(|l| l.strip_prefix("test result: ok. "))
        .filter_map(|l| l.split(' ').next()?.parse::<u64>().ok())
        .sum();
    assert!(passed > 400, "the suite ran its tests: {passed} passed");
    assert!(!second.contains("FAILED"), "{second}");
    println!("tests passed on the fresh clone: {passed}");
}
