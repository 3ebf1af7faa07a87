//! No allocation per step: a counting global allocator wraps the system allocator, and the
//! master's stepping loop (`Simulation::run`) is run through the library API on real FMUs
//! (`Scale` loaded with `dlopen`), writing every row with the CSV writer of `output`. The number
//! of allocations during `run` must not depend on the number of steps. It is zero for
//! Gauss-Seidel and Gauss-Jacobi without FMU states; with states (iteration, Richardson error
//! control) the first `getFMUstate` of each slave records its state once, and nothing after.
//!
//! The FMUs are separate shared libraries with their own allocator, so only the master's own
//! allocations are counted.
//!
//! A test binary of its own (`[[test]] alloc`): the global allocator applies to the whole binary.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

use master::values::TypedValues;
use master::{
    ImportOptions, Observer, ObserverError, OutputLayout, PlanOptions, Simulation, SimulationPlan,
};
use mastersim_tests::example_workspace;
use output::csv::{Column, ValuesCsvWriter};

/// The system allocator, counting allocations and reallocations per thread (tests run on
/// several threads at once; each counts only its own simulation).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the thread-local may already be gone while a thread shuts down.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: every method forwards to `System` with the same arguments, which upholds the
// `GlobalAlloc` contract; the counter is a const-initialized thread-local that never
// allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: forwarded contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: forwarded contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Writes every row to `values.csv` with the writer of the `output` crate.
struct CsvObserver {
    path: std::path::PathBuf,
    writer: Option<ValuesCsvWriter>,
    row: Vec<f64>,
}

impl Observer for CsvObserver {
    fn start(&mut self, layout: &OutputLayout) -> Result<(), ObserverError> {
        let columns: Vec<Column> = layout
            .columns
            .real
            .iter()
            .map(|c| Column {
                name: c.name.clone(),
                unit: c.unit.clone(),
            })
            .collect();
        self.row = Vec::with_capacity(columns.len());
        self.writer = Some(ValuesCsvWriter::create(&self.path, "s", &columns)?);
        Ok(())
    }

    fn output(&mut self, t: f64, values: &TypedValues) -> Result<(), ObserverError> {
        self.row.clear();
        self.row.extend_from_slice(&values.real);
        if let Some(writer) = &mut self.writer {
            writer.write_row(t, &self.row)?;
        }
        Ok(())
    }
}

/// Allocations during `Simulation::run` of a chain of `n` Scale FMUs with `settings` lines,
/// `steps` steps of 0.01 s and a row on every step.
fn allocations_during_run(dir: &Path, settings: &str, n: usize, steps: usize) -> u64 {
    let fmu = example_workspace().join("fmus/packed/Scale.fmu");
    let mut text = format!(
        "tEnd {} s\nhStart 0.01 s\nhOutputMin 0.01 s\n{settings}\n",
        steps as f64 * 0.01
    );
    for i in 0..n {
        text += &format!(
            "simulator {i} 0 S{i} #000000 \"{}\"\nparameter S{i}.k 0.5\n",
            fmu.display()
        );
    }
    for i in 1..n {
        text += &format!("graph S{}.y S{i}.u\n", i - 1);
    }
    let path = dir.join(format!("alloc-{steps}.msim"));
    std::fs::write(&path, text).expect("write project");
    let wd = dir.join(format!("wd-{steps}"));
    let project = master::project::Project::from_file(&path).expect("project");
    let fmus = master::import_fmus(&project, &wd, &ImportOptions::default()).expect("import");
    let plan = SimulationPlan::build(
        &project,
        &PlanOptions {
            working_dir: wd.clone(),
            collect_parameters: false,
        },
        |def| master::resolve_slave(&project, def, &fmus),
    )
    .expect("plan");
    let slaves = master::instantiate(&plan, false).expect("instantiate");
    let mut sim = Simulation::new(plan, slaves).expect("simulation");
    sim.initialize().expect("initialize");
    let mut observer = CsvObserver {
        path: wd.join("values.csv"),
        writer: None,
        row: Vec::new(),
    };
    sim.start_output(&mut observer).expect("first row");
    let before = allocations();
    sim.run(&mut observer).expect("run");
    let during = allocations() - before;
    let done = sim.statistics().steps;
    assert!(done + 1 >= steps as u64, "{done} of {steps} steps");
    during
}

/// Runs 200 and 2000 steps of 20 slaves: equal allocation counts, at most `once` in all.
fn assert_no_allocation_per_step(name: &str, settings: &str, once: u64) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let short = allocations_during_run(tmp.path(), settings, 20, 200);
    let long = allocations_during_run(tmp.path(), settings, 20, 2000);
    println!("{name}: {short} allocations in 200 steps, {long} in 2000 steps");
    assert_eq!(
        short, long,
        "{name}: allocations grow with the number of steps"
    );
    assert!(
        long <= once,
        "{name}: {long} allocations, expected at most {once}"
    );
}

#[test]
fn gauss_seidel_steps_without_allocating() {
    assert_no_allocation_per_step(
        "Gauss-Seidel",
        "MasterMode GAUSS_SEIDEL\nmaxIterations 1",
        0,
    );
}

#[test]
fn iterating_gauss_seidel_steps_without_allocating() {
    // One state record per slave, at its first getFMUstate.
    assert_no_allocation_per_step(
        "Gauss-Seidel, 3 iterations",
        "MasterMode GAUSS_SEIDEL\nmaxIterations 3",
        2 * 20,
    );
}

#[test]
fn gauss_jacobi_steps_without_allocating() {
    assert_no_allocation_per_step("Gauss-Jacobi", "MasterMode GAUSS_JACOBI", 0);
}

#[test]
fn richardson_error_control_steps_without_allocating() {
    assert_no_allocation_per_step(
        "Gauss-Seidel with Richardson",
        "MasterMode GAUSS_SEIDEL\nmaxIterations 2\nErrorControlMode ADAPT_STEP\nadjustStepSize yes\nhMax 0.01 s",
        2 * 20 + 1,
    );
}
