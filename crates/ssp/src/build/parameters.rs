//! Parameter bindings: which value each FMU variable gets, by SSP's precedence (later bindings
//! of an element beat earlier ones, higher levels beat lower ones), through prefixes,
//! parameter mappings and the choice between parameter sets.
//!
//! Spec: SSP 2.0 §5.2.3 (`ParameterBindings`: precedence, hierarchical names, `prefix`
//! prepended to every name, only mapped parameters applied where a mapping is given), §6,
//! §7; SSP 1.0 §5.3.3.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use master::project::{ParameterDef, Project};

use crate::LoadOptions;
use crate::common::Transformation;
use crate::error::{ErrorKind, Result, SspError};
use crate::values::{self, Binding, Mapping, MappingEntry, Parameter, ParameterSet, Source};
use crate::xml::Version;

use super::{Builder, Child, fmu_variable};

/// A binding with its parameter set and mapping, read from the SSD or from their files.
type Loaded<'b> = (&'b Binding, Cow<'b, ParameterSet>, Option<Cow<'b, Mapping>>);

/// Where bindings apply.
#[derive(Clone, Copy)]
enum Target {
    Comp(usize),
    Sys(usize),
}

/// One bound value of one scalar FMU variable.
struct Assignment {
    comp: usize,
    variable: String,
    value: String,
    /// The `.ssv` (or SSD) and line of the value.
    file: PathBuf,
    line: usize,
    /// The line of the binding in the SSD.
    ssd_line: usize,
}

/// A parameter on its way to a variable: the value, the set it is in, and the mapping entry
/// (with the file that holds it) that renamed it, if any.
pub(super) struct Bound<'p> {
    /// The parameter as the set gives it.
    pub parameter: &'p Parameter,
    /// Its set.
    pub set: &'p ParameterSet,
    /// The mapping entry and its file.
    pub entry: Option<(&'p Path, &'p MappingEntry)>,
}

impl Bound<'_> {
    /// The mapping entry's transformation, applied after the unit conversion.
    pub fn transformation(&self) -> Option<&Transformation> {
        self.entry.and_then(|(_, e)| e.transformation.as_ref())
    }

    /// The mapping entry's `suppressUnitConversion`.
    pub fn suppress_unit_conversion(&self) -> bool {
        self.entry.is_some_and(|(_, e)| e.suppress_unit_conversion)
    }

    /// Where the mapping entry is, for messages (empty without one).
    pub fn entry_at(&self) -> String {
        self.entry.map_or_else(String::new, |(file, e)| {
            format!(" (the mapping entry at {}:{})", file.display(), e.line)
        })
    }
}

impl<'a> Builder<'a> {
    /// Applies every parameter binding, innermost first, so that later bindings of an element
    /// and bindings of enclosing systems win; adds one `parameter` line per variable.
    ///
    /// # Errors
    /// Unreadable `.ssv`/`.ssm` files, values that do not fit their variables, a
    /// `--parameter-set` that no element binds.
    pub(super) fn parameters(
        &mut self,
        project: &mut Project,
        options: &LoadOptions,
    ) -> Result<()> {
        let mut out: Vec<Assignment> = Vec::new();
        let mut used_set = false;
        // Components first (the lowest level), then systems from the innermost out.
        for c in 0..self.comps.len() {
            let element = self.comps[c].element;
            let version = self.systems[self.comps[c].system].element.version;
            let at = (element.file.as_path(), version);
            used_set |=
                self.apply_bindings(at, &element.bindings, Target::Comp(c), options, &mut out)?;
        }
        for s in (0..self.systems.len()).rev() {
            let system = self.systems[s].element;
            let at = (system.file.as_path(), system.version);
            used_set |=
                self.apply_bindings(at, &system.bindings, Target::Sys(s), options, &mut out)?;
            if let Some((file, version, bindings)) = &system.outer_bindings {
                let at = (file.as_path(), *version);
                used_set |= self.apply_bindings(at, bindings, Target::Sys(s), options, &mut out)?;
            }
        }
        if let Some(name) = &options.parameter_set
            && !used_set
        {
            return Err(SspError::file(
                ErrorKind::Invalid,
                &self.ssd.path,
                format!("--parameter-set {name}: no element binds a parameter set of that name"),
            ));
        }
        // The last assignment of a variable wins; keep its place in the order.
        let mut last: HashMap<(usize, &str), usize> = HashMap::new();
        for (i, a) in out.iter().enumerate() {
            last.insert((a.comp, a.variable.as_str()), i);
        }
        for (i, a) in out.iter().enumerate() {
            if last[&(a.comp, a.variable.as_str())] != i {
                log::debug!(
                    "{}:{}: the value of '{}.{}' is overridden by a later or higher binding",
                    a.file.display(),
                    a.line,
                    self.comps[a.comp].slave,
                    a.variable
                );
                continue;
            }
            project.parameters.push(ParameterDef {
                slave: self.comps[a.comp].slave.clone(),
                variable: a.variable.clone(),
                value: a.value.clone(),
                line: a.ssd_line,
            });
        }
        Ok(())
    }

