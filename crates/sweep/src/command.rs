//! The one place where crate `sweep` writes or reads `mastersim`'s command grammar: the
//! command that runs a case (`mastersim sweep case <dir> <k>`, for the local, Slurm and print
//! executors), the command line a case stands for (recorded in `case.json`, to repeat it by
//! hand), and the `--set` values among the sweep's options.
//!
//! Spec: `docs/sweeps.md` (case commands); the `mastersim` command line (`mastersim --help`).

use std::path::Path;

use crate::plan::{Case, Plan};

/// The words after the program of the command that runs case `k` of the sweep in `dir`:
/// `sweep case <dir> <k>`.
pub(crate) fn case_words(dir: &Path, k: &str) -> Vec<String> {
    vec![
        "sweep".to_owned(),
        "case".to_owned(),
        dir.display().to_string(),
        k.to_owned(),
    ]
}

/// The flag with which a Slurm job script runs a case, so that the time-limit warning
/// requeues it.
pub(crate) const SLURM_REQUEUE: &str = "--slurm-requeue";

impl Plan {
    /// The `mastersim` command line (without the program) that runs `case`: the base, its
    /// working directory, the overrides as `--set`, then the plan's options; `--threads 1`
    /// unless the options choose, since cases run side by side.
    pub fn command_line(&self, case: &Case) -> Vec<String> {
        let mut args = vec![
            case.base.display().to_string(),
            "--working-dir".to_owned(),
            self.case_dir(case.index).display().to_string(),
        ];
        for o in &case.overrides {
            args.push("--set".to_owned());
            args.push(o.clone());
        }
        args.extend(self.options.iter().cloned());
        if !self.chooses_threads() {
            args.extend(["--threads".to_owned(), "1".to_owned()]);
        }
        args
    }

    /// Whether the plan's options choose the number of threads (`--threads`); else a case
    /// runs on one thread.
    pub fn chooses_threads(&self) -> bool {
        self.options
            .iter()
            .any(|o| o == "--threads" || o.starts_with("--threads="))
    }
}

/// The values of the `--set` options among `options` (`--set X` and `--set=X`).
pub(crate) fn set_options(options: &[String]) -> Vec<String> {
    let mut values = Vec::new();
    let mut words = options.iter();
    while let Some(word) = words.next() {
        if word == "--set" {
            values.extend(words.next().cloned());
        } else if let Some(value) = word.strip_prefix("--set=") {
            values.push(value.to_owned());
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_options_are_picked_from_the_case_options() {
        let options: Vec<String> = ["--set", "tEnd=10 s", "--threads", "1", "--set=hStart=1 s"]
            .map(String::from)
            .into();
        assert_eq!(set_options(&options), ["tEnd=10 s", "hStart=1 s"]);
    }
}
