//! The FMI 3.0 side of the model API: data types, causalities, array dimensions, the variable
//! table, typed value slices, and the one time comparison that event handling uses.
//!
//! FMI 3.0 has more variable types than FMI 2.0, allows arrays, and numbers value references
//! once for all types. So an FMI 3.0 FMU lists its variables in a table of [`Variable3`]
//! (returned by [`Model::variables3`](crate::Model::variables3)), and the export layer moves
//! values through [`Values`] and [`ValuesMut`]: one slice per variable, with one element per
//! array element (row-major), or one element for a scalar.

use std::fmt;

/// Data type of an FMI 3.0 variable: the element name in `ModelVariables`.
///
/// An `Enumeration` variable is read and written as `Int64` (`fmi3GetInt64`, `fmi3SetInt64`).
/// Clocks are not supported.
///
/// Spec: FMI 3.0 §2.4.7 (definition of model variables), §2.2.6.2 (getting and setting values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DataType {
    /// `Float32`: `f32`.
    Float32,
    /// `Float64`: `f64`.
    Float64,
    /// `Int8`: `i8`.
    Int8,
    /// `UInt8`: `u8`.
    UInt8,
    /// `Int16`: `i16`.
    Int16,
    /// `UInt16`: `u16`.
    UInt16,
    /// `Int32`: `i32`.
    Int32,
    /// `UInt32`: `u32`.
    UInt32,
    /// `Int64`: `i64`.
    Int64,
    /// `UInt64`: `u64`.
    UInt64,
    /// `Boolean`: `bool` (C `bool`).
    Boolean,
    /// `String`: UTF-8 text without interior NUL bytes.
    String,
    /// `Binary`: a byte string of any length (may contain zeros).
    Binary,
    /// `Enumeration`: an `i64` item value, accessed through the Int64 functions.
    Enumeration,
}

impl DataType {
    /// The element name in a modelDescription (`"Float64"`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Float32 => "Float32",
            Self::Float64 => "Float64",
            Self::Int8 => "Int8",
            Self::UInt8 => "UInt8",
            Self::Int16 => "Int16",
            Self::UInt16 => "UInt16",
            Self::Int32 => "Int32",
            Self::UInt32 => "UInt32",
            Self::Int64 => "Int64",
            Self::UInt64 => "UInt64",
            Self::Boolean => "Boolean",
            Self::String => "String",
            Self::Binary => "Binary",
            Self::Enumeration => "Enumeration",
        }
    }

    /// The type of the `fmi3Get…`/`fmi3Set…` functions that access variables of this type:
    /// itself, except `Int64` for an `Enumeration`.
    pub const fn access_type(self) -> Self {
        match self {
            Self::Enumeration => Self::Int64,
            other => other,
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Causality of an FMI 3.0 variable, as far as the export layer's set/get rules go.
///
/// Spec: FMI 3.0 §2.4.7.4 (causality), §2.3 (which variables can be set in which state).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Causality3 {
    /// A fixed parameter: settable in Instantiated and Initialization Mode.
    Parameter,
    /// A fixed structural parameter (for example an array size): settable in Configuration
    /// Mode only, readable there too.
    StructuralParameter,
    /// An input: settable from instantiation until terminate (also in Event and Step Mode).
    Input,
    /// An output: read-only.
    Output,
    /// A local variable: read-only.
    Local,
}

impl Causality3 {
    /// The `causality` attribute value (`"structuralParameter"`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Parameter => "parameter",
            Self::StructuralParameter => "structuralParameter",
            Self::Input => "input",
            Self::Output => "output",
            Self::Local => "local",
        }
    }
}

impl fmt::Display for Causality3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One dimension of an FMI 3.0 array variable (one `<Dimension>` element).
///
/// Spec: FMI 3.0 §2.4.7.3 (array variables, `Dimension`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dimension {
    /// `<Dimension start="n"/>`: a fixed size (elements).
    Fixed(u64),
    /// `<Dimension valueReference="vr"/>`: the size is the current value of the `UInt64`
    /// structural parameter with this value reference.
    Parameter(u32),
}

