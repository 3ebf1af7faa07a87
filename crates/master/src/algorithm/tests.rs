//! Algorithm tests with in-process mock slaves: two static gains in an algebraic loop,
//! `y_a = k_a·y_b + bias(t)` and `y_b = k_b·y_a`, whose exact solution at every communication
//! point is `y_a = bias/(1 − k_a·k_b)`, `y_b = k_b·y_a`. Every master algorithm is run through
//! the full driver (`Simulation`) and compared with it.

use std::path::Path;

use fmi::{Causality, ScalarVariable, ValueRef, VarType, Variability};

use crate::observer::{Observer, ObserverError, OutputLayout};
use crate::plan::{PlanOptions, SimulationPlan, SlaveKind};
use crate::project::Project;
use crate::simulation::Simulation;
use crate::slave::{Slave, SlaveCapabilities, StateId, StepOutcome};
use crate::statistics::Statistics;
use crate::values::TypedValues;
use crate::{Error, Result};

const U: ValueRef = ValueRef(0);
const Y: ValueRef = ValueRef(1);

/// `y = k·u + amplitude·sin(t)` at the slave's time (direct feedthrough, no state but time).
#[derive(Debug)]
struct Gain {
    name: String,
    k: f64,
    amplitude: f64,
    u: f64,
    t: f64,
    states: Vec<Option<(f64, f64)>>,
    derivatives: bool,
}

impl Gain {
    fn boxed(name: &str, k: f64, amplitude: f64, derivatives: bool) -> Box<dyn Slave> {
        Box::new(Gain {
            name: name.into(),
            k,
            amplitude,
            u: 0.0,
            t: 0.0,
            states: vec![],
            derivatives,
        })
    }

    fn y(&self) -> f64 {
        self.k * self.u + self.amplitude * self.t.sin()
    }
}

