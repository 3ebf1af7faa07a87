//! Time arithmetic: the tolerances MasterSim compares times with, the drift-free fixed-step
//! grid, and the output schedule.
//!
//! Every comparison of two times in the master goes through this module, so the tolerances are
//! documented once. All times are `f64` seconds.
//!
//! Spec: MasterSim reference §9 (driver, end-time clamps), §12.3 (output schedule, the
//! 1e-8-tolerant rule) and §15.1 (floating-point order).

/// In fixed-step mode, a remainder `t_end - t` below this (s) ends the run without another step.
pub const END_ROUNDING_GUARD: f64 = 1e-9;
/// In variable-step mode, a step that would end within this (s) of `t_end` is stretched to it.
pub const VARIABLE_STEP_END_GUARD: f64 = 1e-10;
/// Truncating the last step by more than this (s) is reported.
pub const TRUNCATION_REPORT: f64 = 1e-6;
/// Output times closer than this (s) count as equal (the 1e-8-tolerant output rule).
pub const OUTPUT_TOLERANCE: f64 = 1e-8;
/// In variable-step mode, a proposed step that ends beyond this fraction of `t_end` is
/// stretched to `t_end`.
pub const END_FRACTION: f64 = 0.999999;

/// A time or step size in seconds as messages print it: the shortest decimal that reads back
/// as the same double, in plain notation from 1e-5 to 1e16 in magnitude (`0.1`, `30706.6`)
/// and in scientific notation beyond (`1e-300`, `1e20`), so that no message spells out
/// hundreds of digits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seconds(pub f64);

impl std::fmt::Display for Seconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        if x == 0.0 || !x.is_finite() || (1e-5..1e16).contains(&x.abs()) {
            write!(f, "{x}")
        } else {
            write!(f, "{x:e}")
        }
    }
}

/// The most decimals a [`TimeFormat`] prints (femtoseconds); a grid finer than that is printed
/// as [`Seconds`] (the shortest round-trip decimal).
pub const MAX_TIME_DECIMALS: usize = 15;

/// Relative tolerance within which a grid value counts as written with a number of decimals:
/// far above the rounding noise of doubles (about 1e-16) and far below any difference that
/// a person means (`0.1` is 0.1000000000000000055…, `1/3 s` needs 9 decimals).
const DECIMALS_TOLERANCE: f64 = 1e-9;

/// The fewest decimals (0 to [`MAX_TIME_DECIMALS`]) with which `x` reads as itself within
/// a relative 1e-9: 0 for `3600`, 1 for `0.1` and `17.900000000000002`, 3 for `0.125`, 9 or
/// 10 for `1/3`; `None` for a value that needs more (`1e-20`), and 0 for zero and non-finite values.
pub fn decimals_needed(x: f64) -> Option<usize> {
    if x == 0.0 || !x.is_finite() {
        return Some(0);
    }
    let tolerance = DECIMALS_TOLERANCE * x.abs();
    (0..=MAX_TIME_DECIMALS).find(|&d| {
        let scale = 10f64.powi(d as i32);
        ((x * scale).round() / scale - x).abs() <= tolerance
    })
}

/// How times are printed for people (console messages, the progress line, log messages, the
/// live page): at most to the precision of the run's time grid, so that a communication point
/// on the grid reads as on the grid (`t = 17.9 s`, not `t = 17.900000000000002 s`). Result
/// files keep full precision; they never use this.
///
/// A format is made from the values that span the grid ([`TimeFormat::for_grid`]): the start
/// time, the communication step size, the end time, and where steps vary or slaves have
/// clocks of their own, the smallest step and the slaves' intervals and offsets. It prints
/// as many decimals as the finest of them needs ([`decimals_needed`]), trailing zeros
/// trimmed, never `-0`. The default format (and the format of a grid finer than
/// [`MAX_TIME_DECIMALS`]) prints [`Seconds`].
///
/// Spec: issue 28 ("times are printed with floating-point noise"); none of MasterSim 0.9.8,
/// which prints `t` with C's `%g` and so drops digits beyond six.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct TimeFormat {
    /// Decimals printed; `None`: the shortest round-trip decimal ([`Seconds`]).
    decimals: Option<usize>,
}