/// One FMI 3.0 variable of a model, as declared in its modelDescription.
///
/// An FMU crate lists its variables in a `pub const` table; the export layer uses it to reject
/// unknown value references, type mismatches and writes that the causality forbids, and to
/// count array elements. Value references are unique across all types (FMI 3.0 §2.4.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variable3 {
    /// The `name` attribute.
    pub name: &'static str,
    /// The `valueReference` attribute (unique in the table).
    pub vr: u32,
    /// The element name (data type).
    pub ty: DataType,
    /// The causality.
    pub causality: Causality3,
    /// The `<Dimension>` children in order (empty for a scalar). Elements are stored
    /// row-major: the last dimension varies fastest.
    pub dimensions: &'static [Dimension],
}

impl Variable3 {
    /// A scalar variable, for `const` tables.
    pub const fn new(name: &'static str, vr: u32, ty: DataType, causality: Causality3) -> Self {
        Self {
            name,
            vr,
            ty,
            causality,
            dimensions: &[],
        }
    }

    /// The same variable as an array with these dimensions (row-major).
    pub const fn array(self, dimensions: &'static [Dimension]) -> Self {
        Self { dimensions, ..self }
    }

    /// Whether the variable has at least one `<Dimension>`.
    pub const fn is_array(&self) -> bool {
        !self.dimensions.is_empty()
    }
}

/// Looks up the variable with this value reference (of any type).
///
/// Returns `None` if the table has no such variable.
pub fn find_variable3(variables: &[Variable3], vr: u32) -> Option<&Variable3> {
    variables.iter().find(|v| v.vr == vr)
}

