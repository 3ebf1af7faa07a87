//! FMI 3.0 `ModelVariables` into [`ScalarVariable`]s and [`ClockVariable`]s.
//!
//! - **Order.** Variables keep file order. An array variable becomes one scalar per element,
//!   in row-major order (last index fastest), named `x[i]` / `x[i,j]` with indices from 1;
//!   all its elements keep the array's value reference. `index` is the position in this
//!   expanded list (from 1) and `handle` is `index − 1`.
//! - **Dimensions.** A `Dimension` gives its size in `start`, or names (`valueReference`) a
//!   scalar variable of an integer type whose start value is the size: a constant, or a
//!   structural parameter of variability fixed or tunable (mastersim never changes
//!   structural parameters, so sizes are fixed at load). An input, output, local or
//!   (calculated) parameter is refused: its value, and so the size, may change. FMI 3.0 asks
//!   for a UInt64; another integer type, and a structural parameter without `variability`,
//!   are read with a warning. A size of 0 gives no scalars
//!   (with a warning). Limits ([`expand::MAX_SCALARS`] and its neighbours): at most
//!   1 000 000 scalars in all, 32 dimensions per array, and about 1 GiB of scalars (a long
//!   description is copied into every element).
//! - **Start values.** Numeric and Boolean starts are a whitespace-separated list in `start`;
//!   String and Binary starts are `<Start value=".."/>` children. Each scalar gets its own
//!   item. FMI 3.0 asks for one item per element; a single item is also accepted and then
//!   applies to every element; any other count is an error. Binary starts are hexadecimal,
//!   kept in lowercase without the optional `0x` prefix.
//! - **Aliases.** Each `<Alias>` child becomes scalars of its own (named by the alias, after
//!   the scalars of its variable), with the same value reference, data type and start value,
//!   its own description and display unit (the variable's when it gives none), and
//!   [`Alias::Alias`] as its alias kind. Aliases of clocks are ignored.
//! - **Uniqueness.** Value references are unique across all variables and clocks. Names
//!   should be unique across all scalars, aliases and clocks; a name used more than once is
//!   read with a warning, as in FMI 1.0 and 2.0 (`convert::consistency`): all are kept, and
//!   the master refuses a reference to the name unless its scalars are one value.
//! - **Clocks** go to [`ClockVariable`]s only. The `clocks` attribute of a variable must
//!   list value references of clocks.
//!
//! Spec: FMI 3.0 §2.4.7 (`ModelVariables`), §2.4.7.4 (common variable attributes), §2.4.7.5
//! (type-specific attributes, `Alias`), §2.4.7.6 (`Dimension`, array start values).

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use super::super::convert::repeated_names;
use super::{CLOCK_ATTRIBUTES, Definitions, Reader, path_of};
use crate::model_description::{
    Alias, Causality, ClockVariable, DataType, Initial, ScalarVariable, Variability,
};
use crate::xml_tree::Node;
use crate::{Error, Result, ValueRef};

mod expand;

use expand::{
    DIMENSIONS_LIMIT, Expansion, MAX_DIMENSIONS, SCALARS_LIMIT, Starts, expand, hex, scalar_bytes,
    size,
};

/// Attributes of every variable element (`fmi3AbstractVariable` plus `declaredType`); each kind
/// adds its own ([`Kind::attributes`]).
const COMMON_ATTRIBUTES: &[&str] = &[
    "name",
    "valueReference",
    "description",
    "causality",
    "variability",
    "canHandleMultipleSetPerTimeInstant",
    "intermediateUpdate",
    "previous",
    "clocks",
    "declaredType",
];

const FLOAT_ATTRIBUTES: &[&str] = &[
    "initial",
    "quantity",
    "unit",
    "displayUnit",
    "relativeQuantity",
    "unbounded",
    "min",
    "max",
    "nominal",
    "start",
    "derivative",
    "reinit",
];

const INTEGER_ATTRIBUTES: &[&str] = &["initial", "quantity", "min", "max", "start"];

