//! Progress on the console: a bar on a terminal, otherwise a plain line every few seconds. A
//! view of the run's counters ([`master::Counters`]).
//!
//! The bar's first frame shows the start time, its last frame (left on the screen when the
//! run completes) 100 % and the last communication point; the lines end with one at the end
//! time when the run was long enough to print any.
//!
//! Spec: MasterSim reference §12.4 (console output).

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Instant;

use master::time::TimeFormat;
use master::values::TypedValues;
use master::{Counters, Observer, ObserverError, OutputLayout};

use crate::pacing::PacingSlot;

/// Steps between updates: reading the clock and formatting on every step would cost more than
/// the step of cheap slaves.
const PROGRESS_STEPS: u64 = 256;

/// Least wall time between two progress lines (when stdout is not a terminal), s.
const LINE_INTERVAL: f64 = 2.0;

/// Least wall time between two updates of the bar of a paced run (whose steps are few and
/// slow), s.
const PACED_INTERVAL: f64 = 0.25;

/// Positions of the bar from start to end time.
const BAR_LENGTH: u64 = 1000;

/// The bar's template: `{msg}` is [`bar_message`].
const BAR_TEMPLATE: &str = "{bar:40} {percent:>3}% t = {msg} [{elapsed_precise}, ETA {eta}]";

/// Where progress lines go.
type LineSink = Box<dyn FnMut(&str) + Send>;

/// How progress is shown.
enum Display {
    Bar(indicatif::ProgressBar),
    Lines {
        /// When the last line was printed (or the display was made).
        last: Instant,
        /// Whether any line was printed.
        printed: bool,
        sink: LineSink,
    },
}

/// The console progress observer.
pub(crate) struct ConsoleProgress {
    display: Display,
    t_start: f64,
    t_end: f64,
    /// How times are printed: to the precision of the run's time grid.
    time_format: TimeFormat,
    started: Instant,
    /// The figures of a paced run, published by the session.
    pacing: Arc<PacingSlot>,
    /// The last update of a paced run's bar.
    paced_update: Instant,
    /// A step completed since [`Observer::start`].
    stepped: bool,
    /// The run reached its end time: the last frame or line is out.
    finished: bool,
}

impl ConsoleProgress {
    /// A bar when stdout is a terminal, lines otherwise; `pacing` holds the figures of a
    /// paced run, shown on the line.
    pub fn new(pacing: Arc<PacingSlot>) -> Self {
        let display = if std::io::stdout().is_terminal() {
            Display::Bar(progress_bar(indicatif::ProgressDrawTarget::stderr()))
        } else {
            Display::Lines {
                last: Instant::now(),
                printed: false,
                sink: Box::new(|line| log::info!("{line}")),
            }
        };
        Self::with_display(display, pacing)
    }

    fn with_display(display: Display, pacing: Arc<PacingSlot>) -> Self {
        ConsoleProgress {
            display,
            t_start: 0.0,
            t_end: 0.0,
            time_format: TimeFormat::default(),
            started: Instant::now(),
            pacing,
            paced_update: Instant::now(),
            stepped: false,
            finished: false,
        }
    }

    /// Shows the bar at communication point `t` (s) before any step: the start time, or the
    /// point a resumed run continues from.
    fn show_start(&self, t: f64) {
        if let Display::Bar(bar) = &self.display {
            // The message first: the first frame drawn shows the time, not `t =  `.
            bar.set_message(bar_message(&self.time_format, t, ""));
            bar.set_position(self.position(t));
        }
    }

    /// The bar position of communication point `t` (s) before the end: below 99.5 %, which
    /// the bar would round to 100 %.
    fn position(&self, t: f64) -> u64 {
        let position = (fraction(t, self.t_start, self.t_end) * BAR_LENGTH as f64) as u64;
        position.min(BAR_LENGTH - BAR_LENGTH / 200 - 1)
    }
}

