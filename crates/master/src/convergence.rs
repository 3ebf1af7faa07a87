//! The weighted root-mean-square (WRMS) norm used by the convergence and error tests.
//!
//! Spec: MasterSim reference §10 ("The shared convergence norm"): with weights
//! `w_i = |a_i|·relTol + absTol`, `‖a − b‖ = sqrt( Σ ((a_i − b_i)/w_i)² / n )`. With `n = 0` the
//! norm is NaN; callers treat a NaN norm as converged, as MasterSim does.

/// WRMS norm of the difference of `a` (reference values, which set the weights) and `b`.
///
/// Shapes: `a.len() == b.len()`; extra elements of the longer slice are ignored.
pub fn wrms_difference(a: &[f64], b: &[f64], rel_tol: f64, abs_tol: f64) -> f64 {
    let n = a.len().min(b.len());
    let sum: f64 = a
        .iter()
        .zip(b)
        .map(|(&a, &b)| {
            let w = a.abs() * rel_tol + abs_tol;
            let e = (a - b) / w;
            e * e
        })
        .sum();
    (sum / n as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norm_of_known_vectors() {
        // w = (1*0.1+0.01, 2*0.1+0.01) = (0.11, 0.21)
        let n = wrms_difference(&[1.0, 2.0], &[1.11, 2.0], 0.1, 0.01);
        assert!((n - (1.0f64 / 2.0).sqrt()).abs() < 1e-12);
        assert_eq!(wrms_difference(&[3.0], &[3.0], 1e-5, 1e-6), 0.0);
    }

    #[test]
    fn empty_norm_is_nan_and_counts_as_converged() {
        let n = wrms_difference(&[], &[], 1e-5, 1e-6);
        assert!(n.is_nan());
        assert!(
            n.partial_cmp(&1.0).is_none(),
            "NaN is unordered, so the '> 1' test fails"
        );
    }
}
