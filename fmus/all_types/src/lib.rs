#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

use fmu_support::{
    Causality3, DataType, Dimension, Model, ModelError, StepOutcome, Values, ValuesMut, Variable,
    Variable3,
};

/// Instantiation token of the AllTypes FMU.
pub const TOKEN: &str = "{adb07f73-8b4e-4ae0-bb1b-12b8b4ee8c72}";

/// Input `float32_in` (Float32).
pub const VR_FLOAT32_IN: u32 = 1;
/// Output `float32_out` (Float32) = `float32_in`.
pub const VR_FLOAT32_OUT: u32 = 2;
/// Input `float64_in` (Float64).
pub const VR_FLOAT64_IN: u32 = 3;
/// Output `float64_out` (Float64) = `float64_in`.
pub const VR_FLOAT64_OUT: u32 = 4;
/// Input `int8_in` (Int8).
pub const VR_INT8_IN: u32 = 5;
/// Output `int8_out` (Int8) = `int8_in`.
pub const VR_INT8_OUT: u32 = 6;
/// Input `uint8_in` (UInt8).
pub const VR_UINT8_IN: u32 = 7;
/// Output `uint8_out` (UInt8) = `uint8_in`.
pub const VR_UINT8_OUT: u32 = 8;
/// Input `int16_in` (Int16).
pub const VR_INT16_IN: u32 = 9;
/// Output `int16_out` (Int16) = `int16_in`.
pub const VR_INT16_OUT: u32 = 10;
/// Input `uint16_in` (UInt16).
pub const VR_UINT16_IN: u32 = 11;
/// Output `uint16_out` (UInt16) = `uint16_in`.
pub const VR_UINT16_OUT: u32 = 12;
/// Input `int32_in` (Int32).
pub const VR_INT32_IN: u32 = 13;
/// Output `int32_out` (Int32) = `int32_in`.
pub const VR_INT32_OUT: u32 = 14;
/// Input `uint32_in` (UInt32).
pub const VR_UINT32_IN: u32 = 15;
/// Output `uint32_out` (UInt32) = `uint32_in`.
pub const VR_UINT32_OUT: u32 = 16;
/// Input `int64_in` (Int64).
pub const VR_INT64_IN: u32 = 17;
/// Output `int64_out` (Int64) = `int64_in`.
pub const VR_INT64_OUT: u32 = 18;
/// Input `uint64_in` (UInt64).
pub const VR_UINT64_IN: u32 = 19;
/// Output `uint64_out` (UInt64) = `uint64_in`.
pub const VR_UINT64_OUT: u32 = 20;
/// Input `boolean_in` (Boolean).
pub const VR_BOOLEAN_IN: u32 = 21;
/// Output `boolean_out` (Boolean) = `boolean_in`.
pub const VR_BOOLEAN_OUT: u32 = 22;
/// Input `string_in` (String).
pub const VR_STRING_IN: u32 = 23;
/// Output `string_out` (String) = `string_in`.
pub const VR_STRING_OUT: u32 = 24;
/// Input `binary_in` (Binary).
pub const VR_BINARY_IN: u32 = 25;
/// Output `binary_out` (Binary) = `binary_in`.
pub const VR_BINARY_OUT: u32 = 26;
/// Input `enum_in` (Enumeration of type `Level`, accessed as Int64).
pub const VR_ENUM_IN: u32 = 27;
/// Output `enum_out` (Enumeration `Level`) = `enum_in`.
pub const VR_ENUM_OUT: u32 = 28;
/// Input `int64_min_in` (Int64), start −2⁶³.
pub const VR_INT64_MIN_IN: u32 = 29;
/// Output `int64_min_out` (Int64) = `int64_min_in`.
pub const VR_INT64_MIN_OUT: u32 = 30;
/// Input `int64_minus_max_in` (Int64), start −(2⁶³ − 1).
pub const VR_INT64_MINUS_MAX_IN: u32 = 31;
/// Output `int64_minus_max_out` (Int64) = `int64_minus_max_in`.
pub const VR_INT64_MINUS_MAX_OUT: u32 = 32;
/// Input array `u` (Float64, 3 elements).
pub const VR_U: u32 = 40;
/// Output array `y` (Float64, 3 elements) = `u`.
pub const VR_Y: u32 = 41;
/// Input array `m_in` (Int32, 2×2, row-major).
pub const VR_M_IN: u32 = 42;
/// Output array `m_out` (Int32, 2×2, row-major) = `m_in`.
pub const VR_M_OUT: u32 = 43;
/// Structural parameter `n` (UInt64): the number of elements of `ramp`.
pub const VR_N: u32 = 50;
/// Output array `ramp` (Float64, `n` elements): `ramp[i] = i + 1`.
pub const VR_RAMP: u32 = 51;
/// Output `noSetFMUStatePriorToCurrentPoint` (Boolean): the argument of the last
/// `fmi3DoStep` (false before the first step).
pub const VR_NO_SET_PRIOR: u32 = 60;

