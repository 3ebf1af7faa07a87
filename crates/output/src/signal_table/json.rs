//! The JSON form of a Signal Table: `Serialize` views over the collected rows.
//!
//! Each view borrows the writer's data and writes one JSON object, so the file is produced
//! by streaming through `serde_json` without an intermediate JSON tree.
//!
//! Spec: Otter, "Signal Tables" (2022) §3.5.

use serde::Serialize;
use serde::ser::{SerializeMap as _, Serializer};

use super::{AttributeMap, AttributeValue, ParameterValue, SignalType, TableData, Variability};

/// The whole table, serialized as one JSON object.
pub(super) struct Table<'a> {
    pub(super) w: &'a TableData,
    pub(super) attributes: &'a AttributeMap,
}

impl Serialize for Table<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let w = self.w;
        let layout = &w.layout;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("_class", "SignalTable")?;
        map.serialize_entry(
            "time",
            &TimeVar {
                values: &w.time,
                unit: &layout.time_unit,
            },
        )?;
        for (i, s) in layout.signals.iter().enumerate() {
            let var = Var {
                values: Values {
                    w,
                    signal: i,
                    negate: false,
                },
                unit: &s.unit,
                info: &s.info,
                variability: s.variability,
            };
            map.serialize_entry(&s.name, &var)?;
        }
        for p in &layout.parameters {
            let par = Par {
                value: &p.value,
                negate: false,
                unit: &p.unit,
                info: &p.info,
            };
            map.serialize_entry(&p.name, &par)?;
        }
        for a in &layout.aliases {
            match (a.parameter, a.negated) {
                (false, true) => {
                    let var = Var {
                        values: Values {
                            w,
                            signal: a.of,
                            negate: true,
                        },
                        unit: &a.unit,
                        info: &a.info,
                        variability: layout.signals[a.of].variability,
                    };
                    map.serialize_entry(&a.name, &var)?;
                }
                (true, true) => {
                    let par = Par {
                        value: &layout.parameters[a.of].value,
                        negate: true,
                        unit: &a.unit,
                        info: &a.info,
                    };
                    map.serialize_entry(&a.name, &par)?;
                }
                (parameter, false) => {
                    let (class, target) = if parameter {
                        ("Par", &layout.parameters[a.of].name)
                    } else {
                        ("Var", &layout.signals[a.of].name)
                    };
                    let alias = Alias {
                        class,
                        target,
                        unit: &a.unit,
                        info: &a.info,
                    };
                    map.serialize_entry(&a.name, &alias)?;
                }
            }
        }
        map.serialize_entry("attributes", &MapObject(self.attributes))?;
        map.end()
    }
}

/// The independent variable.
struct TimeVar<'a> {
    values: &'a [f64],
    unit: &'a str,
}

impl Serialize for TimeVar<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("_class", "Var")?;
        map.serialize_entry("values", self.values)?;
        if !self.unit.is_empty() {
            map.serialize_entry("unit", self.unit)?;
        }
        map.serialize_entry("independent", &true)?;
        map.end()
    }
}

/// The values of one signal, read from the row-major typed storage.
struct Values<'a> {
    w: &'a TableData,
    signal: usize,
    negate: bool,
}

impl Serialize for Values<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let w = self.w;
        let ty = w.layout.signals[self.signal].ty;
        // At least one signal of this type exists, so the stride is positive.
        let stride = w.counts[ty.index()];
        let slot = w.slot[self.signal];
        let negate = self.negate;
        match ty {
            SignalType::Boolean => serializer.collect_seq(
                w.booleans
                    .iter()
                    .skip(slot)
                    .step_by(stride)
                    .map(|&b| b != negate),
            ),
            SignalType::Integer => serializer.collect_seq(
                w.integers
                    .iter()
                    .skip(slot)
                    .step_by(stride)
                    .map(|&v| if negate { -v } else { v }),
            ),
            SignalType::Real => serializer.collect_seq(
                w.reals
                    .iter()
                    .skip(slot)
                    .step_by(stride)
                    .map(|&v| if negate { -v } else { v }),
            ),
            SignalType::String => {
                serializer.collect_seq(w.strings.iter().skip(slot).step_by(stride).map(|s| &**s))
            }
        }
    }
}

/// A result signal with its values.
struct Var<'a> {
    values: Values<'a>,
    unit: &'a str,
    info: &'a str,
    variability: Variability,
}

impl Serialize for Var<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("_class", "Var")?;
        map.serialize_entry("values", &self.values)?;
        if !self.unit.is_empty() {
            map.serialize_entry("unit", self.unit)?;
        }
        map.serialize_entry("variability", self.variability.as_str())?;
        if !self.info.is_empty() {
            map.serialize_entry("info", self.info)?;
        }
        map.end()
    }
}

/// A parameter with its value.
struct Par<'a> {
    value: &'a ParameterValue,
    negate: bool,
    unit: &'a str,
    info: &'a str,
}

impl Serialize for Par<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("_class", "Par")?;
        match (self.value, self.negate) {
            (ParameterValue::Boolean(b), negate) => {
                map.serialize_entry("value", &(*b != negate))?
            }
            (ParameterValue::Integer(v), false) => map.serialize_entry("value", v)?,
            (ParameterValue::Integer(v), true) => map.serialize_entry("value", &-*v)?,
            (ParameterValue::Real(v), negate) => {
                map.serialize_entry("value", &if negate { -v } else { *v })?;
            }
            // Negated String aliases are rejected by `create`.
            (ParameterValue::String(s), _) => map.serialize_entry("value", s)?,
        }
        if !self.unit.is_empty() {
            map.serialize_entry("unit", self.unit)?;
        }
        if !self.info.is_empty() {
            map.serialize_entry("info", self.info)?;
        }
        map.end()
    }
}

/// An alias member: a reference to the stored signal, without values.
struct Alias<'a> {
    class: &'static str,
    target: &'a str,
    unit: &'a str,
    info: &'a str,
}

impl Serialize for Alias<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("_class", self.class)?;
        map.serialize_entry("alias", self.target)?;
        if !self.unit.is_empty() {
            map.serialize_entry("unit", self.unit)?;
        }
        if !self.info.is_empty() {
            map.serialize_entry("info", self.info)?;
        }
        map.end()
    }
}

/// An [`AttributeMap`] as a `Map` object.
struct MapObject<'a>(&'a AttributeMap);

impl Serialize for MapObject<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("_class", "Map")?;
        for (key, value) in self.0.entries() {
            if key == "_class" {
                continue;
            }
            match value {
                AttributeValue::Boolean(b) => map.serialize_entry(key, b)?,
                AttributeValue::Integer(i) => map.serialize_entry(key, i)?,
                AttributeValue::Real(r) => map.serialize_entry(key, r)?,
                AttributeValue::String(s) => map.serialize_entry(key, s)?,
                AttributeValue::Map(m) => map.serialize_entry(key, &MapObject(m))?,
            }
        }
        map.end()
    }
}
