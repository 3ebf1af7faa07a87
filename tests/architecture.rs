//! The shape of the code base, checked from its source: no import cycle between the modules
//! of any crate (the product's `crates/*` and the test FMUs' `fmus/*`), each concept in one
//! type in one module, one table reader, and a binary crate that only drives the library.
//!
//! Every crate under `crates/` and `fmus/` is parsed with `syn`. Its module tree is followed
//! from the crate root through `mod` declarations (test modules, `#[cfg(test)]`, are left out:
//! they are not part of the architecture; modules behind a feature are read). Every path a
//! module names — in `use` declarations and in code, starting with `crate::`, `super::` or
//! `self::` — is resolved to the module that defines it, following `pub use` re-exports. Among
//! the children of each module, child A depends on child B when anything inside A names
//! anything inside B; this graph must be acyclic. A module and its own children are not
//! compared: a child naming its parent's items is structure, not a cycle.
//!
//! Module `size` checks the size limits of the house: the binary's code, `Session`'s fields,
//! the length of the library's functions.

mod size;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module of a crate, by its path from the crate root (`[]` for the root).
type ModPath = Vec<String>;

/// What one module file declares and names.
#[derive(Default)]
struct Module {
    /// Child modules (not test modules).
    children: BTreeSet<String>,
    /// `pub use` and `use` re-exports: local name → full path as written.
    uses: BTreeMap<String, Vec<String>>,
    /// Every path this module names (after `use` expansion), as written.
    paths: Vec<Vec<String>>,
    /// Names of items defined here (structs, enums, functions, …).
    items: BTreeSet<String>,
    /// Names of the types defined here (structs, enums, unions, traits, type aliases).
    types: BTreeSet<String>,
}

/// A crate's modules.
struct Crate {
    name: String,
    modules: BTreeMap<ModPath, Module>,
}

fn has_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta
                .require_list()
                .is_ok_and(|l| l.tokens.to_string().replace(' ', "") == "test")
    })
}

/// Collects the paths a module's code names.
struct PathCollector<'a> {
    paths: &'a mut Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for PathCollector<'_> {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 {
            self.paths.push(segments);
        }
        syn::visit::visit_path(self, path);
    }

    // Inline modules are visited as modules of their own (or skipped when they are tests).
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    // `use` trees are expanded separately.
    fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {}

    // Macro bodies (e.g. `format!`) are token streams; their paths are not visible here.
    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
}

/// Expands a `use` tree into `(local name, full path)` pairs; globs give the name `*`.
fn expand_use(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            expand_use(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut full = prefix.clone();
            if name != "self" {
                full.push(name.clone());
            }
            let local = if name == "self" {
                prefix.last().cloned().unwrap_or_default()
            } else {
                name
            };
            out.push((local, full));
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix.clone();
            full.push(r.ident.to_string());
            out.push((r.rename.to_string(), full));
        }
        syn::UseTree::Glob(_) => out.push(("*".into(), prefix.clone())),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                expand_use(t, prefix, out);
            }
        }
    }
}

/// Reads the module in `items` (from `file`) at `path`, and its children, into `modules`.
fn read_items(
    items: &[syn::Item],
    file: &Path,
    dir: &Path,
    path: &ModPath,
    modules: &mut BTreeMap<ModPath, Module>,
) {
    let mut module = Module::default();
    for item in items {
        match item {
            syn::Item::Mod(m) if has_cfg_test(&m.attrs) => {}
            syn::Item::Mod(m) => {
                let name = m.ident.to_string();
                module.children.insert(name.clone());
                let mut child = path.clone();
                child.push(name.clone());
                match &m.content {
                    Some((_, inner)) => read_items(inner, file, &dir.join(&name), &child, modules),
                    None => {
                        let (child_file, child_dir) = module_file(dir, &name);
                        read_file(&child_file, &child_dir, &child, modules);
                    }
                }
            }
            syn::Item::Use(u) => {
                let mut pairs = Vec::new();
                expand_use(&u.tree, &mut Vec::new(), &mut pairs);
                for (local, full) in pairs {
                    module.paths.push(full.clone());
                    module.uses.insert(local, full);
                }
            }
            other => {
                if let Some(name) = item_name(other) {
                    if is_type(other) {
                        module.types.insert(name.clone());
                    }
                    module.items.insert(name);
                }
                PathCollector {
                    paths: &mut module.paths,
                }
                .visit_item(other);
            }
        }
    }
    let _ = file;
    modules.insert(path.clone(), module);
}