/// Item `Low` of the enumeration type `Level`.
pub const LEVEL_LOW: i64 = -1;
/// Item `Zero` of the enumeration type `Level`.
pub const LEVEL_ZERO: i64 = 0;
/// Item `High` of the enumeration type `Level`.
pub const LEVEL_HIGH: i64 = 1000;

/// Smallest and largest `n` (elements of `ramp`).
pub const N_RANGE: std::ops::RangeInclusive<u64> = 1..=16;

const U_DIMS: &[Dimension] = &[Dimension::Fixed(3)];
const M_DIMS: &[Dimension] = &[Dimension::Fixed(2), Dimension::Fixed(2)];
const RAMP_DIMS: &[Dimension] = &[Dimension::Parameter(VR_N)];

/// A scalar input and its output twin, for the table.
const fn pair(
    name_in: &'static str,
    name_out: &'static str,
    vr: u32,
    ty: DataType,
) -> [Variable3; 2] {
    [
        Variable3::new(name_in, vr, ty, Causality3::Input),
        Variable3::new(name_out, vr + 1, ty, Causality3::Output),
    ]
}

const PAIRS: [[Variable3; 2]; 16] = [
    pair(
        "float32_in",
        "float32_out",
        VR_FLOAT32_IN,
        DataType::Float32,
    ),
    pair(
        "float64_in",
        "float64_out",
        VR_FLOAT64_IN,
        DataType::Float64,
    ),
    pair("int8_in", "int8_out", VR_INT8_IN, DataType::Int8),
    pair("uint8_in", "uint8_out", VR_UINT8_IN, DataType::UInt8),
    pair("int16_in", "int16_out", VR_INT16_IN, DataType::Int16),
    pair("uint16_in", "uint16_out", VR_UINT16_IN, DataType::UInt16),
    pair("int32_in", "int32_out", VR_INT32_IN, DataType::Int32),
    pair("uint32_in", "uint32_out", VR_UINT32_IN, DataType::UInt32),
    pair("int64_in", "int64_out", VR_INT64_IN, DataType::Int64),
    pair("uint64_in", "uint64_out", VR_UINT64_IN, DataType::UInt64),
    pair(
        "boolean_in",
        "boolean_out",
        VR_BOOLEAN_IN,
        DataType::Boolean,
    ),
    pair("string_in", "string_out", VR_STRING_IN, DataType::String),
    pair("binary_in", "binary_out", VR_BINARY_IN, DataType::Binary),
    pair("enum_in", "enum_out", VR_ENUM_IN, DataType::Enumeration),
    pair(
        "int64_min_in",
        "int64_min_out",
        VR_INT64_MIN_IN,
        DataType::Int64,
    ),
    pair(
        "int64_minus_max_in",
        "int64_minus_max_out",
        VR_INT64_MINUS_MAX_IN,
        DataType::Int64,
    ),
];

