//! The value type of a result signal, shared by the Signal Table writer and the crate's
//! error type (so that neither module depends on the other).

use std::fmt;

/// The value type of a signal.
///
/// Spec: Otter, "Signal Tables" (2022) §3.5 (element types on file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignalType {
    /// `bool`, written as JSON `true`/`false`.
    Boolean,
    /// `i32`, written as a JSON integer.
    Integer,
    /// `f64`, written as a JSON number (`null` when not finite).
    Real,
    /// Text, written as a JSON string.
    String,
}

impl SignalType {
    /// Position in the per-type arrays.
    pub(crate) fn index(self) -> usize {
        match self {
            SignalType::Boolean => 0,
            SignalType::Integer => 1,
            SignalType::Real => 2,
            SignalType::String => 3,
        }
    }
}

impl fmt::Display for SignalType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SignalType::Boolean => "Boolean",
            SignalType::Integer => "Integer",
            SignalType::Real => "Real",
            SignalType::String => "String",
        })
    }
}
