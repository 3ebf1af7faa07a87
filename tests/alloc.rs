//! No allocation per step: a counting global allocator wraps the system allocator, and
//! projects of real FMUs (loaded with `dlopen`) run through the library's entry point,
//! [`mastersim::Session`], with its result files (CSV on a writer thread, `progress.txt`, MAT).
//!
//! After a warm-up (buffers, caches, saved FMU states and the writer's batches have grown to
//! their working size), a window of steps must allocate nothing, whatever its length:
//! - Real, Integer and Boolean connections, FMI 2.0 and FMI 1.0 slaves (`Scale`, `FourVars`,
//!   `FourVarsFeedThrough`, the FMI 1.0 `Oscillator`), a result row on every step;
//! - Gauss-Seidel, Gauss-Jacobi, iterating Gauss-Seidel and Richardson error control (FMU
//!   states);
//! - String connections allocate only in a window where a String value changes (to a longer
//!   one, which grows the buffers that hold it), and never in a window where none changes.
//!
//! - variables by handle between steps: setting an input (`Session::set_real`), reading one
//!   (`Session::get_real`) and many (`Session::read_reals`) allocate nothing either.
//!
//! Below the session, `instance` calls the Boolean and String getters and setters of
//! `fmi::Instance` directly, FMI 1.0 and 2.0: none allocates once its buffers have grown.
//!
//! The FMUs are separate shared libraries with their own allocator, so only the master's own
//! allocations are counted; each test counts only its own thread (the stepping thread).
//!
//! A test binary of its own (`[[test]] alloc`): the global allocator applies to the whole binary.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::fmt::Write as _;
use std::path::Path;

use mastersim::{Options, ResultFormat, Session};
use mastersim_tests::example_workspace;

/// The system allocator, counting allocations and reallocations per thread.
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

/// Allocations (and reallocations) made by this thread while `f` runs.
fn allocations_during(f: impl FnOnce()) -> u64 {
    let before = allocations();
    f();
    allocations() - before
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

#[path = "alloc/instance.rs"]
mod instance;

/// A packed test FMU of the current source.
fn fmu(name: &str) -> String {
    example_workspace()
        .join("fmus/packed")
        .join(format!("{name}.fmu"))
        .display()
        .to_string()
}

/// Opens `text` (a project) in `dir`, initializes it and runs the warm-up to `warm_up` (s);
/// then counts the allocations of `run_until` for each end time of `windows` (s).
fn window_allocations(dir: &Path, text: &str, warm_up: f64, windows: &[f64]) -> Vec<u64> {
    let project = dir.join("alloc.msim");
    std::fs::write(&project, text).expect("write project");
    let options = Options {
        working_dir: Some(dir.join("wd")),
        result_formats: Some(vec![ResultFormat::Csv, ResultFormat::Mat]),
        threads: Some(1),
        ..Options::default()
    };
    let mut session = Session::open(&project, &options).expect("open");
    session.initialize().expect("initialize");
    session.run_until(warm_up).expect("warm-up");
    let counts = windows
        .iter()
        .map(|&t| {
            let before = allocations();
            let report = session.run_until(t).expect("window");
            let during = allocations() - before;
            assert!(
                report.t >= t - 1e-9 && report.ended.is_none(),
                "window to {t} ended at {report:?}"
            );
            during
        })
        .collect();
    session.finish().expect("finish");
    counts
}

/// A chain of `n` Scale FMUs with `settings` lines, h = 0.01 s, a row on every step.
fn scale_chain(settings: &str, n: usize) -> String {
    let mut text = format!("tEnd 40 s\nhStart 0.01 s\nhOutputMin 0.01 s\n{settings}\n");
    for i in 0..n {
        let _ = writeln!(
            text,
            "simulator {i} 0 S{i} #000000 \"{}\"\nparameter S{i}.k 0.5",
            fmu("Scale")
        );
    }
    for i in 1..n {
        let _ = writeln!(text, "graph S{}.y S{i}.u", i - 1);
    }
    text
}

/// Windows of 200 and 2000 steps after a warm-up of 1000 steps allocate nothing.
fn assert_no_allocation_per_step(name: &str, text: &str) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let counts = window_allocations(tmp.path(), text, 10.0, &[12.0, 32.0]);
    println!("{name}: {counts:?} allocations in windows of 200 and 2000 steps");
    assert_eq!(counts, [0, 0], "{name}: allocations while stepping");
}

#[test]
fn gauss_seidel_steps_without_allocating() {
    assert_no_allocation_per_step(
        "Gauss-Seidel",
        &scale_chain("MasterMode GAUSS_SEIDEL\nmaxIterations 1", 20),
    );
}

#[test]
fn iterating_gauss_seidel_steps_without_allocating() {
    assert_no_allocation_per_step(
        "Gauss-Seidel, 3 iterations",
        &scale_chain("MasterMode GAUSS_SEIDEL\nmaxIterations 3", 20),
    );
}

#[test]
fn gauss_jacobi_steps_without_allocating() {
    assert_no_allocation_per_step("Gauss-Jacobi", &scale_chain("MasterMode GAUSS_JACOBI", 20));
}

#[test]
fn multirate_steps_without_allocating() {
    // Rates of 1, 3 and 7 ticks, an offset and a trigger: the scheduler reuses its heap and
    // its lists of due slaves.
    let mut rates = String::from(
        "MasterMode GAUSS_SEIDEL\nmaxIterations 2\ncommunicationInterval S1 0.03 s\n\
         communicationInterval S2 0.07 s\ncommunicationOffset S2 0.02 s\n\
         communicationTrigger S3 S2",
    );
    for i in 4..20 {
        let _ = write!(rates, "\ncommunicationInterval S{i} 0.0{} s", 1 + i % 3);
    }
    assert_no_allocation_per_step("multi-rate", &scale_chain(&rates, 20));
}

