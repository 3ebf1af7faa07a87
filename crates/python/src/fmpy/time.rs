//! Time arithmetic as FMPy does it: Python's `math.isclose` and FMPy's automatic output
//! interval.
//!
//! Spec: Python `math.isclose` (rel_tol 1e-9, abs_tol 0); FMPy 0.3 `util.auto_interval`.

/// Python's `math.isclose(a, b)` with its defaults: `|a − b| ≤ 1e-9 · max(|a|, |b|)`; an
/// infinity is close only to itself.
pub fn is_close(a: f64, b: f64) -> bool {
    if a == b {
        return true;
    }
    if a.is_infinite() || b.is_infinite() {
        return false;
    }
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// FMPy's automatic output interval for a simulated span of `t` seconds: a power of ten
/// times 1, 2, 4 or 5 that divides it into about 500 to 1000 steps, s.
pub fn auto_interval(t: f64) -> f64 {
    let mut h = 10f64.powf(t.log10().round_ties_even() - 3.0);
    let n = t / h;
    if n >= 2500.0 {
        h *= 5.0;
    } else if n >= 2000.0 {
        h *= 4.0;
    } else if n >= 1000.0 {
        h *= 2.0;
    } else if n <= 200.0 {
        h /= 5.0;
    } else if n <= 250.0 {
        h /= 4.0;
    } else if n <= 500.0 {
        h /= 2.0;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_as_fmpy() {
        // FMPy: auto_interval(1) == 0.002, auto_interval(10) == 0.02, auto_interval(3) == 0.005
        assert_eq!(auto_interval(1.0), 10f64.powf(-3.0) * 2.0);
        assert_eq!(auto_interval(10.0), 10f64.powf(-2.0) * 2.0);
        assert!(is_close(1.0, 1.0 + 1e-10));
        assert!(!is_close(1.0, 1.0 + 1e-8));
        assert!(!is_close(1.0, f64::INFINITY) && is_close(f64::INFINITY, f64::INFINITY));
    }
}