const HEX: &str = "hexadecimal bytes (pairs of 0-9, a-f; an optional 0x prefix)";

/// What a variable element declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A value of this type (`Float32` … `Binary`).
    Data(DataType),
    /// `Enumeration`: an `Int64` value.
    Enumeration,
    /// `Clock`: not a value; listed apart.
    Clock,
}

impl Kind {
    /// The kind of a `ModelVariables` child named `element`.
    fn of(element: &str) -> Option<Kind> {
        Some(match element {
            "Float32" => Kind::Data(DataType::Float32),
            "Float64" => Kind::Data(DataType::Float64),
            "Int8" => Kind::Data(DataType::Int8),
            "UInt8" => Kind::Data(DataType::UInt8),
            "Int16" => Kind::Data(DataType::Int16),
            "UInt16" => Kind::Data(DataType::UInt16),
            "Int32" => Kind::Data(DataType::Int32),
            "UInt32" => Kind::Data(DataType::UInt32),
            "Int64" => Kind::Data(DataType::Int64),
            "UInt64" => Kind::Data(DataType::UInt64),
            "Boolean" => Kind::Data(DataType::Boolean),
            "String" => Kind::Data(DataType::String),
            "Binary" => Kind::Data(DataType::Binary),
            "Enumeration" => Kind::Enumeration,
            "Clock" => Kind::Clock,
            _ => return None,
        })
    }

    /// True for `Float32` and `Float64`, the types with units.
    fn is_float(self) -> bool {
        matches!(self, Kind::Data(DataType::Float32 | DataType::Float64))
    }

    /// True for the integer types (`Int8` … `UInt64`; not `Enumeration`), which may size an
    /// array dimension.
    fn is_integer(self) -> bool {
        matches!(self, Kind::Data(t) if t.integer_range().is_some())
    }

    /// The attributes the element may have besides [`COMMON_ATTRIBUTES`].
    fn attributes(self) -> &'static [&'static str] {
        match self {
            Kind::Data(DataType::Float32 | DataType::Float64) => FLOAT_ATTRIBUTES,
            Kind::Data(DataType::Boolean) => &["initial", "start"],
            Kind::Data(DataType::String) => &["initial"],
            Kind::Data(DataType::Binary) => &["initial", "mimeType", "maxSize"],
            Kind::Data(_) | Kind::Enumeration => INTEGER_ATTRIBUTES,
            Kind::Clock => CLOCK_ATTRIBUTES,
        }
    }

    /// The `TypeDefinitions` element its `declaredType` must name, e.g. `Float64Type`.
    fn type_element(self) -> String {
        match self {
            Kind::Data(t) => format!("{}Type", t.name()),
            Kind::Enumeration => "EnumerationType".to_owned(),
            Kind::Clock => "ClockType".to_owned(),
        }
    }
}

/// A variable element after the first pass: its name, value reference and kind are valid.
struct Declaration<'t> {
    node: &'t Node,
    /// `ModelVariables/Float64[3] 'x'`.
    element: String,
    name: String,
    value_reference: u32,
    kind: Kind,
}

impl<'a> Reader<'a> {
    /// Reads `ModelVariables`: the scalars in index order, the clocks, and the value
    /// references of the arrays without elements (a dimension of size 0).
    pub(super) fn variables(
        &self,
        model_variables: &'a Node,
        definitions: &Definitions,
    ) -> Result<(Vec<ScalarVariable>, Vec<ClockVariable>, Vec<u32>)> {
        let (declarations, by_reference) = self.declarations(model_variables)?;
        self.check_clocks(&declarations, &by_reference)?;
        let mut expansion = Expansion::default();
        let mut clocks = Vec::new();
        let mut clock_owners = Vec::new();
        let mut empty = Vec::new();
        for declaration in &declarations {
            self.check_declared_type(declaration, definitions);
            if declaration.kind == Kind::Clock {
                clocks.push(self.clock(declaration)?);
                clock_owners.push(expansion.owners.len());
                expansion.owners.push(declaration.element.clone());
            } else {
                let before = expansion.scalars.len();
                self.variable(
                    declaration,
                    &declarations,
                    &by_reference,
                    definitions,
                    &mut expansion,
                )?;
                if expansion.scalars.len() == before {
                    empty.push(declaration.value_reference);
                }
            }
        }
        self.warn_repeated_names(&expansion, &clocks, &clock_owners);
        Ok((expansion.scalars, clocks, empty))
    }

