//! Adaptive-threshold output filter: drops result samples that linear interpolation between
//! the kept samples reproduces within a relative tolerance.
//!
//! Result files are read by plotting tools that draw polygons through the samples, i.e.
//! they interpolate linearly. A sample that such a polygon reproduces anyway need not be
//! written. MasterSim's design notes check each sample only against the line through its
//! two neighbours; when several consecutive samples are dropped, their errors add up. This
//! filter gives a **guarantee** instead:
//!
//! > for every dropped sample `(t_i, v_i)` of a column, linear interpolation between the
//! > kept samples around it reproduces `v_i` within `tol_i = threshold·(|v_i| + EPS)`.
//!
//! [`EPS`] (`1e-12`, in the column's unit) is an absolute floor: an exact zero must be
//! reproduced to within `threshold·1e-12` (for all practical purposes exactly), while
//! values far below any meaningful magnitude (say `1e-20` of noise around zero) do not
//! force every sample to be kept.
//!
//! # Algorithm (swinging door)
//! From the last kept sample `(t_0, v_0)` (the *anchor*), every line to a later kept
//! sample is fixed by its slope. Dropping a sample `(t_i, v_i)` is allowed only if the
//! slope `s` of the final line satisfies `|v_0 + s·(t_i − t_0) − v_i| ≤ tol_i`, an
//! interval of slopes. The filter keeps the intersection of these intervals (the
//! *corridor*) for all samples dropped since the anchor, plus the newest sample as the
//! *candidate*. A new sample is accepted as the next candidate (and the old candidate is
//! dropped) when the slope from the anchor to it lies in the corridor narrowed by the old
//! candidate's interval. Otherwise the candidate is kept, it becomes the anchor, and the
//! corridor restarts there. Each sample costs O(1) per column and no allocation.
//!
//! Rules beyond the corridor:
//! - the first sample and the last one (released by `finish`) are always kept;
//! - a non-finite value (NaN, ±∞) is always kept, and so are its neighbours (no line can
//!   pass through it);
//! - times must not decrease: a sample whose time is not greater than its predecessor's
//!   (an event with two values at one time) keeps both;
//! - the check uses `tol_i` reduced by a rounding margin of `32·ε·(|v_0| + |v_i| + tol_i)`
//!   (`ε = f64::EPSILON`), so the guarantee also holds when the reconstruction is computed
//!   in `f64` as `v_a + (v_b − v_a)·((t − t_a)/(t_b − t_a))`.
//!
//! Two modes:
//! - [`ColumnFilter`], per column, for MAT files (one time axis per signal);
//! - [`RowFilter`], per row, for CSV and JSON files (one time column): a row is kept when
//!   any column needs it, and then every column's corridor restarts at that row.
//!
//! ```
//! use output::filter::ColumnFilter;
//!
//! let mut filter = ColumnFilter::new(1e-3);
//! let mut kept = Vec::new();
//! for i in 0..=100 {
//!     let t = f64::from(i) * 0.01;
//!     kept.extend(filter.push(t, 2.0 * t + 1.0));
//! }
//! kept.extend(filter.finish());
//! assert_eq!(kept, [(0.0, 1.0), (1.0, 3.0)]); // a line needs only its end points
//! assert_eq!((filter.offered(), filter.kept()), (101, 2));
//! ```
//!
//! Spec: MasterSim design notes, "Output Handling" (adaptive threshold); swinging door
//! trending after E. H. Bristol, *Swinging Door Trending: Adaptive Trend Recording?*,
//! ISA National Conference Proceedings, 1990.

/// Absolute floor of the tolerance, `1e-12` in the column's unit: `tol_i = threshold·(|v_i| + EPS)`.
///
/// Spec: MasterSim design notes, "Output Handling" (the `eps` of the relative error).
pub const EPS: f64 = 1e-12;

/// Factor of the rounding margin subtracted from each tolerance, see the module docs.
const ROUNDING_MARGIN: f64 = 32.0 * f64::EPSILON;

/// An interval of slopes `[lo, hi]` (column unit per time unit) of lines from the anchor.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Corridor {
    lo: f64,
    hi: f64,
}

impl Corridor {
    /// The corridor before any sample was dropped: every slope.
    const OPEN: Corridor = Corridor {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };

    /// The corridor narrowed by the tolerance interval of `candidate`, if the line from
    /// `anchor` to `next` stays inside it (so that `candidate` may be dropped).
    ///
    /// The caller guarantees `anchor.0 < candidate.0 < next.0`.
    fn narrowed(
        self,
        threshold: f64,
        anchor: (f64, f64),
        candidate: (f64, f64),
        next: (f64, f64),
    ) -> Option<Corridor> {
        let (t0, v0) = anchor;
        let (tc, vc) = candidate;
        let tol = threshold * (vc.abs() + EPS);
        let tol = tol - ROUNDING_MARGIN * (v0.abs() + vc.abs() + tol);
        // NaN for a non-finite anchor or candidate: it is never dropped past.
        if tol.is_nan() || tol < 0.0 {
            return None;
        }
        let dt = tc - t0;
        let lo = self.lo.max((vc - tol - v0) / dt);
        let hi = self.hi.min((vc + tol - v0) / dt);
        let slope = (next.1 - v0) / (next.0 - t0);
        (lo.is_finite() && hi.is_finite() && slope.is_finite() && lo <= slope && slope <= hi)
            .then_some(Corridor { lo, hi })
    }
}

/// Whether `threshold` switches filtering on (a positive finite number).
fn enabled(threshold: f64) -> bool {
    threshold.is_finite() && threshold > 0.0
}

/// `kept / offered`, or 1 when nothing was offered.
fn ratio(kept: u64, offered: u64) -> f64 {
    if offered == 0 {
        1.0
    } else {
        kept as f64 / offered as f64
    }
}

/// Filter of one column with its own time axis (MAT files allow one per signal).
///
/// Feed samples in time order with [`push`](Self::push); each call releases at most one
/// kept sample, which the caller writes. [`finish`](Self::finish) releases the last one.
/// A kept sample is released one `push` late (the filter needs the following sample to
/// decide), except the first, which is released at once.
///
/// Guarantee: every sample not released is reproduced by linear interpolation between the
/// released samples around it within `threshold·(|v| + EPS)` (see the [module docs](self)).
///
/// Spec: MasterSim design notes, "Output Handling" (per-quantity variant).
#[derive(Debug, Clone)]
pub struct ColumnFilter {
    threshold: f64,
    anchor: Option<(f64, f64)>,
    candidate: Option<(f64, f64)>,
    corridor: Corridor,
    offered: u64,
    kept: u64,
}

impl ColumnFilter {
    /// Creates a filter with the relative tolerance `threshold` (dimensionless, e.g. `1e-3`).
    ///
    /// A `threshold` that is not a positive finite number (0, negative, NaN, ∞) turns
    /// filtering off: every sample is kept.
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn new(threshold: f64) -> Self {
        ColumnFilter {
            threshold,
            anchor: None,
            candidate: None,
            corridor: Corridor::OPEN,
            offered: 0,
            kept: 0,
        }
    }

    /// Offers the sample `(t, v)`; returns the sample that this decision keeps, if any.
    ///
    /// Units: `t` in the file's time unit, `v` in the column's unit. Times must not
    /// decrease; a time equal to (or less than) the previous one keeps both samples.
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn push(&mut self, t: f64, v: f64) -> Option<(f64, f64)> {
        self.offered += 1;
        let Some(anchor) = self.anchor else {
            self.anchor = Some((t, v));
            self.kept += 1;
            return Some((t, v));
        };
        // The first sample after a kept one only becomes the candidate.
        let candidate = self.candidate.replace((t, v))?;
        if enabled(self.threshold)
            && anchor.0 < candidate.0
            && candidate.0 < t
            && let Some(corridor) =
                self.corridor
                    .narrowed(self.threshold, anchor, candidate, (t, v))
        {
            self.corridor = corridor;
            return None;
        }
        self.anchor = Some(candidate);
        self.corridor = Corridor::OPEN;
        self.kept += 1;
        Some(candidate)
    }

    /// Releases the pending last sample (always kept); `None` if it was already released.
    ///
    /// Call it once after the last [`push`](Self::push). Pushing afterwards continues the
    /// series from the released sample (it then stays kept).
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn finish(&mut self) -> Option<(f64, f64)> {
        let candidate = self.candidate.take()?;
        self.anchor = Some(candidate);
        self.corridor = Corridor::OPEN;
        self.kept += 1;
        Some(candidate)
    }

    /// The relative tolerance given to [`new`](Self::new) (dimensionless).
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// Number of samples offered through [`push`](Self::push) so far.
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn offered(&self) -> u64 {
        self.offered
    }

