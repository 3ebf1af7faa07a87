//! Containers with one entry per FMI type.
//!
//! Master algorithms keep every coupled quantity in type-specific vectors (MasterSim design
//! notes: "all variables in type-specific arrays"), so a value is addressed by its type and an
//! index. [`PerType`] holds one `T` per type; [`TypedValues`] is the common case of one value
//! vector per type.
//!
//! Spec: MasterSim reference §7.2 (global vectors).

use fmi::VarType;

/// One `T` for each coupling class ([`VarType`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PerType<T> {
    /// Real entry (FMI 3.0 Float32 and Float64).
    pub real: T,
    /// Integer (and enumeration) entry: every integer width.
    pub integer: T,
    /// Boolean entry.
    pub boolean: T,
    /// String entry.
    pub string: T,
    /// Binary entry (FMI 3.0).
    pub binary: T,
}

impl<T> PerType<T> {
    /// The entry of type `ty`.
    pub fn get(&self, ty: VarType) -> &T {
        match ty {
            VarType::Real => &self.real,
            VarType::Integer => &self.integer,
            VarType::Boolean => &self.boolean,
            VarType::String => &self.string,
            VarType::Binary => &self.binary,
        }
    }

    /// The entry of type `ty`, mutable.
    pub fn get_mut(&mut self, ty: VarType) -> &mut T {
        match ty {
            VarType::Real => &mut self.real,
            VarType::Integer => &mut self.integer,
            VarType::Boolean => &mut self.boolean,
            VarType::String => &mut self.string,
            VarType::Binary => &mut self.binary,
        }
    }
}

impl<T> PerType<Vec<T>> {
    /// The length of each entry's vector.
    pub fn lengths(&self) -> PerType<usize> {
        PerType {
            real: self.real.len(),
            integer: self.integer.len(),
            boolean: self.boolean.len(),
            string: self.string.len(),
            binary: self.binary.len(),
        }
    }
}

/// The types in the order of the result columns: Boolean, Integer, Real (MasterSim's order
/// in `values.csv`), then String and Binary (both in `strings.csv`, Binary as lowercase
/// hexadecimal text; `docs/results.md`).
///
/// Spec: MasterSim reference §12.1 (Boolean, Integer, Real, then String); Binary is FMI 3.0's.
pub const OUTPUT_TYPE_ORDER: [VarType; 5] = [
    VarType::Boolean,
    VarType::Integer,
    VarType::Real,
    VarType::String,
    VarType::Binary,
];

/// Every coupling class, in the order of [`OUTPUT_TYPE_ORDER`].
pub const ALL_TYPES: [VarType; 5] = OUTPUT_TYPE_ORDER;

/// One value vector per coupling class.
///
/// Integers of every width (FMI 1.0/2.0 `Integer`, FMI 3.0 Int8 to UInt64 and enumerations)
/// are carried as `i128`, which holds each of them exactly, so a value passes a connection
/// without loss whatever the widths at both ends (the plan refuses a connection whose target
/// cannot hold every value of its source).
///
/// Shapes: the vector lengths are fixed when the container is created (the number of coupled
/// quantities or outputs of each type) and never change afterwards.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TypedValues {
    /// Real values.
    pub real: Vec<f64>,
    /// Integer values (every width).
    pub integer: Vec<i128>,
    /// Boolean values.
    pub boolean: Vec<bool>,
    /// String values.
    pub string: Vec<String>,
    /// Binary values (FMI 3.0).
    #[serde(default)]
    pub binary: Vec<Vec<u8>>,
}

impl TypedValues {
    /// A container with the given number of entries per type, all zero, false or empty.
    pub fn zeroed(lengths: &PerType<usize>) -> Self {
        TypedValues {
            real: vec![0.0; lengths.real],
            integer: vec![0; lengths.integer],
            boolean: vec![false; lengths.boolean],
            string: vec![String::new(); lengths.string],
            binary: vec![Vec::new(); lengths.binary],
        }
    }

    /// Copies all values from `other`, reusing the string buffers (no allocation once the
    /// strings have grown to their working size).
    ///
    /// # Panics
    /// If the vector lengths differ (an internal invariant: both sides come from one plan).
    pub fn copy_from(&mut self, other: &TypedValues) {
        self.real.copy_from_slice(&other.real);
        self.integer.copy_from_slice(&other.integer);
        self.boolean.copy_from_slice(&other.boolean);
        assert_eq!(
            self.string.len(),
            other.string.len(),
            "invariant: same plan"
        );
        for (dst, src) in self.string.iter_mut().zip(&other.string) {
            dst.clone_from(src);
        }
        assert_eq!(
            self.binary.len(),
            other.binary.len(),
            "invariant: same plan"
        );
        for (dst, src) in self.binary.iter_mut().zip(&other.binary) {
            dst.clone_from(src);
        }
    }

    /// True when every Integer, Boolean, String and Binary value equals the one in `other`.
    pub fn discrete_equal(&self, other: &TypedValues) -> bool {
        self.integer == other.integer
            && self.boolean == other.boolean
            && self.string == other.string
            && self.binary == other.binary
    }
}
