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
