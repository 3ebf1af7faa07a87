//! Containers with one entry per FMI type.
//!
//! Master algorithms keep every coupled quantity in type-specific vectors (MasterSim design
//! notes: "all variables in type-specific arrays"), so a value is addressed by its type and an
//! index. [`PerType`] holds one `T` per type; [`TypedValues`] is the common case of one value
//! vector per type.
//!
//! Spec: MasterSim reference §7.2 (global vectors).

use fmi::VarType;

/// One `T` for each of the four FMI types.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PerType<T> {
    /// Real entry.
    pub real: T,
    /// Integer (and enumeration) entry.
    pub integer: T,
    /// Boolean entry.
    pub boolean: T,
    /// String entry.
    pub string: T,
}

impl<T> PerType<T> {
    /// The entry of type `ty`.
    pub fn get(&self, ty: VarType) -> &T {
        match ty {
            VarType::Real => &self.real,
            VarType::Integer => &self.integer,
            VarType::Boolean => &self.boolean,
            VarType::String => &self.string,
        }
    }

    /// The entry of type `ty`, mutable.
    pub fn get_mut(&mut self, ty: VarType) -> &mut T {
        match ty {
            VarType::Real => &mut self.real,
            VarType::Integer => &mut self.integer,
            VarType::Boolean => &mut self.boolean,
            VarType::String => &mut self.string,
        }
    }
}

/// The four types in the order MasterSim writes result columns: Boolean, Integer, Real, then
/// String (which goes to its own file).
///
/// Spec: MasterSim reference §12.1.
pub const OUTPUT_TYPE_ORDER: [VarType; 4] = [
    VarType::Boolean,
    VarType::Integer,
    VarType::Real,
    VarType::String,
];

/// One value vector per type.
///
/// Shapes: the vector lengths are fixed when the container is created (the number of coupled
/// quantities or outputs of each type) and never change afterwards.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TypedValues {
    /// Real values.
    pub real: Vec<f64>,
    /// Integer values.
    pub integer: Vec<i32>,
    /// Boolean values.
    pub boolean: Vec<bool>,
    /// String values.
    pub string: Vec<String>,
}

impl TypedValues {
    /// A container with the given number of entries per type, all zero, false or empty.
    pub fn zeroed(lengths: &PerType<usize>) -> Self {
        TypedValues {
            real: vec![0.0; lengths.real],
            integer: vec![0; lengths.integer],
            boolean: vec![false; lengths.boolean],
            string: vec![String::new(); lengths.string],
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
    }

    /// True when every Integer, Boolean and String value equals the one in `other`.
    pub fn discrete_equal(&self, other: &TypedValues) -> bool {
        self.integer == other.integer
            && self.boolean == other.boolean
            && self.string == other.string
    }
}