    /// Reads the parameter sets and mappings of `bindings` (from their files where they are
    /// not inline).
    fn load(&self, file: &Path, bindings: &'a [Binding]) -> Result<Vec<Loaded<'a>>> {
        let base = file.parent().unwrap_or(Path::new("."));
        let scope = (base, &self.ssd.scope);
        let mut loaded: Vec<Loaded<'_>> = Vec::new();
        for b in bindings {
            let set = match &b.values {
                Source::Inline(set) => Cow::Borrowed(set),
                Source::File(source) => {
                    let path = values::resolve(file, b.line, "ParameterBinding", scope, source)?;
                    Cow::Owned(values::read_ssv(file, b.line, &path)?)
                }
            };
            let mapping = match &b.mapping {
                None => None,
                Some(Source::Inline(m)) => Some(Cow::Borrowed(m)),
                Some(Source::File(source)) => {
                    let element = "ParameterBinding/ParameterMapping";
                    let path = values::resolve(file, b.line, element, scope, source)?;
                    Some(Cow::Owned(values::read_ssm(file, b.line, &path)?))
                }
            };
            loaded.push((b, set, mapping));
        }
        Ok(loaded)
    }

    /// Applies the bindings of one element, declared in `file` of SSP release `version` (those
    /// of the selected parameter set, see [`LoadOptions::parameter_set`]); returns whether the
    /// selected set was among them.
    fn apply_bindings(
        &self,
        (file, version): (&Path, Version),
        bindings: &'a [Binding],
        target: Target,
        options: &LoadOptions,
        out: &mut Vec<Assignment>,
    ) -> Result<bool> {
        let loaded = self.load(file, bindings)?;
        // Parameter sets: bindings of differently named sets on one element are alternatives.
        let mut names: Vec<&str> = Vec::new();
        for (_, set, _) in &loaded {
            if !names.contains(&set.name.as_str()) {
                names.push(set.name.as_str());
            }
        }
        let selected = options
            .parameter_set
            .as_deref()
            .filter(|n| names.contains(n));
        let chosen = selected.or(names.first().copied());
        if names.len() > 1 && selected.is_none() {
            let listed: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
            log::info!(
                "{}: {} binds the parameter sets {}; using '{}' (--parameter-set chooses another)",
                file.display(),
                self.target_name(target),
                listed.join(", "),
                chosen.unwrap_or_default()
            );
        }
        for (b, set, mapping) in &loaded {
            if Some(set.name.as_str()) != chosen {
                continue;
            }
            for p in &set.parameters {
                let name = format!("{}{}", b.prefix, p.name);
                for (target_name, entry) in mapped_names(&name, mapping.as_deref(), version) {
                    let bound = Bound {
                        parameter: p,
                        set,
                        entry: entry
                            .zip(mapping.as_deref())
                            .map(|(e, m)| (m.file.as_path(), e)),
                    };
                    self.bind(target, &target_name, &bound, b.line, out)?;
                }
            }
        }
        Ok(selected.is_some())
    }

    fn target_name(&self, target: Target) -> String {
        match target {
            Target::Comp(c) => format!("component '{}'", self.comps[c].element.name),
            Target::Sys(s) => format!("system '{}'", self.systems[s].element.name),
        }
    }

    /// Binds `bound` to the variable `name` relative to `target`. A name that matches nothing
    /// is a warning (SSP allows it).
    fn bind(
        &self,
        target: Target,
        name: &str,
        bound: &Bound<'_>,
        ssd_line: usize,
        out: &mut Vec<Assignment>,
    ) -> Result<()> {
        let (p, set) = (bound.parameter, bound.set);
        let reached = match target {
            Target::Comp(c) => vec![(c, name.to_owned())],
            Target::Sys(s) => self.resolve_in_system(s, name),
        };
        if reached.is_empty() {
            log::warn!(
                "{}:{}: parameter '{name}' matches nothing in {}; ignored",
                set.file.display(),
                p.line,
                self.target_name(target)
            );
        }
        for (c, variable) in reached {
            let comp = &self.comps[c];
            let Some(v) = fmu_variable(&comp.description, &variable) else {
                log::warn!(
                    "{}:{}: parameter '{name}' matches no variable of '{}' ({}); ignored",
                    set.file.display(),
                    p.line,
                    comp.element.name,
                    comp.element.source
                );
                continue;
            };
            let connector = comp.element.connectors.iter().find(|k| k.name == variable);
            for (scalar, value) in self.parameter_lines(bound, comp, &v, connector)? {
                out.push(Assignment {
                    comp: c,
                    variable: scalar,
                    value,
                    file: set.file.clone(),
                    line: p.line,
                    ssd_line,
                });
            }
        }
        Ok(())
    }

    /// The components and variables a name bound at system `s` reaches: `Element.rest`
    /// descends into the element (the longest matching element name first); a connector of
    /// the system follows each of its connections to the components' connectors, so a
    /// system connector wired to several inputs sets all of them. Empty when nothing matches.
    fn resolve_in_system(&self, s: usize, name: &str) -> Vec<(usize, String)> {
        let sys = &self.systems[s];
        let mut best: Option<(usize, &str, Child)> = None;
        for (element, child) in &sys.children {
            if let Some(rest) = name.strip_prefix(element).and_then(|r| r.strip_prefix('.'))
                && best.is_none_or(|(len, _, _)| element.len() > len)
            {
                best = Some((element.len(), rest, *child));
            }
        }
        if let Some((_, rest, child)) = best {
            return match child {
                Child::Comp(c) => vec![(c, rest.to_owned())],
                Child::Sys(inner) => self.resolve_in_system(inner, rest),
                Child::Ref(_) => Vec::new(),
            };
        }
        // A connector of the system: follow its connections one level down.
        let mut reached = Vec::new();
        if sys.element.connectors.iter().any(|k| k.name == name) {
            for c in &sys.element.connections {
                let other = if c.start.element.is_none() && c.start.connector == name {
                    &c.end
                } else if c.end.element.is_none() && c.end.connector == name {
                    &c.start
                } else {
                    continue;
                };
                if let Some(e) = &other.element {
                    reached.extend(self.resolve_in_system(s, &format!("{e}.{}", other.connector)));
                }
            }
        }
        reached
    }
}

/// The names parameter `name` binds to, each with the mapping entry that renames it: the
/// targets of the mapping's entries for it; without a mapping, the name itself. A name the
/// mapping does not list is not applied in SSP 2.0 (§5.2.3); an SSP 1.0 file binds it by its
/// own name.
fn mapped_names<'m>(
    name: &str,
    mapping: Option<&'m Mapping>,
    version: Version,
) -> Vec<(String, Option<&'m MappingEntry>)> {
    let Some(m) = mapping else {
        return vec![(name.to_owned(), None)];
    };
    let entries: Vec<(String, Option<&MappingEntry>)> = m
        .entries
        .iter()
        .filter(|e| e.source == name)
        .map(|e| (e.target.clone(), Some(e)))
        .collect();
    match (entries.is_empty(), version) {
        (false, _) => entries,
        (true, Version::V1) => vec![(name.to_owned(), None)],
        (true, Version::V2) => {
            log::debug!(
                "{}: parameter '{name}' is not in the mapping; not applied (SSP 2.0)",
                m.file.display()
            );
            Vec::new()
        }
    }
}
