//! C `printf` number formatting (`%.Ng`, `%.Nf`) written in Rust, without libc.
//!
//! MasterSim writes every number through C++ streams, which behave like C's `printf`
//! conversions. Rust has no `%g`, so this module provides it, digit for digit.
//!
//! The common case (up to 16 digits, values between about 1e-9 and 1e38) runs on exact
//! 128-bit integer arithmetic: the value `m·2^e` is scaled by a power of ten as an exact
//! fraction `q + r/d`, so rounding to the requested number of digits is exact, ties
//! included (ties go to the even digit, as glibc does in the default rounding mode). The
//! digits of `q` are then produced eight at a time with SWAR arithmetic in a `u64` and
//! placed with a few fixed-size stores. Everything else (tiny, huge or subnormal values
//! and precisions above 16) goes through Rust's exact `{:.*e}` formatting, which also
//! rounds the exact binary value half-to-even. Both paths append to the caller's buffer
//! without a heap allocation of their own (except for precisions above 56).
//!
//! Spec: MasterSim reference §0 (number-format notation) and §12.9 (formatting helpers).

use std::fmt::Write as _;

/// Precision of C's plain `%g` (six significant digits), used by `summary.txt` and `stepstats.tsv`.
///
/// Spec: MasterSim reference §12.5.
pub const DEFAULT_PRECISION: usize = 6;

/// Precision MasterSim uses for result values and times (`%.14g`).
///
/// Spec: MasterSim reference §12.1.
pub const VALUE_PRECISION: usize = 14;

/// Largest precision of the fast path: its digits fit two eight-digit SWAR blocks.
const MAX_FAST_PRECISION: usize = 16;

/// Powers of ten, `POW10[k] == 10^k`, for `k` in `0..=38` (all that fit a `u128`).
const POW10: [u128; 39] = {
    let mut table = [1u128; 39];
    let mut k = 1;
    while k < 39 {
        table[k] = table[k - 1] * 10;
        k += 1;
    }
    table
};

/// `POW10_F64[k] == 10^k` exactly, for `k` in `0..=MAX_FAST_PRECISION`.
const POW10_F64: [f64; MAX_FAST_PRECISION + 1] = {
    let mut table = [1.0f64; MAX_FAST_PRECISION + 1];
    let mut k = 1;
    while k <= MAX_FAST_PRECISION {
        table[k] = table[k - 1] * 10.0;
        k += 1;
    }
    table
};

/// The two-digit strings `00` to `99`, concatenated.
const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Appends `value` formatted as C's `%.<precision>g`.
///
/// The shortest of fixed and scientific notation is chosen as C does: scientific when the
/// decimal exponent after rounding to `precision` significant digits is below −4 or at
/// least `precision`; trailing zeros and a trailing decimal point are removed; the exponent
/// carries a sign and at least two digits (`1e+100`, `7e-05`). Negative zero prints `-0`,
/// infinities `inf`/`-inf`, and NaN `nan` (or `-nan` when its sign bit is set, as glibc
/// prints it). A precision of 0 behaves as 1. Rounding is exact, half-to-even on exact ties.
///
/// Units: none, the number is written as given.
///
/// Spec: MasterSim reference §0 (number-format notation); C11 §7.21.6.1 (`g` conversion).
pub fn write_g(out: &mut String, value: f64, precision: usize) {
    write_g_to(out, value, precision);
}

/// Appends `value` formatted as C's `%.<precision>g` to a byte buffer; see [`write_g`].
///
/// Same output as [`write_g`] (always ASCII), but skips the UTF-8 bookkeeping of `String`,
/// which makes it the faster choice for building file lines.
///
/// Spec: MasterSim reference §0 (number-format notation).
pub fn write_g_bytes(out: &mut Vec<u8>, value: f64, precision: usize) {
    write_g_to(out, value, precision);
}

/// A text buffer that ASCII bytes can be appended to.
trait AsciiSink {
    /// Appends `ascii`.
    fn put(&mut self, ascii: &[u8]);

