//! Requests and responses in the shared region, in the encoding of `helper/protocol.h`:
//! little-endian scalars, arrays as `u32 count` + elements, strings as `u32 length` + bytes
//! (`NULL_STRING` for a NULL pointer), FMI 3.0 binaries as count + per element length + bytes.
//!
//! Writing never fails on the spot: a request that outgrows the request area is remembered and
//! reported as [`Error::TooLarge`] by `Helper::round_trip`. Every read of a response is
//! bounds-checked: a truncated or malformed response is an [`Error::Protocol`], never a panic.

use crate::protocol::NULL_STRING;
use crate::{Error, Result};

/// A fixed-size value of the encoding: the integers, `f32`, `f64` and `bool` (one byte).
pub trait Scalar: Copy + Default {
    /// Size in bytes.
    const SIZE: usize;
    /// Writes the little-endian bytes into `out` (`SIZE` bytes long).
    fn put(self, out: &mut [u8]);
    /// Reads the value from `bytes` (`SIZE` bytes long).
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                let mut raw = [0u8; std::mem::size_of::<$t>()];
                raw.copy_from_slice(bytes);
                <$t>::from_le_bytes(raw)
            }
        }
    )*};
}
scalar!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// FMI 3.0 `fmi3Boolean`: one byte, 0 or 1 (any other byte reads as `true`).
impl Scalar for bool {
    const SIZE: usize = 1;
    fn put(self, out: &mut [u8]) {
        out[0] = u8::from(self);
    }
    fn get(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
}

/// Writes calls and their arguments into the request area of a helper's shared region.
///
/// Obtained from `Helper::request` (a new request) or `Helper::append` (more calls for the
/// request written so far). Every method returns `&mut Self` for chaining.
#[derive(Debug)]
pub struct Request<'a> {
    pub(crate) area: &'a mut [u8],
    pub(crate) len: &'a mut usize,
    /// Bytes the request needed when it outgrew the area (reported by the round trip).
    pub(crate) overflow: &'a mut Option<usize>,
}

impl Request<'_> {
    fn reserve(&mut self, bytes: usize) -> Option<&mut [u8]> {
        let start = *self.len;
        let end = start.saturating_add(bytes);
        if self.overflow.is_some() || end > self.area.len() {
            *self.overflow = Some(end.max(self.overflow.unwrap_or(0)));
            return None;
        }
        *self.len = end;
        Some(&mut self.area[start..end])
    }

    fn count(&mut self, count: usize) -> &mut Self {
        match u32::try_from(count) {
            Ok(count) => self.scalar(count),
            Err(_) => {
                *self.overflow = Some(usize::MAX);
                self
            }
        }
    }

    /// Starts a call: its function id (`protocol::FN_*`).
    pub fn call(&mut self, function_id: u32) -> &mut Self {
        self.scalar(function_id)
    }

    /// One scalar argument.
    pub fn scalar<T: Scalar>(&mut self, value: T) -> &mut Self {
        if let Some(out) = self.reserve(T::SIZE) {
            value.put(out);
        }
        self
    }

    /// A `u8` (FMI 3.0 Boolean) argument.
    pub fn u8(&mut self, value: u8) -> &mut Self {
        self.scalar(value)
    }

    /// A `u32` argument.
    pub fn u32(&mut self, value: u32) -> &mut Self {
        self.scalar(value)
    }

    /// An `i32` argument (FMI 2.0 Integer and Boolean, enumerations).
    pub fn i32(&mut self, value: i32) -> &mut Self {
        self.scalar(value)
    }

    /// A `u64` argument (sizes, FMU state handles).
    pub fn u64(&mut self, value: u64) -> &mut Self {
        self.scalar(value)
    }

    /// An `f64` argument (times in seconds, Real/Float64 values).
    pub fn f64(&mut self, value: f64) -> &mut Self {
        self.scalar(value)
    }

    /// An array argument: `u32` count, then the elements.
    pub fn array<T: Scalar>(&mut self, values: &[T]) -> &mut Self {
        self.count(values.len());
        if let Some(out) = self.reserve(values.len().saturating_mul(T::SIZE)) {
            for (chunk, value) in out.chunks_exact_mut(T::SIZE).zip(values) {
                value.put(chunk);
            }
        }
        self
    }

    /// Value references (`u32[]`).
    pub fn u32s(&mut self, values: &[u32]) -> &mut Self {
        self.array(values)
    }

    /// `f64[]`.
    pub fn f64s(&mut self, values: &[f64]) -> &mut Self {
        self.array(values)
    }

    /// Bytes (`u8[]`, e.g. a serialized FMU state).
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.array(bytes)
    }

    /// A string (bytes without NUL), or `None` for a NULL pointer.
    pub fn string(&mut self, value: Option<&[u8]>) -> &mut Self {
        match value {
            None => self.scalar(NULL_STRING),
            Some(bytes) => {
                self.count(bytes.len());
                if let Some(out) = self.reserve(bytes.len()) {
                    out.copy_from_slice(bytes);
                }
                self
            }
        }
    }

    /// `str[]`: a count, then each string (`None` for NULL).
    pub fn strings<'s>(
        &mut self,
        values: impl ExactSizeIterator<Item = Option<&'s [u8]>>,
    ) -> &mut Self {
        self.count(values.len());
        for value in values {
            self.string(value);
        }
        self
    }

    /// `bin[]` (FMI 3.0 binaries): a count, then each as length + bytes.
    pub fn binaries<'s>(&mut self, values: impl ExactSizeIterator<Item = &'s [u8]>) -> &mut Self {
        self.count(values.len());
        for value in values {
            self.string(Some(value));
        }
        self
    }

    /// Bytes written so far (all calls of this request).
    pub fn len(&self) -> usize {
        *self.len
    }

    /// Whether no call was written yet.
    pub fn is_empty(&self) -> bool {
        *self.len == 0
    }
}