    /// First pass: the kind, name and value reference of every child of `ModelVariables`,
    /// and the position of each value reference's variable.
    ///
    /// # Errors
    /// An element that is not a variable, a missing name or value reference, a value
    /// reference used twice.
    fn declarations(
        &self,
        model_variables: &'a Node,
    ) -> Result<(Vec<Declaration<'a>>, HashMap<u32, usize>)> {
        let mut declarations: Vec<Declaration<'a>> = Vec::new();
        let mut by_reference: HashMap<u32, usize> = HashMap::new();
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for node in self.tree.children(model_variables) {
            let count = seen.entry(node.name.as_str()).or_default();
            *count += 1;
            let position = path_of("ModelVariables", &node.name, *count);
            let Some(kind) = Kind::of(&node.name) else {
                return Err(Error::UnknownVariableElement {
                    path: self.ctx.path.to_owned(),
                    element: position,
                });
            };
            let element = match node.get("name") {
                Some(name) => format!("{position} '{name}'"),
                None => position,
            };
            let name = self.ctx.required(&element, "name", node.owned("name"))?;
            let text =
                self.ctx
                    .required(&element, "valueReference", node.owned("valueReference"))?;
            let value_reference = text.trim().parse::<u32>().map_err(|_| {
                self.ctx.invalid(
                    &element,
                    "valueReference",
                    &text,
                    "an unsigned 32-bit integer",
                )
            })?;
            match by_reference.entry(value_reference) {
                Entry::Occupied(first) => {
                    return Err(Error::DuplicateValueReference {
                        path: self.ctx.path.to_owned(),
                        element,
                        value_reference,
                        first: declarations[*first.get()].element.clone(),
                    });
                }
                Entry::Vacant(slot) => {
                    slot.insert(declarations.len());
                }
            }
            declarations.push(Declaration {
                node,
                element,
                name,
                value_reference,
                kind,
            });
        }
        Ok((declarations, by_reference))
    }

    /// Warns when `declaredType` names no type definition, or one of another kind.
    fn check_declared_type(&self, declaration: &Declaration<'_>, definitions: &Definitions) {
        let Some(name) = declaration.node.get("declaredType") else {
            return;
        };
        let expected = declaration.kind.type_element();
        match definitions.types.get(name) {
            None => self.warn_once(("declaredType", name), || {
                format!(
                    "{}: declaredType '{name}' is not defined in TypeDefinitions",
                    declaration.element
                )
            }),
            Some(definition) if definition.element != expected => {
                self.warn_once(("declaredType", name), || {
                    format!(
                        "{}: declaredType '{name}' is a {}, expected a {expected}",
                        declaration.element, definition.element
                    )
                })
            }
            Some(_) => {}
        }
    }

    /// A `Clock` element.
    fn clock(&self, declaration: &Declaration<'_>) -> Result<ClockVariable> {
        let (element, node) = (&declaration.element, declaration.node);
        self.check_all(element, node, &[COMMON_ATTRIBUTES, CLOCK_ATTRIBUTES]);
        let (causality, _, _) = self.kinds(element, node, Variability::Discrete)?;
        Ok(ClockVariable {
            name: declaration.name.clone(),
            value_reference: ValueRef(declaration.value_reference),
            causality,
        })
    }