impl TimeFormat {
    /// The format of a grid spanned by `values` (s): the most decimals any of them needs.
    pub fn for_grid(values: impl IntoIterator<Item = f64>) -> TimeFormat {
        let mut decimals = Some(0);
        for x in values {
            decimals = match (decimals, decimals_needed(x)) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            };
        }
        TimeFormat { decimals }
    }

    /// The decimals printed; `None` when times are printed as [`Seconds`].
    pub fn decimals(&self) -> Option<usize> {
        self.decimals
    }

    /// `t` (s) as text: `17.9`, `0`, `30706.6`.
    pub fn show(&self, t: f64) -> String {
        let Some(decimals) = self.decimals.filter(|_| t.is_finite()) else {
            return Seconds(t).to_string();
        };
        let mut text = format!("{t:.decimals$}");
        if text.contains('.') {
            let kept = text.trim_end_matches('0').trim_end_matches('.').len();
            text.truncate(kept);
        }
        if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') {
            text.remove(0);
        }
        text
    }
}

/// A time or step size in seconds as a message prints it where the run's grid is not at hand
/// (errors of the stepping loop): with the decimals that the value itself needs
/// ([`decimals_needed`]), so that `17.900000000000002` reads `17.9`; a value that needs more
/// than [`MAX_TIME_DECIMALS`] prints as [`Seconds`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Readable(pub f64);

impl std::fmt::Display for Readable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&TimeFormat::for_grid([self.0]).show(self.0))
    }
}

/// Above this many communication steps between `tStart` and `tEnd`, a run is warned about:
/// at a microsecond a step it would take more than eleven days.
pub const MANY_STEPS: f64 = 1e12;

/// The smallest step (s) that advances time everywhere between `t_start` and `t_end`: twice
/// the spacing of doubles at the larger magnitude of the two. Below it, `t + h` rounds back to
/// `t` somewhere in the run (at `t = 1e20 s` doubles are 16384 s apart), and a run would never
/// end.
///
/// Spec: IEEE 754 binary64 (the spacing of doubles is `2^(e-52)` for a magnitude in
/// `[2^e, 2^(e+1))`).
pub fn resolution(t_start: f64, t_end: f64) -> f64 {
    let magnitude = t_start.abs().max(t_end.abs());
    2.0 * (magnitude.next_up() - magnitude)
}

/// True when the remainder `t_end - t` is too small for another fixed step.
///
/// Spec: MasterSim reference §9 (`hRem < 1e-9` rounding guard).
pub fn remainder_negligible(t: f64, t_end: f64) -> bool {
    t_end - t < END_ROUNDING_GUARD
}

/// The fixed communication-step grid `t_n = t_0 + n·h` (s), which does not drift the way
/// repeated `t += h` does.
///
/// After a step that leaves the grid (a step reduced after a rejected step, or the truncated
/// last step) the grid is re-anchored at the new communication point.
///
/// Spec: issue 3 ("fixed-step communication points are computed without drift"); MasterSim
/// reference §9 describes the drifting `t += h` this replaces.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FixedGrid {
    anchor: f64,
    step: f64,
    count: u64,
}

impl FixedGrid {
    /// A grid starting at `t0` with spacing `h` (s).
    pub fn new(t0: f64, h: f64) -> Self {
        FixedGrid {
            anchor: t0,
            step: h,
            count: 0,
        }
    }

    /// The grid spacing (s).
    pub fn step(&self) -> f64 {
        self.step
    }

    /// The next grid point after the current one (s).
    pub fn next_point(&self) -> f64 {
        self.anchor + (self.count + 1) as f64 * self.step
    }

    /// Records a completed step that ended at `t_new` (s). If it ended on the next grid point the
    /// grid advances; otherwise it is re-anchored at `t_new`.
    pub fn advance(&mut self, t_new: f64) {
        if t_new == self.next_point() {
            self.count += 1;
        } else {
            self.anchor = t_new;
            self.count = 0;
        }
    }
}

/// Decides at which communication points a result row is written.
///
/// A row is written at the first call, and afterwards at the first communication point that
/// reaches the next multiple `k·h_output_min` of the output spacing (grid anchored at 0), where
/// "reaches" tolerates [`OUTPUT_TOLERANCE`]. The next grid point is computed directly, not by
/// counting up from zero as MasterSim does.
///
/// Spec: MasterSim reference §12.3 (legacy 1e-8-tolerant rule).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OutputSchedule {
    h_output_min: f64,
    next_due: Option<f64>,
    last_written: Option<f64>,
}

