//! The byte format of serialized FMU states, written by `fmi2SerializeFMUstate` and read by
//! `fmi2DeSerializeFMUstate`. Pure byte handling: [`crate::instance`] supplies the saved
//! state's fields and the model's [`Model::save_state`](crate::Model::save_state) values.
//!
//! All numbers are little-endian; `g` is the length of the GUID in bytes and `n` the number of
//! model values:
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 8 | magic `MSIMFMUS` (ASCII) |
//! | 8 | 4 | format version, `u32`, currently 1 |
//! | 12 | 4 | `g`, `u32` |
//! | 16 | `g` | the GUID given at instantiation, UTF-8 |
//! | 16 + g | 1 | phase when saved: 0 instantiated, 1 initialization, 2 step mode, 3 terminated, 4 error |
//! | 17 + g | 1 | terminate requested by the model: 0 or 1 |
//! | 18 + g | 1 | status of the last step: 0 OK, 1 Warning, 2 Discard |
//! | 19 + g | 1 | reserved, 0 |
//! | 20 + g | 8 | start time (s), `f64` |
//! | 28 + g | 8 | FMU time (s), `f64` |
//! | 36 + g | 4 | `n`, `u32` |
//! | 40 + g | 8·n | the model's values, `f64` each |
//!
//! Total: `40 + g + 8·n` bytes. Reading checks the magic, the version, the GUID, every flag
//! byte, and that the length is exactly the one the header announces.
//!
//! Spec: FMI 2.0.2 §2.1.8 (serialization of the FMU state; the format is the FMU's own).

use crate::phase::{Phase, Status};

/// The first eight bytes of every serialized state.
pub(crate) const MAGIC: [u8; 8] = *b"MSIMFMUS";

/// The format version written, and the only one read.
pub(crate) const VERSION: u32 = 1;

/// Bytes of a serialized state besides the GUID and the model values.
const FIXED_LEN: usize = 40;

/// The fields of a saved FMU state that the export layer keeps next to the model.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fields<'a> {
    /// The GUID of the FMU.
    pub(crate) guid: &'a str,
    /// The phase in which the state was saved.
    pub(crate) phase: Phase,
    /// Start time (s).
    pub(crate) start_time: f64,
    /// FMU time (s).
    pub(crate) time: f64,
    /// Whether the model asked to end the simulation.
    pub(crate) terminate_requested: bool,
    /// Status of the last step.
    pub(crate) last_step: Status,
}

/// Why bytes could not be written or read as a serialized state.
#[derive(Debug, PartialEq, thiserror::Error)]
pub(crate) enum FormatError {
    #[error(
        "the buffer has {given} bytes, the state needs exactly {needed} (see fmi2SerializedFMUstateSize)"
    )]
    BufferSize { given: usize, needed: usize },
    #[error("the model has too many values to serialize: {values}")]
    TooManyValues { values: usize },
    #[error("the {len} bytes end inside the {field}")]
    Truncated { len: usize, field: &'static str },
    #[error("magic bytes {found:02x?} are not those of this FMU's format (\"MSIMFMUS\")")]
    Magic { found: [u8; 8] },
    #[error("format version {found}, this FMU reads version {VERSION}")]
    Version { found: u32 },
    #[error("the GUID is not UTF-8")]
    GuidNotUtf8,
    #[error("the state was saved by the FMU with GUID {found}, this instance has GUID {expected}")]
    OtherFmu { found: String, expected: String },
    #[error("invalid {field} byte {value}")]
    Field { field: &'static str, value: u8 },
    #[error("{len} bytes, but the header announces {expected}")]
    Length { len: usize, expected: usize },
}

/// The length (bytes) of a serialized state with a GUID of `guid_len` bytes and `values`
/// model values.
///
/// # Errors
/// [`FormatError::TooManyValues`] if either does not fit the format's `u32` counts.
pub(crate) fn encoded_len(guid_len: usize, values: usize) -> Result<usize, FormatError> {
    if u32::try_from(guid_len).is_err() || u32::try_from(values).is_err() {
        return Err(FormatError::TooManyValues { values });
    }
    values
        .checked_mul(8)
        .and_then(|v| v.checked_add(FIXED_LEN + guid_len))
        .ok_or(FormatError::TooManyValues { values })
}

fn phase_code(phase: Phase) -> u8 {
    match phase {
        Phase::Instantiated => 0,
        Phase::InitializationMode => 1,
        Phase::StepMode => 2,
        Phase::Terminated => 3,
        Phase::Error => 4,
    }
}

fn phase_from(code: u8) -> Option<Phase> {
    Some(match code {
        0 => Phase::Instantiated,
        1 => Phase::InitializationMode,
        2 => Phase::StepMode,
        3 => Phase::Terminated,
        4 => Phase::Error,
        _ => return None,
    })
}

fn status_code(status: Status) -> u8 {
    match status {
        Status::Ok => 0,
        Status::Warning => 1,
        Status::Discard => 2,
    }
}

fn status_from(code: u8) -> Option<Status> {
    Some(match code {
        0 => Status::Ok,
        1 => Status::Warning,
        2 => Status::Discard,
        _ => return None,
    })
}

/// Writes the state into `out`, whose length must be exactly [`encoded_len`].
///
/// # Errors
/// [`FormatError::BufferSize`] for a buffer of another length (nothing is written);
/// [`FormatError::TooManyValues`] as for [`encoded_len`].
pub(crate) fn encode(
    fields: &Fields<'_>,
    values: &[f64],
    out: &mut [u8],
) -> Result<(), FormatError> {
    let needed = encoded_len(fields.guid.len(), values.len())?;
    if out.len() != needed {
        return Err(FormatError::BufferSize {
            given: out.len(),
            needed,
        });
    }
    // Both counts fit in u32: checked by `encoded_len`.
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
    let mut bytes = Vec::with_capacity(needed);
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&count(fields.guid.len()));
    bytes.extend_from_slice(fields.guid.as_bytes());
    bytes.extend_from_slice(&[
        phase_code(fields.phase),
        u8::from(fields.terminate_requested),
        status_code(fields.last_step),
        0,
    ]);
    bytes.extend_from_slice(&fields.start_time.to_le_bytes());
    bytes.extend_from_slice(&fields.time.to_le_bytes());
    bytes.extend_from_slice(&count(values.len()));
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    debug_assert_eq!(bytes.len(), needed);
    out.copy_from_slice(&bytes);
    Ok(())
}

