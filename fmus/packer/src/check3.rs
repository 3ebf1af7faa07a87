//! The checks of an FMI 3.0 modelDescription against an FMU crate: its [`Variable3`] table
//! ([`ModelDescription::mismatches3`]) and the start values its model reports
//! ([`ModelDescription::start_mismatches3`]). The description is read by [`crate::xml`], its
//! variable elements by [`crate::xml3`].

use std::collections::BTreeSet;

use fmu_support::{Causality3, DataType, Dimension, Model, ValuesMut, Variable3};

use crate::xml::{FmiVersion, ModelDescription};
use crate::xml3::ModelVariable3;

impl ModelDescription {
    /// Lists every disagreement between this FMI 3.0 description and a model's instantiation
    /// token and variable table (empty if they agree). Checks names, value references, types,
    /// causalities and dimensions; that no variable is missing or extra and value references
    /// are unique; that inputs and parameters have a start value, and outputs and locals one
    /// exactly when `initial="exact"`; that fixed-size arrays have one start value per element;
    /// that every `<Dimension valueReference>` names a UInt64 structural parameter; and that
    /// `ModelStructure/Output` lists exactly the outputs, in order.
    pub fn mismatches3(&self, token: &str, table: &[Variable3]) -> Vec<String> {
        let mut problems = Vec::new();
        if self.fmi_version != FmiVersion::V3 {
            problems.push("not an FMI 3.0 modelDescription".to_owned());
        }
        if self.guid != token {
            problems.push(format!("instantiationToken {} != {token}", self.guid));
        }
        if self.variables3.len() != table.len() {
            problems.push(format!(
                "{} variables in the XML, {} in the table",
                self.variables3.len(),
                table.len()
            ));
        }
        let vrs: BTreeSet<u32> = self.variables3.iter().map(|x| x.vr).collect();
        if vrs.len() != self.variables3.len() {
            problems.push("value references are not unique".to_owned());
        }
        for v in table {
            let Some(x) = self.variables3.iter().find(|x| x.name == v.name) else {
                problems.push(format!("variable {} missing from the XML", v.name));
                continue;
            };
            if x.vr != v.vr || x.ty != v.ty {
                problems.push(format!(
                    "{}: XML has {} vr {}, table has {} vr {}",
                    v.name, x.ty, x.vr, v.ty, v.vr
                ));
            }
            if x.causality() != Some(v.causality) {
                problems.push(format!(
                    "{}: XML causality {:?}, table {}",
                    v.name, x.causality, v.causality
                ));
            }
            if x.dimensions != v.dimensions {
                problems.push(format!(
                    "{}: XML dimensions {:?}, table {:?}",
                    v.name, x.dimensions, v.dimensions
                ));
            }
            let needs_start = match v.causality {
                Causality3::Input | Causality3::Parameter | Causality3::StructuralParameter => true,
                Causality3::Output | Causality3::Local => x.initial.as_deref() == Some("exact"),
            };
            let starts = x.start_texts();
            if needs_start == starts.is_empty() {
                problems.push(format!(
                    "{}: start {:?} with initial {:?}",
                    v.name, x.start, x.initial
                ));
            }
            let fixed: Option<u64> = x
                .dimensions
                .iter()
                .map(|d| match d {
                    Dimension::Fixed(n) => Some(*n),
                    Dimension::Parameter(_) => None,
                })
                .product();
            if let Some(count) = fixed.filter(|_| !starts.is_empty())
                && starts.len() as u64 != count
            {
                problems.push(format!(
                    "{}: {} start values for {count} elements",
                    v.name,
                    starts.len()
                ));
            }
            for d in &x.dimensions {
                let Dimension::Parameter(vr) = d else {
                    continue;
                };
                let ok = self.variables3.iter().any(|p| {
                    p.vr == *vr
                        && p.ty == DataType::UInt64
                        && p.causality() == Some(Causality3::StructuralParameter)
                        && p.dimensions.is_empty()
                });
                if !ok {
                    problems.push(format!(
                        "{}: Dimension valueReference {vr} is no scalar UInt64 structural parameter",
                        v.name
                    ));
                }
            }
        }
        let expected: Vec<u32> = self
            .variables3
            .iter()
            .filter(|x| x.causality.as_deref() == Some("output"))
            .map(|x| x.vr)
            .collect();
        if self.outputs3 != expected {
            problems.push(format!(
                "ModelStructure/Output {:?}, output variables {:?}",
                self.outputs3, expected
            ));
        }
        problems
    }