/// One log message of the FMU (or of the helper, category `mastersim-helper`).
#[derive(Debug, Clone, PartialEq)]
pub struct LogRecord {
    /// The FMI status the FMU logged with (`fmi2Status` / `fmi3Status`).
    pub status: i32,
    /// The log category; `None` when the FMU passed NULL.
    pub category: Option<String>,
    /// The message (formatted; invalid UTF-8 replaced).
    pub message: String,
}

/// Reads a response: for each answered call its status, then its outputs in order; the log
/// records at any time.
#[derive(Debug)]
pub struct Response<'a> {
    /// The calls' part of the response area.
    pub(crate) calls: &'a [u8],
    /// The log part.
    pub(crate) log: &'a [u8],
    pub(crate) answered: u32,
    pub(crate) position: usize,
}

impl<'a> Response<'a> {
    /// Reads a response from the response area: `calls` bytes of call results, then the log
    /// records at `log_offset` (both checked by the caller against the area).
    pub(crate) fn new(calls: &'a [u8], log: &'a [u8], answered: u32) -> Self {
        Response {
            calls,
            log,
            answered,
            position: 0,
        }
    }

    /// How many calls the helper answered (it stops after a status ≥ fmiError).
    pub fn answered(&self) -> u32 {
        self.answered
    }

    /// True when every byte of the calls' part was read: after a call the helper refused
    /// itself (status fmiError and no outputs, see `protocol.h`), the response ends at its
    /// status.
    pub fn at_end(&self) -> bool {
        self.position == self.calls.len()
    }