    /// Lets `fill` write up to `N` bytes and appends the first `n` of them when it returns
    /// `Some(n)`; appends nothing and returns `false` when it returns `None`.
    fn put_with<const N: usize>(
        &mut self,
        fill: impl FnOnce(&mut [u8; N]) -> Option<usize>,
    ) -> bool;
}

impl AsciiSink for String {
    fn put(&mut self, ascii: &[u8]) {
        push_ascii(self, ascii);
    }

    fn put_with<const N: usize>(
        &mut self,
        fill: impl FnOnce(&mut [u8; N]) -> Option<usize>,
    ) -> bool {
        let mut buf = [0u8; N];
        match fill(&mut buf) {
            Some(n) => {
                push_ascii(self, &buf[..n]);
                true
            }
            None => false,
        }
    }
}

impl AsciiSink for Vec<u8> {
    fn put(&mut self, ascii: &[u8]) {
        self.extend_from_slice(ascii);
    }

    fn put_with<const N: usize>(
        &mut self,
        fill: impl FnOnce(&mut [u8; N]) -> Option<usize>,
    ) -> bool {
        // Writing in place and truncating avoids a second copy through a stack buffer.
        let len = self.len();
        self.extend_from_slice(&[0u8; N]);
        let tail: &mut [u8; N] = (&mut self[len..])
            .try_into()
            .expect("invariant: exactly N bytes were appended");
        let written = fill(tail);
        self.truncate(len + written.unwrap_or(0));
        written.is_some()
    }
}

/// Room the fast path needs: sign, up to 16 digits and a point, and 16-byte block stores.
const FAST_ROOM: usize = 40;

/// The `%.<precision>g` conversion behind [`write_g`] and [`write_g_bytes`].
fn write_g_to(out: &mut impl AsciiSink, value: f64, precision: usize) {
    let precision = precision.max(1);
    let negative = value.is_sign_negative();
    let a = value.abs();
    if !a.is_finite() || a == 0.0 {
        let text: &[u8] = if a.is_nan() {
            b"-nan"
        } else if a.is_infinite() {
            b"-inf"
        } else {
            b"-0"
        };
        out.put(if negative { text } else { &text[1..] });
        return;
    }
    let sign = usize::from(negative);
    if precision <= MAX_FAST_PRECISION {
        // Integers with at most `precision` digits print as plain integers.
        if a < POW10_F64[precision] {
            // Signed conversions are single instructions on x86-64; `a < 10^16` fits.
            let i = a as i64;
            if i as f64 == a {
                let i = i as u64;
                out.put_with(|buf: &mut [u8; 21]| {
                    buf[0] = b'-';
                    let end = sign + decimal_len(i);
                    ascii_digits(i, &mut buf[sign..end]);
                    Some(end)
                });
                return;
            }
        }
        let written = out.put_with(|buf: &mut [u8; FAST_ROOM]| {
            buf[0] = b'-';
            let text: &mut [u8; FAST_ROOM - 1] = (&mut buf[sign..sign + FAST_ROOM - 1])
                .try_into()
                .expect("invariant: the slice has FAST_ROOM - 1 bytes");
            fast_g(text, a, precision).map(|n| sign + n)
        });
        if written {
            return;
        }
    }
    if negative {
        out.put(b"-");
    }
    write_g_fallback(out, a, precision);
}

/// Returns `value` formatted as C's `%.<precision>g`; see [`write_g`].
///
/// Spec: MasterSim reference §0 (number-format notation).
pub fn format_g(value: f64, precision: usize) -> String {
    let mut s = String::new();
    write_g(&mut s, value, precision);
    s
}

