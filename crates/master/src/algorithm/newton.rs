//! Newton iteration over the coupled Real variables of each cycle.
//!
//! For a cycle, let `y` be the values of its coupled Real connections (source and target slave
//! both in the cycle) and `S(y)` the values the slaves' outputs take when every slave of the
//! cycle steps from `t` to `t + h` with its inputs taken from `y` (all other inputs from the
//! values already known). The coupled step solves `F(y) = S(y) − y = 0` by Newton's method:
//!
//! ```text
//! (I − ∂S/∂y) Δ = S(y_k) − y_k,      y_{k+1} = y_k + Δ
//! ```
//!
//! with the textbook orientation (row i: output i, column j: perturbed input j). The iteration
//! has converged when the fixed-point residual `S(y_k) − y_k` has a WRMS norm ≤ 1 (weights from
//! `y_k`, the same test as Gauss-Seidel) and every Integer, Boolean and String value is
//! unchanged; the slaves are then exactly in the state of that last evaluation. Integer,
//! Boolean and String inputs are updated at every evaluation like Real ones.
//!
//! `∂S/∂y` comes from `fmi2GetDirectionalDerivative` when every slave of the cycle provides it
//! (`NewtonDerivatives AUTO`), otherwise from forward difference quotients: for column `j` the
//! slave receiving `y_j` is rolled back to `t` and stepped again with `y_j + d_j`,
//! `d_j = |y_j|·relTol + 0.01·absTol`. `NewtonJacobian FULL` rebuilds the matrix at every
//! iteration, `CHORD` once per step. The dense system is solved with nalgebra's LU
//! decomposition with partial pivoting. Every rollback is counted in the slaves' `setState`
//! statistics.
//!
//! Spec: MasterSim reference §10.3 (its quirks Q1–Q6 are not reproduced; see
//! `docs/deviations.md`), FMI 2.0.2 §2.1.9.

use fmi::ValueRef;
use nalgebra::{DMatrix, DVector, Dyn, LU};

use super::{Outcome, StepParams};
use crate::index::{GlobalIndex, SlaveIndex};
use crate::plan::SimulationPlan;
use crate::project::{NewtonDerivatives, NewtonJacobian};
use crate::slave::Slave;
use crate::slave::StepOutcome;
use crate::system::{StateSlot, System};
use crate::values::TypedValues;
use crate::{Error, Result};

/// The coupled Real variables of one cycle and their Newton matrix.
#[derive(Debug)]
struct CycleCoupling {
    /// Global indices of the coupled Real connections.
    vars: Vec<GlobalIndex>,
    /// For each coupled variable: the slave whose input it feeds, that input's value
    /// reference, and the connection's scale factor.
    inputs: Vec<(SlaveIndex, ValueRef, f64)>,
    /// For each coupled variable: the slave producing it and the output's value reference.
    outputs: Vec<(SlaveIndex, ValueRef)>,
    /// Use directional derivatives (all slaves of the cycle provide them).
    directional: bool,
    /// `I − ∂S/∂y`, row-major by output, n×n.
    matrix: DMatrix<f64>,
    /// LU factors of `matrix` once built.
    lu: Option<LU<f64, Dyn, Dyn>>,
}

/// Newton's per-cycle data and scratch space, allocated once.
#[derive(Debug)]
pub(crate) struct Newton {
    cycles: Vec<CycleCoupling>,
    jacobian: NewtonJacobian,
    /// Inputs with one coupled value perturbed (difference quotients).
    perturbed_in: TypedValues,
    /// Outputs of a perturbed evaluation.
    perturbed_out: TypedValues,
    /// `S(y_k)` of the coupled variables.
    base: Vec<f64>,
    rhs: DVector<f64>,
    derivative: Vec<f64>,
}