    /// Causality (default `local`), variability (default `default_variability`) and initial.
    fn kinds(
        &self,
        element: &str,
        node: &Node,
        default_variability: Variability,
    ) -> Result<(Causality, Variability, Option<Initial>)> {
        let causality = self
            .ctx
            .keyword(
                element,
                "causality",
                &node.owned("causality"),
                &[
                    ("parameter", Causality::Parameter),
                    ("calculatedParameter", Causality::CalculatedParameter),
                    ("input", Causality::Input),
                    ("output", Causality::Output),
                    ("local", Causality::Local),
                    ("independent", Causality::Independent),
                    ("structuralParameter", Causality::StructuralParameter),
                ],
                "parameter, calculatedParameter, input, output, local, independent or \
                 structuralParameter",
            )?
            .unwrap_or(Causality::Local);
        let variability = self
            .ctx
            .keyword(
                element,
                "variability",
                &node.owned("variability"),
                &[
                    ("constant", Variability::Constant),
                    ("fixed", Variability::Fixed),
                    ("tunable", Variability::Tunable),
                    ("discrete", Variability::Discrete),
                    ("continuous", Variability::Continuous),
                ],
                "constant, fixed, tunable, discrete or continuous",
            )?
            .unwrap_or(default_variability);
        let initial = self.ctx.keyword(
            element,
            "initial",
            &node.owned("initial"),
            &[
                ("exact", Initial::Exact),
                ("approx", Initial::Approx),
                ("calculated", Initial::Calculated),
            ],
            "exact, approx or calculated",
        )?;
        Ok((causality, variability, initial))
    }

    /// Unit and display unit of a Float variable: its own attributes, else those of its
    /// declared type. Warns when the display unit is not one its unit defines.
    fn float_units(
        &self,
        element: &str,
        node: &Node,
        definitions: &Definitions,
    ) -> (Option<String>, Option<String>) {
        let declared = node
            .get("declaredType")
            .and_then(|t| definitions.types.get(t));
        let own = |attribute: &str| node.owned(attribute).filter(|u| !u.is_empty());
        let unit = own("unit").or_else(|| declared.and_then(|d| d.unit.clone()));
        let display_unit =
            own("displayUnit").or_else(|| declared.and_then(|d| d.display_unit.clone()));
        self.check_display_unit(
            element,
            unit.as_deref(),
            display_unit.as_deref(),
            definitions,
        );
        (unit, display_unit)
    }

    /// Warns when `display_unit` is not a `DisplayUnit` of `unit` in `UnitDefinitions` (only
    /// when `unit` is defined there).
    fn check_display_unit(
        &self,
        element: &str,
        unit: Option<&str>,
        display_unit: Option<&str>,
        definitions: &Definitions,
    ) {
        if let (Some(unit), Some(display_unit)) = (unit, display_unit)
            && let Some(known) = definitions.display_units.get(unit)
            && !known.iter().any(|d| d == display_unit)
        {
            self.warn_once(("displayUnit", display_unit), || {
                format!(
                    "{element}: displayUnit '{display_unit}' is not a DisplayUnit of unit \
                     '{unit}' in UnitDefinitions"
                )
            });
        }
    }