impl OutputSchedule {
    /// A schedule with output spacing `h_output_min` (s, > 0).
    pub fn new(h_output_min: f64) -> Self {
        OutputSchedule {
            h_output_min,
            next_due: None,
            last_written: None,
        }
    }

    /// Whether a row is due at communication point `t` (s). When it is, the schedule records the
    /// row as written at `t`.
    pub fn take(&mut self, t: f64) -> bool {
        if let Some(due) = self.next_due
            && due > t + OUTPUT_TOLERANCE
        {
            return false;
        }
        self.next_due = Some(self.next_grid_point(t));
        self.last_written = Some(t);
        true
    }

    /// Whether the final row at `t` (s) still has to be written: true when no row was written
    /// within [`OUTPUT_TOLERANCE`] before `t`. Records the row as written when it returns true.
    ///
    /// Spec: MasterSim reference §9 (final row forced when `t - tLastOutput > 1e-8`).
    pub fn take_final(&mut self, t: f64) -> bool {
        let due = match self.last_written {
            Some(last) => t - last > OUTPUT_TOLERANCE,
            None => true,
        };
        if due {
            self.last_written = Some(t);
        }
        due
    }

    /// The smallest `k·h_output_min` with `k ≥ 1` that is not below `t + OUTPUT_TOLERANCE`,
    /// evaluated with the same product `k as f64 * h` that MasterSim's loop compares.
    fn next_grid_point(&self, t: f64) -> f64 {
        let h = self.h_output_min;
        let target = t + OUTPUT_TOLERANCE;
        let mut k = ((target / h).floor()).max(1.0);
        // Beyond 2^52 multiples, consecutive `k` are no longer distinct doubles: the spacing
        // is finer than time is resolved, and every communication point is due.
        if k >= 4_503_599_627_370_496.0 || k.is_nan() {
            return target;
        }
        // The quotient is only an estimate; settle on the exact product comparison.
        while k * h < target {
            k += 1.0;
        }
        while k > 1.0 && (k - 1.0) * h >= target {
            k -= 1.0;
        }
        k * h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference implementation: MasterSim's counting loop with the 1e-8 tolerance.
    fn counted(h: f64, t: f64) -> f64 {
        let mut i: i64 = 0;
        loop {
            i += 1;
            if (i as f64) * h >= t + OUTPUT_TOLERANCE {
                return i as f64 * h;
            }
        }
    }

    #[test]
    fn next_grid_point_matches_counting_loop() {
        for &h in &[0.1, 0.01, 0.5, 1.0, 3600.0, 0.0001, 0.14, 1.0 / 3.0] {
            let s = OutputSchedule::new(h);
            let mut t = 0.0;
            for _ in 0..2000 {
                assert_eq!(s.next_grid_point(t), counted(h, t), "h={h} t={t}");
                t += h * 0.37;
            }
        }
    }

    #[test]
    fn accumulated_steps_do_not_drop_rows() {
        // MasterSim 0.9.8 without tolerance drops the row at 0.6 for h = hOutputMin = 0.1.
        let mut s = OutputSchedule::new(0.1);
        let mut t = 0.0;
        let mut rows = vec![];
        if s.take(t) {
            rows.push(t);
        }
        for _ in 0..10 {
            t += 0.1;
            if s.take(t) {
                rows.push(t);
            }
        }
        assert_eq!(rows.len(), 11);
    }

    #[test]
    fn rows_only_at_grid_crossings() {
        let mut s = OutputSchedule::new(1.0);
        let written: Vec<f64> = (0..=40)
            .map(|i| i as f64 * 0.25)
            .filter(|&t| s.take(t))
            .collect();
        assert_eq!(written, (0..=10).map(|i| i as f64).collect::<Vec<_>>());
        assert!(!s.take_final(10.0));
        assert!(s.take_final(10.5));
    }

    #[test]
    fn output_spacing_below_the_time_resolution_makes_every_point_due() {
        for (h, t) in [(1e-300, 0.0), (1e-300, 1.0), (1e-20, 1e10), (5e-324, 3.0)] {
            let mut s = OutputSchedule::new(h);
            assert!(s.take(t));
            assert!(s.take(t + 1e-6), "h = {h}, t = {t}");
        }
    }

    #[test]
    fn seconds_print_short() {
        let text = |x: f64| Seconds(x).to_string();
        assert_eq!(text(0.0), "0");
        assert_eq!(text(0.1), "0.1");
        assert_eq!(text(30706.6), "30706.6");
        assert_eq!(text(1e-300), "1e-300");
        assert_eq!(text(-1e20), "-1e20");
        assert_eq!(text(3.2768e4), "32768");
        assert_eq!(text(4.440892098500626e-16), "4.440892098500626e-16");
    }

    #[test]
    fn decimals_follow_the_grid() {
        assert_eq!(decimals_needed(3600.0), Some(0));
        assert_eq!(decimals_needed(0.1), Some(1));
        assert_eq!(decimals_needed(17.900000000000002), Some(1));
        assert_eq!(decimals_needed(0.125), Some(3));
        assert_eq!(decimals_needed(1e-3), Some(3));
        assert!(matches!(decimals_needed(1.0 / 3.0), Some(9 | 10)));
        assert_eq!(decimals_needed(-0.25), Some(2));
        assert_eq!(decimals_needed(0.0), Some(0));
        assert_eq!(decimals_needed(1e-20), None);
    }

    /// Errors of the stepping loop print a time with the decimals it needs itself.
    #[test]
    fn readable_times_drop_the_rounding_noise() {
        assert_eq!(Readable(17.900000000000002).to_string(), "17.9");
        assert_eq!(Readable(30706.600000000002).to_string(), "30706.6");
        assert_eq!(Readable(0.125).to_string(), "0.125");
        assert_eq!(Readable(1e-20).to_string(), "1e-20");
        assert_eq!(Readable(f64::NAN).to_string(), "NaN");
    }

    /// Issue 28: values on the grid read as on the grid; off-grid values at most to the
    /// grid's precision; a grid too fine for decimals prints the shortest round trip.
    #[test]
    fn times_print_to_the_precision_of_the_grid() {
        let grid = TimeFormat::for_grid([0.0, 0.1, 40.0]);
        assert_eq!(grid.decimals(), Some(1));
        assert_eq!(grid.show(17.900000000000002), "17.9");
        assert_eq!(grid.show(30706.600000000002), "30706.6");
        assert_eq!(grid.show(20.0), "20");
        assert_eq!(grid.show(-0.0), "0");
        assert_eq!(grid.show(-1e-12), "0");
        assert_eq!(grid.show(-2.5), "-2.5");
        let mut t = 0.0;
        for _ in 0..179 {
            t += 0.1;
        }
        assert_eq!(grid.show(t), "17.9", "accumulated steps ({t})");
        let fine = TimeFormat::for_grid([0.0, 0.001, 10.0]);
        assert_eq!(fine.show(0.1 + 0.2), "0.3");
        assert_eq!(
            fine.show(1.2346),
            "1.235",
            "off the grid: the grid's precision"
        );
        let third = TimeFormat::for_grid([0.0, 1.0 / 3.0]).show(5.0 / 3.0);
        assert!(
            third.starts_with("1.66666666") && third.len() <= 12,
            "{third}"
        );
        let tiny = TimeFormat::for_grid([0.0, 1e-20]);
        assert_eq!(tiny.decimals(), None);
        assert_eq!(tiny.show(3e-20), "3e-20");
        assert_eq!(TimeFormat::default().show(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(grid.show(f64::NAN), "NaN");
    }

    #[test]
    fn resolution_is_twice_the_spacing_of_doubles_at_the_larger_time() {
        assert_eq!(resolution(0.0, 1.0), 2.0 * f64::EPSILON);
        assert_eq!(resolution(-1e20, 0.0), 32768.0);
        assert_eq!(resolution(1e20, 1.00000001e20), 32768.0);
        let r = resolution(0.0, 1e6);
        assert!(1e6 + r > 1e6 && 1e6 + r / 4.0 == 1e6, "{r}");
    }

    #[test]
    fn fixed_grid_has_no_drift() {
        let mut g = FixedGrid::new(0.0, 0.1);
        let mut t = 0.0;
        for _ in 0..10 {
            t = g.next_point();
            g.advance(t);
        }
        assert_eq!(t, 1.0);
        // a reduced step re-anchors the grid
        g.advance(1.02);
        assert_eq!(g.next_point(), 1.12);
    }
}