    /// Lists every start value of this FMI 3.0 description that differs from the value `model`
    /// reports (empty if all agree). `model` should be freshly instantiated and initialized at
    /// t = 0. Floats must agree to the bit after parsing the text to the variable's precision
    /// (so `0.1` in a Float32 is `0.1f32`); Booleans are `true`/`false`/`1`/`0`; Binary starts
    /// are hexadecimal. Arrays whose size comes from a structural parameter take the
    /// parameter's value from the model.
    pub fn start_mismatches3<M: Model>(&self, model: &M) -> Vec<String> {
        let mut problems = Vec::new();
        for x in &self.variables3 {
            let texts = x.start_texts();
            if texts.is_empty() {
                continue;
            }
            let mut count = 1usize;
            for d in &x.dimensions {
                let n = match *d {
                    Dimension::Fixed(n) => n,
                    Dimension::Parameter(vr) => {
                        let mut n = [0];
                        if model.get_values(vr, ValuesMut::UInt64(&mut n)).is_err() {
                            problems.push(format!("{}: cannot read dimension {vr}", x.name));
                            continue;
                        }
                        n[0]
                    }
                };
                count = count.saturating_mul(usize::try_from(n).unwrap_or(usize::MAX));
            }
            if texts.len() != count {
                problems.push(format!(
                    "{}: {} start values for {count} elements",
                    x.name,
                    texts.len()
                ));
                continue;
            }
            if let Err(problem) = compare(model, x, &texts) {
                problems.push(format!("{}: {problem}", x.name));
            }
        }
        problems
    }
}