impl Newton {
    /// Precomputes the coupled variables of every cycle of `plan` for the slaves of `sys`.
    pub(crate) fn new(plan: &SimulationPlan, sys: &System) -> Newton {
        let settings = &plan.settings;
        let cycles = sys
            .cycles
            .iter()
            .map(|cycle| {
                let mut coupling = CycleCoupling {
                    vars: vec![],
                    inputs: vec![],
                    outputs: vec![],
                    directional: false,
                    matrix: DMatrix::zeros(0, 0),
                    lu: None,
                };
                for (g, c) in plan.connections.real.iter().enumerate() {
                    if cycle.contains(&c.input_slave) && cycle.contains(&c.output_slave) {
                        coupling.vars.push(GlobalIndex(g));
                        coupling
                            .inputs
                            .push((c.input_slave, c.input_vr, c.scale_factor));
                        let out_vr =
                            plan.slaves[c.output_slave.0].outputs.real[c.output_local.0].vr;
                        coupling.outputs.push((c.output_slave, out_vr));
                    }
                }
                let n = coupling.vars.len();
                coupling.matrix = DMatrix::zeros(n, n);
                coupling.directional = settings.newton_derivatives == NewtonDerivatives::Auto
                    && cycle.iter().all(|&s| {
                        sys.nodes[s.0]
                            .slave
                            .capabilities()
                            .provides_directional_derivative
                    });
                coupling
            })
            .collect::<Vec<_>>();
        let n_max = cycles.iter().map(|c| c.vars.len()).max().unwrap_or(0);
        Newton {
            cycles,
            jacobian: settings.newton_jacobian,
            perturbed_in: sys.y_t.clone(),
            perturbed_out: sys.y_t.clone(),
            base: vec![0.0; n_max],
            rhs: DVector::zeros(0),
            derivative: vec![0.0; n_max],
        }
    }
}

/// Steps every slave of cycle `c` from `p.t` by `p.h` with inputs from `sys.y_iter` (Jacobi
/// order within the cycle, so the result is a function of the iterate), writing outputs into
/// `sys.y_next`. Returns an outcome when a slave rejected the step or asked to terminate.
fn evaluate(sys: &mut System, c: usize, p: &StepParams) -> Result<Option<Outcome>> {
    let System {
        nodes,
        cycles,
        y_iter,
        y_next,
        counters,
        ..
    } = sys;
    for &s in &cycles[c] {
        let node = &mut nodes[s.0];
        node.update(y_iter, false)?;
        match node.do_step(p.t, p.h)? {
            StepOutcome::Completed => node.sync(y_next, false),
            StepOutcome::Rejected(reason) => {
                counters.fmu_errors += 1;
                return Ok(Some(Outcome::Rejected { slave: s, reason }));
            }
            StepOutcome::Terminated => return Ok(Some(Outcome::Terminated { slave: s })),
        }
    }
    Ok(None)
}

impl Newton {
    /// One Newton step of all cycles from `p.t` by `p.h`.
    pub(crate) fn step(&mut self, sys: &mut System, p: &StepParams) -> Result<Outcome> {
        let newton = self;
        sys.y_next.copy_from(&sys.y_t);
        for c in 0..sys.cycles.len() {
            if sys.cycles[c].is_empty() {
                continue; // multi-rate: the cycle is not due
            }
            if newton.cycles[c].vars.is_empty() {
                // No algebraic coupling inside the cycle: one evaluation is the solution.
                sys.counters.iterations += 1;
                sys.y_iter.copy_from(&sys.y_next);
                if let Some(outcome) = evaluate(sys, c, p)? {
                    return Ok(outcome);
                }
                continue;
            }
            let mut converged = false;
            let mut have_matrix = false;
            for iteration in 1..=p.max_iterations {
                sys.counters.iterations += 1;
                if iteration > 1 {
                    sys.restore_cycle(c, StateSlot::Iter, p.t)?;
                }
                sys.y_iter.copy_from(&sys.y_next);
                if let Some(outcome) = evaluate(sys, c, p)? {
                    return Ok(outcome);
                }
                if residual_converged(sys, &newton.cycles[c], p) {
                    converged = true;
                    break;
                }
                if iteration == p.max_iterations {
                    break;
                }
                if !have_matrix || newton.jacobian == NewtonJacobian::Full {
                    if let Some(outcome) = build_matrix(sys, newton, c, p)? {
                        return Ok(outcome);
                    }
                    have_matrix = true;
                }
                solve_update(sys, newton, c, p)?;
            }
            if !converged {
                sys.counters.iteration_limit_exceeded += 1;
                return Ok(Outcome::IterationLimitExceeded);
            }
        }
        Ok(Outcome::Converged)
    }
}

