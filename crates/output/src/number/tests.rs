use super::*;
use proptest::prelude::*;

/// `%.<precision>g` through the slow exact path only (Rust's `{:.*e}`).
fn reference_g(value: f64, precision: usize) -> String {
    let precision = precision.max(1);
    let mut s = String::new();
    if value.is_sign_negative() {
        s.push('-');
    }
    let a = value.abs();
    if a == 0.0 {
        s.push('0');
    } else {
        write_g_fallback(&mut s, a, precision);
    }
    s
}

#[test]
fn tricky_values_at_14_digits() {
    let cases: &[(f64, &str)] = &[
        (0.0, "0"),
        (-0.0, "-0"),
        (1.0, "1"),
        (-2.0, "-2"),
        (0.5, "0.5"),
        (1e-5, "1e-05"),
        (0.0001, "0.0001"),
        (0.00001234, "1.234e-05"),
        (123456789012345.0, "1.2345678901234e+14"), // exact tie, to even
        (123456789012355.0, "1.2345678901236e+14"), // exact tie, to even
        (12345678901234.0, "12345678901234"),
        (99999999999999.0, "99999999999999"),
        (999999999999995.0, "1e+15"),
        (1e14, "1e+14"),
        (1e15, "1e+15"),
        (0.1 + 0.2, "0.3"),
        (1.0 / 3.0, "0.33333333333333"),
        (2.0 / 3.0, "0.66666666666667"),
        (0.1 / 60.0, "0.0016666666666667"),
        (5e-324, "4.9406564584125e-324"),
        (2.2250738585072014e-308, "2.2250738585072e-308"),
        (f64::MAX, "1.7976931348623e+308"),
        (f64::NAN, "nan"),
        (-f64::NAN, "-nan"),
        (f64::INFINITY, "inf"),
        (f64::NEG_INFINITY, "-inf"),
        (9.99999999999995, "10"), // 9.99999999999995026… carries into the exponent
        (9.999999999999949, "9.9999999999999"),
        (1.00000000000005, "1"), // binary value is 1.0000000000000499…
        (0.00016666666666667, "0.00016666666666667"),
        (1e100, "1e+100"),
        (1e-100, "1e-100"),
        (1e21, "1e+21"),
        (1e23, "1e+23"),
        (1e-10, "1e-10"),
        (123.456, "123.456"),
        (-1.5, "-1.5"),
        (293.15, "293.15"),
        (f64::from_bits(0x3f40_624d_d2f1_a9fb), "0.0005"), // largest double below 0.0005
        (2147483647.0, "2147483647"),
        (-2147483648.0, "-2147483648"),
        (0.000123456789012345, "0.00012345678901234"),
    ];
    for &(value, expected) in cases {
        assert_eq!(format_g(value, 14), expected, "value {value:e}");
    }
}

#[test]
fn other_precisions() {
    let cases: &[(f64, usize, &str)] = &[
        (0.0, 0, "0"),
        (2.5, 0, "2"),
        (2.5, 1, "2"),
        (3.5, 1, "4"),
        (0.25, 1, "0.2"),
        (0.125, 2, "0.12"),
        (0.375, 2, "0.38"),
        (100.0, 2, "1e+02"),
        (100.0, 1, "1e+02"),
        (99.0, 2, "99"),
        (99.5, 2, "1e+02"),
        (0.000196, 7, "0.000196"),
        (1.0 / 3.0, 6, "0.333333"),
        (7e-5, 6, "7e-05"),
        (3.6e-5, 6, "3.6e-05"),
        (0.009918, 6, "0.009918"),
        (1234567.0, 6, "1.23457e+06"),
        (123456.0, 6, "123456"),
        (0.1, 17, "0.10000000000000001"),
        (0.1, 20, "0.10000000000000000555"),
        (1e23, 17, "9.9999999999999992e+22"),
        (2.675, 3, "2.67"),
        (5e-324, 6, "4.94066e-324"),
        (1.0, 40, "1"),
        (
            0.1,
            60,
            "0.1000000000000000055511151231257827021181583404541015625",
        ),
        (
            0.1,
            80,
            "0.1000000000000000055511151231257827021181583404541015625",
        ),
        (
            1.0 / 3.0,
            56,
            "0.333333333333333314829616256247390992939472198486328125",
        ),
        (
            1.0 / 3.0,
            57,
            "0.333333333333333314829616256247390992939472198486328125",
        ),
        (
            -f64::from_bits(0x2d35_5555_5555_5555),
            58,
            "-6.545457953730301707448456259286172758309036896895577703106e-91",
        ),
        (5e-324, 30, "4.94065645841246544176568792868e-324"),
    ];
    for &(value, precision, expected) in cases {
        assert_eq!(
            format_g(value, precision),
            expected,
            "value {value:e}, %.{precision}g"
        );
    }
}