/// The variables of AllTypes, as in `models/AllTypes/modelDescription.xml` and in its order.
pub const VARIABLES: &[Variable3] = &[
    PAIRS[0][0],
    PAIRS[0][1],
    PAIRS[1][0],
    PAIRS[1][1],
    PAIRS[2][0],
    PAIRS[2][1],
    PAIRS[3][0],
    PAIRS[3][1],
    PAIRS[4][0],
    PAIRS[4][1],
    PAIRS[5][0],
    PAIRS[5][1],
    PAIRS[6][0],
    PAIRS[6][1],
    PAIRS[7][0],
    PAIRS[7][1],
    PAIRS[8][0],
    PAIRS[8][1],
    PAIRS[9][0],
    PAIRS[9][1],
    PAIRS[10][0],
    PAIRS[10][1],
    PAIRS[11][0],
    PAIRS[11][1],
    PAIRS[12][0],
    PAIRS[12][1],
    PAIRS[13][0],
    PAIRS[13][1],
    PAIRS[14][0],
    PAIRS[14][1],
    PAIRS[15][0],
    PAIRS[15][1],
    Variable3::new("u", VR_U, DataType::Float64, Causality3::Input).array(U_DIMS),
    Variable3::new("y", VR_Y, DataType::Float64, Causality3::Output).array(U_DIMS),
    Variable3::new("m_in", VR_M_IN, DataType::Int32, Causality3::Input).array(M_DIMS),
    Variable3::new("m_out", VR_M_OUT, DataType::Int32, Causality3::Output).array(M_DIMS),
    Variable3::new("n", VR_N, DataType::UInt64, Causality3::StructuralParameter),
    Variable3::new("ramp", VR_RAMP, DataType::Float64, Causality3::Output).array(RAMP_DIMS),
    Variable3::new(
        "noSetFMUStatePriorToCurrentPoint",
        VR_NO_SET_PRIOR,
        DataType::Boolean,
        Causality3::Output,
    ),
];

/// The inputs of AllTypes; [`Default`] gives the start values of the modelDescription.
#[derive(Clone, Debug, PartialEq)]
pub struct Inputs {
    /// `float32_in`; start `0.1` as Float32 (0.100000001490116119384765625).
    pub float32: f32,
    /// `float64_in`; start 0.1.
    pub float64: f64,
    /// `int8_in`; start −128.
    pub int8: i8,
    /// `uint8_in`; start 255.
    pub uint8: u8,
    /// `int16_in`; start −32768.
    pub int16: i16,
    /// `uint16_in`; start 65535.
    pub uint16: u16,
    /// `int32_in`; start −2147483648.
    pub int32: i32,
    /// `uint32_in`; start 4294967295.
    pub uint32: u32,
    /// `int64_in`; start 9223372036854775807.
    pub int64: i64,
    /// `uint64_in`; start 18446744073709551615.
    pub uint64: u64,
    /// `boolean_in`; start true.
    pub boolean: bool,
    /// `string_in`; start `Grüße aus FMI 3.0` (UTF-8, non-ASCII).
    pub string: String,
    /// `binary_in`; start the 5 bytes `00 01 FF 7F 80` (with a zero byte).
    pub binary: Vec<u8>,
    /// `enum_in`; start [`LEVEL_HIGH`] (1000).
    pub enumeration: i64,
    /// `int64_min_in`; start −9223372036854775808.
    pub int64_min: i64,
    /// `int64_minus_max_in`; start −9223372036854775807.
    pub int64_minus_max: i64,
    /// `u`; start `[1, -2.5, 3.25]`.
    pub u: [f64; 3],
    /// `m_in`, row-major; start `[[11, 12], [21, 22]]`.
    pub m: [i32; 4],
}