/// WRMS norm of `S(y_k) − y_k` over the cycle's coupled variables ≤ 1 (weights from `y_k`) and
/// all discrete values unchanged.
fn residual_converged(sys: &System, cycle: &CycleCoupling, p: &StepParams) -> bool {
    if !sys.y_next.discrete_equal(&sys.y_iter) {
        return false;
    }
    let sum: f64 = cycle
        .vars
        .iter()
        .map(|&v| {
            let w = sys.y_iter.real[v.0].abs() * p.rel_tol + p.abs_tol;
            let e = (sys.y_next.real[v.0] - sys.y_iter.real[v.0]) / w;
            e * e
        })
        .sum();
    (sum / cycle.vars.len() as f64).sqrt() <= 1.0
}

/// Builds `I − ∂S/∂y` at `y_k = sys.y_iter` (with `S(y_k)` in `sys.y_next`) and factorizes it.
fn build_matrix(
    sys: &mut System,
    newton: &mut Newton,
    c: usize,
    p: &StepParams,
) -> Result<Option<Outcome>> {
    let Newton {
        cycles,
        perturbed_in,
        perturbed_out,
        base,
        derivative,
        ..
    } = newton;
    let cycle = &mut cycles[c];
    let n = cycle.vars.len();
    cycle.matrix.fill(0.0);
    if cycle.directional {
        // ∂S_i/∂y_j = scale_j · ∂out_i/∂in_j when out_i and in_j belong to the same slave.
        for (j, &(slave, in_vr, scale)) in cycle.inputs.iter().enumerate() {
            for (i, &(out_slave, out_vr)) in cycle.outputs.iter().enumerate() {
                if out_slave != slave {
                    continue;
                }
                let node = &mut sys.nodes[slave.0];
                node.slave.get_directional_derivative(
                    &[out_vr],
                    &[in_vr],
                    &[1.0],
                    &mut derivative[..1],
                )?;
                cycle.matrix[(i, j)] = -scale * derivative[0];
            }
        }
    } else {
        for (k, &v) in cycle.vars.iter().enumerate() {
            base[k] = sys.y_next.real[v.0];
        }
        perturbed_in.copy_from(&sys.y_iter);
        for j in 0..n {
            let v = cycle.vars[j];
            let slave = cycle.inputs[j].0;
            let d = sys.y_iter.real[v.0].abs() * p.rel_tol + 0.01 * p.abs_tol;
            perturbed_in.real[v.0] = sys.y_iter.real[v.0] + d;
            perturbed_out.real.copy_from_slice(&sys.y_next.real);
            let node = &mut sys.nodes[slave.0];
            node.restore_state(StateSlot::Iter, p.t)?;
            node.update(perturbed_in, false)?;
            match node.do_step(p.t, p.h)? {
                StepOutcome::Completed => node.sync(perturbed_out, true),
                StepOutcome::Rejected(reason) => {
                    sys.counters.fmu_errors += 1;
                    return Ok(Some(Outcome::Rejected { slave, reason }));
                }
                StepOutcome::Terminated => return Ok(Some(Outcome::Terminated { slave })),
            }
            perturbed_in.real[v.0] = sys.y_iter.real[v.0];
            for (i, &u) in cycle.vars.iter().enumerate() {
                cycle.matrix[(i, j)] = -(perturbed_out.real[u.0] - base[i]) / d;
            }
        }
    }
    for k in 0..n {
        cycle.matrix[(k, k)] += 1.0;
    }
    cycle.lu = Some(cycle.matrix.clone().lu());
    Ok(None)
}

/// Solves `(I − ∂S/∂y) Δ = S(y_k) − y_k` and sets the coupled values of `sys.y_next` to
/// `y_k + Δ`.
fn solve_update(sys: &mut System, newton: &mut Newton, c: usize, p: &StepParams) -> Result<()> {
    let cycle = &newton.cycles[c];
    let rhs = &mut newton.rhs;
    if rhs.len() != cycle.vars.len() {
        *rhs = DVector::zeros(cycle.vars.len());
    }
    for (k, &v) in cycle.vars.iter().enumerate() {
        rhs[k] = sys.y_next.real[v.0] - sys.y_iter.real[v.0];
    }
    let lu = cycle
        .lu
        .as_ref()
        .expect("invariant: matrix built before solving");
    if !lu.solve_mut(rhs) {
        return Err(Error::SingularJacobian {
            cycle: c + 1,
            t: p.t,
            h: p.h,
        });
    }
    for (k, &v) in cycle.vars.iter().enumerate() {
        sys.y_next.real[v.0] = sys.y_iter.real[v.0] + rhs[k];
    }
    Ok(())
}
