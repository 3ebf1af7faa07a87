//! The `mastersim` binary of an earlier commit, built from a git worktree, so that a suite can
//! measure both versions in the same run (alternating their runs, so that slow spells of the
//! machine fall on both).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds the release `mastersim` of `commit` (anything `git` resolves) in a worktree under
/// `<target>/bench-baseline/<commit>` (reused when it exists) with its own target directory,
/// and returns the binary.
///
/// # Panics
/// When git or cargo fails.
pub fn build(commit: &str) -> PathBuf {
    let root = mastersim_tests::workspace_root();
    let base = root.join("target").join("bench-baseline");
    let worktree = base.join(commit);
    if !worktree.join("Cargo.toml").is_file() {
        run(Command::new("git")
            .args(["worktree", "add", "--detach", "--force"])
            .arg(&worktree)
            .arg(commit)
            .current_dir(&root));
    }
    mastersim_tests::build_mastersim(&worktree, &base.join("target"))
}

fn run(command: &mut Command) {
    let status = command.status().expect("command starts");
    assert!(status.success(), "{command:?} failed");
}

/// A binary under measurement: a label, the binary and the arguments it needs for the same
/// work (e.g. the time arithmetic of the baseline's default).
#[derive(Debug, Clone)]
pub struct Contender<'a> {
    /// Label in the tables.
    pub label: String,
    /// The binary.
    pub binary: &'a Path,
    /// Extra arguments of every run.
    pub args: Vec<&'static str>,
}
