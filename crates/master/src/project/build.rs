//! A project built in code instead of read from a `.msim` file: slaves by FMU (or table)
//! path, connections and parameters, each recorded as a pseudo line
//! ([`Project::command_line`]) so that a later error about it names the call, as errors about
//! a file name its line.
//!
//! Spec: MasterSim reference §3.4 (`simulator`), §3.5 (`graph`), §3.6 (`parameter`).

use std::path::Path;

use super::{GraphEdge, ParameterDef, Project, ProjectError, SimulatorDef, VariableRef, lexer};

/// `<slave>.<variable>` split at the first dot.
///
/// # Errors
/// [`ProjectError::Override`] naming the call `call` when `name` is not of that form.
fn split(name: &str, call: &str) -> Result<VariableRef, ProjectError> {
    match name.split_once('.') {
        Some((slave, variable)) if !slave.is_empty() && !variable.is_empty() => Ok(VariableRef {
            slave: slave.to_owned(),
            variable: variable.to_owned(),
        }),
        _ => Err(ProjectError::Override {
            option: call.to_owned(),
            reason: format!("'{name}' is not <slave>.<variable>"),
        }),
    }
}

impl Project {
    /// An empty project built in code: MasterSim 0.9.8's default settings (see
    /// [`Project::with_defaults`]), no slaves. `path` stands for the project file that was
    /// never written: it decides the working directory (`<path without extension>/`) and names
    /// the MAT and Signal Table files, and relative slave paths are resolved against its
    /// directory. Settings are the public fields (e.g. `t_end`); those left at their
    /// defaults are completed from the FMUs' default experiments when the project is loaded.
    pub fn in_code(path: impl AsRef<Path>) -> Project {
        Project::with_defaults(lexer::absolute(path.as_ref()))
    }

    /// Adds the slave `name` backed by the FMU or CSV/TSV table at `path` (relative paths
    /// against the project's directory), in cycle 0, as a `simulator` line does.
    ///
    /// # Errors
    /// [`ProjectError::Override`] naming the call when the name is empty, holds a dot or
    /// whitespace, or is already taken.
    ///
    /// Spec: MasterSim reference §3.4.
    pub fn add_slave(
        &mut self,
        name: &str,
        path: impl AsRef<Path>,
    ) -> Result<&mut Project, ProjectError> {
        let path = path.as_ref();
        let call = format!("add_slave({name:?}, {:?})", path.display().to_string());
        let refuse = |reason: &str| ProjectError::Override {
            option: call.clone(),
            reason: reason.to_owned(),
        };
        if name.is_empty() || name.contains(['.', ' ', '\t', '"']) {
            return Err(refuse(
                "a slave name is needed, without dots, spaces or quotes",
            ));
        }
        if self.simulators.iter().any(|s| s.name == name) {
            return Err(refuse("a slave of this name exists already"));
        }
        let dir = self
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            dir.join(path)
        };
        let line = self.add_command_line(call);
        self.simulators.push(SimulatorDef {
            index: self.simulators.len() as i64,
            cycle: 0,
            name: name.to_owned(),
            color: 0xff00_0000,
            path_text: path.to_string_lossy().into_owned(),
            path: lexer::absolute(&absolute),
            line,
        });
        Ok(self)
    }

    /// Connects the output (or file-reader column) `output` to the input `input`, both
    /// `<slave>.<variable>`, as a `graph` line without offset and scale factor does. The
    /// names are checked when the project is loaded.
    ///
    /// # Errors
    /// [`ProjectError::Override`] naming the call when a name is not `<slave>.<variable>`.
    ///
    /// Spec: MasterSim reference §3.5.
    pub fn connect(&mut self, output: &str, input: &str) -> Result<&mut Project, ProjectError> {
        let call = format!("connect({output:?}, {input:?})");
        let edge = GraphEdge {
            output: split(output, &call)?,
            input: split(input, &call)?,
            offset: 0.0,
            scale_factor: 1.0,
            value_map: None,
            line: 0,
        };
        let line = self.add_command_line(call);
        self.graph.push(GraphEdge { line, ..edge });
        Ok(self)
    }

    /// Sets the keyword `keyword` (e.g. `tEnd`, `hStart`, `MasterMode`) to `value`, written
    /// as on a `.msim` line (`"10 s"`, `"GAUSS_JACOBI"`), as a `--set` override does: a
    /// setting made this way is not completed from the FMUs' default experiments.
    ///
    /// # Errors
    /// [`ProjectError::Override`] with the message the same line would get in a file (a
    /// misspelt keyword gets a suggestion).
    ///
    /// Spec: MasterSim reference §3.2 (settings); `docs/project-format.md` (overrides).
    pub fn set(&mut self, keyword: &str, value: &str) -> Result<&mut Project, ProjectError> {
        self.apply_overrides(&[format!("{keyword}={value}")], None)?;
        Ok(self)
    }

    /// Sets the start value of `variable` (`<slave>.<variable>`) to `value` (written as in a
    /// `.msim` file: `0.5`, `true`, `text`), as a `parameter` line does; checked and converted
    /// when the project is loaded.
    ///
    /// # Errors
    /// [`ProjectError::Override`] naming the call when the name is not `<slave>.<variable>`.
    ///
    /// Spec: MasterSim reference §3.6.
    pub fn set_parameter(
        &mut self,
        variable: &str,
        value: &str,
    ) -> Result<&mut Project, ProjectError> {
        let call = format!("set_parameter({variable:?}, {value:?})");
        let reference = split(variable, &call)?;
        let line = self.add_command_line(call);
        self.parameters.push(ParameterDef {
            slave: reference.slave,
            variable: reference.variable,
            value: value.to_owned(),
            line,
        });
        Ok(self)
    }
}