/// Values to write into one variable: `fmi3Set…` hands each variable its elements.
///
/// Shapes: the slice has exactly as many elements as the variable (1 for a scalar, the product
/// of the dimensions for an array, row-major); the export layer checks this and the type before
/// calling [`Model::set_values`](crate::Model::set_values). Enumerations arrive as `Int64`.
///
/// Spec: FMI 3.0 §2.2.6.2 (fmi3Set{VariableType}).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Values<'a> {
    /// Float32 values.
    Float32(&'a [f32]),
    /// Float64 values.
    Float64(&'a [f64]),
    /// Int8 values.
    Int8(&'a [i8]),
    /// UInt8 values.
    UInt8(&'a [u8]),
    /// Int16 values.
    Int16(&'a [i16]),
    /// UInt16 values.
    UInt16(&'a [u16]),
    /// Int32 values.
    Int32(&'a [i32]),
    /// UInt32 values.
    UInt32(&'a [u32]),
    /// Int64 values (also Enumeration item values).
    Int64(&'a [i64]),
    /// UInt64 values.
    UInt64(&'a [u64]),
    /// Boolean values.
    Boolean(&'a [bool]),
    /// String values (UTF-8, checked by the export layer).
    String(&'a [&'a str]),
    /// Binary values, each a byte string.
    Binary(&'a [&'a [u8]]),
}

/// Buffers to fill from one variable: `fmi3Get…` hands each variable its elements.
///
/// Shapes as for [`Values`]: the slice has exactly the variable's element count. Strings and
/// byte strings start empty; the model replaces them.
///
/// Spec: FMI 3.0 §2.2.6.2 (fmi3Get{VariableType}).
#[derive(Debug, PartialEq)]
#[non_exhaustive]
pub enum ValuesMut<'a> {
    /// Float32 values.
    Float32(&'a mut [f32]),
    /// Float64 values.
    Float64(&'a mut [f64]),
    /// Int8 values.
    Int8(&'a mut [i8]),
    /// UInt8 values.
    UInt8(&'a mut [u8]),
    /// Int16 values.
    Int16(&'a mut [i16]),
    /// UInt16 values.
    UInt16(&'a mut [u16]),
    /// Int32 values.
    Int32(&'a mut [i32]),
    /// UInt32 values.
    UInt32(&'a mut [u32]),
    /// Int64 values (also Enumeration item values).
    Int64(&'a mut [i64]),
    /// UInt64 values.
    UInt64(&'a mut [u64]),
    /// Boolean values.
    Boolean(&'a mut [bool]),
    /// String values.
    String(&'a mut [String]),
    /// Binary values.
    Binary(&'a mut [Vec<u8>]),
}

macro_rules! data_type_of {
    ($name:ident) => {
        impl $name<'_> {
            /// The data type of the slice ([`DataType::Int64`] also for Enumeration values).
            pub fn data_type(&self) -> DataType {
                match self {
                    Self::Float32(_) => DataType::Float32,
                    Self::Float64(_) => DataType::Float64,
                    Self::Int8(_) => DataType::Int8,
                    Self::UInt8(_) => DataType::UInt8,
                    Self::Int16(_) => DataType::Int16,
                    Self::UInt16(_) => DataType::UInt16,
                    Self::Int32(_) => DataType::Int32,
                    Self::UInt32(_) => DataType::UInt32,
                    Self::Int64(_) => DataType::Int64,
                    Self::UInt64(_) => DataType::UInt64,
                    Self::Boolean(_) => DataType::Boolean,
                    Self::String(_) => DataType::String,
                    Self::Binary(_) => DataType::Binary,
                }
            }

            /// The number of elements.
            pub fn len(&self) -> usize {
                match self {
                    Self::Float32(v) => v.len(),
                    Self::Float64(v) => v.len(),
                    Self::Int8(v) => v.len(),
                    Self::UInt8(v) => v.len(),
                    Self::Int16(v) => v.len(),
                    Self::UInt16(v) => v.len(),
                    Self::Int32(v) => v.len(),
                    Self::UInt32(v) => v.len(),
                    Self::Int64(v) => v.len(),
                    Self::UInt64(v) => v.len(),
                    Self::Boolean(v) => v.len(),
                    Self::String(v) => v.len(),
                    Self::Binary(v) => v.len(),
                }
            }

            /// Whether there are no elements.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
        }
    };
}

data_type_of!(Values);
data_type_of!(ValuesMut);

/// Relative tolerance of [`time_reached`], scaled by `1 + |event|` (s).
pub const EVENT_TIME_TOLERANCE: f64 = 1e-8;

/// Whether the time `now` (s) has reached the event time `event` (s): `now ≥ event − 1e-8·(1 +
/// |event|)`.
///
/// The one time comparison of the FMI 3.0 event handling: the export layer uses it to decide
/// whether a model's [`next_event_time`](crate::Model::next_event_time) is due at the end of a
/// step or at the start of one, and whether it lies strictly inside a step (early return).
/// Communication points that are sums of decimal step sizes (`0.1 + 0.1 + 0.1`) thus meet
/// event times written in decimal (`0.3`).
pub fn time_reached(now: f64, event: f64) -> bool {
    now >= event - EVENT_TIME_TOLERANCE * (1.0 + event.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_know_their_type_and_length() {
        let mut buffer = [0i64; 2];
        let values = ValuesMut::Int64(&mut buffer);
        assert_eq!(values.data_type(), DataType::Int64);
        assert_eq!(values.len(), 2);
        assert!(Values::String(&[]).is_empty());
        assert_eq!(
            crate::ModelError::unknown3(4, &values).to_string(),
            "no Int64 variable with value reference 4"
        );
    }

    #[test]
    fn names_and_access_types() {
        assert_eq!(DataType::UInt64.to_string(), "UInt64");
        assert_eq!(DataType::Enumeration.access_type(), DataType::Int64);
        assert_eq!(DataType::Float32.access_type(), DataType::Float32);
        assert_eq!(
            Causality3::StructuralParameter.to_string(),
            "structuralParameter"
        );
    }

    #[test]
    fn tables_and_lookup() {
        const DIMS: &[Dimension] = &[Dimension::Fixed(2), Dimension::Parameter(7)];
        const TABLE: &[Variable3] = &[
            Variable3::new("n", 7, DataType::UInt64, Causality3::StructuralParameter),
            Variable3::new("a", 8, DataType::Float64, Causality3::Output).array(DIMS),
        ];
        assert!(!TABLE[0].is_array());
        assert!(TABLE[1].is_array());
        assert_eq!(find_variable3(TABLE, 8).map(|v| v.name), Some("a"));
        assert!(find_variable3(TABLE, 9).is_none());
    }

    #[test]
    fn time_reached_tolerates_decimal_sums() {
        let t = 0.1 + 0.1 + 0.1;
        assert!(t > 0.3);
        assert!(time_reached(t, 0.3));
        assert!(time_reached(0.3, t), "0.3 reaches 0.30000000000000004");
        assert!(!time_reached(0.3, 0.35));
        assert!(
            time_reached(1e6, 1e6 + 1e-3),
            "tolerance scales with |event|"
        );
        assert!(!time_reached(1e6, 1e6 + 1.0));
    }
}