    /// Number of samples released as kept so far (by `push` and `finish`).
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn kept(&self) -> u64 {
        self.kept
    }

    /// `kept / offered` (1 when nothing was offered): the fraction of samples written.
    ///
    /// Smaller is better compression; final once [`finish`](Self::finish) was called
    /// (before, the pending last sample is not counted as kept).
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn compression_ratio(&self) -> f64 {
        ratio(self.kept, self.offered)
    }
}

/// A row released by [`RowFilter`]: keep it (write it to the file).
///
/// Shapes: `values.len()` equals the filter's column count.
///
/// Spec: MasterSim design notes, "Output Handling".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeptRow<'a> {
    /// Zero-based number of the [`push`](RowFilter::push) that offered this row. A `push`
    /// releases the row it offers (the very first row) or the one offered before it;
    /// [`finish`](RowFilter::finish) releases the last row offered. So a caller that
    /// writes companion data (e.g. `strings.csv`) only needs to hold on to the data of the
    /// row offered last and the one before it.
    pub index: u64,
    /// Time of the row, in the file's time unit.
    pub t: f64,
    /// Values of the row, one per column, in the columns' units.
    pub values: &'a [f64],
}

/// Filter of rows sharing one time column (CSV and JSON result files).
///
/// A row is kept when any column needs its sample to keep the guarantee (see the
/// [module docs](self)), or when the caller forces it (e.g. a String output changed).
/// When a row is kept, every column's corridor restarts at that row, so each column's
/// reconstruction over the kept rows passes through it. Buffers are allocated once in
/// [`new`](Self::new); pushing a row allocates nothing.
///
/// Guarantee: for every column and every dropped row, linear interpolation of the column
/// between the kept rows around it reproduces the value within `threshold·(|v| + EPS)`.
///
/// ```
/// use output::filter::RowFilter;
///
/// // Columns: a ramp and a constant; row 3 is forced (say a String output changed there).
/// let mut filter = RowFilter::new(2, 1e-3);
/// let mut kept = Vec::new();
/// for i in 0..10u32 {
///     let t = f64::from(i);
///     if let Some(row) = filter.push(t, &[0.5 * t, 4.0], i == 3) {
///         kept.push((row.index, row.t, row.values.to_vec()));
///     }
/// }
/// if let Some(row) = filter.finish() {
///     kept.push((row.index, row.t, row.values.to_vec()));
/// }
/// let times: Vec<f64> = kept.iter().map(|k| k.1).collect();
/// assert_eq!(times, [0.0, 3.0, 9.0]);
/// assert_eq!(kept[1], (3, 3.0, vec![1.5, 4.0]));
/// assert_eq!(filter.compression_ratio(), 0.3);
/// ```
///
/// Spec: MasterSim design notes, "Output Handling" (all quantities written at one time).
#[derive(Debug, Clone)]
pub struct RowFilter {
    threshold: f64,
    state: RowState,
    anchor_t: f64,
    anchor_index: u64,
    anchor: Vec<f64>,
    candidate_t: f64,
    candidate_index: u64,
    candidate_forced: bool,
    candidate: Vec<f64>,
    corridors: Vec<Corridor>,
    narrowed: Vec<Corridor>,
    offered: u64,
    kept: u64,
}

/// What a [`RowFilter`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RowState {
    /// Nothing was pushed.
    Empty,
    /// The last kept row, no pending row.
    Anchor,
    /// The last kept row and a pending candidate row.
    Candidate,
}

impl RowFilter {
    /// Creates a filter for rows of `columns` values with the relative tolerance
    /// `threshold` (dimensionless, e.g. `1e-3`).
    ///
    /// A `threshold` that is not a positive finite number (0, negative, NaN, ∞) turns
    /// filtering off: every row is kept. With `columns == 0` only the first, the last and
    /// the forced rows are kept.
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn new(columns: usize, threshold: f64) -> Self {
        RowFilter {
            threshold,
            state: RowState::Empty,
            anchor_t: 0.0,
            anchor_index: 0,
            anchor: vec![0.0; columns],
            candidate_t: 0.0,
            candidate_index: 0,
            candidate_forced: false,
            candidate: vec![0.0; columns],
            corridors: vec![Corridor::OPEN; columns],
            narrowed: vec![Corridor::OPEN; columns],
            offered: 0,
            kept: 0,
        }
    }