#[test]
fn fixed_notation() {
    let cases: &[(f64, usize, &str)] = &[
        (0.0, 3, "0.000"),
        (-0.0, 3, "-0.000"),
        (-0.0001, 3, "-0.000"),
        (0.5, 0, "0"),
        (1.5, 0, "2"),
        (2.5, 0, "2"),
        (0.125, 2, "0.12"),
        (9.918, 0, "10"),
        (1.23456, 3, "1.235"),
        (123.4567, 3, "123.457"),
        (f64::NAN, 3, "nan"),
        (f64::INFINITY, 3, "inf"),
        (f64::NEG_INFINITY, 0, "-inf"),
    ];
    for &(value, decimals, expected) in cases {
        assert_eq!(
            format_fixed(value, decimals),
            expected,
            "value {value:e}, %.{decimals}f"
        );
    }
}

#[test]
fn alignment_helpers() {
    let mut s = String::from("x");
    write_right_aligned(&mut s, 15, |s| write_g(s, 0.14, 14));
    assert_eq!(s, "x           0.14");
    let mut s = String::new();
    write_right_aligned(&mut s, 2, |s| s.push_str("long"));
    assert_eq!(s, "long");
    let mut s = String::new();
    write_right_aligned(&mut s, 70, |s| s.push('1'));
    assert_eq!(s.len(), 70);
    assert!(s.ends_with(" 1"));
    let mut s = String::new();
    write_left_aligned(&mut s, 6, |s| write_u64(s, 42));
    s.push('|');
    assert_eq!(s, "42    |");
    let mut s = String::new();
    write_u64(&mut s, u64::MAX);
    assert_eq!(s, "18446744073709551615");
}

#[test]
fn appends_without_touching_existing_text() {
    let mut s = String::from("a\t");
    write_g(&mut s, 0.25, 14);
    write_fixed(&mut s, 1.0, 1);
    assert_eq!(s, "a\t0.251.0");
}

/// Deterministic 64-bit generator (SplitMix64).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Finite test values: random bit patterns, typical magnitudes, short decimals and exact ties.
fn sample_values(count: usize) -> Vec<f64> {
    let mut rng = SplitMix(0x5EED_1234_ABCD_0042);
    let mut values = Vec::with_capacity(count);
    while values.len() < count {
        let r = rng.next();
        let v = match values.len() % 5 {
            0 => f64::from_bits(r),
            1 => {
                // Random mantissa, decimal exponent between -12 and 20.
                let mantissa = (r >> 11) as f64 / (1u64 << 53) as f64;
                let exponent = (rng.next() % 33) as i32 - 12;
                mantissa * 10f64.powi(exponent)
            }
            2 => {
                // Short decimals such as 0.35 or 12.5e-3.
                let k = (r % 100_000) as f64;
                k / 10f64.powi((rng.next() % 12) as i32)
            }
            3 => {
                // Exact binary ties at various digit positions: odd multiples of 2^-n.
                let odd = (r % 1_000_000) * 2 + 1;
                odd as f64 / (1u64 << (rng.next() % 24)) as f64
            }
            _ => {
                // Integers with 13 to 18 digits, including 5 in the rounding position.
                let digits = 13 + (rng.next() % 6) as u32;
                let base = r % 10u64.pow(digits);
                (base - base % 10 + 5) as f64
            }
        };
        if v.is_finite() {
            values.push(if r & 1 == 1 { -v } else { v });
        }
    }
    values
}

/// C99 hexadecimal notation of `v`, which `strtold` reads back exactly.
fn hex_float(v: f64) -> String {
    let bits = v.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    if exponent == 0 {
        format!("{sign}0x0.{fraction:013x}p-1022")
    } else {
        format!("{sign}0x1.{fraction:013x}p{}", exponent - 1023)
    }
}