/// Reads `x` from `model` and compares it with the start texts.
fn compare<M: Model>(model: &M, x: &ModelVariable3, texts: &[&str]) -> Result<(), String> {
    fn parsed<T: std::str::FromStr>(texts: &[&str]) -> Result<Vec<T>, String> {
        texts
            .iter()
            .map(|t| t.parse().map_err(|_| format!("start {t:?} does not parse")))
            .collect()
    }
    fn check<T: PartialEq + std::fmt::Debug>(start: Vec<T>, got: Vec<T>) -> Result<(), String> {
        if start == got {
            Ok(())
        } else {
            Err(format!("start {start:?}, model {got:?}"))
        }
    }
    let n = texts.len();
    let read = |values: ValuesMut<'_>| {
        model
            .get_values(x.vr, values)
            .map_err(|e| format!("model: {e}"))
    };
    macro_rules! numbers {
        ($t:ty, $variant:ident) => {{
            let mut got = vec![<$t>::default(); n];
            read(ValuesMut::$variant(&mut got))?;
            check(parsed::<$t>(texts)?, got)
        }};
    }
    match x.ty {
        DataType::Float32 => {
            let mut got = vec![0f32; n];
            read(ValuesMut::Float32(&mut got))?;
            let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
            check(bits(parsed(texts)?), bits(got))
        }
        DataType::Float64 => {
            let mut got = vec![0f64; n];
            read(ValuesMut::Float64(&mut got))?;
            let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
            check(bits(parsed(texts)?), bits(got))
        }
        DataType::Int8 => numbers!(i8, Int8),
        DataType::UInt8 => numbers!(u8, UInt8),
        DataType::Int16 => numbers!(i16, Int16),
        DataType::UInt16 => numbers!(u16, UInt16),
        DataType::Int32 => numbers!(i32, Int32),
        DataType::UInt32 => numbers!(u32, UInt32),
        DataType::Int64 | DataType::Enumeration => numbers!(i64, Int64),
        DataType::UInt64 => numbers!(u64, UInt64),
        DataType::Boolean => {
            let start = texts
                .iter()
                .map(|t| match *t {
                    "true" | "1" => Ok(true),
                    "false" | "0" => Ok(false),
                    _ => Err(format!("start {t:?} is no Boolean")),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let mut got = vec![false; n];
            read(ValuesMut::Boolean(&mut got))?;
            check(start, got)
        }
        DataType::String => {
            let mut got = vec![String::new(); n];
            read(ValuesMut::String(&mut got))?;
            check(texts.iter().map(|t| (*t).to_owned()).collect(), got)
        }
        DataType::Binary => {
            let start = texts
                .iter()
                .map(|t| hex(t).ok_or_else(|| format!("start {t:?} is no hex")))
                .collect::<Result<Vec<_>, _>>()?;
            let mut got = vec![Vec::new(); n];
            read(ValuesMut::Binary(&mut got))?;
            check(start, got)
        }
        other => Err(format!("type {other} is not checked")),
    }
}

/// Decodes hexadecimal digit pairs (`xs:hexBinary`).
fn hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const V3: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="{t}">
  <CoSimulation modelIdentifier="M_id" hasEventMode="true"/>
  <ModelVariables>
    <UInt64 name="n" valueReference="1" causality="structuralParameter" variability="fixed" start="2"/>
    <Float64 name="u" valueReference="2" causality="input" start="1 2">
      <Dimension valueReference="1"/>
    </Float64>
    <Int32 name="m" valueReference="3" causality="output" initial="exact" start="1 2 3 4 5 6">
      <Dimension start="2"/>
      <Dimension start="3"/>
    </Int32>
    <String name="s" valueReference="4" causality="parameter" variability="fixed">
      <Start value="a b"/>
    </String>
    <Binary name="b" valueReference="5" causality="input"><Start value="00ff"/></Binary>
  </ModelVariables>
  <ModelStructure>
    <Output valueReference="3"/>
  </ModelStructure>
</fmiModelDescription>"#;

    const TABLE: &[Variable3] = &[
        Variable3::new("n", 1, DataType::UInt64, Causality3::StructuralParameter),
        Variable3::new("u", 2, DataType::Float64, Causality3::Input)
            .array(&[Dimension::Parameter(1)]),
        Variable3::new("m", 3, DataType::Int32, Causality3::Output)
            .array(&[Dimension::Fixed(2), Dimension::Fixed(3)]),
        Variable3::new("s", 4, DataType::String, Causality3::Parameter),
        Variable3::new("b", 5, DataType::Binary, Causality3::Input),
    ];

    #[test]
    fn reads_fmi3_and_checks_the_table() {
        let md = ModelDescription::parse(V3).expect("parse");
        assert_eq!(md.fmi_version, FmiVersion::V3);
        assert_eq!(md.guid, "{t}");
        assert_eq!(md.model_identifier, "M_id");
        assert_eq!(md.capability("hasEventMode"), Some("true"));
        assert_eq!(md.variables3.len(), 5);
        assert_eq!(md.variables3[2].start_texts().len(), 6);
        assert_eq!(md.variables3[3].start_texts(), ["a b"]);
        assert_eq!(md.outputs3, [3]);
        assert_eq!(md.mismatches3("{t}", TABLE), Vec::<String>::new());
        let mut wrong = TABLE.to_vec();
        wrong[1] = wrong[1].array(&[Dimension::Fixed(2)]);
        wrong[4].causality = Causality3::Parameter;
        assert_eq!(md.mismatches3("{x}", &wrong).len(), 3);
    }

    #[test]
    fn hex_and_clocks() {
        assert_eq!(hex("00fF10"), Some(vec![0, 255, 16]));
        assert_eq!(hex("0"), None);
        assert_eq!(hex("zz"), None);
        let clock = V3.replace("Binary", "Clock");
        assert!(ModelDescription::parse(&clock).is_err());
    }
}