fn item_name(item: &syn::Item) -> Option<String> {
    Some(match item {
        syn::Item::Struct(i) => i.ident.to_string(),
        syn::Item::Enum(i) => i.ident.to_string(),
        syn::Item::Fn(i) => i.sig.ident.to_string(),
        syn::Item::Trait(i) => i.ident.to_string(),
        syn::Item::Type(i) => i.ident.to_string(),
        syn::Item::Const(i) => i.ident.to_string(),
        syn::Item::Static(i) => i.ident.to_string(),
        syn::Item::Union(i) => i.ident.to_string(),
        syn::Item::Macro(i) => i.ident.as_ref()?.to_string(),
        _ => return None,
    })
}

fn is_type(item: &syn::Item) -> bool {
    matches!(
        item,
        syn::Item::Struct(_)
            | syn::Item::Enum(_)
            | syn::Item::Union(_)
            | syn::Item::Trait(_)
            | syn::Item::Type(_)
    )
}

/// The file of module `name` declared in a module whose children live in `dir`, and the
/// directory of its own children.
fn module_file(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let flat = dir.join(format!("{name}.rs"));
    if flat.is_file() {
        (flat, dir.join(name))
    } else {
        (dir.join(name).join("mod.rs"), dir.join(name))
    }
}

fn read_file(file: &Path, dir: &Path, path: &ModPath, modules: &mut BTreeMap<ModPath, Module>) {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("cannot read '{}': {e}", file.display()));
    let parsed =
        syn::parse_file(&text).unwrap_or_else(|e| panic!("cannot parse '{}': {e}", file.display()));
    read_items(&parsed.items, file, dir, path, modules);
}

impl Crate {
    /// Reads the crate in `crate_dir` (root `src/lib.rs`, else `src/main.rs`).
    fn read(crate_dir: &Path) -> Crate {
        let src = crate_dir.join("src");
        let root = if src.join("lib.rs").is_file() {
            src.join("lib.rs")
        } else {
            src.join("main.rs")
        };
        let mut modules = BTreeMap::new();
        read_file(&root, &src, &Vec::new(), &mut modules);
        Crate {
            name: crate_dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            modules,
        }
    }

    /// The module a path names, written in module `from`: the deepest module the path walks
    /// through, after following `use` aliases and re-exports. `None` for paths outside the
    /// crate.
    fn resolve(&self, from: &ModPath, path: &[String], depth: usize) -> Option<ModPath> {
        if depth > 16 || path.is_empty() {
            return None;
        }
        let (mut current, rest): (ModPath, &[String]) = match path[0].as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "self" => (from.clone(), &path[1..]),
            "super" => {
                let mut p = from.clone();
                p.pop();
                let mut rest = &path[1..];
                while rest.first().is_some_and(|s| s == "super") {
                    p.pop();
                    rest = &rest[1..];
                }
                (p, rest)
            }
            first => {
                let module = self.modules.get(from)?;
                if module.children.contains(first) {
                    (from.clone(), path)
                } else if let Some(full) = module.uses.get(first) {
                    // A name imported by `use`: continue from what it names.
                    let mut expanded = full.clone();
                    expanded.extend_from_slice(&path[1..]);
                    return self.resolve(from, &expanded, depth + 1);
                } else {
                    return None;
                }
            }
        };
        for (i, segment) in rest.iter().enumerate() {
            let module = self.modules.get(&current)?;
            if module.children.contains(segment) {
                current.push(segment.clone());
                continue;
            }
            if module.items.contains(segment) {
                return Some(current);
            }
            if let Some(full) = module.uses.get(segment) {
                // A re-export: the item lives where the `use` points.
                let mut expanded = full.clone();
                expanded.extend_from_slice(&rest[i + 1..]);
                return self
                    .resolve(&current, &expanded, depth + 1)
                    .or(Some(current));
            }
            return Some(current);
        }
        Some(current)
    }

    /// For every module, the modules it names (resolved).
    fn references(&self) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
        self.modules
            .iter()
            .map(|(from, module)| {
                let targets = module
                    .paths
                    .iter()
                    .filter_map(|p| self.resolve(from, p, 0))
                    .filter(|t| t != from)
                    .collect();
                (from.clone(), targets)
            })
            .collect()
    }

    /// Cycles among the children of every module, each as a list of module paths.
    fn cycles(&self) -> Vec<Vec<String>> {
        let references = self.references();
        let mut found = Vec::new();
        for (parent, module) in &self.modules {
            let children: Vec<&String> = module.children.iter().collect();
            if children.len() < 2 {
                continue;
            }
            // Edge a → b when a module inside child a names a module inside child b.
            let child_of = |m: &ModPath| -> Option<usize> {
                if m.len() > parent.len() && m[..parent.len()] == parent[..] {
                    children.iter().position(|c| **c == m[parent.len()])
                } else {
                    None
                }
            };
            let n = children.len();
            let mut edges = vec![BTreeSet::new(); n];
            for (from, targets) in &references {
                let Some(a) = child_of(from) else { continue };
                for t in targets {
                    if let Some(b) = child_of(t)
                        && a != b
                    {
                        edges[a].insert(b);
                    }
                }
            }
            for component in strongly_connected(&edges) {
                if component.len() > 1 {
                    let name = |i: usize| {
                        let mut p = parent.clone();
                        p.push(children[i].clone());
                        format!("{}::{}", self.name, p.join("::"))
                    };
                    found.push(component.into_iter().map(name).collect());
                }
            }
        }
        found
    }
}

