use proptest::prelude::*;

use super::*;

/// Runs a [`ColumnFilter`] over `samples` and returns the kept samples.
fn column_kept(threshold: f64, samples: &[(f64, f64)]) -> (Vec<(f64, f64)>, ColumnFilter) {
    let mut filter = ColumnFilter::new(threshold);
    let mut kept = Vec::new();
    for &(t, v) in samples {
        kept.extend(filter.push(t, v));
    }
    kept.extend(filter.finish());
    assert_eq!(
        filter.finish(),
        None,
        "finish releases the last sample once"
    );
    (kept, filter)
}

/// Runs a [`RowFilter`] over `rows` and returns the kept rows as `(index, t, values)`.
fn row_kept(
    threshold: f64,
    times: &[f64],
    rows: &[Vec<f64>],
    forced: &[bool],
) -> (Vec<(u64, f64, Vec<f64>)>, RowFilter) {
    let columns = rows.first().map_or(0, Vec::len);
    let mut filter = RowFilter::new(columns, threshold);
    let mut kept = Vec::new();
    for (i, (&t, row)) in times.iter().zip(rows).enumerate() {
        if let Some(r) = filter.push(t, row, forced.get(i).copied().unwrap_or(false)) {
            assert!(r.index == i as u64 || r.index + 1 == i as u64);
            kept.push((r.index, r.t, r.values.to_vec()));
        }
    }
    if let Some(r) = filter.finish() {
        kept.push((r.index, r.t, r.values.to_vec()));
    }
    assert!(filter.finish().is_none());
    (kept, filter)
}

fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// Checks the filter's guarantee: every sample is kept, or reproduced by linear
/// interpolation between the kept samples around it within its tolerance.
fn assert_reconstructs(threshold: f64, samples: &[(f64, f64)], kept: &[(f64, f64)]) {
    let (first, kept_first) = (samples[0], kept[0]);
    assert!(
        first.0 == kept_first.0 && same(first.1, kept_first.1),
        "first sample kept"
    );
    assert_eq!(
        kept.last().map(|s| s.0),
        samples.last().map(|s| s.0),
        "last sample kept"
    );
    let mut k = 0; // kept[k] is the kept sample at or before the current one
    for (i, &(t, v)) in samples.iter().enumerate() {
        while k + 1 < kept.len() && kept[k + 1].0 <= t {
            k += 1;
        }
        if kept.iter().any(|&(kt, kv)| kt == t && same(kv, v)) {
            continue;
        }
        let (ta, va) = kept[k];
        let (tb, vb) = kept[k + 1];
        assert!(v.is_finite(), "non-finite sample {i} at t = {t} dropped");
        assert!(ta < t && t < tb, "sample {i} at t = {t} not bracketed");
        let recon = va + (vb - va) * ((t - ta) / (tb - ta));
        let tol = threshold * (v.abs() + EPS);
        assert!(
            (recon - v).abs() <= tol,
            "sample {i} (t = {t}, v = {v}) reconstructed as {recon} between ({ta}, {va}) and \
             ({tb}, {vb}), error {} > tolerance {tol}",
            (recon - v).abs()
        );
    }
}

/// Checks the guarantee for every column of a row-filtered signal.
fn assert_rows_reconstruct(
    threshold: f64,
    times: &[f64],
    rows: &[Vec<f64>],
    kept: &[(u64, f64, Vec<f64>)],
) {
    let columns = rows.first().map_or(0, Vec::len);
    for j in 0..columns {
        let samples: Vec<_> = times.iter().zip(rows).map(|(&t, r)| (t, r[j])).collect();
        let kept_j: Vec<_> = kept.iter().map(|(_, t, r)| (*t, r[j])).collect();
        assert_reconstructs(threshold, &samples, &kept_j);
    }
    for (index, t, values) in kept {
        let i = usize::try_from(*index).expect("index fits");
        assert_eq!(times[i], *t);
        assert!(values.iter().zip(&rows[i]).all(|(a, b)| same(*a, *b)));
    }
}

fn sampled(n: usize, t_end: f64, f: impl Fn(f64) -> f64) -> Vec<(f64, f64)> {
    (0..n)
        .map(|i| {
            let t = t_end * i as f64 / (n - 1) as f64;
            (t, f(t))
        })
        .collect()
}

