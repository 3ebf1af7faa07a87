//! `log/progress.txt`: one line per result row, formatted and written on a writer thread
//! ([`super::background`]). The real time of a line is taken when the writer formats it, a few
//! milliseconds at most after the row was produced.
//!
//! Spec: MasterSim reference §12.6.

use std::time::Instant;

use output::progress::ProgressWriter;

use super::background::{Background, Drain};

/// Lines per batch before it is handed over.
const BATCH_LINES: usize = 4096;

/// The writer thread's side.
pub struct Lines {
    writer: ProgressWriter,
    started: Instant,
    t_end: f64,
}

impl Drain for Lines {
    type Batch = Vec<f64>;

    fn write(&mut self, times: &mut Vec<f64>) -> anyhow::Result<()> {
        for &t in times.iter() {
            self.writer
                .write_row(t, self.started.elapsed().as_secs_f64(), self.t_end)?;
        }
        times.clear();
        Ok(())
    }

    fn flush(&mut self) -> anyhow::Result<()> {
        Ok(self.writer.flush()?)
    }
}

/// `log/progress.txt`: created with the result files, written from the first row on.
pub enum ProgressFile {
    /// Created, with its header; no row yet.
    Created { writer: ProgressWriter, t_end: f64 },
    /// Rows go to the writer thread.
    Writing(Background<Lines>),
    /// Finished (or failed to start).
    Closed,
}

impl ProgressFile {
    /// Starts the writer thread; the real-time column counts from now.
    pub fn start(&mut self) -> anyhow::Result<()> {
        if let ProgressFile::Created { .. } = self
            && let ProgressFile::Created { writer, t_end } =
                std::mem::replace(self, ProgressFile::Closed)
        {
            let lines = Lines {
                writer,
                started: Instant::now(),
                t_end,
            };
            *self = ProgressFile::Writing(Background::start("mastersim-progress", lines)?);
        }
        Ok(())
    }

    /// Adds the line of the result row at `t` (s).
    pub fn row(&mut self, t: f64) -> anyhow::Result<()> {
        if let ProgressFile::Writing(lines) = self {
            lines.current.push(t);
            if lines.current.len() >= BATCH_LINES {
                lines.hand_over()?;
            }
        }
        Ok(())
    }

    /// Passes the lines so far to the operating system.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        match self {
            ProgressFile::Created { writer, .. } => Ok(writer.flush()?),
            ProgressFile::Writing(lines) => lines.flush(),
            ProgressFile::Closed => Ok(()),
        }
    }

    /// Writes the last lines and closes the file.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        match std::mem::replace(self, ProgressFile::Closed) {
            ProgressFile::Created { mut writer, .. } => Ok(writer.flush()?),
            ProgressFile::Writing(lines) => lines.finish(),
            ProgressFile::Closed => Ok(()),
        }
    }
}