#[test]
fn richardson_error_control_steps_without_allocating() {
    assert_no_allocation_per_step(
        "Gauss-Seidel with Richardson",
        &scale_chain(
            "MasterMode GAUSS_SEIDEL\nmaxIterations 2\nErrorControlMode ADAPT_STEP\nadjustStepSize yes\nhMax 0.01 s",
            20,
        ),
    );
}

/// FourVars feeds a chain of `n` FourVarsFeedThrough FMUs through Real, Integer and Boolean
/// connections; the FMI 1.0 Oscillator's Integer and Boolean outputs feed the first
/// feed-through, and the chain's last Real output the Oscillator's input. With `strings`, the
/// String outputs are chained too (FourVars' `VString` changes at t > 0 and t > 5 s, to a
/// longer value the second time). Steps of `h` (s), a row on every step.
fn four_types_chain(n: usize, strings: bool, h: f64) -> String {
    let mut text = format!(
        "tEnd 30 s\nhStart {h} s\nhOutputMin {h} s\nMasterMode GAUSS_SEIDEL\nmaxIterations 1\n"
    );
    let _ = writeln!(
        text,
        "simulator 0 0 Gen #000000 \"{}\"\nsimulator 1 0 Osc #000000 \"{}\"",
        fmu("FourVars"),
        fmu("Oscillator")
    );
    for i in 0..n {
        let _ = writeln!(
            text,
            "simulator {} 0 F{i} #000000 \"{}\"",
            i + 2,
            fmu("FourVarsFeedThrough")
        );
    }
    let _ = writeln!(
        text,
        "graph Osc.positive F0.InBool\ngraph Osc.steps F0.InInteger\ngraph Gen.VReal F0.InReal\n\
         graph F{}.OutReal Osc.F 0 1e-6",
        n - 1
    );
    if strings {
        let _ = writeln!(text, "graph Gen.VString F0.InString");
    }
    for i in 1..n {
        for ty in ["Bool", "Integer", "Real"]
            .into_iter()
            .chain(strings.then_some("String"))
        {
            let _ = writeln!(text, "graph F{}.Out{ty} F{i}.In{ty}", i - 1);
        }
    }
    text
}

#[test]
fn real_integer_boolean_and_fmi1_steps_without_allocating() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // The warm-up (1200 steps) passes t > 5 s, where FourVars' String output (a result
    // column, read at every row) takes its longest value.
    let text = four_types_chain(10, false, 0.005);
    let counts = window_allocations(tmp.path(), &text, 6.0, &[7.0, 17.0]);
    println!(
        "four types, FMI 1.0 and 2.0: {counts:?} allocations in windows of 200 and 2000 steps"
    );
    assert_eq!(counts, [0, 0]);
}

#[test]
fn string_connections_allocate_only_when_a_value_changes() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // Warm-up 3000 steps; windows: 3–4.5 s (no change), 4.5–5.5 s (the change at t > 5 s),
    // 5.5–7 s and 7–9 s (none).
    let text = four_types_chain(10, true, 0.001);
    let counts = window_allocations(tmp.path(), &text, 3.0, &[4.5, 5.5, 7.0, 9.0]);
    println!("String connections: {counts:?} allocations in windows 3-4.5, 4.5-5.5, 5.5-7, 7-9 s");
    assert_eq!(counts[0], 0, "no String changes in 3–4.5 s");
    assert!(
        counts[1] > 0 && counts[1] <= 200,
        "the change to a longer String grows a bounded number of buffers: {counts:?}"
    );
    assert_eq!(&counts[2..], [0, 0], "no String changes after 5.5 s");
}

#[test]
fn handle_reads_and_sets_between_steps_allocate_nothing() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = tmp.path().join("handles.msim");
    std::fs::write(
        &project,
        scale_chain("MasterMode GAUSS_SEIDEL\nmaxIterations 1", 20),
    )
    .expect("write project");
    let options = Options {
        working_dir: Some(tmp.path().join("wd")),
        result_formats: Some(vec![ResultFormat::Csv, ResultFormat::Mat]),
        threads: Some(1),
        ..Options::default()
    };
    let mut session = Session::open(&project, &options).expect("open");
    // S0.u feeds the chain and no connection drives it.
    let u = session.variable("S0.u").expect("S0.u");
    let outputs: Vec<mastersim::Variable> = (0..20)
        .map(|i| session.variable(&format!("S{i}.y")).expect("output"))
        .collect();
    let mut values = vec![0.0; outputs.len()];
    // Sets, reads and steps until `end` (s); returns the sum of the last outputs read.
    let mut window = |session: &mut Session, end: f64| {
        let mut sum = 0.0;
        while session.time() < end - 1e-9 {
            let t = session.time();
            session.set_real(&u, t.sin()).expect("set S0.u");
            session.step().expect("step");
            session.read_reals(&outputs, &mut values).expect("read");
            sum += session.get_real(&outputs[19]).expect("read one") + values[0];
        }
        sum
    };
    window(&mut session, 10.0);
    let counts: Vec<u64> = [12.0, 32.0]
        .into_iter()
        .map(|end| allocations_during(|| assert!(window(&mut session, end).is_finite())))
        .collect();
    session.finish().expect("finish");
    println!("handles: {counts:?} allocations in windows of 200 and 2000 steps");
    assert_eq!(
        counts,
        [0, 0],
        "allocations while setting and reading by handle"
    );
}