#[test]
fn a_line_compresses_to_its_end_points() {
    let samples = sampled(1001, 10.0, |t| 3.0 - 0.7 * t);
    let (kept, filter) = column_kept(1e-6, &samples);
    assert_eq!(kept, [samples[0], samples[1000]]);
    assert_eq!((filter.offered(), filter.kept()), (1001, 2));
    assert_eq!(filter.compression_ratio(), 2.0 / 1001.0);
}

#[test]
fn constants_and_zeros_compress_to_two_samples() {
    for c in [0.0, -0.0, 1.0, -273.15, 1e-300, 4e20] {
        let samples = sampled(500, 1.0, |_| c);
        let (kept, _) = column_kept(1e-3, &samples);
        assert_eq!(kept, [samples[0], samples[499]], "constant {c}");
    }
}

#[test]
fn a_sine_is_reproduced_within_its_tolerance() {
    let samples = sampled(1000, 1.0, |t| (2.0 * std::f64::consts::PI * t).sin());
    let (kept, filter) = column_kept(1e-3, &samples);
    assert_reconstructs(1e-3, &samples, &kept);
    // Near the zero crossings the relative tolerance is tight, so more samples stay
    // there (74 of 1000 in total).
    assert!(filter.kept() < 100, "kept {}", filter.kept());
    assert_eq!(filter.compression_ratio(), kept.len() as f64 / 1000.0);
}

#[test]
fn an_offset_sine_compresses_well() {
    let samples = sampled(1000, 1.0, |t| 2.0 + (2.0 * std::f64::consts::PI * t).sin());
    let (kept, _) = column_kept(1e-3, &samples);
    assert_reconstructs(1e-3, &samples, &kept);
    assert!(kept.len() < 50, "kept {}", kept.len()); // 43
}

#[test]
fn steps_keep_the_samples_around_the_jump() {
    let samples: Vec<_> = (0..100)
        .map(|i| (f64::from(i), if i < 50 { 1.0 } else { 5.0 }))
        .collect();
    let (kept, _) = column_kept(1e-3, &samples);
    assert_eq!(
        kept,
        [(0.0, 1.0), (49.0, 1.0), (50.0, 5.0), (99.0, 5.0)],
        "a step keeps both sides of the jump"
    );
    assert_reconstructs(1e-3, &samples, &kept);
}

#[test]
fn a_spike_is_kept_with_its_neighbours() {
    let mut samples = sampled(101, 1.0, |_| 0.0);
    samples[40].1 = 100.0;
    let (kept, _) = column_kept(1e-3, &samples);
    assert_eq!(
        kept,
        [
            samples[0],
            samples[39],
            samples[40],
            samples[41],
            samples[100]
        ]
    );
}

#[test]
fn non_finite_values_are_kept_with_their_neighbours() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut samples = sampled(50, 1.0, |t| 1.0 + t);
        samples[20].1 = bad;
        let (kept, _) = column_kept(1e-3, &samples);
        assert_eq!(kept.len(), 5, "{bad}: {kept:?}");
        assert!(same(kept[2].1, bad));
        assert_eq!([kept[1], kept[3]], [samples[19], samples[21]]);
        assert_reconstructs(1e-3, &samples, &kept);
    }
    let (kept, _) = column_kept(1e-3, &[(0.0, f64::NAN), (1.0, f64::NAN), (2.0, f64::NAN)]);
    assert_eq!(kept.len(), 3);
}

#[test]
fn samples_at_one_time_point_are_both_kept() {
    let samples = [(0.0, 0.0), (1.0, 1.0), (1.0, 5.0), (2.0, 6.0), (3.0, 7.0)];
    let (kept, _) = column_kept(1e-3, &samples);
    assert_eq!(kept, [(0.0, 0.0), (1.0, 1.0), (1.0, 5.0), (3.0, 7.0)]);
}

#[test]
fn accumulated_error_is_bounded() {
    // A slow parabola: the notes' three-point check would drop every sample, since each
    // one lies on the line through its neighbours within 1e-3, and the curve would drift.
    let samples = sampled(1000, 1.0, |t| 1.0 + t * t);
    let (kept, _) = column_kept(1e-3, &samples);
    assert!(kept.len() > 2);
    assert_reconstructs(1e-3, &samples, &kept);
}