/// Appends `value` formatted as C's `%.<decimals>f` (fixed notation, `decimals` digits after the point).
///
/// No decimal point is written when `decimals` is 0. The sign of negative zero and of
/// negative values that round to zero is kept (`-0.000`), as in C. Non-finite values print
/// as `nan`, `-nan`, `inf` or `-inf`. Rounding is exact, half-to-even on exact ties.
///
/// Units: none, the number is written as given.
///
/// Spec: MasterSim reference §12.9; C11 §7.21.6.1 (`f` conversion).
pub fn write_fixed(out: &mut String, value: f64, decimals: usize) {
    if value.is_nan() {
        out.push_str(if value.is_sign_negative() {
            "-nan"
        } else {
            "nan"
        });
        return;
    }
    if value.is_sign_negative() {
        out.push('-');
    }
    let a = value.abs();
    if a.is_infinite() {
        out.push_str("inf");
        return;
    }
    write!(out, "{a:.decimals$}").expect("invariant: writing to a String cannot fail");
}

/// Returns `value` formatted as C's `%.<decimals>f`; see [`write_fixed`].
///
/// Spec: MasterSim reference §12.9.
pub fn format_fixed(value: f64, decimals: usize) -> String {
    let mut s = String::new();
    write_fixed(&mut s, value, decimals);
    s
}

/// Appends what `write` appends, right-aligned in a field of `width` characters (C `%<width>…`).
///
/// Text longer than `width` is kept whole. `width` counts bytes, as C `printf` and C++
/// `std::setw` do (the same as characters for ASCII text). `write` must only append to the
/// string it is given.
///
/// Spec: MasterSim reference §12.9 (width/alignment padding).
pub fn write_right_aligned(out: &mut String, width: usize, write: impl FnOnce(&mut String)) {
    let start = out.len();
    write(out);
    let len = out.len() - start;
    if len < width {
        const SPACES: &str = "                                ";
        let mut missing = width - len;
        while missing > 0 {
            let n = missing.min(SPACES.len());
            out.insert_str(start, &SPACES[..n]);
            missing -= n;
        }
    }
}

/// Appends what `write` appends, left-aligned in a field of `width` characters (padded with spaces).
///
/// Text longer than `width` is kept whole. `width` counts bytes, as C++ `std::setw` does.
///
/// Spec: MasterSim reference §12.7 (left-aligned `stepstats.tsv` columns).
pub fn write_left_aligned(out: &mut String, width: usize, write: impl FnOnce(&mut String)) {
    let start = out.len();
    write(out);
    let len = out.len() - start;
    for _ in len..width {
        out.push(' ');
    }
}

/// Appends the decimal digits of `value` (C `%llu`).
///
/// Spec: MasterSim reference §12.5 (counters are printed as plain integers).
pub fn write_u64(out: &mut String, value: u64) {
    let mut buf = [0u8; 20];
    let digits = decimal_len(value);
    ascii_digits(value, &mut buf[..digits]);
    push_ascii(out, &buf[..digits]);
}

/// Number of decimal digits of `value` (1 for 0).
fn decimal_len(value: u64) -> usize {
    let mut digits = 1;
    while digits < 20 && value >= POW10[digits] as u64 {
        digits += 1;
    }
    digits
}

/// Appends bytes that are known to be ASCII.
fn push_ascii(out: &mut String, bytes: &[u8]) {
    out.push_str(std::str::from_utf8(bytes).expect("invariant: formatter output is ASCII"));
}

/// Where the discarded fraction `f` (0 <= f < 1) of a scaled value lies.
#[derive(Clone, Copy, Debug)]
struct Rest {
    /// `f > 0`.
    nonzero: bool,
    /// `f == 1/2`.
    half: bool,
    /// `f > 1/2`.
    above_half: bool,
}