impl Slave for Gain {
    fn name(&self) -> &str {
        &self.name
    }
    fn capabilities(&self) -> SlaveCapabilities {
        SlaveCapabilities {
            can_get_and_set_state: true,
            can_handle_variable_step_size: true,
            provides_directional_derivative: self.derivatives,
            instantiated_only_once_per_process: false,
        }
    }
    fn setup_experiment(&mut self, _rel_tol: f64, t_start: f64, _t_end: f64) -> Result<()> {
        self.t = t_start;
        Ok(())
    }
    fn enter_initialization_mode(&mut self) -> Result<()> {
        Ok(())
    }
    fn exit_initialization_mode(&mut self) -> Result<()> {
        Ok(())
    }
    fn get_real(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<()> {
        for (vr, v) in vrs.iter().zip(values) {
            *v = if *vr == Y { self.y() } else { self.u };
        }
        Ok(())
    }
    fn get_integer(&mut self, _: &[ValueRef], _: &mut [i128]) -> Result<()> {
        Ok(())
    }
    fn get_boolean(&mut self, _: &[ValueRef], _: &mut [bool]) -> Result<()> {
        Ok(())
    }
    fn get_string(&mut self, _: &[ValueRef], _: &mut [String]) -> Result<()> {
        Ok(())
    }
    fn set_real(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<()> {
        for (vr, v) in vrs.iter().zip(values) {
            assert_eq!(*vr, U, "only the input is set");
            self.u = *v;
        }
        Ok(())
    }
    fn set_integer(&mut self, _: &[ValueRef], _: &[i128]) -> Result<()> {
        Ok(())
    }
    fn set_boolean(&mut self, _: &[ValueRef], _: &[bool]) -> Result<()> {
        Ok(())
    }
    fn set_string(&mut self, _: &[ValueRef], _: &[String]) -> Result<()> {
        Ok(())
    }
    fn do_step(&mut self, t: f64, h: f64) -> Result<StepOutcome> {
        assert!(
            (t - self.t).abs() < 1e-9,
            "{}: step from {t}, slave at {}",
            self.name,
            self.t
        );
        self.t = t + h;
        Ok(StepOutcome::Completed)
    }
    fn get_state(&mut self, into: Option<StateId>) -> Result<StateId> {
        let id = into.unwrap_or_else(|| {
            self.states.push(None);
            StateId(self.states.len() - 1)
        });
        self.states[id.0] = Some((self.t, self.u));
        Ok(id)
    }
    fn set_state(&mut self, state: StateId) -> Result<()> {
        let (t, u) = self.states[state.0].ok_or(Error::UnknownState {
            slave: self.name.clone(),
            id: state.0,
        })?;
        (self.t, self.u) = (t, u);
        Ok(())
    }
    fn free_state(&mut self, state: StateId) -> Result<()> {
        self.states[state.0] = None;
        Ok(())
    }
    fn get_directional_derivative(
        &mut self,
        unknowns: &[ValueRef],
        knowns: &[ValueRef],
        dv_known: &[f64],
        dv_unknown: &mut [f64],
    ) -> Result<()> {
        assert!(self.derivatives, "only called when provided");
        assert_eq!((unknowns, knowns), (&[Y][..], &[U][..]));
        dv_unknown[0] = self.k * dv_known[0];
        Ok(())
    }
    fn terminate(&mut self) -> Result<()> {
        Ok(())
    }
}

fn variable(index: usize, name: &str, vr: ValueRef, causality: Causality) -> ScalarVariable {
    ScalarVariable {
        index,
        name: name.into(),
        value_reference: vr,
        handle: vr,
        data_type: fmi::DataType::Float64,
        array: None,
        display_unit: None,
        description: None,
        causality,
        variability: Variability::Continuous,
        initial: None,
        var_type: VarType::Real,
        is_enumeration: false,
        start: (causality == Causality::Input).then(|| "0".into()),
        unit: None,
        declared_type: None,
        alias: Default::default(),
    }
}

/// Collects result rows in memory.
#[derive(Default)]
struct Rows(Vec<(f64, Vec<f64>)>);

impl Observer for Rows {
    fn start(&mut self, _layout: &OutputLayout) -> std::result::Result<(), ObserverError> {
        Ok(())
    }
    fn output(&mut self, t: f64, values: &TypedValues) -> std::result::Result<(), ObserverError> {
        self.0.push((t, values.real.clone()));
        Ok(())
    }
}

const K_A: f64 = 1.0;
const K_B: f64 = -0.5;

/// Runs the two-gain loop with the given extra project lines; returns rows (`[y_a, y_b]`) and
/// statistics.
fn run_loop(settings: &str, derivatives: bool) -> (Vec<(f64, Vec<f64>)>, Statistics) {
    let text = format!(
        "tStart 0 s\ntEnd 5 s\nhStart 0.1 s\nhOutputMin 0.1 s\nrelTol 1e-5\nabsTol 1e-6\n{settings}\n\
         simulator 0 0 A #ff0000 \"a.fmu\"\nsimulator 1 0 B #00ff00 \"b.fmu\"\n\
         graph B.y A.u\ngraph A.y B.u\n"
    );
    let project = Project::parse(&text, Path::new("/test/loop.msim")).expect("valid project");
    let variables = vec![
        variable(1, "u", U, Causality::Input),
        variable(2, "y", Y, Causality::Output),
    ];
    let capabilities = Gain::boxed("x", 0.0, 0.0, derivatives).capabilities();
    let plan = SimulationPlan::build(
        &project,
        &PlanOptions {
            working_dir: "/test/loop".into(),
            collect_parameters: false,
        },
        |_| {
            Ok(SlaveKind::External {
                variables: variables.clone(),
                capabilities,
            })
        },
    )
    .expect("valid plan");
    let slaves = vec![
        Gain::boxed("A", K_A, 1.0, derivatives).into(),
        Gain::boxed("B", K_B, 0.0, derivatives).into(),
    ];
    let mut sim = Simulation::new(plan, slaves).expect("simulation");
    sim.initialize().expect("initialization");
    let mut rows = Rows::default();
    sim.run(&mut rows).expect("run");
    (rows.0, sim.statistics())
}

/// Every row equals the loop's exact solution within the convergence tolerance.
fn assert_exact(rows: &[(f64, Vec<f64>)], tolerance: f64) {
    assert_eq!(rows.len(), 51);
    for (t, y) in rows.iter().skip(1) {
        let ya = t.sin() / (1.0 - K_A * K_B);
        let yb = K_B * ya;
        assert!(
            (y[0] - ya).abs() <= tolerance && (y[1] - yb).abs() <= tolerance,
            "t={t}: {y:?} vs ({ya}, {yb})"
        );
    }
}

#[test]
fn gauss_seidel_iterates_to_the_loop_solution() {
    let (rows, stats) = run_loop("MasterMode GAUSS_SEIDEL\nmaxIterations 30", false);
    assert_exact(&rows, 2e-5);
    assert_eq!(stats.counters.iteration_limit_exceeded, 0);
    // Convergence rate |k_a·k_b| = 0.5 from the previous step's values: many sweeps per step.
    assert!(
        stats.counters.iterations > 8 * stats.counters.steps,
        "{} sweeps for {} steps",
        stats.counters.iterations,
        stats.counters.steps
    );
}

#[test]
fn newton_solves_the_linear_loop_in_two_iterations() {
    for (settings, derivatives) in [
        ("NewtonJacobian FULL", false),
        ("NewtonJacobian CHORD", false),
        ("NewtonDerivatives AUTO", true),
        ("NewtonDerivatives DIFFERENCE_QUOTIENTS", true),
    ] {
        let (rows, stats) = run_loop(
            &format!("MasterMode NEWTON\nmaxIterations 4\n{settings}"),
            derivatives,
        );
        assert_exact(&rows, 1e-9);
        assert_eq!(stats.counters.iteration_limit_exceeded, 0, "{settings}");
        // One iteration to build and solve, one to confirm the residual.
        assert_eq!(
            stats.counters.iterations,
            2 * stats.counters.steps,
            "{settings}"
        );
        let rollbacks: u64 = stats.slaves.iter().map(|s| s.set_state.count).sum();
        if derivatives && settings.contains("AUTO") {
            // Directional derivatives: only the second iteration rolls back.
            assert_eq!(rollbacks, 2 * stats.counters.steps, "{settings}");
        } else {
            // Difference quotients: one rollback per column, plus the second iteration.
            assert_eq!(rollbacks, 4 * stats.counters.steps, "{settings}");
        }
    }
}

#[test]
fn gauss_jacobi_lags_one_step() {
    let (rows, stats) = run_loop("MasterMode GAUSS_JACOBI", false);
    assert_eq!(stats.counters.iterations, stats.counters.steps);
    // y_a(t+h) = k_a·y_b(t) + sin(t+h), y_b(t+h) = k_b·y_a(t): both from the previous point.
    for w in rows.windows(2) {
        let ((_, prev), (t, y)) = (&w[0], &w[1]);
        assert!((y[0] - (K_A * prev[1] + t.sin())).abs() < 1e-12);
        assert!((y[1] - K_B * prev[0]).abs() < 1e-12);
    }
}

#[test]
fn newton_needs_two_iterations() {
    let project = Project::parse("MasterMode NEWTON\nmaxIterations 1\n", Path::new("/p.msim"))
        .expect("parses");
    let err = crate::settings::Settings::from_project(&project).expect_err("rejected");
    assert!(err.to_string().contains("maxIterations ≥ 2"), "{err}");
}