/// Tarjan's strongly connected components of the graph `edges` (adjacency sets).
fn strongly_connected(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        components: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort_unstable();
            s.components.push(component);
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        components: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.components
}

/// The crates in `<workspace root>/<folder>` (each directory with a `Cargo.toml`), sorted.
fn crates_in(folder: &str) -> Vec<PathBuf> {
    let dir = mastersim_tests::workspace_root().join(folder);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list '{}': {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// The crates of the product, `crates/*`.
fn workspace_crates() -> Vec<PathBuf> {
    crates_in("crates")
}

/// The test FMUs and their helper crates, `fmus/*` (the support library, the packer and every
/// FMU crate).
fn fmu_crates() -> Vec<PathBuf> {
    let found = crates_in("fmus");
    for needed in ["support", "packer", "workload"] {
        assert!(
            found.iter().any(|d| d.ends_with(needed)),
            "fmus/{needed} not found among {found:?}"
        );
    }
    found
}

#[test]
fn no_import_cycles_between_modules() {
    let mut cycles = Vec::new();
    for dir in workspace_crates().into_iter().chain(fmu_crates()) {
        cycles.extend(Crate::read(&dir).cycles());
    }
    let text: Vec<String> = cycles.iter().map(|c| c.join(" ↔ ")).collect();
    assert!(
        cycles.is_empty(),
        "import cycles between modules:\n{}",
        text.join("\n")
    );
}

/// Every type defined in the workspace's crates: name → the modules (`crate::path`) that
/// define a type of that name.
fn type_definitions(crates: &[Crate]) -> BTreeMap<String, Vec<String>> {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for krate in crates {
        for (path, module) in &krate.modules {
            let mut place = vec![krate.name.clone()];
            place.extend(path.iter().cloned());
            for name in &module.types {
                found
                    .entry(name.clone())
                    .or_default()
                    .push(place.join("::"));
            }
        }
    }
    found
}

/// The concepts the master is built from, each one type in one module (crate directory name,
/// then module path).
const ONE_TYPE_EACH: &[(&str, &str)] = &[
    ("MasterAlgorithm", "master::project"),
    ("ErrorControl", "master::project"),
    ("TimeArithmetic", "master::project"),
    ("Algorithm", "master::algorithm"),
    ("Newton", "master::algorithm::newton"),
    ("StepControl", "master::step_control"),
    ("Scheduler", "master::multirate"),
    ("MultiRate", "master::plan::rates"),
    ("SlaveClock", "master::plan::rates"),
    ("SampleGrid", "master::plan::rates"),
    ("Communication", "master::project"),
    ("ErrorEstimator", "master::error_control"),
    ("RowWriter", "master::rows"),
    ("Simulation", "master::simulation"),
    ("Counters", "master::statistics"),
    ("SlaveStatistics", "master::statistics"),
    ("Statistics", "master::statistics"),
    ("SlaveIndex", "master::index"),
    ("GlobalIndex", "master::index"),
    ("LocalIndex", "master::index"),
    ("Observer", "master::observer"),
    ("RawTable", "output::table"),
    ("Session", "mastersim::session"),
    ("Options", "mastersim::options"),
    ("Summary", "mastersim::report::summary"),
];

/// Names of `ONE_TYPE_EACH` that another crate uses for a different concept: (name, crate).
/// `solver::Statistics` is an integrator's work counters (steps, f, Jacobian and g
/// evaluations), whose name the solver's API fixes; the master's run statistics stay one type.
const SAME_NAME_OTHER_CONCEPT: &[(&str, &str)] = &[("Statistics", "solver")];

/// Names of types that were merged into one of the above and must not come back.
const RETIRED: &[&str] = &[
    "MasterMode",
    "ErrorControlMode",
    "StepInfo",
    "RunStatistics",
];

#[test]
fn each_concept_is_one_type_in_one_module() {
    let crates: Vec<Crate> = workspace_crates().iter().map(|d| Crate::read(d)).collect();
    let types = type_definitions(&crates);
    let mut wrong = Vec::new();
    for (name, module) in ONE_TYPE_EACH {
        let mut places = types.get(*name).cloned().unwrap_or_default();
        places.retain(|place| !SAME_NAME_OTHER_CONCEPT.contains(&(*name, place.as_str())));
        if places != [module.to_string()] {
            wrong.push(format!(
                "{name}: expected in {module} only, defined in {places:?}"
            ));
        }
    }
    for name in RETIRED {
        if let Some(places) = types.get(*name) {
            wrong.push(format!("{name}: retired, but defined in {places:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The master algorithm is chosen once: its keyword enum is matched only where projects are
/// read and validated and where the one `Algorithm` value is built, never in the stepping code.
#[test]
fn the_master_algorithm_is_chosen_in_one_place() {
    let master = Crate::read(&mastersim_tests::workspace_root().join("crates/master"));
    // Top-level modules (with their children) that may name the variants.
    let allowed = ["project", "settings", "plan", "algorithm"];
    let mut wrong = Vec::new();
    for (path, module) in &master.modules {
        let names_variant = module
            .paths
            .iter()
            .any(|p| p.len() == 2 && p[0] == "MasterAlgorithm");
        let is_allowed = path
            .first()
            .is_some_and(|top| allowed.contains(&top.as_str()));
        if names_variant && !is_allowed {
            wrong.push(path.join("::"));
        }
    }
    assert!(
        wrong.is_empty(),
        "modules that branch on MasterAlgorithm after the algorithm was built: {wrong:?}"
    );
}

/// One CSV/TSV table reader: only `crates/output` depends on the `csv` crate, only its
/// `table` module reads with it, and both users (the file-reader slaves of `master` and
/// `mastersim plot`) go through `output::table`.
#[test]
fn one_table_reader() {
    let root = mastersim_tests::workspace_root();
    let with_csv: Vec<String> = workspace_crates()
        .iter()
        .filter(|d| {
            let manifest = std::fs::read_to_string(d.join("Cargo.toml")).expect("Cargo.toml");
            manifest.lines().any(|l| l.trim_start().starts_with("csv"))
        })
        .map(|d| d.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    assert_eq!(with_csv, ["output"], "crates that depend on the csv crate");

    let output = Crate::read(&root.join("crates/output"));
    let readers: Vec<String> = output
        .modules
        .iter()
        .filter(|(_, m)| {
            m.paths
                .iter()
                .any(|p| p.last().is_some_and(|s| s == "ReaderBuilder"))
        })
        .map(|(path, _)| path.join("::"))
        .collect();
    assert_eq!(
        readers,
        ["table"],
        "modules of output that build a csv reader"
    );

    for (krate, module, prefix) in [
        ("master", &["table"][..], "output"),
        ("output", &["result_file", "csv"][..], "crate"),
    ] {
        let parsed = Crate::read(&root.join("crates").join(krate));
        let module: ModPath = module.iter().map(|s| s.to_string()).collect();
        let names_table = parsed.modules[&module]
            .paths
            .iter()
            .any(|p| p.len() >= 2 && p[0] == prefix && p[1] == "table");
        assert!(
            names_table,
            "{krate}::{} reads tables with {prefix}::table",
            module.join("::")
        );
    }
}

/// The binary only drives: its modules are the argument parsing and the run's setup (`main`,
/// ending in `mastersim::run_to_end`), `convert` (an SSP system written as a `.msim` through
/// the library's `Session`), `info` (the library's `describe`), `sweep` (the command line of
/// crate `sweep`; a case is the binary's own run) and `view` (the result-file view of crate
/// `live`); it names
/// nothing of the result pipeline (the writers of
/// `output`, the `master` crate) — it talks to the library's `Session`.
#[test]
fn the_binary_only_drives() {
    let cli = Crate::read(&mastersim_tests::workspace_root().join("crates/cli"));
    let modules: Vec<String> = cli.modules.keys().map(|p| p.join("::")).collect();
    assert_eq!(modules, ["", "convert", "info", "sweep", "view"]);
    let mut wrong = Vec::new();
    for (path, module) in &cli.modules {
        for p in &module.paths {
            // `plot` and `view` may use the readers: result files, tables and MAT files.
            let reader = p[..] == ["output", "mat", "read"]
                || p.get(1).is_some_and(|m| m == "table" || m == "result_file");
            let pipeline = p[0] == "master" || (p[0] == "output" && !reader);
            if pipeline {
                wrong.push(format!("{}: {}", path.join("::"), p.join("::")));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the binary names the result pipeline: {wrong:?}"
    );
    let manifest =
        std::fs::read_to_string(mastersim_tests::workspace_root().join("crates/cli/Cargo.toml"))
            .expect("crates/cli/Cargo.toml");
    assert!(
        !manifest
            .lines()
            .any(|l| l.trim_start().starts_with("master")
                && !l.trim_start().starts_with("mastersim")),
        "the binary depends on the library (mastersim), not on the master crate"
    );
}
