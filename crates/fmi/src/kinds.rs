//! Plain enums that both the model description and the error type name: the FMI version, the
//! data type of a variable and the FMI 1.0 alias kind.
//!
//! A leaf module: it names no other module of this crate, so that `error` can describe
//! model-description problems without depending on `model_description`, which in turn returns
//! `error`'s type. The enums are re-exported at the crate root and from
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
}

/// The data type of a scalar variable. FMI enumerations are read as [`VarType::Integer`].
///
/// Spec: FMI 2.0.2 §2.2.7 (type elements of `ScalarVariable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum VarType {
    /// `Real`: `f64`.
    Real,
    /// `Integer` or `Enumeration`: `i32`.
    Integer,
    /// `Boolean`: `bool`.
    Boolean,
    /// `String`: UTF-8 text.
    String,
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
