//! `log/progress.txt`: one line per result row, formatted and written by a
//! [`super::background`] writer (a thread once enough lines have come).
//!
//! The real time of a line is read when its row is produced (one clock read per row, about
//! 25 ns here).
//!
//! Spec: MasterSim reference §12.6.

use std::time::Instant;

use output::progress::ProgressWriter;

use super::background::{Background, Drain};

/// Lines per batch before it is handed over.
const BATCH_LINES: usize = 4096;

/// The writer's side: the file.
pub struct Lines {
    writer: ProgressWriter,
    t_end: f64,
}

impl Drain for Lines {
    /// `(simulation time s, real time since the start s)` per line.
    type Batch = Vec<(f64, f64)>;

    fn write(&mut self, lines: &mut Vec<(f64, f64)>) -> anyhow::Result<()> {
        for &(t, real) in lines.iter() {
            self.writer.write_row(t, real, self.t_end)?;
        }
        lines.clear();
        Ok(())
    }

    fn flush(&mut self) -> anyhow::Result<()> {
        Ok(self.writer.flush()?)
    }
}

/// `log/progress.txt`: created with the result files, written from the first row on.
pub struct ProgressFile {
    /// `None` once finished.
    lines: Option<Background<Lines>>,
    /// When the real-time column starts ([`ProgressFile::start`]).
    started: Instant,
}

impl ProgressFile {
    /// The file `writer` (header written) of a run ending at `t_end` (s).
    pub fn new(writer: ProgressWriter, t_end: f64) -> Self {
        ProgressFile {
            lines: Some(Background::new(
                "mastersim-progress",
                Lines { writer, t_end },
            )),
            started: Instant::now(),
        }
    }

    /// The real-time column counts from now.
    pub fn start(&mut self) {
        self.started = Instant::now();
    }

    /// Adds the line of the result row at `t` (s).
    pub fn row(&mut self, t: f64) -> anyhow::Result<()> {
        if let Some(lines) = &mut self.lines {
            lines
                .current
                .push((t, self.started.elapsed().as_secs_f64()));
            if lines.current.len() >= BATCH_LINES {
                lines.hand_over()?;
            }
        }
        Ok(())
    }

    /// Passes the lines so far to the operating system.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        self.lines.as_mut().map_or(Ok(()), Background::flush)
    }

    /// Writes the last lines and closes the file.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        self.lines.take().map_or(Ok(()), Background::finish)
    }
}