impl Default for Inputs {
    fn default() -> Self {
        Self {
            float32: 0.1,
            float64: 0.1,
            int8: i8::MIN,
            uint8: u8::MAX,
            int16: i16::MIN,
            uint16: u16::MAX,
            int32: i32::MIN,
            uint32: u32::MAX,
            int64: i64::MAX,
            uint64: u64::MAX,
            boolean: true,
            string: "Grüße aus FMI 3.0".to_owned(),
            binary: vec![0x00, 0x01, 0xFF, 0x7F, 0x80],
            enumeration: LEVEL_HIGH,
            int64_min: i64::MIN,
            int64_minus_max: -i64::MAX,
            u: [1.0, -2.5, 3.25],
            m: [11, 12, 21, 22],
        }
    }
}

/// The AllTypes FMU: every output equals its input at all times (direct feedthrough, no
/// state), `ramp[i] = i + 1` for `i < n`, and `noSetFMUStatePriorToCurrentPoint` reports the
/// argument of the last `fmi3DoStep`.
#[derive(Clone, Debug)]
pub struct AllTypes {
    inputs: Inputs,
    n: u64,
    no_set_prior: bool,
}

impl AllTypes {
    /// The current inputs.
    pub fn inputs(&self) -> &Inputs {
        &self.inputs
    }
}

/// Copies `value` into the one-element slice of a scalar (the export layer guarantees the
/// length).
fn one<T: Clone>(slot: &mut [T], value: &T) {
    if let [s] = slot {
        s.clone_from(value);
    }
}

impl Model for AllTypes {
    fn instantiate(token: &str) -> Option<Self> {
        (token == TOKEN).then(|| Self {
            inputs: Inputs::default(),
            n: 3,
            no_set_prior: false,
        })
    }