/// Compares with coreutils `printf` (C semantics under `LC_ALL=C`) for 2000 values.
///
/// Skipped (with a message) when `/usr/bin/printf` cannot be run.
#[test]
fn agrees_with_system_printf() {
    const FORMATS: [&str; 9] = [
        "%.14g", "%g", "%.7g", "%.2g", "%.1g", "%.0g", "%.17g", "%.3f", "%.0f",
    ];
    let values = sample_values(2000);
    let format = format!("{}\\n", FORMATS.join("|"));
    for chunk in values.chunks(250) {
        let args: Vec<String> = chunk
            .iter()
            .flat_map(|&v| std::iter::repeat_n(hex_float(v), FORMATS.len()))
            .collect();
        let output = match std::process::Command::new("/usr/bin/printf")
            .env("LC_ALL", "C")
            .arg(&format)
            .args(&args)
            .output()
        {
            Ok(output) if output.status.success() => output,
            other => {
                eprintln!("skipping the printf comparison: {other:?}");
                return;
            }
        };
        let text = String::from_utf8(output.stdout).expect("printf output is ASCII");
        for (line, &v) in text.lines().zip(chunk) {
            let mut ours = String::new();
            for (i, f) in FORMATS.iter().enumerate() {
                if i > 0 {
                    ours.push('|');
                }
                match f.strip_suffix('f') {
                    Some(spec) => write_fixed(&mut ours, v, spec[2..].parse().expect("digits")),
                    None => {
                        let precision = f[1..f.len() - 1]
                            .strip_prefix('.')
                            .map_or(6, |p| p.parse().expect("digits"));
                        write_g(&mut ours, v, precision);
                    }
                }
            }
            assert_eq!(ours, line, "value {} ({v:e})", hex_float(v));
        }
        assert_eq!(text.lines().count(), chunk.len());
    }
}

#[test]
fn fast_path_agrees_with_exact_fallback_on_samples() {
    for v in sample_values(20_000) {
        for precision in [1, 2, 6, 7, 14, 15, 16, 17] {
            assert_eq!(
                format_g(v, precision),
                reference_g(v, precision),
                "value {v:e}, %.{precision}g"
            );
        }
    }
}

proptest! {
    #[test]
    fn fast_path_agrees_with_exact_fallback(bits in any::<u64>(), precision in 0usize..=18) {
        let v = f64::from_bits(bits);
        prop_assume!(v.is_finite());
        prop_assert_eq!(format_g(v, precision), reference_g(v, precision));
    }

    #[test]
    fn typical_magnitudes_agree_with_fallback(m in 0.0f64..10.0, e in -12i32..20, precision in 1usize..=17) {
        let v = m * 10f64.powi(e);
        prop_assert_eq!(format_g(v, precision), reference_g(v, precision));
    }

    #[test]
    fn integers_agree_with_fallback(i in any::<i64>(), precision in 1usize..=17) {
        let v = i as f64;
        prop_assert_eq!(format_g(v, precision), reference_g(v, precision));
    }

    #[test]
    fn seventeen_digits_round_trip(bits in any::<u64>()) {
        let v = f64::from_bits(bits);
        prop_assume!(v.is_finite());
        let text = format_g(v, 17);
        let back: f64 = text.parse().expect("parses");
        prop_assert_eq!(back.to_bits(), v.to_bits(), "{}", text);
    }

    #[test]
    fn parses_back_within_precision(bits in any::<u64>(), precision in 1usize..=17) {
        let v = f64::from_bits(bits);
        prop_assume!(v.is_finite() && v != 0.0);
        let text = format_g(v, precision);
        let back: f64 = text.parse().expect("parses");
        // Half a unit in the last printed digit, relative to the leading digit, plus the
        // rounding of the parsed decimal to the nearest double (half an ulp, which matters at
        // 16 and 17 digits: 10085.406512068415 printed with 16 digits).
        let bound = 0.5 * 10f64.powi(1 - precision as i32) * v.abs() + v.abs() * f64::EPSILON;
        prop_assert!((back - v).abs() <= bound || back.is_infinite(), "{} -> {}", v, text);
        prop_assert!(text.len() <= precision + 8, "{}", text);
    }

    #[test]
    fn never_panics(bits in any::<u64>(), precision in 0usize..100, decimals in 0usize..30) {
        let v = f64::from_bits(bits);
        let mut s = String::new();
        write_g(&mut s, v, precision);
        write_fixed(&mut s, v, decimals);
        prop_assert!(s.is_ascii());
    }
}

#[test]
fn swar_digits_match_decimal_formatting() {
    let mut rng = SplitMix(7);
    let samples = (0..100_000u32)
        .chain([99_999_999, 10_000_000, 9_999_999, 12_345_678, 100, 99])
        .chain((0..100_000).map(|_| (rng.next() % 100_000_000) as u32));
    for n in samples {
        let digits: String = swar_digits(n)
            .to_le_bytes()
            .iter()
            .map(|&d| char::from(b'0' + d))
            .collect();
        assert_eq!(digits, format!("{n:08}"));
    }
}