/// A progress bar of [`BAR_LENGTH`] positions drawn to `target`.
fn progress_bar(target: indicatif::ProgressDrawTarget) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(Some(BAR_LENGTH), target);
    bar.set_style(
        indicatif::ProgressStyle::with_template(BAR_TEMPLATE)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

/// The part of the run from `t_start` to `t_end` done at `t`, 0..=1.
fn fraction(t: f64, t_start: f64, t_end: f64) -> f64 {
    let fraction = (t - t_start) / (t_end - t_start);
    if fraction.is_nan() {
        0.0
    } else {
        fraction.clamp(0.0, 1.0)
    }
}

/// The bar's message (after `t = `): `<t> s` with `t` to the precision of the time grid
/// (`format`), then the pacing figures `real_time` (empty, or starting with `, `).
fn bar_message(format: &TimeFormat, t: f64, real_time: &str) -> String {
    format!("{} s{real_time}", format.show(t))
}

/// A progress line: `t = 50 s (50.0 %), 512 steps, 2.0 s elapsed` (`t` printed by `format`)
/// and the pacing figures `real_time` (empty, or starting with `, `).
fn progress_line(
    format: &TimeFormat,
    c: &Counters,
    (t_start, t_end): (f64, f64),
    elapsed: f64,
    real_time: &str,
) -> String {
    format!(
        "t = {} s ({:.1} %), {} steps, {elapsed:.1} s elapsed{real_time}",
        format.show(c.t),
        100.0 * fraction(c.t, t_start, t_end),
        c.steps,
    )
}

impl Observer for ConsoleProgress {
    fn start(&mut self, layout: &OutputLayout) -> Result<(), ObserverError> {
        self.t_start = layout.t_start;
        self.t_end = layout.t_end;
        self.time_format = layout.time_format;
        self.started = Instant::now();
        self.stepped = false;
        self.finished = false;
        match &mut self.display {
            Display::Bar(bar) => {
                bar.reset_elapsed();
                bar.reset_eta();
            }
            Display::Lines { last, .. } => *last = Instant::now(),
        }
        self.show_start(layout.t_start);
        Ok(())
    }

    fn output(&mut self, t: f64, _values: &TypedValues) -> Result<(), ObserverError> {
        // The first row of a resumed run is at the checkpoint, not the start time.
        if !self.stepped && t != self.t_start {
            self.show_start(t);
        }
        Ok(())
    }

    fn step_completed(&mut self, c: &Counters) {
        if self.finished {
            return;
        }
        self.stepped = true;
        // The master takes no step after one that ends this close to the end time.
        let last = master::time::remainder_negligible(c.t, self.t_end);
        let pacing = self.pacing.get();
        if last {
            self.finished = true;
        } else if pacing.is_some() {
            // A paced run takes few steps per second: update by wall time instead.
            if self.paced_update.elapsed().as_secs_f64() < PACED_INTERVAL {
                return;
            }
            self.paced_update = Instant::now();
        } else if !c.steps.is_multiple_of(PROGRESS_STEPS) {
            return;
        }
        let real_time =
            pacing.map_or_else(String::new, |p| format!(", real time {}", p.describe()));
        let format = self.time_format;
        let position = self.position(c.t);
        match &mut self.display {
            Display::Bar(bar) if last => {
                bar.finish_with_message(bar_message(&format, c.t, &real_time))
            }
            Display::Bar(bar) => {
                bar.set_position(position);
                bar.set_message(bar_message(&format, c.t, &real_time));
            }
            Display::Lines {
                last: last_line,
                printed,
                sink,
            } => {
                // The end gets a line when the run printed lines before; a short run none.
                if (last && *printed) || last_line.elapsed().as_secs_f64() >= LINE_INTERVAL {
                    *last_line = Instant::now();
                    *printed = true;
                    let elapsed = self.started.elapsed().as_secs_f64();
                    sink(&progress_line(
                        &format,
                        c,
                        (self.t_start, self.t_end),
                        elapsed,
                        &real_time,
                    ));
                }
            }
        }
    }
}

impl Drop for ConsoleProgress {
    fn drop(&mut self) {
        // A completed run's last frame stays; an unfinished bar (a failed or stopped run)
        // goes, the log says where the run ended.
        if let Display::Bar(bar) = &self.display
            && !bar.is_finished()
        {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use super::*;

    /// A terminal that keeps every frame drawn on it (what was on its line at each flush).
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<Mutex<(String, Vec<String>)>>);

    impl Screen {
        fn frames(&self) -> Vec<String> {
            self.0.lock().expect("screen").1.clone()
        }
    }

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            160
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(s)
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.0
                .lock()
                .expect("screen")
                .0
                .push_str(s.trim_start_matches('\r'));
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            self.0.lock().expect("screen").0.clear();
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            let mut screen = self.0.lock().expect("screen");
            let frame = std::mem::take(&mut screen.0).trim_end().to_string();
            screen.1.push(frame);
            Ok(())
        }
    }

    /// A progress bar drawing every update onto a [`Screen`].
    fn bar_on_screen() -> (ConsoleProgress, Screen) {
        let screen = Screen::default();
        let target = indicatif::ProgressDrawTarget::term_like(Box::new(screen.clone()));
        let progress = ConsoleProgress::with_display(
            Display::Bar(progress_bar(target)),
            Arc::new(PacingSlot::default()),
        );
        (progress, screen)
    }

    /// The layout of a run from `t_start` to `t_end` (s) at steps of `h` (s).
    fn layout(t_start: f64, t_end: f64, h: f64) -> OutputLayout {
        OutputLayout {
            t_start,
            t_end,
            time_format: TimeFormat::for_grid([t_start, h, t_end]),
            ..OutputLayout::default()
        }
    }

    /// Steps of `h` from `t_start` to `t_end` (the last one shortened to end there), as the
    /// master reports them.
    fn run(progress: &mut ConsoleProgress, t_start: f64, t_end: f64, h: f64) {
        let mut c = Counters::new(t_start);
        while !master::time::remainder_negligible(c.t, t_end) {
            c.steps += 1;
            c.t = (t_start + c.steps as f64 * h).min(t_end);
            progress.step_completed(&c);
        }
    }

    #[test]
    fn times_follow_the_grid_and_are_never_minus_zero() {
        let grid = TimeFormat::for_grid([0.0, 0.01, 100.0]);
        assert_eq!(bar_message(&grid, 97.28, ""), "97.28 s");
        assert_eq!(bar_message(&grid, 0.37 * 256.0, ""), "94.72 s");
        assert_eq!(bar_message(&grid, -0.0, ""), "0 s");
        let line = progress_line(
            &grid,
            &Counters::new(17.900000000000002),
            (0.0, 100.0),
            1.0,
            "",
        );
        assert!(line.starts_with("t = 17.9 s (17.9 %), "), "{line}");
        assert_eq!(fraction(15.0, 10.0, 20.0), 0.5);
        assert_eq!(fraction(25.0, 10.0, 20.0), 1.0);
        assert_eq!(fraction(0.0, 0.0, 0.0), 0.0);
    }

    /// Issue 14: the first frame shows the start time (not `t =  `), the last one 100 % and
    /// the end time (not the last update before it), and stays after the run.
    #[test]
    fn the_bar_starts_at_the_start_time_and_ends_at_the_end_time() -> Result<(), ObserverError> {
        let (mut progress, screen) = bar_on_screen();
        progress.start(&layout(0.0, 100.0, 0.37))?;
        progress.output(0.0, &TypedValues::default())?;
        let frames = screen.frames();
        assert!(frames[0].contains("  0% t = 0 s ["), "{frames:?}");
        // 0.37 s steps: the last update before the end (at step 256) is t = 94.72 s.
        // (Each update draws twice: the position, then the message.)
        run(&mut progress, 0.0, 100.0, 0.37);
        let frames = screen.frames();
        let last = frames.last().expect("frames");
        assert!(last.contains("100% t = 100 s ["), "{frames:?}");
        assert!(
            frames[frames.len() - 2].contains(" 95% t = 94.72 s ["),
            "{frames:?}"
        );
        assert!(frames.iter().all(|f| !f.contains("t =  ")), "{frames:?}");
        let at_end = frames.iter().filter(|f| f.contains("100%")).count();
        assert_eq!(at_end, 1, "100 % only at the end: {frames:?}");
        drop(progress);
        assert_eq!(screen.frames().last(), Some(last), "the last frame stays");
        Ok(())
    }

    #[test]
    fn the_bar_counts_from_the_start_time() -> Result<(), ObserverError> {
        let (mut progress, screen) = bar_on_screen();
        progress.start(&layout(10.0, 20.0, 0.001))?;
        assert!(screen.frames()[0].contains("  0% t = 10 s ["));
        let mut c = Counters::new(10.0);
        c.steps = PROGRESS_STEPS;
        c.t = 15.0;
        progress.step_completed(&c);
        let frames = screen.frames();
        assert!(
            frames.last().expect("frame").contains(" 50% t = 15 s ["),
            "{frames:?}"
        );
        // Just before the end: 99 %, not a rounded 100 %.
        c.steps = 2 * PROGRESS_STEPS;
        c.t = 19.999;
        progress.step_completed(&c);
        let frames = screen.frames();
        assert!(
            frames
                .last()
                .expect("frame")
                .contains(" 99% t = 19.999 s ["),
            "{frames:?}"
        );
        // Stopped early: the bar goes.
        drop(progress);
        assert_eq!(screen.frames().last().map(String::as_str), Some(""));

        // A resumed run's first row is at its checkpoint.
        let (mut progress, screen) = bar_on_screen();
        progress.start(&layout(0.0, 8.0, 0.5))?;
        progress.output(2.0, &TypedValues::default())?;
        let frames = screen.frames();
        assert!(
            frames.last().expect("frame").contains(" 25% t = 2 s ["),
            "{frames:?}"
        );
        run(&mut progress, 2.0, 8.0, 0.5);
        assert!(
            screen
                .frames()
                .last()
                .expect("frame")
                .contains("100% t = 8 s [")
        );
        Ok(())
    }

    /// The lines of a run long enough to print any end with one at the end time; a short
    /// run prints none.
    #[test]
    fn lines_end_at_the_end_time() -> Result<(), ObserverError> {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink_lines = lines.clone();
        let display = Display::Lines {
            last: Instant::now(),
            printed: false,
            sink: Box::new(move |line| sink_lines.lock().expect("lines").push(line.to_string())),
        };
        let mut progress = ConsoleProgress::with_display(display, Arc::new(PacingSlot::default()));
        progress.start(&layout(0.0, 10.0, 0.01))?;
        run(&mut progress, 0.0, 10.0, 0.01);
        assert_eq!(
            *lines.lock().expect("lines"),
            Vec::<String>::new(),
            "a short run"
        );

        progress.start(&layout(0.0, 10.0, 0.01))?;
        let long_ago = Instant::now().checked_sub(Duration::from_secs(3));
        if let (Display::Lines { last, .. }, Some(long_ago)) = (&mut progress.display, long_ago) {
            *last = long_ago;
        }
        run(&mut progress, 0.0, 10.0, 0.01);
        let lines = lines.lock().expect("lines").clone();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].starts_with("t = 2.56 s (25.6 %), 256 steps, "),
            "{lines:?}"
        );
        assert!(
            lines[1].starts_with("t = 10 s (100.0 %), 1000 steps, "),
            "{lines:?}"
        );
        assert!(lines[1].ends_with(" s elapsed"), "{lines:?}");
        Ok(())
    }
}