#[test]
fn tiny_values_do_not_keep_everything() {
    let samples = sampled(100, 1.0, |t| 1e-20 * (50.0 * t).sin());
    let (kept, _) = column_kept(1e-3, &samples);
    assert_eq!(kept.len(), 2);
}

#[test]
fn a_disabled_filter_keeps_every_sample() {
    let samples = sampled(20, 1.0, |t| t);
    for threshold in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let (kept, filter) = column_kept(threshold, &samples);
        assert_eq!(kept, samples, "threshold {threshold}");
        assert_eq!(filter.compression_ratio(), 1.0);
    }
}

#[test]
fn counts_before_finish_and_empty_filters() {
    let mut filter = ColumnFilter::new(1e-3);
    assert_eq!(filter.compression_ratio(), 1.0);
    assert_eq!(filter.finish(), None);
    assert_eq!(filter.push(0.0, 1.0), Some((0.0, 1.0)));
    assert_eq!(
        filter.finish(),
        None,
        "the first sample was released already"
    );
    assert_eq!(filter.push(1.0, 1.0), None);
    assert_eq!(filter.push(2.0, 1.0), None);
    assert_eq!((filter.offered(), filter.kept()), (3, 1));
    assert_eq!(filter.finish(), Some((2.0, 1.0)));
    assert_eq!(filter.compression_ratio(), 2.0 / 3.0);
    assert_eq!(filter.threshold(), 1e-3);
}

#[test]
fn rows_are_kept_when_any_column_needs_them() {
    let times: Vec<f64> = (0..200).map(|i| f64::from(i) * 0.01).collect();
    let rows: Vec<Vec<f64>> = times
        .iter()
        .map(|&t| {
            vec![
                2.0 * t,
                5.0,
                (3.0 * t).sin() + 2.0,
                if t < 1.0 { 0.0 } else { 1.0 },
            ]
        })
        .collect();
    let (kept, filter) = row_kept(1e-3, &times, &rows, &[]);
    assert_rows_reconstruct(1e-3, &times, &rows, &kept);
    assert!(kept.len() < 60, "kept {}", kept.len());
    assert_eq!(filter.kept(), kept.len() as u64);
    assert_eq!(filter.offered(), 200);
    assert_eq!(filter.compression_ratio(), kept.len() as f64 / 200.0);
    assert_eq!(filter.columns(), 4);
}

#[test]
fn lines_in_rows_compress_to_two_rows() {
    let times: Vec<f64> = (0..100).map(f64::from).collect();
    let rows: Vec<Vec<f64>> = times.iter().map(|&t| vec![t, -t, 0.0, 7.0]).collect();
    let (kept, _) = row_kept(1e-3, &times, &rows, &[]);
    assert_eq!(
        kept.iter().map(|k| k.0).collect::<Vec<_>>(),
        [0, 99],
        "{kept:?}"
    );
}

#[test]
fn forced_rows_are_kept() {
    let times: Vec<f64> = (0..10).map(f64::from).collect();
    let rows = vec![vec![1.0]; 10];
    let mut forced = vec![false; 10];
    forced[4] = true;
    forced[5] = true;
    let (kept, _) = row_kept(1e-3, &times, &rows, &forced);
    assert_eq!(kept.iter().map(|k| k.0).collect::<Vec<_>>(), [0, 4, 5, 9]);
    // Without value columns, only first, forced and last rows remain.
    let empty = vec![Vec::new(); 10];
    let (kept, _) = row_kept(1e-3, &times, &empty, &forced);
    assert_eq!(kept.iter().map(|k| k.0).collect::<Vec<_>>(), [0, 4, 5, 9]);
}

#[test]
#[should_panic(expected = "one value per column")]
fn a_row_of_the_wrong_length_panics() {
    RowFilter::new(2, 1e-3).push(0.0, &[1.0], false);
}

