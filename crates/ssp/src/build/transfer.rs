//! What one connection does to a value on its way: the unit conversion from the source
//! connector's unit to the sink connector's, then the connection's transformation; and how
//! such transfers fold along a path of connections through system connectors and signal
//! dictionaries.
//!
//! Spec: SSP 2.0 §4.5.2 (transformations: a linear transformation applies to the value
//! already converted to the target unit; mappings are valid for Boolean, integer and
//! enumeration connectors), §4.4.2 (units), §5.3.2 (`suppressUnitConversion`); SSP 1.0 §4.

use std::path::Path;

use crate::common::{Enumeration, Transformation};
use crate::error::{Result, SspError};
use crate::ssd::{self, Connector};
use crate::types::ConnectorType;

use super::Builder;

/// A value transfer folded along a path of connections.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Transfer {
    /// `scale · x + offset` (Real; identity for the others).
    Linear {
        /// Factor.
        scale: f64,
        /// Offset, in the unit of the receiving end.
        offset: f64,
    },
    /// A value mapping (Integer, Boolean or Enumeration values; values not listed pass).
    Map(Vec<(i128, i128)>),
}

impl Transfer {
    /// The transfer that changes nothing.
    pub(crate) const IDENTITY: Transfer = Transfer::Linear {
        scale: 1.0,
        offset: 0.0,
    };

    /// `self` followed by `next`, or `None` when they do not compose (a mapping and a
    /// non-identity linear transformation).
    pub(crate) fn then(&self, next: &Transfer) -> Option<Transfer> {
        match (self, next) {
            (
                Transfer::Linear { scale, offset },
                Transfer::Linear {
                    scale: s2,
                    offset: o2,
                },
            ) => Some(Transfer::Linear {
                scale: s2 * scale,
                offset: s2 * offset + o2,
            }),
            (t, other) | (other, t) if *t == Transfer::IDENTITY => Some(other.clone()),
            (Transfer::Map(first), Transfer::Map(second)) => {
                let apply = |v: i128, map: &[(i128, i128)]| {
                    map.iter().find(|(s, _)| *s == v).map_or(v, |(_, t)| *t)
                };
                let mut composed: Vec<(i128, i128)> =
                    first.iter().map(|&(s, t)| (s, apply(t, second))).collect();
                for &(s, t) in second {
                    if !first.iter().any(|(fs, _)| *fs == s) {
                        composed.push((s, t));
                    }
                }
                Some(Transfer::Map(composed))
            }
            _ => None,
        }
    }
}

impl Builder<'_> {
    /// The transfer of one connection from connector `from` (the source of the data) to
    /// `to`: the unit conversion between their units (unless suppressed), then the
    /// connection's transformation.
    ///
    /// # Errors
    /// Connectors of different type classes, a transformation that does not fit the types,
    /// units of different dimensions, enumeration items that do not exist.
    pub(super) fn transfer(
        &self,
        file: &Path,
        c: &ssd::Connection,
        from: &Connector,
        to: &Connector,
    ) -> Result<Transfer> {
        let error = |message: String| SspError::at(file, c.line, "Connection", message);
        if let (Some(a), Some(b)) = (from.ty.class(), to.ty.class())
            && a != b
        {
            return Err(error(format!(
                "type mismatch: '{}' is {} and '{}' is {}",
                from.name,
                from.ty.name(),
                to.name,
                to.ty.name()
            )));
        }
        let wrong = |expected: &str| {
            error(format!(
                "a {} needs {expected} connectors; '{}' is {} and '{}' is {}",
                c.transformation.as_ref().map_or("", Transformation::name),
                from.name,
                from.ty.name(),
                to.name,
                to.ty.name()
            ))
        };
        let pairs = |pairs: &[(i128, i128)]| Transfer::Map(pairs.to_vec());
        let transformation = match &c.transformation {
            None => Transfer::IDENTITY,
            Some(Transformation::Linear { factor, offset }) => {
                if !matches!(from.ty, ConnectorType::Real { .. } | ConnectorType::Unknown) {
                    return Err(wrong("Real, Float64 or Float32"));
                }
                Transfer::Linear {
                    scale: *factor,
                    offset: *offset,
                }
            }
            Some(Transformation::Boolean(map)) => {
                if !matches!(from.ty, ConnectorType::Boolean) {
                    return Err(wrong("Boolean"));
                }
                Transfer::Map(
                    map.iter()
                        .map(|&(s, t)| (i128::from(s), i128::from(t)))
                        .collect(),
                )
            }
            Some(Transformation::Integer(map)) => {
                if !matches!(
                    from.ty,
                    ConnectorType::Integer(_) | ConnectorType::Enumeration(_)
                ) {
                    return Err(wrong("integer or Enumeration"));
                }
                pairs(map)
            }
            Some(Transformation::Enumeration(map)) => {
                let (ConnectorType::Enumeration(source), ConnectorType::Enumeration(target)) =
                    (&from.ty, &to.ty)
                else {
                    return Err(wrong("Enumeration"));
                };
                let source = self.enumeration(file, source, c.line, "Connection")?;
                let target = self.enumeration(file, target, c.line, "Connection")?;
                let value = |e: &Enumeration, item: &str| {
                    e.items
                        .iter()
                        .find(|(n, _)| n == item)
                        .map(|(_, v)| i128::from(*v))
                        .ok_or_else(|| {
                            SspError::at(
                                file,
                                c.line,
                                "EnumerationMappingTransformation",
                                format!("the enumeration '{}' has no item '{item}'", e.name),
                            )
                        })
                };
                Transfer::Map(
                    map.iter()
                        .map(|(s, t)| Ok((value(source, s)?, value(target, t)?)))
                        .collect::<Result<_>>()?,
                )
            }
        };
        let conversion = match (from.ty.unit(), to.ty.unit()) {
            (Some(a), Some(b)) if !c.suppress_unit_conversion => {
                self.conversion(file, a, b, c.line, "Connection")?
            }
            _ => Transfer::IDENTITY,
        };
        Ok(conversion
            .then(&transformation)
            .expect("invariant: a unit conversion is linear and only Real connectors have units"))
    }

    /// The conversion of a value in unit `from` to unit `to` (both declared in the SSD).
    ///
    /// # Errors
    /// A unit that is not declared; units of different dimensions.
    pub(super) fn conversion(
        &self,
        file: &Path,
        from: &str,
        to: &str,
        line: usize,
        element: &str,
    ) -> Result<Transfer> {
        if from == to {
            return Ok(Transfer::IDENTITY);
        }
        let (a, b) = (
            self.unit(file, from, line, element)?,
            self.unit(file, to, line, element)?,
        );
        if a.exponents != b.exponents {
            return Err(SspError::at(
                file,
                line,
                element,
                format!(
                    "the units '{from}' and '{to}' have different dimensions; no conversion \
                     between them exists"
                ),
            ));
        }
        // SI value: factor · x + offset, in both units.
        Ok(Transfer::Linear {
            scale: a.factor / b.factor,
            offset: (a.offset - b.offset) / b.factor,
        })
    }
}
