//! `log/progress.txt`: one line per result row, with the real time since the start of the
//! stepping loop. Lines are formatted and written by the text writer thread
//! ([`super::text`]); the stepping thread only stamps them with the real time.
//!
//! Reading the clock costs 25–50 ns here, as much as the master's own work per slave and step,
//! so [`LineClock`] reads it for every line only when lines come at least
//! [`CLOCK_GRANULARITY`] apart; faster lines share a reading taken about that long ago at
//! most (a deviation from MasterSim, which reads the clock for every line:
//! docs/deviations.md).
//!
//! Spec: MasterSim reference §12.6.

use std::time::Instant;

use output::progress::ProgressWriter;

/// Real time (s) the lines sharing one clock reading may span, about.
pub const CLOCK_GRANULARITY: f64 = 10e-6;

/// Most lines that share one clock reading. It bounds how far the column lags after an
/// abrupt slow-down: at most this many lines keep the last reading.
const MAX_LINES_PER_READING: u32 = 16;

/// The real-time column: seconds since [`LineClock::start`], read for every line when lines
/// are at least [`CLOCK_GRANULARITY`] apart, else for every k-th line with k chosen from the
/// gap between the last two readings (at most [`MAX_LINES_PER_READING`]).
pub struct LineClock {
    started: Instant,
    /// The last reading (s since `started`).
    last: f64,
    /// Lines per reading, at least 1.
    stride: u32,
    /// Lines left that reuse `last`.
    reuse: u32,
}

impl LineClock {
    /// A clock counting from now.
    pub fn new() -> Self {
        LineClock {
            started: Instant::now(),
            last: 0.0,
            stride: 1,
            reuse: 0,
        }
    }

    /// The real time (s since the start) of the next line.
    pub fn line(&mut self) -> f64 {
        if self.reuse > 0 {
            self.reuse -= 1;
            return self.last;
        }
        let now = self.started.elapsed().as_secs_f64();
        let gap = (now - self.last) / f64::from(self.stride);
        // `as` saturates; a gap of 0 (a coarse clock) gives the largest stride.
        self.stride = ((CLOCK_GRANULARITY / gap) as u32).clamp(1, MAX_LINES_PER_READING);
        self.reuse = self.stride - 1;
        self.last = now;
        now
    }
}

/// The file and the end time the percentage column refers to.
pub struct ProgressFile {
    writer: ProgressWriter,
    t_end: f64,
}

impl ProgressFile {
    /// The file `writer` (header written) of a run ending at `t_end` (s).
    pub fn new(writer: ProgressWriter, t_end: f64) -> Self {
        ProgressFile { writer, t_end }
    }

    /// Formats and writes `lines` (`(simulation time s, real time s)` each), then empties them.
    pub fn write(&mut self, lines: &mut Vec<(f64, f64)>) -> crate::Result<()> {
        for &(t, real) in lines.iter() {
            self.writer.write_row(t, real, self.t_end)?;
        }
        lines.clear();
        Ok(())
    }

    /// The file's path.
    pub fn path(&self) -> &std::path::Path {
        self.writer.path()
    }

    /// Passes the lines written so far to the operating system.
    pub fn flush(&mut self) -> crate::Result<()> {
        Ok(self.writer.flush()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_lines_share_readings_and_slow_lines_each_get_one() {
        let mut clock = LineClock::new();
        // Lines in a tight loop: far less than the granularity apart.
        let fast: Vec<f64> = (0..10_000).map(|_| clock.line()).collect();
        let readings = fast.windows(2).filter(|w| w[1] != w[0]).count() + 1;
        assert!(
            readings < 10_000 / 4,
            "{readings} readings for 10,000 fast lines"
        );
        assert!(fast.windows(2).all(|w| w[1] >= w[0]), "real time went back");
        // Lines 50 µs apart: after at most MAX_LINES_PER_READING lines that keep the last
        // reading, every line gets a reading of its own.
        let slow: Vec<f64> = (0..40)
            .map(|_| {
                let until = Instant::now() + std::time::Duration::from_micros(50);
                while Instant::now() < until {}
                clock.line()
            })
            .collect();
        let distinct = slow.windows(2).filter(|w| w[1] > w[0]).count();
        let expected = 39 - MAX_LINES_PER_READING as usize;
        assert!(
            distinct >= expected,
            "only {distinct} of 39 slow lines got a new reading"
        );
    }
}