    /// Offers the row `(t, values)`; returns the row that this decision keeps, if any.
    ///
    /// `force_keep` marks this row as one to keep whatever its values (a String output
    /// changed, an event). Times must not decrease; a time equal to (or less than) the
    /// previous one keeps both rows.
    ///
    /// Units: `t` in the file's time unit, values in their columns' units.
    /// Shapes: `values.len()` equals the column count given to [`new`](Self::new).
    ///
    /// # Panics
    /// If `values.len()` differs from the column count (a programming error of the caller,
    /// which builds both from one column list).
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn push(&mut self, t: f64, values: &[f64], force_keep: bool) -> Option<KeptRow<'_>> {
        assert_eq!(
            values.len(),
            self.anchor.len(),
            "RowFilter::push: one value per column"
        );
        let index = self.offered;
        self.offered += 1;
        match self.state {
            RowState::Empty => {
                self.anchor.copy_from_slice(values);
                self.anchor_t = t;
                self.anchor_index = index;
                self.state = RowState::Anchor;
                self.kept += 1;
                return Some(self.anchor_row());
            }
            RowState::Anchor => {
                self.set_candidate(t, values, index, force_keep);
                self.state = RowState::Candidate;
                return None;
            }
            RowState::Candidate => {}
        }
        if self.try_drop_candidate(t, values) {
            self.set_candidate(t, values, index, force_keep);
            return None;
        }
        self.keep_candidate();
        self.set_candidate(t, values, index, force_keep);
        self.state = RowState::Candidate;
        Some(self.anchor_row())
    }

    /// Releases the pending last row (always kept); `None` if it was already released.
    ///
    /// Call it once after the last [`push`](Self::push). Pushing afterwards continues from
    /// the released row (it then stays kept).
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn finish(&mut self) -> Option<KeptRow<'_>> {
        if self.state != RowState::Candidate {
            return None;
        }
        self.keep_candidate();
        self.state = RowState::Anchor;
        Some(self.anchor_row())
    }

    /// Number of value columns.
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn columns(&self) -> usize {
        self.anchor.len()
    }

    /// The relative tolerance given to [`new`](Self::new) (dimensionless).
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// Number of rows offered through [`push`](Self::push) so far.
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn offered(&self) -> u64 {
        self.offered
    }

    /// Number of rows released as kept so far (by `push` and `finish`).
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn kept(&self) -> u64 {
        self.kept
    }

    /// `kept / offered` rows (1 when nothing was offered): the fraction of rows written.
    ///
    /// Smaller is better compression; final once [`finish`](Self::finish) was called
    /// (before, the pending last row is not counted as kept).
    ///
    /// Spec: MasterSim design notes, "Output Handling".
    pub fn compression_ratio(&self) -> f64 {
        ratio(self.kept, self.offered)
    }

    /// The last kept row.
    fn anchor_row(&self) -> KeptRow<'_> {
        KeptRow {
            index: self.anchor_index,
            t: self.anchor_t,
            values: &self.anchor,
        }
    }

    /// Stores the row as the pending candidate (corridors untouched).
    fn set_candidate(&mut self, t: f64, values: &[f64], index: u64, forced: bool) {
        self.candidate.copy_from_slice(values);
        self.candidate_t = t;
        self.candidate_index = index;
        self.candidate_forced = forced;
    }

    /// Whether every column allows dropping the candidate when `(t, values)` follows it;
    /// if so, narrows the corridors.
    fn try_drop_candidate(&mut self, t: f64, values: &[f64]) -> bool {
        if !enabled(self.threshold)
            || self.candidate_forced
            || !(self.anchor_t < self.candidate_t && self.candidate_t < t)
        {
            return false;
        }
        for (j, narrowed) in self.narrowed.iter_mut().enumerate() {
            match self.corridors[j].narrowed(
                self.threshold,
                (self.anchor_t, self.anchor[j]),
                (self.candidate_t, self.candidate[j]),
                (t, values[j]),
            ) {
                Some(corridor) => *narrowed = corridor,
                None => return false,
            }
        }
        std::mem::swap(&mut self.corridors, &mut self.narrowed);
        true
    }

    /// Keeps the candidate: it becomes the anchor and all corridors restart there.
    fn keep_candidate(&mut self) {
        std::mem::swap(&mut self.anchor, &mut self.candidate);
        self.anchor_t = self.candidate_t;
        self.anchor_index = self.candidate_index;
        self.corridors.fill(Corridor::OPEN);
        self.kept += 1;
    }
}

#[cfg(test)]
mod tests;