    /// None: AllTypes is an FMI 3.0 FMU only.
    fn variables(&self) -> &'static [Variable] {
        &[]
    }

    fn variables3(&self) -> &'static [Variable3] {
        VARIABLES
    }

    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        self.no_set_prior = false;
        Ok(())
    }

    fn do_step(&mut self, _t: f64, _h: f64) -> StepOutcome {
        StepOutcome::Completed
    }

    fn get_values(&self, vr: u32, values: ValuesMut<'_>) -> Result<(), ModelError> {
        let i = &self.inputs;
        match (vr, values) {
            (VR_FLOAT32_IN | VR_FLOAT32_OUT, ValuesMut::Float32(v)) => one(v, &i.float32),
            (VR_FLOAT64_IN | VR_FLOAT64_OUT, ValuesMut::Float64(v)) => one(v, &i.float64),
            (VR_INT8_IN | VR_INT8_OUT, ValuesMut::Int8(v)) => one(v, &i.int8),
            (VR_UINT8_IN | VR_UINT8_OUT, ValuesMut::UInt8(v)) => one(v, &i.uint8),
            (VR_INT16_IN | VR_INT16_OUT, ValuesMut::Int16(v)) => one(v, &i.int16),
            (VR_UINT16_IN | VR_UINT16_OUT, ValuesMut::UInt16(v)) => one(v, &i.uint16),
            (VR_INT32_IN | VR_INT32_OUT, ValuesMut::Int32(v)) => one(v, &i.int32),
            (VR_UINT32_IN | VR_UINT32_OUT, ValuesMut::UInt32(v)) => one(v, &i.uint32),
            (VR_INT64_IN | VR_INT64_OUT, ValuesMut::Int64(v)) => one(v, &i.int64),
            (VR_UINT64_IN | VR_UINT64_OUT, ValuesMut::UInt64(v)) => one(v, &i.uint64),
            (VR_BOOLEAN_IN | VR_BOOLEAN_OUT, ValuesMut::Boolean(v)) => one(v, &i.boolean),
            (VR_STRING_IN | VR_STRING_OUT, ValuesMut::String(v)) => one(v, &i.string),
            (VR_BINARY_IN | VR_BINARY_OUT, ValuesMut::Binary(v)) => one(v, &i.binary),
            (VR_ENUM_IN | VR_ENUM_OUT, ValuesMut::Int64(v)) => one(v, &i.enumeration),
            (VR_INT64_MIN_IN | VR_INT64_MIN_OUT, ValuesMut::Int64(v)) => one(v, &i.int64_min),
            (VR_INT64_MINUS_MAX_IN | VR_INT64_MINUS_MAX_OUT, ValuesMut::Int64(v)) => {
                one(v, &i.int64_minus_max);
            }
            (VR_U | VR_Y, ValuesMut::Float64(v)) if v.len() == 3 => v.copy_from_slice(&i.u),
            (VR_M_IN | VR_M_OUT, ValuesMut::Int32(v)) if v.len() == 4 => v.copy_from_slice(&i.m),
            (VR_N, ValuesMut::UInt64(v)) => one(v, &self.n),
            (VR_RAMP, ValuesMut::Float64(v)) => {
                for (k, e) in v.iter_mut().enumerate() {
                    *e = (k + 1) as f64;
                }
            }
            (VR_NO_SET_PRIOR, ValuesMut::Boolean(v)) => one(v, &self.no_set_prior),
            (vr, values) => return Err(ModelError::unknown3(vr, &values)),
        }
        Ok(())
    }

    fn set_values(&mut self, vr: u32, values: Values<'_>) -> Result<(), ModelError> {
        let i = &mut self.inputs;
        match (vr, values) {
            (VR_FLOAT32_IN, Values::Float32(&[v])) => i.float32 = v,
            (VR_FLOAT64_IN, Values::Float64(&[v])) => i.float64 = v,
            (VR_INT8_IN, Values::Int8(&[v])) => i.int8 = v,
            (VR_UINT8_IN, Values::UInt8(&[v])) => i.uint8 = v,
            (VR_INT16_IN, Values::Int16(&[v])) => i.int16 = v,
            (VR_UINT16_IN, Values::UInt16(&[v])) => i.uint16 = v,
            (VR_INT32_IN, Values::Int32(&[v])) => i.int32 = v,
            (VR_UINT32_IN, Values::UInt32(&[v])) => i.uint32 = v,
            (VR_INT64_IN, Values::Int64(&[v])) => i.int64 = v,
            (VR_UINT64_IN, Values::UInt64(&[v])) => i.uint64 = v,
            (VR_BOOLEAN_IN, Values::Boolean(&[v])) => i.boolean = v,
            (VR_STRING_IN, Values::String(&[v])) => v.clone_into(&mut i.string),
            (VR_BINARY_IN, Values::Binary(&[v])) => v.clone_into(&mut i.binary),
            (VR_ENUM_IN, Values::Int64(&[v])) => {
                if ![LEVEL_LOW, LEVEL_ZERO, LEVEL_HIGH].contains(&v) {
                    return Err(ModelError::InvalidValue {
                        name: "enum_in",
                        value: v.to_string(),
                        reason: "not an item of Level (-1, 0, 1000)",
                    });
                }
                i.enumeration = v;
            }
            (VR_INT64_MIN_IN, Values::Int64(&[v])) => i.int64_min = v,
            (VR_INT64_MINUS_MAX_IN, Values::Int64(&[v])) => i.int64_minus_max = v,
            (VR_U, Values::Float64(v)) if v.len() == 3 => i.u.copy_from_slice(v),
            (VR_M_IN, Values::Int32(v)) if v.len() == 4 => i.m.copy_from_slice(v),
            (VR_N, Values::UInt64(&[v])) => {
                if !N_RANGE.contains(&v) {
                    return Err(ModelError::InvalidValue {
                        name: "n",
                        value: v.to_string(),
                        reason: "must be in 1..=16",
                    });
                }
                self.n = v;
            }
            (vr, values) => return Err(ModelError::unknown3_set(vr, &values)),
        }
        Ok(())
    }

    fn no_set_fmu_state_prior_to_current_point(&mut self, value: bool) {
        self.no_set_prior = value;
    }
}

#[cfg(feature = "export")]
fmu_support::export_fmi3!(AllTypes);

#[cfg(test)]
mod tests;
