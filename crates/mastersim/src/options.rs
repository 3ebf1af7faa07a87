//! The options of a session: where it works, what it writes, how it steps.
//!
//! Every field has a default ([`Options::default`]) that follows the project file, so that
//! `Options::default()` runs a project as MasterSim would, with mastersim's corrections.
//!
//! Precedence, from weakest to strongest: the project's own lines; the typed settings
//! ([`Options::start_time`], [`Options::stop_time`], [`Options::step_size`], applied as the
//! lines `tStart`, `tEnd`, `hStart` in seconds); the [`Options::overrides`] in order (so that
//! `--set tEnd=…` wins over `--stop-time`, as before). [`Options::output_only`] replaces the
//! project's `outputOnly` lines after that.
//!
//! Spec: MasterSim reference §2 (command line), §5 (working directory); `docs/results.md`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use master::TimeArithmetic;
use master::project::{FmiType, Project, ProjectError, ResultFormat, TimeUnit};

use crate::{Error, Result};

/// What happens when an FMU call exceeds [`StepTimeout::limit`]: called on the supervisor
/// thread after the result files are finished and `summary.txt` is written; it must not return
/// (the stepping thread is stuck inside the FMU, and only ending the process frees it).
pub type TimeoutHandler = fn() -> !;

/// A limit on the wall time of one FMU call.
///
/// Spec: `docs/robustness.md` (hanging FMU calls).
#[derive(Debug, Clone, Copy)]
pub struct StepTimeout {
    /// Longest wall time one `doStep`, state or initialization call may take (> 0).
    pub limit: Duration,
    /// Ends the process once the results are saved.
    pub on_expiry: TimeoutHandler,
}