    fn take(&mut self, bytes: usize) -> Result<&'a [u8]> {
        let end = self
            .position
            .checked_add(bytes)
            .filter(|end| *end <= self.calls.len());
        let Some(end) = end else {
            return Err(Error::Protocol(format!(
                "response truncated: {bytes} bytes needed at offset {} of {}",
                self.position,
                self.calls.len()
            )));
        };
        let slice = &self.calls[self.position..end];
        self.position = end;
        Ok(slice)
    }

    /// The status of the next call (an `fmi2Status` / `fmi3Status`).
    pub fn status(&mut self) -> Result<i32> {
        self.scalar()
    }

    /// One scalar output.
    pub fn scalar<T: Scalar>(&mut self) -> Result<T> {
        Ok(T::get(self.take(T::SIZE)?))
    }

    /// A `u8` output (FMI 3.0 Boolean).
    pub fn u8(&mut self) -> Result<u8> {
        self.scalar()
    }

    /// A `u32` output.
    pub fn u32(&mut self) -> Result<u32> {
        self.scalar()
    }

    /// An `i32` output.
    pub fn i32(&mut self) -> Result<i32> {
        self.scalar()
    }

    /// A `u64` output (sizes, FMU state handles).
    pub fn u64(&mut self) -> Result<u64> {
        self.scalar()
    }

    /// An `f64` output.
    pub fn f64(&mut self) -> Result<f64> {
        self.scalar()
    }

    fn count(&mut self) -> Result<usize> {
        Ok(self.u32()? as usize)
    }

    /// An array output into `out`, whose length must be the array's count.
    pub fn array_into<T: Scalar>(&mut self, out: &mut [T]) -> Result<()> {
        let count = self.count()?;
        if count != out.len() {
            return Err(Error::Protocol(format!(
                "array of {count} elements where {} were expected",
                out.len()
            )));
        }
        let bytes = self.take(count.saturating_mul(T::SIZE))?;
        for (value, chunk) in out.iter_mut().zip(bytes.chunks_exact(T::SIZE)) {
            *value = T::get(chunk);
        }
        Ok(())
    }

    /// An array output's elements as encoded (`u32` count, then `count` elements of
    /// `element_size` bytes, little-endian), without copying them.
    pub fn array_bytes(&mut self, element_size: usize) -> Result<&'a [u8]> {
        let count = self.count()?;
        self.take(count.saturating_mul(element_size))
    }

    /// An array output.
    pub fn array<T: Scalar>(&mut self) -> Result<Vec<T>> {
        let count = self.count()?;
        let bytes = self.take(count.saturating_mul(T::SIZE))?;
        Ok(bytes.chunks_exact(T::SIZE).map(T::get).collect())
    }

    /// A string output (bytes without NUL), `None` for NULL.
    pub fn string(&mut self) -> Result<Option<&'a [u8]>> {
        let len = self.u32()?;
        if len == NULL_STRING {
            return Ok(None);
        }
        self.take(len as usize).map(Some)
    }

    /// `str[]`.
    pub fn strings(&mut self) -> Result<Vec<Option<&'a [u8]>>> {
        let count = self.count()?;
        // Each string takes at least 4 bytes: a count beyond that is a lie, not an allocation.
        if count > self.calls.len() / 4 {
            return Err(Error::Protocol(format!("string array of {count} elements")));
        }
        (0..count).map(|_| self.string()).collect()
    }

    /// `bin[]` (FMI 3.0 binaries).
    pub fn binaries(&mut self) -> Result<Vec<&'a [u8]>> {
        self.strings()?
            .into_iter()
            .map(|b| b.ok_or_else(|| Error::Protocol("NULL binary".into())))
            .collect()
    }

    /// The log records of all calls of the request, in the order they were logged.
    pub fn log_records(&self) -> Result<Vec<LogRecord>> {
        let mut reader = Response::new(self.log, &[], 0);
        let count = reader.count()?;
        if count > self.log.len() / 12 {
            return Err(Error::Protocol(format!("{count} log records")));
        }
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        (0..count)
            .map(|_| {
                let status = reader.i32()?;
                let category = reader.string()?.map(text);
                let message = reader.string()?.map(text).unwrap_or_default();
                Ok(LogRecord {
                    status,
                    category,
                    message,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message of the helper's `--self-test` (helper/fmu_host.c): i32 -1, f64[] {1.5, -2},
    /// str "ab", NULL str, bool true, u64 0x0102030405060708.
    const SELF_TEST: [u8; 43] = [
        0xff, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8,
        0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x02, 0x00, 0x00, 0x00, 0x61, 0x62,
        0xff, 0xff, 0xff, 0xff, 0x01, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
    ];

    #[test]
    fn encoding_matches_the_helper() {
        let mut area = [0u8; 64];
        let (mut len, mut overflow) = (0, None);
        let mut request = Request {
            area: &mut area,
            len: &mut len,
            overflow: &mut overflow,
        };
        request
            .i32(-1)
            .f64s(&[1.5, -2.0])
            .string(Some(b"ab"))
            .string(None);
        request.scalar(true).u64(0x0102_0304_0506_0708);
        assert_eq!(&area[..len], &SELF_TEST[..]);
        assert_eq!(overflow, None);

        let mut response = Response::new(&SELF_TEST, &[], 1);
        assert_eq!(response.status().unwrap(), -1);
        assert_eq!(response.array::<f64>().unwrap(), vec![1.5, -2.0]);
        assert_eq!(response.string().unwrap(), Some(&b"ab"[..]));
        assert_eq!(response.string().unwrap(), None);
        assert!(response.scalar::<bool>().unwrap());
        assert_eq!(response.u64().unwrap(), 0x0102_0304_0506_0708);
        assert!(
            matches!(response.u8(), Err(Error::Protocol(_))),
            "reading past the end"
        );
    }

    #[test]
    fn a_request_that_outgrows_the_area_is_remembered() {
        let mut area = [0u8; 8];
        let (mut len, mut overflow) = (0, None);
        let mut request = Request {
            area: &mut area,
            len: &mut len,
            overflow: &mut overflow,
        };
        request.u32(1).f64s(&[1.0]);
        assert_eq!(overflow, Some(16));
    }

    #[test]
    fn malformed_responses_are_protocol_errors_not_panics() {
        // A count larger than the bytes that follow.
        let lying = [0xff, 0xff, 0xff, 0x7f, 0x00];
        assert!(Response::new(&lying, &[], 1).array::<f64>().is_err());
        assert!(Response::new(&lying, &[], 1).strings().is_err());
        assert!(Response::new(&lying, &[], 1).string().is_err());
        let mut wrong_count = Response::new(&[0x02, 0, 0, 0], &[], 1);
        assert!(wrong_count.array_into(&mut [0.0f64; 3]).is_err());
        // Log records cut short.
        let log = [0x01, 0, 0, 0, 0x00, 0, 0, 0, 0x05, 0, 0, 0, b'a'];
        assert!(Response::new(&[], &log, 0).log_records().is_err());
        assert!(Response::new(&[], &[], 0).log_records().is_err());
        // Every prefix of a valid message reads as an error, never a panic.
        for end in 0..SELF_TEST.len() {
            let mut response = Response::new(&SELF_TEST[..end], &[], 1);
            let complete = response.status().is_ok()
                && response.array::<f64>().is_ok()
                && response.string().is_ok()
                && response.string().is_ok()
                && response.scalar::<bool>().is_ok()
                && response.u64().is_ok();
            assert!(!complete, "prefix of {end} bytes");
        }
    }
}
