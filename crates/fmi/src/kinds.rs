//! Plain types that both the model description and the error type name: the FMI version, the
//! data type of a variable, the FMI 1.0 alias kind and the interfaces an FMU offers.
//!
//! A leaf module: it names no other module of this crate, so that `error` can describe
//! model-description problems without depending on `model_description`, which in turn returns
//! `error`'s type. The types are re-exported at the crate root and from
//! [`crate::model_description`].

/// Which FMI standard an FMU follows.
///
/// Spec: FMI 2.0.2 §2.2.1 (`fmiVersion`), FMI 1.0 §2.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FmiVersion {
    /// FMI 1.0 for Co-Simulation (`fmiVersion="1.0"`).
    V1,
    /// FMI 2.0 co-simulation (`fmiVersion="2.0"`).
    V2,
    /// FMI 3.0 co-simulation (`fmiVersion="3.0"`, or a pre-release such as `3.0-beta.3`).
    V3,
}

/// The FMI interface an FMU is loaded and instantiated for.
///
/// Spec: FMI 2.0.2 §3 (Model Exchange) and §4 (Co-Simulation), FMI 3.0 §3 and §4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interface {
    /// The FMU integrates itself; the master calls `doStep` (the `CoSimulation` element).
    CoSimulation,
    /// The master integrates the FMU's continuous states with its own solver (the
    /// `ModelExchange` element).
    ModelExchange,
}

impl std::fmt::Display for Interface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Interface::CoSimulation => "co-simulation",
            Interface::ModelExchange => "Model Exchange",
        })
    }
}

/// The coupling class of a scalar variable: how a master carries its value. FMI enumerations
/// are read as [`VarType::Integer`].
///
/// Each [`DataType`] belongs to one class ([`DataType::var_type`]): Float32 and Float64 are
/// carried as `f64`, every integer width (FMI 3.0 Int8 to UInt64, FMI 1.0/2.0 Integer) and
/// enumerations as one integer wide enough for all of them.
///
/// Spec: FMI 2.0.2 §2.2.7 (type elements of `ScalarVariable`), FMI 3.0 §2.4.7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum VarType {
    /// `Real` (FMI 1.0/2.0), `Float32` or `Float64` (FMI 3.0): `f64`.
    Real,
    /// `Integer` or `Enumeration` (FMI 1.0/2.0: `i32`), `Int8` to `UInt64` and `Enumeration`
    /// (FMI 3.0).
    Integer,
    /// `Boolean`: `bool`.
    Boolean,
    /// `String`: UTF-8 text.
    String,
    /// `Binary` (FMI 3.0 only): a byte string.
    Binary,
}

/// The declared data type of a scalar variable, as the FMU's C interface sees it.
///
/// FMI 1.0/2.0 `Real` is [`DataType::Float64`], `Integer` and `Enumeration` are
/// [`DataType::Int32`]; FMI 3.0 enumerations are [`DataType::Int64`] (the variable's
/// `is_enumeration` flag tells them apart). Clocks are not a data type here: they are listed
/// apart, in `ModelDescription::clocks`.
///
/// Spec: FMI 3.0 §2.4.7 (variable types), FMI 2.0.2 §2.2.7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DataType {
    /// `fmi3Float32`: `f32`.
    Float32,
    /// `fmi3Float64` / `fmi2Real` / `fmiReal`: `f64`.
    Float64,
    /// `fmi3Int8`: `i8`.
    Int8,
    /// `fmi3UInt8`: `u8`.
    UInt8,
    /// `fmi3Int16`: `i16`.
    Int16,
    /// `fmi3UInt16`: `u16`.
    UInt16,
    /// `fmi3Int32` / `fmi2Integer` / `fmiInteger`: `i32`.
    Int32,
    /// `fmi3UInt32`: `u32`.
    UInt32,
    /// `fmi3Int64`: `i64`.
    Int64,
    /// `fmi3UInt64`: `u64`.
    UInt64,
    /// Boolean (`fmi3Boolean` is C `bool`, `fmi2Boolean` `int`, `fmiBoolean` `char`).
    Boolean,
    /// String: NUL-terminated UTF-8.
    String,
    /// `fmi3Binary`: bytes with a separate length.
    Binary,
}