/// Options of [`crate::Session::open`]. Defaults in [`Options::default`].
#[derive(Debug, Clone)]
pub struct Options {
    /// Working directory for extracted FMUs, logs and results (default: the project path
    /// without its extension, as MasterSim does; for an FMU run on its own, `<model>/` in the
    /// current directory, see [`Options::working_dir_for`]).
    pub working_dir: Option<PathBuf>,
    /// Reuse the FMUs already extracted in `<working_dir>/fmus/<name>` instead of extracting
    /// them again (default false).
    pub skip_unzip: bool,
    /// Result formats (default: the project's `resultFormats`, CSV unless it says otherwise;
    /// an empty list writes no result files but `log/progress.txt` and `log/summary.txt`).
    pub result_formats: Option<Vec<ResultFormat>>,
    /// Relative threshold of the adaptive output filter, > 0 (default: the project's
    /// `outputThreshold`, off unless it says otherwise).
    pub output_threshold: Option<f64>,
    /// Threads that may step the slaves of Gauss-Jacobi in parallel, ≥ 1 (default: the
    /// number of cores). Results do not depend on it.
    pub threads: Option<usize>,
    /// Time arithmetic (default: the project's `timeArithmetic`, exact unless it says
    /// otherwise).
    pub time_arithmetic: Option<TimeArithmetic>,
    /// Largest total size one FMU or SSP archive may extract to, in bytes (default 4 GiB;
    /// protects against zip bombs).
    pub max_fmu_size: u64,
    /// Passed to the FMUs' instantiate call as `loggingOn` (default false).
    pub fmu_logging: bool,
    /// Write `log/stepstats.tsv`, one line of counters per step (default false).
    pub step_statistics: bool,
    /// Show progress on the console: a bar on a terminal, else a line every few seconds
    /// (default false).
    pub console_progress: bool,
    /// Abandon the run when an FMU call hangs (default: no limit).
    pub step_timeout: Option<StepTimeout>,
    /// Write a checkpoint to `<working_dir>/checkpoint/state.bin` at the first communication
    /// point after every this many seconds of wall time, > 0 (default: none).
    pub checkpoint_interval: Option<f64>,
    /// Write a checkpoint when the stop flag ends the run (SIGINT, SIGTERM), before the last
    /// row (default false).
    pub checkpoint_on_stop: bool,
    /// Start time of the run, s (the project's `tStart`; default: the project's, for an FMU
    /// its default experiment). Applied before [`Options::overrides`], which win.
    pub start_time: Option<f64>,
    /// Stop time of the run, s (the project's `tEnd`; default: the project's, for an FMU its
    /// default experiment, else 1 s). Applied before [`Options::overrides`], which win.
    pub stop_time: Option<f64>,
    /// Communication step size, s (the project's `hStart`; default: the project's, for an FMU
    /// its default experiment, else 1/500 of the run). Applied before [`Options::overrides`].
    pub step_size: Option<f64>,
    /// Pace the run at this many simulated seconds per wall-clock second, finite and > 0
    /// (`--real-time`; default: as fast as it goes). Used by [`crate::run::run_to_end`].
    pub real_time: Option<f64>,
    /// Which variables are recorded in the result files: glob patterns over
    /// `slave.variable`, replacing the project's `outputOnly` lines (default: the project's;
    /// an empty list records every variable). Spec: MasterSim reference §3 (`outputOnly`).
    pub output_only: Option<Vec<String>>,
    /// Overrides of the project, applied in order as if they were more lines at the end of
    /// the file: `<keyword>=<value>` (such as `tEnd=10 s`) or `<slave>.<variable>=<value>`
    /// for a parameter or start value; in a run of one FMU, `<variable>=<value>` (default:
    /// none). See [`master::project::Project::apply_overrides`].
    pub overrides: Vec<String>,
    /// In a run of one FMU: a CSV/TSV table whose columns feed the FMU inputs of the same name
    /// (default: none). See [`master::single_fmu::connect_input_table`].
    pub input: Option<PathBuf>,
    /// SSP systems: the parameter set to use where an element binds several (`--parameter-set`;
    /// default: the first of each element). See `docs/ssp.md`.
    pub parameter_set: Option<String>,
    /// SSP systems: let references (component FMUs, nested systems, `.ssv` and `.ssm` files)
    /// lead outside the archive or folder (`--allow-outside-references`; default: refused).
    /// See `docs/ssp.md`.
    pub allow_outside_references: bool,
    /// In a run of one FMU: the interface it runs (`--fmi-type`; default: co-simulation when
    /// the FMU offers it, else Model Exchange). Applied as the project line
    /// `fmiType <slave> …` (`docs/project-format.md`).
    pub fmi_type: Option<FmiType>,
    /// In a run of one FMU as Model Exchange: the integration method (`--solver`; default
    /// CVODE).
    pub solver: Option<master::solver::Method>,
    /// In a run of one FMU as Model Exchange: the integrator's relative tolerance, > 0
    /// (`--relative-tolerance`, FMPy's name; default: the FMU's `DefaultExperiment`
    /// tolerance, else 1e-6).
    pub relative_tolerance: Option<f64>,
    /// Run every FMU slave in a helper process of its own (`--isolate`; default false: only
    /// the slaves of `isolate` lines, and those whose FMU has no binary for this machine). See
    /// `docs/isolation.md`.
    pub isolate: bool,
    /// In a run of one FMU: the binary of the FMU to run (`--platform`; default: this
    /// machine's, else the first a helper can run). Any other platform than this machine's
    /// runs in a helper process. Applied as the project line `isolate <slave> platform=…`.
    pub platform: Option<master::isolation::Platform>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            working_dir: None,
            skip_unzip: false,
            result_formats: None,
            output_threshold: None,
            threads: None,
            time_arithmetic: None,
            max_fmu_size: 4096 << 20,
            fmu_logging: false,
            step_statistics: false,
            console_progress: false,
            step_timeout: None,
            checkpoint_interval: None,
            checkpoint_on_stop: false,
            start_time: None,
            stop_time: None,
            step_size: None,
            real_time: None,
            output_only: None,
            overrides: Vec::new(),
            input: None,
            parameter_set: None,
            allow_outside_references: false,
            fmi_type: None,
            solver: None,
            relative_tolerance: None,
            isolate: false,
            platform: None,
        }
    }
}