/// Reads fields from the front of the bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], FormatError> {
        let taken = self
            .pos
            .checked_add(n)
            .and_then(|end| self.bytes.get(self.pos..end))
            .ok_or(FormatError::Truncated {
                len: self.bytes.len(),
                field,
            })?;
        self.pos += n;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], FormatError> {
        let taken = self.take(N, field)?;
        // `take` returned exactly N bytes.
        let mut array = [0; N];
        array.copy_from_slice(taken);
        Ok(array)
    }

    fn u32(&mut self, field: &'static str) -> Result<u32, FormatError> {
        self.array(field).map(u32::from_le_bytes)
    }

    fn f64(&mut self, field: &'static str) -> Result<f64, FormatError> {
        self.array(field).map(f64::from_le_bytes)
    }

    fn u8(&mut self, field: &'static str) -> Result<u8, FormatError> {
        self.array::<1>(field).map(|[b]| b)
    }
}

/// Reads a serialized state of the FMU with GUID `expected_guid`: its fields and the model's
/// values. Never panics, whatever the bytes.
///
/// # Errors
/// [`FormatError::Magic`], [`FormatError::Version`], [`FormatError::Truncated`],
/// [`FormatError::GuidNotUtf8`], [`FormatError::OtherFmu`], [`FormatError::Field`] or
/// [`FormatError::Length`], checked in the order of the fields.
pub(crate) fn decode<'a>(
    bytes: &'a [u8],
    expected_guid: &str,
) -> Result<(Fields<'a>, Vec<f64>), FormatError> {
    let mut r = Reader { bytes, pos: 0 };
    let magic = r.array::<8>("magic bytes")?;
    if magic != MAGIC {
        return Err(FormatError::Magic { found: magic });
    }
    let version = r.u32("format version")?;
    if version != VERSION {
        return Err(FormatError::Version { found: version });
    }
    let guid_len = r.u32("GUID length")?;
    let guid = r.take(guid_len as usize, "GUID")?;
    let guid = std::str::from_utf8(guid).map_err(|_| FormatError::GuidNotUtf8)?;
    if guid != expected_guid {
        return Err(FormatError::OtherFmu {
            found: guid.to_owned(),
            expected: expected_guid.to_owned(),
        });
    }
    let field = |field: &'static str, value: u8| FormatError::Field { field, value };
    let code = r.u8("phase")?;
    let phase = phase_from(code).ok_or(field("phase", code))?;
    let code = r.u8("terminate flag")?;
    let terminate_requested = match code {
        0 => false,
        1 => true,
        _ => return Err(field("terminate flag", code)),
    };
    let code = r.u8("step status")?;
    let last_step = status_from(code).ok_or(field("step status", code))?;
    let code = r.u8("reserved byte")?;
    if code != 0 {
        return Err(field("reserved", code));
    }
    let start_time = r.f64("start time")?;
    let time = r.f64("FMU time")?;
    let count = r.u32("value count")? as usize;
    let expected = r.pos.saturating_add(count.saturating_mul(8));
    if bytes.len() != expected {
        return Err(FormatError::Length {
            len: bytes.len(),
            expected,
        });
    }
    let values = (0..count)
        .map(|_| r.f64("model values"))
        .collect::<Result<Vec<_>, _>>()?;
    let fields = Fields {
        guid,
        phase,
        start_time,
        time,
        terminate_requested,
        last_step,
    };
    Ok((fields, values))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields() -> Fields<'static> {
        Fields {
            guid: "{g}",
            phase: Phase::StepMode,
            start_time: 0.5,
            time: 1.25,
            terminate_requested: true,
            last_step: Status::Discard,
        }
    }

    fn encoded(values: &[f64]) -> Vec<u8> {
        let f = fields();
        let mut out = vec![0; encoded_len(f.guid.len(), values.len()).expect("length")];
        encode(&f, values, &mut out).expect("encode");
        out
    }

    #[test]
    fn layout_is_as_documented() {
        let bytes = encoded(&[1.5, -0.0]);
        assert_eq!(bytes.len(), 40 + 3 + 16);
        assert_eq!(&bytes[..8], b"MSIMFMUS");
        assert_eq!(&bytes[8..12], &1u32.to_le_bytes());
        assert_eq!(&bytes[12..16], &3u32.to_le_bytes());
        assert_eq!(&bytes[16..19], b"{g}");
        assert_eq!(&bytes[19..23], &[2, 1, 2, 0]);
        assert_eq!(&bytes[23..31], &0.5f64.to_le_bytes());
        assert_eq!(&bytes[31..39], &1.25f64.to_le_bytes());
        assert_eq!(&bytes[39..43], &2u32.to_le_bytes());
        assert_eq!(&bytes[43..51], &1.5f64.to_le_bytes());
        assert_eq!(&bytes[51..59], &(-0.0f64).to_le_bytes());
    }

    #[test]
    fn roundtrip_keeps_every_bit() {
        let values = [f64::NAN, f64::INFINITY, -0.0, 1e-300, 7.0];
        let bytes = encoded(&values);
        let (f, back) = decode(&bytes, "{g}").expect("decode");
        assert_eq!(f, fields());
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&values));
        let (_, empty) = decode(&encoded(&[]), "{g}").expect("no model values");
        assert!(empty.is_empty());
    }

    #[test]
    fn encode_needs_the_exact_buffer_size() {
        let f = fields();
        let mut short = vec![0; 42];
        assert_eq!(
            encode(&f, &[], &mut short),
            Err(FormatError::BufferSize {
                given: 42,
                needed: 43
            })
        );
        assert!(short.iter().all(|&b| b == 0), "nothing written");
        assert!(encode(&f, &[], &mut [0; 44]).is_err());
    }

    #[test]
    fn decode_refuses_bad_bytes_without_panicking() {
        let good = encoded(&[1.0, 2.0]);
        let mut magic = good.clone();
        magic[0] = b'X';
        assert!(matches!(
            decode(&magic, "{g}"),
            Err(FormatError::Magic { .. })
        ));
        let mut version = good.clone();
        version[8] = 2;
        assert_eq!(
            decode(&version, "{g}"),
            Err(FormatError::Version { found: 2 })
        );
        assert!(matches!(
            decode(&good, "{h}"),
            Err(FormatError::OtherFmu { .. })
        ));
        let mut phase = good.clone();
        phase[19] = 5;
        assert!(matches!(
            decode(&phase, "{g}"),
            Err(FormatError::Field { field: "phase", .. })
        ));
        let mut flag = good.clone();
        flag[20] = 2;
        assert!(matches!(
            decode(&flag, "{g}"),
            Err(FormatError::Field { .. })
        ));
        let mut status = good.clone();
        status[21] = 3;
        assert!(matches!(
            decode(&status, "{g}"),
            Err(FormatError::Field { .. })
        ));
        let mut reserved = good.clone();
        reserved[22] = 1;
        assert!(matches!(
            decode(&reserved, "{g}"),
            Err(FormatError::Field { .. })
        ));
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(
            decode(&longer, "{g}"),
            Err(FormatError::Length {
                len: good.len() + 1,
                expected: good.len()
            })
        );
        assert!(matches!(
            decode(&good[..good.len() - 1], "{g}"),
            Err(FormatError::Length { .. })
        ));
        let mut count = good.clone();
        count[39..43].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            decode(&count, "{g}"),
            Err(FormatError::Length { .. })
        ));
        let mut guid_len = good.clone();
        guid_len[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            decode(&guid_len, "{g}"),
            Err(FormatError::Truncated { field: "GUID", .. })
        ));
        let mut not_utf8 = good.clone();
        not_utf8[16] = 0xff;
        assert_eq!(decode(&not_utf8, "{g}"), Err(FormatError::GuidNotUtf8));
        // Every prefix is refused.
        for len in 0..good.len() {
            assert!(
                decode(&good[..len], "{g}").is_err(),
                "prefix of {len} bytes"
            );
        }
    }
}