impl DataType {
    /// The coupling class the master carries this type in.
    pub fn var_type(self) -> VarType {
        match self {
            DataType::Float32 | DataType::Float64 => VarType::Real,
            DataType::Boolean => VarType::Boolean,
            DataType::String => VarType::String,
            DataType::Binary => VarType::Binary,
            _ => VarType::Integer,
        }
    }

    /// The smallest and largest value of an integer type (`None` for the other types).
    pub fn integer_range(self) -> Option<(i128, i128)> {
        Some(match self {
            DataType::Int8 => (i8::MIN.into(), i8::MAX.into()),
            DataType::UInt8 => (0, u8::MAX.into()),
            DataType::Int16 => (i16::MIN.into(), i16::MAX.into()),
            DataType::UInt16 => (0, u16::MAX.into()),
            DataType::Int32 => (i32::MIN.into(), i32::MAX.into()),
            DataType::UInt32 => (0, u32::MAX.into()),
            DataType::Int64 => (i64::MIN.into(), i64::MAX.into()),
            DataType::UInt64 => (0, u64::MAX.into()),
            _ => return None,
        })
    }

    /// The FMI 3.0 element name (`Float64`, `UInt16`, …).
    pub fn name(self) -> &'static str {
        match self {
            DataType::Float32 => "Float32",
            DataType::Float64 => "Float64",
            DataType::Int8 => "Int8",
            DataType::UInt8 => "UInt8",
            DataType::Int16 => "Int16",
            DataType::UInt16 => "UInt16",
            DataType::Int32 => "Int32",
            DataType::UInt32 => "UInt32",
            DataType::Int64 => "Int64",
            DataType::UInt64 => "UInt64",
            DataType::Boolean => "Boolean",
            DataType::String => "String",
            DataType::Binary => "Binary",
        }
    }
}

/// FMI 1.0 alias kind of a variable (FMI 2.0 aliases are implicit: same type and value reference).
///
/// Spec: FMI 1.0 §2.4 (`alias`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Alias {
    /// Not an alias.
    #[default]
    NoAlias,
    /// Same value as the variable with the same value reference.
    Alias,
    /// Negated value of the variable with the same value reference.
    NegatedAlias,
}

/// The interfaces an FMU offers, as its description declares them. mastersim runs the
/// co-simulation interface only; the others are known so that an FMU without it is described
/// (`mastersim info`) and refused by name.
///
/// Spec: FMI 3.0 §2.4.1 (`CoSimulation`, `ModelExchange`, `ScheduledExecution`), FMI 2.0.2
/// §2.2.1 (`CoSimulation`, `ModelExchange`), FMI 1.0 §2.2 and FMI 1.0 CS §3 (an
/// `Implementation` element makes a co-simulation FMU; without it the FMU is Model Exchange).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Interfaces {
    /// Co-Simulation (`CoSimulation`; FMI 1.0: `Implementation`).
    pub co_simulation: bool,
    /// Model Exchange (`ModelExchange`; FMI 1.0: no `Implementation`).
    pub model_exchange: bool,
    /// Scheduled Execution (FMI 3.0 `ScheduledExecution`).
    pub scheduled_execution: bool,
}

impl Interfaces {
    /// The interfaces offered, named as the standard names them, in the order Co-Simulation,
    /// Model Exchange, Scheduled Execution.
    pub fn names(&self) -> Vec<&'static str> {
        [
            (self.co_simulation, "Co-Simulation"),
            (self.model_exchange, "Model Exchange"),
            (self.scheduled_execution, "Scheduled Execution"),
        ]
        .into_iter()
        .filter_map(|(offered, name)| offered.then_some(name))
        .collect()
    }

    /// The interfaces offered in words: `Model Exchange`, `Model Exchange and Scheduled
    /// Execution`, `no interface`.
    pub fn describe(&self) -> String {
        match self.names().as_slice() {
            [] => "no interface".to_owned(),
            [one] => (*one).to_owned(),
            [first @ .., last] => format!("{} and {last}", first.join(", ")),
        }
    }
}
