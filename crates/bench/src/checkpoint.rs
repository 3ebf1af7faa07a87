//! The cost of checkpoints (issue 12): the corpus Lotka-Volterra and Math003 projects,
//! lengthened so that a run lasts about `seconds` s, run side by side without and with
//! `--checkpoint-interval 1`, and the size of a checkpoint per slave (also for the bundled
//! control loop, whose FMUs serialize their states).

use std::path::{Path, PathBuf};

use crate::process::{self, median};

/// The corpus projects measured.
const PROJECTS: [&str; 2] = [
    "Lotka_Volterra_System/LV_Richardson_5iter",
    "Math_003_control_loop/Math003_GaussJacobi_1iters_fixedStep",
];

/// A copy of the corpus project `name` in `dir` with absolute FMU paths and `tEnd`
/// multiplied by `factor`.
fn lengthened(corpus: &Path, name: &str, factor: f64, dir: &Path) -> PathBuf {
    let original = corpus.join(format!("{name}.msim"));
    let base = original.parent().expect("project directory");
    let text = std::fs::read_to_string(&original)
        .unwrap_or_else(|e| panic!("cannot read '{}': {e}", original.display()));
    let mut out = String::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() == Some(&"tEnd") && words.len() >= 2 {
            let t: f64 = words[1].parse().expect("tEnd value");
            out.push_str(&format!(
                "tEnd {} {}\n",
                t * factor,
                words.get(2).unwrap_or(&"s")
            ));
        } else if words.first() == Some(&"simulator") {
            let (head, file) = line.rsplit_once(' ').expect("simulator line");
            let file = file.trim_matches('"');
            out.push_str(&format!("{head} \"{}\"\n", base.join(file).display()));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    let path = dir.join(format!(
        "{}.msim",
        name.rsplit('/').next().expect("project name")
    ));
    std::fs::write(&path, out).expect("write lengthened project");
    path
}

/// Runs both projects `runs` times each way (round robin) and prints the table.
///
/// # Panics
/// When the corpus is missing (naming the path) or a run fails.
pub fn cost(mastersim: &Path, corpus: &Path, runs: usize, seconds: f64) {
    assert!(
        corpus.is_dir(),
        "the MasterSim corpus is missing: looked for '{}'",
        corpus.display()
    );
    println!(
        "\n## Checkpoint cost: runs of about {seconds} s, without and with --checkpoint-interval 1 ({runs} runs each, median)\n"
    );
    println!(
        "| project | tEnd factor | without s | with s | overhead % | checkpoints (about) | checkpoint bytes | bytes per slave |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let dir = tempfile::tempdir().expect("temp dir");
    for name in PROJECTS {
        // Calibrate: lengthen until a run takes about `seconds` (process start-up dominates
        // the original length, so one step of scaling is not enough).
        let wd = dir.path().join("calibrate");
        let mut factor: f64 = 1.0;
        for _ in 0..3 {
            let project = lengthened(corpus, name, factor, dir.path());
            let wall = process::run(mastersim, &project, &wd, &[])
                .wall
                .as_secs_f64();
            if wall > 0.8 * seconds {
                break;
            }
            factor = (factor * seconds / wall).ceil();
        }
        let project = lengthened(corpus, name, factor, dir.path());
        let (plain, with) = (dir.path().join("plain"), dir.path().join("with"));
        let args = ["--checkpoint-interval", "1"];
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            a.push(
                process::run(mastersim, &project, &plain, &[])
                    .wall
                    .as_secs_f64(),
            );
            b.push(
                process::run(mastersim, &project, &with, &args)
                    .wall
                    .as_secs_f64(),
            );
        }
        let (a, b) = (median(a), median(b));
        let size =
            std::fs::metadata(with.join("checkpoint").join("state.bin")).map_or(0, |m| m.len());
        let slaves = std::fs::read_to_string(&project)
            .expect("project")
            .lines()
            .filter(|l| l.starts_with("simulator"))
            .count();
        println!(
            "| {name} | {factor} | {a:.3} | {b:.3} | {:+.2} | {} | {size} | {} |",
            (b / a - 1.0) * 100.0,
            (b / 1.0).floor(),
            size / slaves.max(1) as u64
        );
    }
    // The corpus FMUs do not serialize (their checkpoints hold the master's state only, and
    // a resume replays); the bundled control loop's do.
    let bundled = mastersim_tests::example_workspace()
        .join("projects")
        .join("control_loop_jacobi.msim");
    let project = dir.path().join("control_loop_jacobi.msim");
    let text = std::fs::read_to_string(&bundled)
        .expect("bundled project")
        .replace(
            "\"../fmus/",
            &format!(
                "\"{}/",
                bundled
                    .parent()
                    .and_then(Path::parent)
                    .expect("workspace")
                    .join("fmus")
                    .display()
            ),
        );
    std::fs::write(&project, text + "\ntEnd 20000 s\nhOutputMin 1 s\n").expect("write project");
    let wd = dir.path().join("bundled");
    let run = process::run(mastersim, &project, &wd, &["--checkpoint-interval", "0.05"]);
    let size = std::fs::metadata(wd.join("checkpoint").join("state.bin")).map_or(0, |m| m.len());
    println!(
        "\nBundled control loop (3 slaves with serialized FMU states, run {:.2} s): checkpoint {size} bytes, {} bytes per slave",
        run.wall.as_secs_f64(),
        size / 3
    );
}
