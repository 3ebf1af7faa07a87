//! Typed, array-aware get and set for [`Instance3`]: every `fmi3Get…`/`fmi3Set…` call is
//! checked against the variable table (existence, type, causality per state) and its
//! `nValues` against the element counts, before the model sees one slice per variable.

use std::ffi::CString;

use super::{Error3, Instance3, Phase3, Result3};
use crate::model::Model;
use crate::model3::{
    Causality3, DataType, Dimension, Values, ValuesMut, Variable3, find_variable3,
};
use crate::phase::Status;

/// Most elements one array variable may have (guards the product of dimensions that come
/// from structural parameters).
pub(crate) const MAX_ELEMENTS: u64 = 1 << 24;

/// The states in which variables can be read. In Configuration Mode only structural
/// parameters are readable.
const GET_PHASES: &[Phase3] = &[
    Phase3::Configuration,
    Phase3::Initialization,
    Phase3::Event,
    Phase3::Step,
    Phase3::Terminated,
    Phase3::Error,
];

/// The states in which some variable can be written.
const SET_PHASES: &[Phase3] = &[
    Phase3::Instantiated,
    Phase3::Configuration,
    Phase3::Initialization,
    Phase3::Event,
    Phase3::Step,
];

/// Whether a variable of this causality can be written in this state.
///
/// Spec: FMI 3.0 §2.3 (states and the variables settable in them).
fn settable(causality: Causality3, phase: Phase3) -> bool {
    match causality {
        Causality3::Parameter => matches!(phase, Phase3::Instantiated | Phase3::Initialization),
        Causality3::StructuralParameter => phase == Phase3::Configuration,
        Causality3::Input => matches!(
            phase,
            Phase3::Instantiated | Phase3::Initialization | Phase3::Event | Phase3::Step
        ),
        Causality3::Output | Causality3::Local => false,
    }
}