/// Rounds the positive finite `a` to `precision` significant digits with exact arithmetic.
///
/// Returns `(significand, exponent)` with `10^(precision-1) <= significand < 10^precision`
/// and `a ≈ significand · 10^(exponent − precision + 1)`, or `None` when the scaled value
/// does not fit 128-bit arithmetic (the caller then uses the slower exact path).
/// Requires `1 <= precision <= MAX_FAST_PRECISION`.
fn exact_digits(a: f64, precision: usize) -> Option<(u64, i32)> {
    let bits = a.to_bits();
    let biased = (bits >> 52) as i32;
    if biased == 0 {
        return None; // subnormal
    }
    let m = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let e2 = biased - 1075; // a == m · 2^e2
    // floor(floor(log2 a) · log10(2)): the decimal exponent or one less.
    let mut exponent = ((biased - 1023) * 78913) >> 18;
    let scale = precision as i32 - 1 - exponent; // a · 10^scale == q + f
    let (q, rest) = if scale >= 0 {
        let num = match scale {
            0..=19 => u128::from(m) * u128::from(POW10[scale as usize] as u64),
            20..=22 => u128::from(m) * POW10[scale as usize],
            _ => return None,
        };
        if e2 >= 0 {
            if e2 as u32 >= num.leading_zeros() {
                return None;
            }
            let exact = Rest {
                nonzero: false,
                half: false,
                above_half: false,
            };
            (num << e2, exact)
        } else {
            let s = (-e2) as u32;
            if s >= 128 {
                return None;
            }
            // The fraction bits, left-aligned: one half is the top bit alone.
            let f = num << (128 - s);
            let half = 1u128 << 127;
            let rest = Rest {
                nonzero: f != 0,
                half: f == half,
                above_half: f > half,
            };
            (num >> s, rest)
        }
    } else {
        let mut den = *POW10.get((-scale) as usize)?;
        let num = if e2 >= 0 {
            if e2 as u32 >= 128 - 53 {
                return None;
            }
            u128::from(m) << e2
        } else {
            let s = (-e2) as u32;
            if s >= den.leading_zeros() {
                return None;
            }
            den <<= s;
            u128::from(m)
        };
        let r = num % den;
        let rest = Rest {
            nonzero: r != 0,
            half: r == den - r,
            above_half: r > den - r,
        };
        (num / den, rest)
    };
    let low = POW10[precision - 1] as u64;
    let high = POW10[precision] as u64;
    if q >= u128::from(high) * 10 {
        return None; // exponent estimate off by more than one: never expected
    }
    let q = q as u64;
    // If the estimate was one too small, q has one digit too many: fold it into the rest.
    // Written with non-short-circuit operators so that the compiler can avoid branches.
    let over = q >= high;
    let tenth = q / 10;
    let digit = q - 10 * tenth;
    let (mut q, round_up) = if over {
        let up = (digit > 5) | ((digit == 5) & (rest.nonzero | (tenth & 1 == 1)));
        (tenth, up)
    } else {
        (q, rest.above_half | (rest.half & (q & 1 == 1)))
    };
    exponent += i32::from(over);
    if q < low {
        return None; // exponent estimate too large: never expected
    }
    q += u64::from(round_up);
    if q == high {
        q = low;
        exponent += 1;
    }
    Some((q, exponent))
}

