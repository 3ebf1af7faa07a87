//! The FMI 3.0 variable elements of the modelDescription reader: typed elements with
//! dimensions and start values. The reader itself is [`crate::xml`]; the checks of an FMI 3.0
//! description against an FMU crate's tables are [`crate::check3`].

use fmu_support::{Causality3, DataType, Dimension};

use crate::Error;

/// One FMI 3.0 variable element (`<Float64 …>`, `<String …>`, …), with attributes as written.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelVariable3 {
    /// 1-based index in `ModelVariables`.
    pub index: usize,
    /// `name`.
    pub name: String,
    /// `valueReference`.
    pub vr: u32,
    /// The element name (Clock is not supported and an error).
    pub ty: DataType,
    /// `causality`, if present (the default is `local`).
    pub causality: Option<String>,
    /// `variability`, if present.
    pub variability: Option<String>,
    /// `initial`, if present.
    pub initial: Option<String>,
    /// The `start` attribute (numbers, Booleans, Enumerations; a space-separated list for
    /// arrays), if present.
    pub start: Option<String>,
    /// The `<Start value="…"/>` children (String and Binary), in order.
    pub start_values: Vec<String>,
    /// The `<Dimension>` children, in order.
    pub dimensions: Vec<Dimension>,
}

impl ModelVariable3 {
    /// The support-crate causality this variable declares; `None` for causalities the test
    /// FMUs never use (`calculatedParameter`, `independent`).
    pub fn causality(&self) -> Option<Causality3> {
        match self.causality.as_deref().unwrap_or("local") {
            "parameter" => Some(Causality3::Parameter),
            "structuralParameter" => Some(Causality3::StructuralParameter),
            "input" => Some(Causality3::Input),
            "output" => Some(Causality3::Output),
            "local" => Some(Causality3::Local),
            _ => None,
        }
    }

    /// The start values as text, one per element: the `start` attribute split at whitespace,
    /// else the `<Start>` children. Empty if there is no start value.
    pub fn start_texts(&self) -> Vec<&str> {
        match &self.start {
            Some(start) => start.split_whitespace().collect(),
            None => self.start_values.iter().map(String::as_str).collect(),
        }
    }
}

/// The data type of an FMI 3.0 variable element name.
pub(crate) fn data_type(element: &str) -> Option<DataType> {
    Some(match element {
        "Float32" => DataType::Float32,
        "Float64" => DataType::Float64,
        "Int8" => DataType::Int8,
        "UInt8" => DataType::UInt8,
        "Int16" => DataType::Int16,
        "UInt16" => DataType::UInt16,
        "Int32" => DataType::Int32,
        "UInt32" => DataType::UInt32,
        "Int64" => DataType::Int64,
        "UInt64" => DataType::UInt64,
        "Boolean" => DataType::Boolean,
        "String" => DataType::String,
        "Binary" => DataType::Binary,
        "Enumeration" => DataType::Enumeration,
        _ => return None,
    })
}

/// A `<Dimension>` from its attributes: exactly one of `start` and `valueReference`.
pub(crate) fn dimension(
    start: Option<String>,
    value_reference: Option<String>,
) -> Result<Dimension, Error> {
    let bad = |what: &str| Error::Xml {
        message: format!("Dimension: {what}"),
    };
    match (start, value_reference) {
        (Some(start), None) => start
            .parse()
            .map(Dimension::Fixed)
            .map_err(|_| bad(&format!("bad start {start}"))),
        (None, Some(vr)) => vr
            .parse()
            .map(Dimension::Parameter)
            .map_err(|_| bad(&format!("bad valueReference {vr}"))),
        _ => Err(bad("needs exactly one of start and valueReference")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_dimensions() {
        assert!(dimension(Some("2".into()), Some("1".into())).is_err());
        assert!(dimension(None, None).is_err());
        assert_eq!(
            dimension(Some("2".into()), None).ok(),
            Some(Dimension::Fixed(2))
        );
        assert_eq!(data_type("Binary"), Some(DataType::Binary));
        assert_eq!(data_type("Clock"), None);
    }
}