    /// The dimensions of a variable (empty for a scalar).
    fn dimensions(
        &self,
        declaration: &Declaration<'_>,
        declarations: &[Declaration<'_>],
        by_reference: &HashMap<u32, usize>,
    ) -> Result<Vec<usize>> {
        self.tree
            .children_named(declaration.node, "Dimension")
            .enumerate()
            .map(|(k, node)| {
                let element = path_of(&declaration.element, "Dimension", k + 1);
                self.dimension(&element, node, declarations, by_reference)
            })
            .collect()
    }

    /// The size of one `Dimension` (`element` names it).
    fn dimension(
        &self,
        element: &str,
        node: &Node,
        declarations: &[Declaration<'_>],
        by_reference: &HashMap<u32, usize>,
    ) -> Result<usize> {
        self.check(element, node, &["start", "valueReference"]);
        let invalid_size = |value: &str, from: Option<&str>| Error::InvalidDimensionSize {
            path: self.ctx.path.to_owned(),
            element: element.to_owned(),
            value: value.to_owned(),
            from: from.map(str::to_owned),
        };
        match (node.get("start"), node.get("valueReference")) {
            (Some(_), Some(text)) => Err(self.ctx.invalid(
                element,
                "valueReference",
                text,
                "absent, since 'start' gives the size",
            )),
            (Some(start), None) => size(start).ok_or_else(|| invalid_size(start, None)),
            (None, Some(text)) => {
                let value_reference = text.trim().parse::<u32>().map_err(|_| {
                    self.ctx.invalid(
                        element,
                        "valueReference",
                        text,
                        "an unsigned 32-bit integer",
                    )
                })?;
                let Some(&position) = by_reference.get(&value_reference) else {
                    return Err(Error::DimensionReference {
                        path: self.ctx.path.to_owned(),
                        element: element.to_owned(),
                        value_reference,
                    });
                };
                let target = &declarations[position];
                let start = target.node.get("start");
                let problem = if !target.kind.is_integer() {
                    Some("is not of an integer type")
                } else if self.tree.child(target.node, "Dimension").is_some() {
                    Some("is an array")
                } else if let Some(problem) = self.sizing_problem(element, target)? {
                    Some(problem)
                } else if start.is_none() {
                    Some("has no start value")
                } else {
                    None
                };
                if let Some(problem) = problem {
                    return Err(Error::DimensionTarget {
                        path: self.ctx.path.to_owned(),
                        element: element.to_owned(),
                        value_reference,
                        target: target.element.clone(),
                        problem,
                    });
                }
                let start = start.unwrap_or_default();
                size(start).ok_or_else(|| invalid_size(start, Some(&target.element)))
            }
            (None, None) => Err(Error::MissingAttribute {
                path: self.ctx.path.to_owned(),
                element: element.to_owned(),
                attribute: "start or valueReference",
            }),
        }
    }

    /// Why the integer scalar `target` cannot give the size of the dimension `element` by its
    /// causality and variability, if it cannot: its value must stay at its start value, so
    /// it must be a constant, or a structural parameter (which mastersim never sets) of
    /// variability fixed or tunable. A structural parameter without `variability`, and one
    /// of another integer type than UInt64, are read with a warning.
    ///
    /// # Errors
    /// An invalid `causality` or `variability` of `target`.
    ///
    /// Spec: FMI 3.0 §2.4.7.6 (`Dimension`: array variables and structural parameters),
    /// §2.4.7.4 (`structuralParameter`: variability fixed or tunable).
    fn sizing_problem(
        &self,
        element: &str,
        target: &Declaration<'_>,
    ) -> Result<Option<&'static str>> {
        let (causality, variability, _) =
            self.kinds(&target.element, target.node, Variability::Fixed)?;
        let problem = match (causality, variability) {
            (_, Variability::Constant) => None,
            (Causality::StructuralParameter, Variability::Fixed | Variability::Tunable) => None,
            (Causality::StructuralParameter, _) => Some(
                "is a structuralParameter of variability discrete or continuous (FMI 3.0 \
                 allows fixed or tunable)",
            ),
            (Causality::Input, _) => Some("is an input: its value may change during the run"),
            (Causality::Output, _) => Some("is an output, computed by the FMU"),
            (Causality::Local, _) => Some("is a local variable, computed by the FMU"),
            (Causality::Parameter, _) => Some(
                "is a parameter, not a structuralParameter: it may be set without the array \
                 changing its size",
            ),
            (Causality::CalculatedParameter, _) => {
                Some("is a calculatedParameter, computed by the FMU")
            }
            (Causality::Independent, _) => Some("is the independent variable"),
        };
        if problem.is_some() {
            return Ok(problem);
        }
        if causality == Causality::StructuralParameter && target.node.get("variability").is_none() {
            self.warn_once((&target.element, "variability"), || {
                format!(
                    "{}: structuralParameter without 'variability' (FMI 3.0 asks for fixed or \
                     tunable); read as fixed",
                    target.element
                )
            });
        }
        if target.kind != Kind::Data(DataType::UInt64) {
            self.warn_once((&target.element, "Dimension"), || {
                format!(
                    "{element}: sized by {}, which FMI 3.0 asks to be a UInt64; its start value \
                     is read as the size",
                    target.element
                )
            });
        }
        Ok(None)
    }

    /// Checks the `clocks` attribute of every variable: each value reference it lists must
    /// name a `Clock`.
    ///
    /// # Errors
    /// [`Error::InvalidAttribute`] for an item that is not a value reference,
    /// [`Error::ClockReference`] for one that names no variable or one that is not a clock.
    ///
    /// Spec: FMI 3.0 §2.4.7.4 (`clocks`).
    fn check_clocks(
        &self,
        declarations: &[Declaration<'_>],
        by_reference: &HashMap<u32, usize>,
    ) -> Result<()> {
        for declaration in declarations {
            let Some(list) = declaration.node.get("clocks") else {
                continue;
            };
            for item in list.split_whitespace() {
                let value_reference = item.parse::<u32>().map_err(|_| {
                    self.ctx.invalid(
                        &declaration.element,
                        "clocks",
                        list,
                        "value references of Clock variables, separated by spaces",
                    )
                })?;
                let target = by_reference
                    .get(&value_reference)
                    .map(|&i| &declarations[i]);
                if target.is_none_or(|t| t.kind != Kind::Clock) {
                    return Err(Error::ClockReference {
                        path: self.ctx.path.to_owned(),
                        element: declaration.element.clone(),
                        value_reference,
                        target: target.map(|t| t.element.clone()),
                    });
                }
            }
        }
        Ok(())
    }

    /// The start values of a variable with `len` elements (1 for a scalar).
    fn starts(&self, declaration: &Declaration<'_>, len: usize) -> Result<Starts> {
        let (element, node) = (&declaration.element, declaration.node);
        let mut items: Vec<String> = match declaration.kind {
            Kind::Data(DataType::String | DataType::Binary) => {
                let binary = declaration.kind == Kind::Data(DataType::Binary);
                let mut items = Vec::new();
                for (k, start) in self.tree.children_named(node, "Start").enumerate() {
                    let element = path_of(element, "Start", k + 1);
                    self.check(&element, start, &["value"]);
                    let value = self.ctx.required(&element, "value", start.owned("value"))?;
                    if binary {
                        let normalized = hex(&value)
                            .ok_or_else(|| self.ctx.invalid(&element, "value", &value, HEX))?;
                        items.push(normalized);
                    } else {
                        items.push(value);
                    }
                }
                if items.is_empty() {
                    return Ok(Starts::None);
                }
                items
            }
            _ => match node.get("start") {
                None => return Ok(Starts::None),
                Some(text) => text.split_whitespace().map(str::to_owned).collect(),
            },
        };
        if len == 0 {
            return Ok(Starts::None);
        }
        match items.len() {
            1 => Ok(Starts::All(items.pop().unwrap_or_default())),
            n if n == len => Ok(Starts::Each(items)),
            found => Err(Error::StartCount {
                path: self.ctx.path.to_owned(),
                element: element.clone(),
                expected: len,
                found,
            }),
        }
    }

    /// A variable that is not a clock: its scalars, then those of its aliases.
    fn variable(
        &self,
        declaration: &Declaration<'_>,
        declarations: &[Declaration<'_>],
        by_reference: &HashMap<u32, usize>,
        definitions: &Definitions,
        expansion: &mut Expansion,
    ) -> Result<()> {
        let (element, node, kind) = (&declaration.element, declaration.node, declaration.kind);
        self.check_all(element, node, &[COMMON_ATTRIBUTES, kind.attributes()]);
        let data_type = match kind {
            Kind::Data(t) => t,
            Kind::Enumeration | Kind::Clock => DataType::Int64,
        };
        let default_variability = if kind.is_float() {
            Variability::Continuous
        } else {
            Variability::Discrete
        };
        let (causality, variability, initial) = self.kinds(element, node, default_variability)?;
        let (unit, display_unit) = if kind.is_float() {
            self.float_units(element, node, definitions)
        } else {
            (None, None)
        };
        let dimensions = self.dimensions(declaration, declarations, by_reference)?;
        let too_large = |element: &str, limit| Error::ArrayTooLarge {
            path: self.ctx.path.to_owned(),
            element: element.to_owned(),
            dimensions: dimensions.clone(),
            limit,
        };
        if dimensions.len() > MAX_DIMENSIONS {
            return Err(too_large(element, DIMENSIONS_LIMIT));
        }
        let len = dimensions
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .ok_or_else(|| too_large(element, SCALARS_LIMIT))?;
        if len == 0 {
            self.warn(format!(
                "{element}: array of dimensions {dimensions:?} has no elements, so no scalars"
            ));
        }
        let starts = self.starts(declaration, len)?;
        let template = ScalarVariable {
            index: 0,
            name: String::new(),
            value_reference: ValueRef(declaration.value_reference),
            handle: ValueRef(0),
            data_type,
            array: None,
            description: node.owned("description"),
            causality,
            variability,
            initial,
            var_type: data_type.var_type(),
            is_enumeration: kind == Kind::Enumeration,
            start: None,
            unit,
            display_unit,
            declared_type: node.owned("declaredType"),
            alias: Alias::NoAlias,
        };
        expansion
            .admit(
                len,
                scalar_bytes(&template, &declaration.name, dimensions.len(), &starts),
            )
            .map_err(|limit| too_large(element, limit))?;
        expansion.owners.push(element.clone());
        expand(
            expansion,
            &template,
            &declaration.name,
            &dimensions,
            &starts,
        );
        for (k, alias) in self.tree.children_named(node, "Alias").enumerate() {
            let position = path_of(element, "Alias", k + 1);
            let known: &[&str] = if kind.is_float() {
                &["name", "description", "displayUnit"]
            } else {
                &["name", "description"]
            };
            self.check(&position, alias, known);
            let alias_element = match alias.get("name") {
                Some(name) => format!("{position} '{name}'"),
                None => position,
            };
            let name = self
                .ctx
                .required(&alias_element, "name", alias.owned("name"))?;
            let mut template = template.clone();
            template.alias = Alias::Alias;
            if let Some(description) = alias.owned("description") {
                template.description = Some(description);
            }
            if kind.is_float()
                && let Some(display_unit) = alias.owned("displayUnit").filter(|u| !u.is_empty())
            {
                self.check_display_unit(
                    &alias_element,
                    template.unit.as_deref(),
                    Some(&display_unit),
                    definitions,
                );
                template.display_unit = Some(display_unit);
            }
            expansion
                .admit(
                    len,
                    scalar_bytes(&template, &name, dimensions.len(), &starts),
                )
                .map_err(|limit| too_large(&alias_element, limit))?;
            expansion.owners.push(alias_element);
            expand(expansion, &template, &name, &dimensions, &starts);
        }
        Ok(())
    }

    /// Warns about every name that several scalars, aliases or clocks share (all are kept): a
    /// harmless alias when the scalars are one value, ambiguous otherwise (a clock is never
    /// one value with a scalar).
    fn warn_repeated_names(
        &self,
        expansion: &Expansion,
        clocks: &[ClockVariable],
        clock_owners: &[usize],
    ) {
        let scalars = expansion
            .scalars
            .iter()
            .zip(&expansion.owner_of)
            .map(|(v, &owner)| (v.name.as_str(), (owner, Some(v), v.value_reference.0)));
        let clocks = clocks
            .iter()
            .zip(clock_owners)
            .map(|(c, &owner)| (c.name.as_str(), (owner, None, c.value_reference.0)));
        for (name, group) in repeated_names(scalars.chain(clocks)) {
            let declared: Vec<String> = group
                .iter()
                .map(|&(owner, scalar, vr)| {
                    let kind = scalar.map_or("Clock", |v| v.data_type.name());
                    format!("{} ({kind}, value reference {vr})", expansion.owners[owner])
                })
                .collect();
            let first = group[0].1;
            let ambiguous = group.iter().any(|&(_, scalar, _)| match (scalar, first) {
                (Some(v), Some(first)) => !v.same_value(first),
                _ => true,
            });
            self.ctx.warn_repeated_name(name, &declared, ambiguous);
        }
    }
}