/// Writes `%.<precision>g` of the positive normal `a` at the start of `buf`, using [`exact_digits`].
///
/// Returns the length of the text, or `None` (with `buf` partly overwritten) when the
/// value is outside the fast path's range. Bytes after the text may be overwritten too.
/// Requires `1 <= precision <= MAX_FAST_PRECISION`.
fn fast_g(buf: &mut [u8; FAST_ROOM - 1], a: f64, precision: usize) -> Option<usize> {
    let (q, exponent) = exact_digits(a, precision)?;
    // Sixteen digits of `q`, zero-padded on the left, first digit in the lowest byte.
    let raw = u128::from(swar_digits((q / 100_000_000) as u32))
        | (u128::from(swar_digits((q % 100_000_000) as u32)) << 64);
    // Trailing zero digits are the leading zero bytes; `q > 0` keeps at least one digit.
    let significant = precision - (raw.leading_zeros() / 8) as usize;
    // The `precision` digits as ASCII in the low bytes, zero bytes above.
    let digits = (raw + u128::from_le_bytes([b'0'; 16])) >> (8 * (16 - precision));
    let store = |buf: &mut [u8; FAST_ROOM - 1], at: usize, block: u128| {
        buf[at..at + 16].copy_from_slice(&block.to_le_bytes());
    };
    let len = if exponent < -4 || exponent >= precision as i32 {
        // d.ddde±XX
        buf[0] = digits as u8;
        buf[1] = b'.';
        store(buf, 2, digits >> 8);
        let mut end = if significant == 1 { 1 } else { 1 + significant };
        buf[end] = b'e';
        buf[end + 1] = if exponent < 0 { b'-' } else { b'+' };
        end += 2;
        let e = exponent.unsigned_abs() as usize;
        if e >= 100 {
            buf[end] = b'0' + (e / 100) as u8;
            end += 1;
        }
        buf[end..end + 2].copy_from_slice(&DIGIT_PAIRS[e % 100 * 2..e % 100 * 2 + 2]);
        end + 2
    } else if exponent >= 0 {
        let int_len = exponent as usize + 1;
        if significant <= int_len {
            store(buf, 0, digits);
            int_len
        } else {
            // Split the digits after the integer part and store the halves around the point.
            let split = 8 * int_len as u32;
            store(buf, 0, digits & ((1u128 << split) - 1));
            buf[int_len] = b'.';
            store(buf, int_len + 1, digits >> split);
            1 + significant
        }
    } else {
        // 0.000ddd
        let lead = exponent.unsigned_abs() as usize + 1;
        buf[..8].copy_from_slice(b"0.000000");
        store(buf, lead, digits);
        lead + significant
    };
    Some(len)
}

/// The eight decimal digits of `n < 10^8` as byte values 0–9, the first digit in the lowest byte.
///
/// SWAR ("SIMD within a register"): the number is split into two four-digit halves in the
/// two 32-bit lanes, each half into two-digit quarters in 16-bit lanes, and those into
/// single digits in bytes. The divisions by 100 and 10 are multiplications by
/// `10486 / 2^20` and `103 / 2^10`, exact for inputs below 10^4 and 100 respectively.
fn swar_digits(n: u32) -> u64 {
    let n = u64::from(n);
    let halves = (n / 10_000) | ((n % 10_000) << 32);
    let high_pairs = ((halves * 10_486) >> 20) & 0x0000_007F_0000_007F;
    let pairs = high_pairs | ((halves - 100 * high_pairs) << 16);
    let tens = ((pairs * 103) >> 10) & 0x000F_000F_000F_000F;
    tens | ((pairs - 10 * tens) << 8)
}

/// Fills `buf` with the last `buf.len()` decimal digits of `value`, zero-padded on the left.
fn ascii_digits(mut value: u64, buf: &mut [u8]) {
    let mut end = buf.len();
    // Eight digits at a time in 32-bit arithmetic, two digits per table look-up.
    while end >= 8 {
        let mut chunk = (value % 100_000_000) as u32;
        value /= 100_000_000;
        for _ in 0..4 {
            let pair = (chunk % 100) as usize * 2;
            chunk /= 100;
            buf[end - 2..end].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
            end -= 2;
        }
    }
    let mut rest = value as u32;
    while end >= 2 {
        let pair = (rest % 100) as usize * 2;
        rest /= 100;
        buf[end - 2..end].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        end -= 2;
    }
    if end == 1 {
        buf[0] = b'0' + (rest % 10) as u8;
    }
}

