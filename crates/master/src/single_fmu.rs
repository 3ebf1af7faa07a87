//! An FMU run without a project file (`mastersim model.fmu --input table.csv`): the input
//! table becomes a file-reader slave whose columns feed the FMU inputs of the same name.
//!
//! The project itself comes from [`crate::project::Project::for_fmu`]; its settings from
//! [`crate::experiment::complete_settings`] with [`crate::experiment::Fallback::SingleFmu`].

use std::path::Path;

use fmi::model_description::Causality;

use crate::error::{Error, name_hint};
use crate::import::ImportedFmus;
use crate::plan::lookup::find_variable;
use crate::project::{GraphEdge, Project, SimulatorDef, VariableRef};
use crate::table::Table;

/// Adds the CSV/TSV table `table` to the single-FMU `project` as a file-reader slave placed
/// before the FMU (`input`, or `input_table` when the FMU's slave has that name) and connects
/// every column
/// whose name is an input of the FMU to that input. Columns that name another variable or
/// none are ignored with a warning (with a suggestion for a near miss). The connections are
/// recorded as the option `--input <table>`, which messages about them name.
///
/// `fmus` must hold the project's imported FMU.
///
/// # Errors
/// [`Error::Table`] when the table cannot be read; [`Error::InvalidSetting`] (keyword
/// `--input`) when no column names an input of the FMU; [`Error::AmbiguousVariable`] when a
/// column names a variable the FMU declares more than once, not as one value.
///
/// Spec: MasterSim reference §4 (file-reader slaves and their columns).
pub fn connect_input_table(
    project: &mut Project,
    table_path: &Path,
    fmus: &ImportedFmus,
) -> Result<(), Error> {
    let table = Table::from_file(table_path)?;
    let line = project.add_command_line(format!("--input {}", table_path.display()));
    let Some(fmu_slave) = project.simulators.first().cloned() else {
        return Ok(());
    };
    let variables = fmus
        .get(&fmu_slave.path)
        .map(|fmu| fmu.description().variables.clone())
        .unwrap_or_default();
    let reader = if fmu_slave.name == "input" {
        "input_table"
    } else {
        "input"
    };
    let inputs: Vec<&str> = variables
        .iter()
        .filter(|v| v.causality == Causality::Input)
        .map(|v| v.name.as_str())
        .collect();
    let mut edges = Vec::new();
    for column in &table.columns {
        let at = || Some(project.location(Some(line)));
        match find_variable(
            &variables,
            &fmu_slave.name,
            &column.name,
            &fmu_slave.path,
            at,
        )? {
            Some(v) if v.causality == Causality::Input => edges.push(GraphEdge {
                output: VariableRef {
                    slave: reader.to_owned(),
                    variable: column.name.clone(),
                },
                input: VariableRef {
                    slave: fmu_slave.name.clone(),
                    variable: column.name.clone(),
                },
                offset: 0.0,
                scale_factor: 1.0,
                value_map: None,
                line,
            }),
            Some(v) => log::warn!(
                "--input {}: column '{}' is not an input of the FMU (its causality is {}); \
                 ignored (parameters are set with --set)",
                table_path.display(),
                column.name,
                format!("{:?}", v.causality).to_lowercase()
            ),
            None => log::warn!(
                "--input {}: column '{}' names no variable of the FMU; ignored{}",
                table_path.display(),
                column.name,
                name_hint(&column.name, inputs.iter().copied())
            ),
        }
    }
    if edges.is_empty() {
        return Err(Error::InvalidSetting {
            at: project.location(Some(line)),
            keyword: "--input",
            reason: format!(
                "no column names an input of the FMU, expected columns named after its inputs \
                 ({})",
                if inputs.is_empty() {
                    "it has none".to_string()
                } else {
                    inputs.join(", ")
                }
            ),
        });
    }
    log::info!(
        "--input {}: {} column(s) feed the FMU's inputs",
        table_path.display(),
        edges.len()
    );
    // First, so that in a Gauss-Seidel sweep the FMU sees the table's values at the same
    // communication point (as MasterSim orders a file reader before the slaves it feeds).
    project.simulators.insert(
        0,
        SimulatorDef {
            index: 0,
            cycle: 0,
            name: reader.to_owned(),
            color: 0xff80_8080,
            path_text: table_path.to_string_lossy().into_owned(),
            path: std::path::absolute(table_path).unwrap_or_else(|_| table_path.to_path_buf()),
            line,
        },
    );
    project.graph.extend(edges);
    Ok(())
}
