//! Logging of a run to the console (env_logger) and to `log/screenlog.txt`, for the
//! `mastersim` binary and other front ends that run projects as it does.
//!
//! Verbosity (MasterSim reference §2): 0 errors only, 1 standard (info), 2 info (debug),
//! 3 detailed (debug), 4 developer (trace). Errors go to stderr, everything else to stdout. FMU log messages (target `fmu`) appear from level 2
//! on unless they are warnings or errors. `RUST_LOG` overrides the console filter. The
//! screenlog records at least standard messages, each line as
//! `YYYY-MM-DD HH:MM:SS\t[<level>]\t<context padded to 40>\t<message>` (reference §12.4).
//!
//! The screenlog is buffered: it is written through at every warning and error, and otherwise
//! whenever the logger is flushed (the session's supervisor does so every second, as with the
//! result files, and at the end of the run). A line per system call would cost more than the
//! setting up of a project of a hundred slaves.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use log::{Level, LevelFilter, Log, Metadata, Record};

static INITIALIZED: AtomicBool = AtomicBool::new(false);

/// True once [`init`] succeeded.
pub fn is_initialized() -> bool {
    INITIALIZED.load(Ordering::Relaxed)
}

fn level_for(verbosity: u8) -> LevelFilter {
    match verbosity {
        0 => LevelFilter::Error,
        1 => LevelFilter::Info,
        2 | 3 => LevelFilter::Debug,
        _ => LevelFilter::Trace,
    }
}

/// The screenlog file with the time stamp of the current second.
struct Screenlog {
    out: BufWriter<File>,
    /// Seconds since the Unix epoch of `stamp`.
    second: u64,
    /// Local date and time of `second`, formatted.
    stamp: String,
    /// The local time zone's offset from UTC when logging started. `chrono::Local` keeps its
    /// time zone in thread-local storage, which is gone when an FMU calls `exit()` and the exit
    /// handler logs; so stamps are computed from this fixed offset (a change to or from
    /// daylight saving time during a run is not followed).
    offset: chrono::FixedOffset,
}

impl Screenlog {
    /// Brings `stamp` to the current second (formatted once per second).
    fn refresh_stamp(&mut self) {
        let second = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        if second != self.second || self.stamp.is_empty() {
            self.second = second;
            self.stamp = chrono::Utc::now()
                .with_timezone(&self.offset)
                .format("%Y-%m-%d %H:%M:%S")
                .to_string();
        }
    }
}

/// Sends each record to the console logger and to the screenlog file.
struct Tee {
    console: env_logger::Logger,
    file: Mutex<Screenlog>,
    file_level: LevelFilter,
}

impl Log for Tee {
    fn enabled(&self, metadata: &Metadata) -> bool {
        self.console.enabled(metadata) || metadata.level() <= self.file_level
    }

    fn log(&self, record: &Record) {
        if record.level() == Level::Error {
            eprintln!("Error: {}", record.args());
        } else if self.console.matches(record) {
            self.console.log(record);
        }
        if record.level() <= self.file_level {
            let tag = match record.level() {
                Level::Error => "[Error   ]",
                Level::Warn => "[Warning ]",
                Level::Info => "[Progress]",
                Level::Debug | Level::Trace => "[Debug   ]",
            };
            if let Ok(mut file) = self.file.lock() {
                let file = &mut *file;
                file.refresh_stamp();
                let target = record.target();
                let padding = 40usize.saturating_sub(target.len() + 2);
                // A failing log write must not end the run.
                let _ = writeln!(
                    file.out,
                    "{}\t{tag}\t[{target}]{:padding$}\t{}",
                    file.stamp,
                    "",
                    record.args()
                );
                if record.level() <= Level::Warn {
                    let _ = file.out.flush();
                }
            }
        }
    }

    fn flush(&self) {
        self.console.flush();
        if let Ok(mut file) = self.file.lock() {
            let _ = file.out.flush();
        }
    }
}

/// Installs a console logger for a subcommand without a working directory (`info`,
/// `convert`): warnings (e.g. about a model description that breaks a rule of FMI) and errors
/// go to stderr as `Warning: …`, so that stdout holds only the command's output. `RUST_LOG` overrides the
/// filter. Does nothing when a logger is installed already.
pub fn init_stderr_warnings() {
    let _ = env_logger::Builder::new()
        .filter_level(LevelFilter::Warn)
        .parse_default_env()
        .target(env_logger::Target::Stderr)
        .format(|buf, record| match record.level() {
            Level::Error => writeln!(buf, "Error: {}", record.args()),
            Level::Warn => writeln!(buf, "Warning: {}", record.args()),
            _ => writeln!(buf, "{}", record.args()),
        })
        .try_init();
}

/// Installs the logger of a run at `verbosity` (0 to 4, see the module); an existing
/// `screenlog` is replaced ([`output::create_fresh`]).
///
/// # Errors
/// A message when the screenlog cannot be created or a logger is installed already.
pub fn init(verbosity: u8, screenlog: &Path) -> Result<(), String> {
    let file = output::create_fresh(screenlog)
        .map_err(|e| format!("cannot create '{}': {e}", screenlog.display()))?;
    let level = level_for(verbosity);
    let fmu_level = if verbosity <= 1 {
        level.min(LevelFilter::Warn)
    } else {
        level
    };
    let console = env_logger::Builder::new()
        .filter_level(level)
        .filter_module("fmu", fmu_level)
        .parse_default_env()
        .target(env_logger::Target::Stdout)
        .format(|buf, record| match record.level() {
            Level::Warn => writeln!(buf, "Warning: {}", record.args()),
            _ => writeln!(buf, "{}", record.args()),
        })
        .build();
    let file_level = level.max(LevelFilter::Info);
    let max = console.filter().max(file_level);
    let tee = Tee {
        console,
        file: Mutex::new(Screenlog {
            out: BufWriter::new(file),
            second: 0,
            stamp: String::new(),
            offset: *chrono::Local::now().offset(),
        }),
        file_level,
    };
    log::set_boxed_logger(Box::new(tee)).map_err(|_| "logger already installed".to_owned())?;
    log::set_max_level(max);
    INITIALIZED.store(true, Ordering::Relaxed);
    Ok(())
}