/// One variable of a get/set call and its element count.
type Planned = (&'static Variable3, usize);

impl<M: Model> Instance3<M> {
    /// The table entry of `vr`.
    fn lookup3(&self, vr: u32) -> Result3<&'static Variable3> {
        find_variable3(self.model.variables3(), vr).ok_or(Error3::UnknownVariable { vr })
    }

    /// The number of elements of `variable`: 1 for a scalar, else the product of its
    /// dimensions, read from structural parameters where the table says so.
    ///
    /// # Errors
    /// [`Error3::Dimension`] for a dimension that refers to no UInt64 structural parameter,
    /// or a product above [`MAX_ELEMENTS`]; model errors from reading the parameter.
    pub(crate) fn element_count(&self, variable: &Variable3) -> Result3<usize> {
        let bad = |reason| Error3::Dimension {
            name: variable.name,
            vr: variable.vr,
            reason,
        };
        let mut count: u64 = 1;
        for dimension in variable.dimensions {
            let size = match *dimension {
                Dimension::Fixed(size) => size,
                Dimension::Parameter(vr) => {
                    let parameter = self.lookup3(vr).map_err(|_| bad("unknown dimension"))?;
                    if parameter.ty != DataType::UInt64
                        || parameter.causality != Causality3::StructuralParameter
                        || parameter.is_array()
                    {
                        return Err(bad("a dimension is no scalar UInt64 structural parameter"));
                    }
                    let mut size = [0];
                    self.model.get_values(vr, ValuesMut::UInt64(&mut size))?;
                    size[0]
                }
            };
            count = count
                .checked_mul(size)
                .filter(|&n| n <= MAX_ELEMENTS)
                .ok_or_else(|| bad("more elements than the export layer allows"))?;
        }
        usize::try_from(count).map_err(|_| bad("more elements than the export layer allows"))
    }

    /// Checks a get or set call on `vrs` through the functions of type `requested` with
    /// `n_values` values, and returns each variable with its element count.
    fn plan(
        &self,
        requested: DataType,
        vrs: &[u32],
        n_values: usize,
        set: bool,
    ) -> Result3<Vec<Planned>> {
        self.require(if set { SET_PHASES } else { GET_PHASES })?;
        let mut planned = Vec::with_capacity(vrs.len());
        let mut total = 0usize;
        for &vr in vrs {
            let variable = self.lookup3(vr)?;
            if variable.ty.access_type() != requested {
                return Err(Error3::WrongType {
                    name: variable.name,
                    vr,
                    declared: variable.ty,
                    requested,
                });
            }
            if set && !settable(variable.causality, self.phase) {
                return Err(Error3::NotSettable {
                    name: variable.name,
                    vr,
                    causality: variable.causality,
                    phase: self.phase,
                });
            }
            if !set
                && self.phase == Phase3::Configuration
                && variable.causality != Causality3::StructuralParameter
            {
                return Err(Error3::NotReadable {
                    name: variable.name,
                    vr,
                    phase: self.phase,
                });
            }
            let count = self.element_count(variable)?;
            total = total.saturating_add(count);
            planned.push((variable, count));
        }
        if total != n_values {
            return Err(Error3::ValueCount {
                arg: "nValues",
                expected: total,
                found: n_values,
            });
        }
        Ok(planned)
    }

    /// `fmi3Get{Float32…UInt64,Boolean}`: fills `out` (all elements of all `vrs`, in order)
    /// through [`Model::get_values`]; `wrap` makes the [`ValuesMut`] of the C type.
    ///
    /// Shapes: `out.len()` is `nValues` and must equal the total element count.
    pub(crate) fn get<T>(
        &self,
        requested: DataType,
        vrs: &[u32],
        out: &mut [T],
        wrap: fn(&mut [T]) -> ValuesMut<'_>,
    ) -> Result3 {
        let planned = self.plan(requested, vrs, out.len(), false)?;
        let mut rest = out;
        for (variable, count) in planned {
            let (chunk, tail) = rest.split_at_mut(count);
            self.model.get_values(variable.vr, wrap(chunk))?;
            rest = tail;
        }
        Ok(Status::Ok)
    }

    /// `fmi3GetString`: reads the strings into the instance's buffer, which keeps them valid
    /// until the next `fmi3GetString`, and calls `sink(i, string)` for each element.
    pub(crate) fn get_strings(
        &mut self,
        vrs: &[u32],
        n_values: usize,
        mut sink: impl FnMut(usize, &CString),
    ) -> Result3 {
        let planned = self.plan(DataType::String, vrs, n_values, false)?;
        let mut strings = Vec::with_capacity(n_values);
        for (variable, count) in planned {
            let mut values = vec![String::new(); count];
            self.model
                .get_values(variable.vr, ValuesMut::String(&mut values))?;
            for s in values {
                strings.push(CString::new(s).map_err(|_| Error3::InteriorNul { vr: variable.vr })?);
            }
        }
        self.strings = strings;
        for (i, s) in self.strings.iter().enumerate() {
            sink(i, s);
        }
        Ok(Status::Ok)
    }

    /// `fmi3GetBinary`: reads the byte strings into the instance's buffer, which keeps them
    /// valid until the next `fmi3GetBinary`, and calls `sink(i, bytes)` for each element.
    pub(crate) fn get_binaries(
        &mut self,
        vrs: &[u32],
        n_values: usize,
        mut sink: impl FnMut(usize, &[u8]),
    ) -> Result3 {
        let planned = self.plan(DataType::Binary, vrs, n_values, false)?;
        let mut binaries = Vec::with_capacity(n_values);
        for (variable, count) in planned {
            let mut values = vec![Vec::new(); count];
            self.model
                .get_values(variable.vr, ValuesMut::Binary(&mut values))?;
            binaries.extend(values);
        }
        self.binaries = binaries;
        for (i, b) in self.binaries.iter().enumerate() {
            sink(i, b);
        }
        Ok(Status::Ok)
    }

    /// `fmi3Set…`: writes `values` (all elements of all `vrs`, in order) through
    /// [`Model::set_values`]; `wrap` makes the [`Values`] of the element type. Before the end
    /// of initialization the model is re-initialized, so parameters take effect at once.
    ///
    /// Shapes: `values.len()` is `nValues` and must equal the total element count, counted
    /// before any value is written.
    pub(crate) fn set<T>(
        &mut self,
        requested: DataType,
        vrs: &[u32],
        values: &[T],
        wrap: for<'a> fn(&'a [T]) -> Values<'a>,
    ) -> Result3 {
        let planned = self.plan(requested, vrs, values.len(), true)?;
        let mut rest = values;
        for (variable, count) in planned {
            let (chunk, tail) = rest.split_at(count);
            self.model.set_values(variable.vr, wrap(chunk))?;
            rest = tail;
        }
        if matches!(
            self.phase,
            Phase3::Instantiated | Phase3::Configuration | Phase3::Initialization
        ) {
            self.model.initialize(self.start_time)?;
        }
        Ok(Status::Ok)
    }

    /// `fmi3GetDirectionalDerivative`: forwards to [`Model::directional_derivative`] for
    /// scalar Float64 unknowns and knowns.
    ///
    /// Shapes: `seed.len()` (nSeed) must equal `knowns.len()` and `sensitivity.len()`
    /// (nSensitivity) must equal `unknowns.len()`, since every variable is a scalar.
    pub(crate) fn directional_derivative(
        &self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result3 {
        self.require(&GET_PHASES[1..])?;
        for &vr in unknowns.iter().chain(knowns) {
            let variable = self.lookup3(vr)?;
            if variable.ty != DataType::Float64 || variable.is_array() {
                return Err(Error3::Unsupported {
                    what: "directional derivatives of other than scalar Float64 variables",
                });
            }
        }
        for (arg, expected, found) in [
            ("nSeed", knowns.len(), seed.len()),
            ("nSensitivity", unknowns.len(), sensitivity.len()),
        ] {
            if expected != found {
                return Err(Error3::ValueCount {
                    arg,
                    expected,
                    found,
                });
            }
        }
        match self
            .model
            .directional_derivative(unknowns, knowns, seed, sensitivity)
        {
            None => Err(Error3::Unsupported {
                what: "directional derivatives (providesDirectionalDerivatives=\"false\")",
            }),
            Some(result) => Ok(result.map(|()| Status::Ok)?),
        }
    }
}