/// Lays out significant `digits` with decimal exponent `exponent` as `%.<precision>g` does.
///
/// `buf` must hold at least `precision + 10` bytes; returns the number of bytes written.
fn layout_g(buf: &mut [u8], digits: &[u8], exponent: i32, precision: usize) -> usize {
    let mut n = digits.len();
    while n > 1 && digits[n - 1] == b'0' {
        n -= 1;
    }
    let digits = &digits[..n];
    let mut len = 0;
    let mut put = |bytes: &[u8]| {
        buf[len..len + bytes.len()].copy_from_slice(bytes);
        len += bytes.len();
    };
    if exponent < -4 || exponent >= precision as i32 {
        put(&digits[..1]);
        if n > 1 {
            put(b".");
            put(&digits[1..]);
        }
        put(if exponent < 0 { b"e-" } else { b"e+" });
        let e = exponent.unsigned_abs();
        if e >= 100 {
            put(&[b'0' + (e / 100) as u8]);
        }
        put(&[b'0' + (e / 10 % 10) as u8, b'0' + (e % 10) as u8]);
    } else if exponent >= 0 {
        let int_len = exponent as usize + 1;
        if n <= int_len {
            put(digits);
            for _ in n..int_len {
                put(b"0");
            }
        } else {
            put(&digits[..int_len]);
            put(b".");
            put(&digits[int_len..]);
        }
    } else {
        put(b"0.");
        for _ in 1..exponent.unsigned_abs() {
            put(b"0");
        }
        put(digits);
    }
    len
}

/// A fixed-capacity text buffer on the stack; writing more than `N` bytes fails.
struct StackBuf<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> StackBuf<N> {
    fn new() -> Self {
        StackBuf {
            bytes: [0; N],
            len: 0,
        }
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl<const N: usize> std::fmt::Write for StackBuf<N> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Precisions up to this many digits are formatted by the fallback without heap allocation.
const FALLBACK_STACK_DIGITS: usize = 56;

/// `%.<precision>g` of the positive finite `a` through Rust's exact `{:.*e}` formatting.
fn write_g_fallback(out: &mut impl AsciiSink, a: f64, precision: usize) {
    const N: usize = FALLBACK_STACK_DIGITS + 8;
    if precision > FALLBACK_STACK_DIGITS {
        let sci = format!("{:.*e}", precision - 1, a);
        let mut buf = vec![0u8; precision + 10];
        let len = layout_scientific(&mut buf, sci.as_bytes(), precision);
        out.put(&buf[..len]);
        return;
    }
    let mut sci = StackBuf::<N>::new();
    write!(sci, "{:.*e}", precision - 1, a)
        .expect("invariant: precision + 6 bytes fit the stack buffer");
    let mut buf = [0u8; N + 10];
    let len = layout_scientific(&mut buf, sci.as_bytes(), precision);
    out.put(&buf[..len]);
}

/// Lays out Rust `LowerExp` text (`d.ddde-5`, `de7`) as `%.<precision>g` in `buf`.
///
/// `buf` must hold at least `precision + 10` bytes; returns the number of bytes written.
fn layout_scientific(buf: &mut [u8], sci: &[u8], precision: usize) -> usize {
    let e_pos = sci
        .iter()
        .position(|&c| c == b'e')
        .expect("invariant: LowerExp output has an exponent");
    let exponent: i32 = std::str::from_utf8(&sci[e_pos + 1..])
        .ok()
        .and_then(|s| s.parse().ok())
        .expect("invariant: LowerExp exponent is an integer");
    // Drop the point: the first digit is followed by the others (if any).
    let mantissa = &sci[..e_pos];
    let mut digits = StackBuf::<{ FALLBACK_STACK_DIGITS + 1 }>::new();
    let heap_digits: Vec<u8>;
    let digits: &[u8] = if mantissa.len() <= FALLBACK_STACK_DIGITS + 1 {
        for &c in mantissa.iter().filter(|c| c.is_ascii_digit()) {
            digits.bytes[digits.len] = c;
            digits.len += 1;
        }
        digits.as_bytes()
    } else {
        heap_digits = mantissa
            .iter()
            .copied()
            .filter(u8::is_ascii_digit)
            .collect();
        &heap_digits
    };
    layout_g(buf, digits, exponent, precision)
}

#[cfg(test)]
mod tests;