/// A signal of `n` samples with strictly increasing times, of several kinds.
fn signal() -> impl Strategy<Value = Vec<(f64, f64)>> {
    let times = prop::collection::vec(1e-6..1.0f64, 2..300).prop_map(|steps| {
        steps
            .iter()
            .scan(0.0, |t, dt| {
                let now = *t;
                *t += dt;
                Some(now)
            })
            .collect::<Vec<f64>>()
    });
    let value = prop_oneof![
        4 => -1e3..1e3f64,
        1 => Just(0.0),
        1 => -1e-9..1e-9f64,
        1 => Just(f64::NAN),
    ];
    let walk = prop::collection::vec(-1.0..1.0f64, 300).prop_map(|steps| {
        steps
            .iter()
            .scan(0.0, |v, dv| {
                *v += dv;
                Some(*v)
            })
            .collect::<Vec<f64>>()
    });
    let smooth = (0.1..50.0f64, -2.0..2.0f64, 1e-3..1e3f64).prop_map(|(w, offset, scale)| {
        (0..300)
            .map(|i| scale * (offset + (w * f64::from(i) * 0.01).sin()))
            .collect::<Vec<_>>()
    });
    let values = prop_oneof![prop::collection::vec(value, 300), walk, smooth,];
    (times, values).prop_map(|(times, values)| times.into_iter().zip(values).collect())
}

proptest! {
    #[test]
    fn column_filter_reproduces_every_dropped_sample(
        samples in signal(),
        threshold in prop_oneof![Just(1e-6), Just(1e-3), Just(1e-2), Just(0.5), Just(10.0)],
    ) {
        let (kept, filter) = column_kept(threshold, &samples);
        assert_reconstructs(threshold, &samples, &kept);
        prop_assert_eq!(filter.kept(), kept.len() as u64);
        prop_assert_eq!(filter.offered(), samples.len() as u64);
        prop_assert_eq!(filter.compression_ratio(), kept.len() as f64 / samples.len() as f64);
    }

    #[test]
    fn row_filter_reproduces_every_column(
        a in signal(),
        b in signal(),
        threshold in prop_oneof![Just(1e-3), Just(0.1)],
        forced in prop::collection::vec(prop::bool::weighted(0.05), 300),
    ) {
        let times: Vec<f64> = a.iter().map(|s| s.0).collect();
        let rows: Vec<Vec<f64>> = a.iter().zip(b.iter().cycle()).map(|(x, y)| vec![x.1, y.1, 1.0]).collect();
        let (kept, filter) = row_kept(threshold, &times, &rows, &forced);
        assert_rows_reconstruct(threshold, &times, &rows, &kept);
        for (i, f) in forced.iter().take(times.len()).enumerate() {
            if *f {
                prop_assert!(kept.iter().any(|k| k.0 == i as u64), "forced row {} kept", i);
            }
        }
        prop_assert_eq!(filter.kept(), kept.len() as u64);
        prop_assert_eq!(filter.offered(), times.len() as u64);
    }

    #[test]
    fn one_column_rows_match_the_column_filter(samples in signal(), threshold in 1e-4..1.0f64) {
        let (by_column, _) = column_kept(threshold, &samples);
        let times: Vec<f64> = samples.iter().map(|s| s.0).collect();
        let rows: Vec<Vec<f64>> = samples.iter().map(|s| vec![s.1]).collect();
        let (by_row, _) = row_kept(threshold, &times, &rows, &[]);
        prop_assert_eq!(by_column.len(), by_row.len());
        for (c, r) in by_column.iter().zip(&by_row) {
            prop_assert!(c.0 == r.1 && same(c.1, r.2[0]));
        }
    }
}

proptest! {
    /// Samples right at the tolerance of a line: the rounding margin must keep the
    /// guarantee for the `f64` reconstruction.
    #[test]
    fn samples_on_the_tolerance_boundary(
        a in -1e3..1e3f64,
        b in -1e3..1e3f64,
        t0 in 0.0..1e4f64,
        dt in 1e-6..1.0f64,
        n in 3..50usize,
        threshold in prop_oneof![Just(1e-3), Just(1e-9), 1e-12..1.0f64],
        signs in prop::collection::vec(prop::bool::ANY, 50),
    ) {
        let samples: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                let t = t0 + dt * i as f64;
                let line = a + b * (t - t0);
                let v = if i == 0 || i + 1 == n {
                    line
                } else if signs[i] {
                    line / (1.0 + threshold)
                } else {
                    line / (1.0 - threshold.min(0.5))
                };
                (t, v)
            })
            .collect();
        let (kept, _) = column_kept(threshold, &samples);
        assert_reconstructs(threshold, &samples, &kept);
    }
}