impl Options {
    /// The working directory of `project` under these options: [`Options::working_dir`], or
    /// for a project or SSP system its path without the extension (MasterSim's layout), and
    /// for an FMU run on its own `<model>/` in the current directory (`Prey.fmu` runs in
    /// `./Prey/`), so that a run never writes beside an FMU that may sit in a source tree or
    /// a read-only folder.
    ///
    /// Spec: MasterSim reference §5 (projects); FMPy and OMSimulator also write the results
    /// of a bare FMU run into the current directory.
    pub fn working_dir_for(&self, project: &Path) -> PathBuf {
        if let Some(dir) = &self.working_dir {
            return dir.clone();
        }
        match (crate::InputKind::by_extension(project), project.file_stem()) {
            (Some(crate::InputKind::Fmu), Some(stem)) => PathBuf::from(stem),
            _ => project.with_extension(""),
        }
    }

    /// Where the checkpoint of `project` under these options is written and resumed from:
    /// `<working dir>/checkpoint/state.bin`.
    ///
    /// Spec: `docs/checkpoints.md`.
    pub fn checkpoint_path_for(&self, project: &Path) -> PathBuf {
        self.working_dir_for(project)
            .join("checkpoint")
            .join("state.bin")
    }

    /// The name of the first of `--fmi-type`, `--solver`, `--relative-tolerance` and
    /// `--platform` that is set (options of a run of one FMU).
    pub fn single_fmu_option(&self) -> Option<&'static str> {
        [
            ("fmi-type", self.fmi_type.is_some()),
            ("solver", self.solver.is_some()),
            ("relative-tolerance", self.relative_tolerance.is_some()),
            ("platform", self.platform.is_some()),
        ]
        .into_iter()
        .find_map(|(name, set)| set.then_some(name))
    }

    /// The `fmiType` override of [`Options::fmi_type`], [`Options::solver`] and
    /// [`Options::relative_tolerance`] for slave `slave` (`None` when none is set):
    /// `fmiType=<slave> <type or auto> [solver=…] [relTol=…]`.
    pub fn fmi_type_override(&self, slave: &str) -> Option<String> {
        if self.fmi_type.is_none() && self.solver.is_none() && self.relative_tolerance.is_none() {
            return None;
        }
        let mut text = format!(
            "fmiType={slave} {}",
            self.fmi_type.map_or("auto", FmiType::keyword)
        );
        if let Some(method) = self.solver {
            text.push_str(&format!(" solver={method}"));
        }
        if let Some(tolerance) = self.relative_tolerance {
            text.push_str(&format!(" relTol={tolerance}"));
        }
        Some(text)
    }

    /// The `isolate` override of [`Options::platform`] for slave `slave`: `isolate=<slave>
    /// platform=<name>` when a platform other than this machine's is chosen, or this machine's
    /// with [`Options::isolate`] (this machine's binary alone runs in-process: no line).
    pub fn platform_override(&self, slave: &str) -> Option<String> {
        let platform = self.platform?;
        let native = platform == master::isolation::Platform::native();
        (!native || self.isolate)
            .then(|| format!("isolate={slave} platform={}", platform.fmi2_folder()))
    }

    /// The platform whose helper process an isolated run needs first, if these options isolate
    /// ([`Options::isolate`], or a [`Options::platform`] other than this machine's): the
    /// chosen platform, else this machine's.
    pub fn isolated_platform(&self) -> Option<master::isolation::Platform> {
        let native = master::isolation::Platform::native();
        let platform = self.platform.unwrap_or(native);
        (self.isolate || platform != native).then_some(platform)
    }

    /// The project lines these options stand for, in the order applied: `tStart=<s> s`,
    /// `tEnd=<s> s` and `hStart=<s> s` for the typed times that are set, the
    /// [`Options::fmi_type_override`] and [`Options::platform_override`] of a run of one FMU
    /// (with the slave name `*`), then [`Options::overrides`]. A resume hashes them with the project file, so that a
    /// checkpoint is refused when they differ.
    pub fn project_overrides(&self) -> Vec<String> {
        self.overrides_for("*")
    }

    /// [`Options::project_overrides`] with the `fmiType` override for `slave`.
    fn overrides_for(&self, slave: &str) -> Vec<String> {
        [
            ("tStart", self.start_time),
            ("tEnd", self.stop_time),
            ("hStart", self.step_size),
        ]
        .into_iter()
        .filter_map(|(keyword, value)| value.map(|v| format!("{keyword}={v} s")))
        .chain(self.fmi_type_override(slave))
        .chain(self.platform_override(slave))
        .chain(self.overrides.iter().cloned())
        .collect()
    }

    /// Applies these options to `project`: [`Options::project_overrides`] as more lines at the
    /// end of the file (see [`Project::apply_overrides`]; `single_slave` for a run of one
    /// FMU), then [`Options::output_only`] in place of its `outputOnly` lines (each recorded
    /// as the command-line option `--output-only <pattern>`).
    ///
    /// # Errors
    /// The errors of [`Project::apply_overrides`], naming the option.
    pub fn apply_to(
        &self,
        project: &mut Project,
        single_slave: Option<&str>,
    ) -> std::result::Result<(), ProjectError> {
        let overrides = self.overrides_for(single_slave.unwrap_or("*"));
        project.apply_overrides(&overrides, single_slave)?;
        if let Some(patterns) = &self.output_only {
            project.output_only = patterns
                .iter()
                .map(|p| {
                    (
                        p.clone(),
                        project.add_command_line(format!("--output-only {p}")),
                    )
                })
                .collect();
        }
        Ok(())
    }

    /// Reads a time as the project file writes it: a number of seconds, or a number with a
    /// time unit of the project format (`2 min`, `10ms`, `1.5 h`; the unit may follow the
    /// number directly). For `--start-time`, `--stop-time` and `--step-size`.
    ///
    /// # Errors
    /// A message saying what was expected, when `text` is no number or names no time unit.
    ///
    /// Spec: MasterSim reference §3.2 (time units s, ms, min, h, d, a).
    pub fn parse_time(text: &str) -> std::result::Result<f64, String> {
        let text = text.trim();
        let split = text
            .find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
            .or_else(|| text.find([' ', '\t']))
            .unwrap_or(text.len());
        let (number, unit) = text.split_at(split);
        let value: f64 = number.trim().parse().map_err(|_| {
            format!("'{text}' is not a time: expected a number of seconds or a number and a unit (2 min)")
        })?;
        let unit = match unit.trim() {
            "" => TimeUnit::Second,
            name => TimeUnit::from_name(name).ok_or_else(|| {
                format!(
                    "'{name}' is not a time unit: expected {}",
                    TimeUnit::ACCEPTED
                )
            })?,
        };
        Ok(unit.to_seconds(value))
    }

    /// Reads a platform name for `--platform`: an FMI 2.0 folder name (`linux64`, `linux32`,
    /// `win64`, `win32`) or an FMI 3.0 platform tuple (`x86_64-linux`, …).
    ///
    /// # Errors
    /// A message listing the names expected.
    pub fn parse_platform(text: &str) -> std::result::Result<master::isolation::Platform, String> {
        master::isolation::Platform::from_name(text.trim()).ok_or_else(|| {
            format!("'{text}' is not a platform: expected linux64, linux32, win64 or win32")
        })
    }

    /// Checks the ranges of the numeric options.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for a threshold, timeout or real-time factor that is not finite
    /// and > 0, or 0 threads.
    pub fn validate(&self) -> Result<()> {
        if let Some(f) = self.real_time
            && !(f.is_finite() && f > 0.0)
        {
            return Err(Error::InvalidOption {
                option: "real-time",
                value: f.to_string(),
                expected: "a factor > 0",
            });
        }
        if let Some(t) = self.output_threshold
            && !(t.is_finite() && t > 0.0)
        {
            return Err(Error::InvalidOption {
                option: "output threshold",
                value: t.to_string(),
                expected: "a relative threshold > 0",
            });
        }
        if let Some(t) = self.relative_tolerance
            && !(t.is_finite() && t > 0.0)
        {
            return Err(Error::InvalidOption {
                option: "relative-tolerance",
                value: t.to_string(),
                expected: "a relative tolerance > 0",
            });
        }
        if let Some(s) = self.checkpoint_interval
            && !(s.is_finite() && s > 0.0)
        {
            return Err(Error::InvalidOption {
                option: "checkpoint interval",
                value: s.to_string(),
                expected: "a number of seconds > 0",
            });
        }
        if self.threads == Some(0) {
            return Err(Error::InvalidOption {
                option: "threads",
                value: "0".into(),
                expected: "at least 1 thread",
            });
        }
        if let Some(timeout) = &self.step_timeout
            && timeout.limit.is_zero()
        {
            return Err(Error::InvalidOption {
                option: "step timeout",
                value: "0".into(),
                expected: "a number of seconds > 0",
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 29: `--stop-time 2 min` and friends are read with the project's time units, and
    /// the typed times come before the overrides, so that a `--set` wins.
    #[test]
    fn typed_times_are_read_with_units_and_give_way_to_overrides() {
        assert_eq!(Options::parse_time("2 min"), Ok(120.0));
        assert_eq!(Options::parse_time(" 10ms"), Ok(0.01));
        assert_eq!(Options::parse_time("1e-3"), Ok(0.001));
        assert_eq!(Options::parse_time("-5"), Ok(-5.0));
        assert_eq!(Options::parse_time("1.5e1 s"), Ok(15.0));
        let unit = Options::parse_time("2 parsecs").unwrap_err();
        assert!(unit.contains("'parsecs' is not a time unit"), "{unit}");
        assert!(Options::parse_time("soon").is_err());
        let options = Options {
            stop_time: Some(120.0),
            step_size: Some(0.1),
            overrides: vec!["tEnd=10 s".into()],
            ..Options::default()
        };
        assert_eq!(
            options.project_overrides(),
            ["tEnd=120 s", "hStart=0.1 s", "tEnd=10 s"]
        );
        let paced = |f: f64| Options {
            real_time: Some(f),
            ..Options::default()
        };
        assert!(paced(2.0).validate().is_ok());
        assert!(paced(0.0).validate().is_err());
        assert!(paced(f64::NAN).validate().is_err());
    }

    /// Issue 28: a bare FMU run works in `./<model>/`, never beside the FMU; projects and
    /// SSP systems keep MasterSim's layout; `--working-dir` wins.
    #[test]
    fn working_directories() {
        let options = Options::default();
        let dir = |p: &str| options.working_dir_for(Path::new(p));
        assert_eq!(dir("fmus/packed/Prey.fmu"), PathBuf::from("Prey"));
        assert_eq!(dir("/abs/Model.FMU"), PathBuf::from("Model"));
        assert_eq!(dir("projects/lv.msim"), PathBuf::from("projects/lv"));
        assert_eq!(dir("s/system.ssp"), PathBuf::from("s/system"));
        let chosen = Options {
            working_dir: Some(PathBuf::from("/tmp/wd")),
            ..Options::default()
        };
        assert_eq!(
            chosen.working_dir_for(Path::new("fmus/Prey.fmu")),
            PathBuf::from("/tmp/wd")
        );
        assert_eq!(
            options.checkpoint_path_for(Path::new("a/Prey.fmu")),
            PathBuf::from("Prey/checkpoint/state.bin")
        );
    }
}
