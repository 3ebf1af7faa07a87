//! Multi-rate co-simulation at load time: resolves the `communicationInterval`,
//! `communicationOffset` and `communicationTrigger` lines into each slave's clock, checks them
//! against the settings and the slaves' capabilities, and fixes the order in which the slaves
//! due at one instant step.
//!
//! Spec: the block-scheduling design (sampling interval Δt_i, first sample time t_i,1,
//! triggered blocks, predecessors first, algebraic loops cut at one block); FMI 2.0.2 §4.3.1
//! (`canHandleVariableCommunicationStepSize`); `docs/algorithms.md` (multi-rate schedule).

use super::SlavePlan;
use crate::index::SlaveIndex;
use crate::plan::Connection;
use crate::project::{
    Communication, CommunicationDef, ErrorControl, MasterAlgorithm, Project, TimeArithmetic,
};
use crate::settings::Settings;
use crate::values::PerType;
use crate::{Error, Result};

/// Relative tolerance of "a whole multiple of the tick" (the quotient of two decimal times
/// such as 0.03 s / 0.01 s is rarely an exact integer in binary floating point).
const MULTIPLE_TOLERANCE: f64 = 1e-9;

/// A slave's own sample grid: sample n (n = 0, 1, …) is at `first + n·interval` (s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleGrid {
    /// The first sample time t_i,1 = tStart + offset, s.
    pub first: f64,
    /// The communication interval Δt_i, s (> 0).
    pub interval: f64,
    /// `first` in ticks after tStart.
    pub first_tick: u64,
    /// `interval` in ticks (≥ 1), when it is a whole multiple of the tick; `None` for a slave
    /// that can handle variable step sizes and whose interval or offset is not: its sample n
    /// then falls on the tick nearest to `offset + n·interval`.
    pub interval_ticks: Option<u64>,
}

impl SampleGrid {
    /// The tick of sample `n`, for a tick of `tick` s.
    pub fn tick_of(&self, n: u64, tick: f64, t_start: f64) -> u64 {
        match self.interval_ticks {
            Some(d) => self.first_tick + n * d,
            None => (((self.first - t_start) + n as f64 * self.interval) / tick).round() as u64,
        }
    }
}

/// When a slave of a multi-rate project steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SlaveClock {
    /// On its own sample grid (a slave without multi-rate lines has the master's: interval
    /// hStart, offset 0).
    Periodic(SampleGrid),
    /// Right after the given slave, whenever that one steps (`communicationTrigger`).
    Triggered(SlaveIndex),
}

/// The multi-rate schedule of a project that uses the multi-rate lines.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiRate {
    /// The master's tick τ, s: hStart. Instants are tStart + k·τ for integer k.
    pub tick: f64,
    /// Every slave's clock, in plan order.
    pub clocks: Vec<SlaveClock>,
    /// Per cycle (as [`super::SimulationPlan::cycles`]), the order in which the cycle's slaves
    /// step at an instant: predecessors first, a triggered slave after its trigger, and an
    /// algebraic loop cut before its first slave in project order.
    pub order: Vec<Vec<SlaveIndex>>,
}

/// The multi-rate lines of one slave.
#[derive(Default)]
struct Lines<'a> {
    interval: Option<&'a CommunicationDef>,
    offset: Option<&'a CommunicationDef>,
    trigger: Option<(SlaveIndex, &'a CommunicationDef)>,
}

impl<'a> Lines<'a> {
    /// The slave's first multi-rate line of interval, offset and trigger, if any.
    fn any(&self) -> Option<&'a CommunicationDef> {
        self.interval
            .or(self.offset)
            .or(self.trigger.map(|(_, def)| def))
    }
}

/// `value / tick` as a whole number of ticks, if it is one.
fn whole_ticks(value: f64, tick: f64) -> Option<u64> {
    let ratio = value / tick;
    let rounded = ratio.round();
    ((ratio - rounded).abs() <= MULTIPLE_TOLERANCE * rounded.max(1.0)).then_some(rounded as u64)
}

/// Resolves the multi-rate lines of `project` (`None` when it has none, or when every slave
/// has the master's schedule in a variable-step project).
///
/// # Errors
/// [`Error::InvalidSetting`] naming the line, for: an interval shorter than hStart; an interval
/// or offset that is not a whole multiple of hStart for a slave without
/// `canHandleVariableCommunicationStepSize`; a triggered slave in an earlier cycle than its
/// trigger; and the refused combinations: variable steps (`adjustStepSize yes`, hence also
/// `ADAPT_STEP`) with a slave off the master's schedule, `ErrorControlMode CHECK`,
/// `timeArithmetic MASTERSIM`, and `NEWTON` with one cycle's slaves on different clocks.
pub(super) fn resolve(
    project: &Project,
    settings: &Settings,
    slaves: &[SlavePlan],
    cycles: &[Vec<SlaveIndex>],
    connections: &PerType<Vec<Connection>>,
) -> Result<Option<MultiRate>> {
    let Some(first_line) = project.communication.first() else {
        return Ok(None);
    };
    // Projects built in code have not been through the parser's name check.
    let index_of = |name: &str, def: &CommunicationDef| {
        slaves
            .iter()
            .position(|s| s.name == name)
            .map(SlaveIndex)
            .ok_or_else(|| Error::InvalidSetting {
                at: project.location(Some(def.line)),
                keyword: def.setting.keyword(),
                reason: format!("unknown slave '{name}'"),
            })
    };
    let mut lines: Vec<Lines> = slaves.iter().map(|_| Lines::default()).collect();
    for def in &project.communication {
        let l = &mut lines[index_of(&def.slave, def)?.0];
        match &def.setting {
            Communication::Interval(_) => l.interval = Some(def),
            Communication::Offset(_) => l.offset = Some(def),
            Communication::Trigger(other) => l.trigger = Some((index_of(other, def)?, def)),
        }
    }
    let at = |line: usize| project.location(Some(line));
    let refuse =
        |def: &CommunicationDef, keyword: &'static str, reason: String| Error::InvalidSetting {
            at: at(def.line),
            keyword,
            reason,
        };
    let seconds = |def: Option<&CommunicationDef>| match def.map(|d| &d.setting) {
        Some(Communication::Interval(s) | Communication::Offset(s)) => Some(s.seconds),
        _ => None,
    };
    let tick = settings.h_start;
    let setting_line = |keyword: &str| {
        project
            .keyword_lines
            .get(keyword)
            .map_or_else(|| "its default".to_owned(), |l| format!("line {l}"))
    };

    if settings.adjust_step_size {
        // The master's step varies: only its own schedule (interval hStart, no offset, no
        // trigger) is meaningful, and then it is the schedule the slave has anyway.
        for l in &lines {
            let own = l.trigger.is_none()
                && seconds(l.offset).is_none_or(|o| o == 0.0)
                && seconds(l.interval).is_none_or(|i| whole_ticks(i, tick) == Some(1));
            if let Some(def) = l.any().filter(|_| !own) {
                return Err(refuse(
                    def,
                    def.setting.keyword(),
                    format!(
                        "slave '{}' has a schedule of its own, but adjustStepSize is yes ({}): \
                         variable communication steps (and ADAPT_STEP's step doubling) move and halve \
                         every step, so they cannot keep a fixed sample grid; use fixed steps \
                         (adjustStepSize no) for multi-rate slaves",
                        def.slave,
                        setting_line("adjustStepSize")
                    ),
                ));
            }
        }
        return Ok(None);
    }
    if settings.error_control == ErrorControl::Check {
        return Err(refuse(
            first_line,
            first_line.setting.keyword(),
            format!(
                "ErrorControlMode CHECK ({}) cannot be combined with multi-rate slaves: it \
                 estimates the local error from every coupled value's slope over one \
                 communication step, and the held outputs of slaves sampled at other rates jump \
                 at their sample instants, so every such instant would fail the test",
                setting_line("ErrorControlMode")
            ),
        ));
    }
    if settings.time_arithmetic == TimeArithmetic::MasterSim {
        return Err(refuse(
            first_line,
            first_line.setting.keyword(),
            format!(
                "timeArithmetic MASTERSIM ({}) reproduces MasterSim's single-rate clock, which \
                 drifts; multi-rate communication points come from integer ticks (use EXACT)",
                setting_line("timeArithmetic")
            ),
        ));
    }

    let mut clocks = Vec::with_capacity(slaves.len());
    for (l, slave) in lines.iter().zip(slaves) {
        if let Some((trigger, def)) = l.trigger {
            if slaves[trigger.0].cycle > slave.cycle {
                return Err(refuse(
                    def,
                    "communicationTrigger",
                    format!(
                        "slave '{}' (cycle {}) is triggered by '{}' in the later cycle {}: a \
                         triggered slave steps after its trigger, so it must be in the same or a \
                         later cycle",
                        slave.name, slave.cycle, slaves[trigger.0].name, slaves[trigger.0].cycle
                    ),
                ));
            }
            clocks.push(SlaveClock::Triggered(trigger));
            continue;
        }
        let interval = seconds(l.interval).unwrap_or(tick);
        let offset = seconds(l.offset).unwrap_or(0.0);
        if let Some(def) = l.interval
            && interval < tick * (1.0 - MULTIPLE_TOLERANCE)
        {
            return Err(refuse(
                def,
                "communicationInterval",
                format!(
                    "slave '{}': interval {interval} s is shorter than the master's tick hStart = \
                     {tick} s ({}); make hStart the smallest interval",
                    slave.name,
                    setting_line("hStart")
                ),
            ));
        }
        let variable_ok = slave
            .kind
            .fmu_capabilities()
            .is_none_or(|c| c.can_handle_variable_step_size);
        let interval_ticks = whole_ticks(interval, tick);
        let first_tick = whole_ticks(offset, tick);
        let on_ticks = interval_ticks.is_some() && first_tick.is_some();
        if !on_ticks && !variable_ok {
            let (def, what, value) = if interval_ticks.is_none() {
                (
                    l.interval.expect("a default interval is one tick"),
                    "interval",
                    interval,
                )
            } else {
                (
                    l.offset.expect("a default offset is zero ticks"),
                    "offset",
                    offset,
                )
            };
            return Err(refuse(
                def,
                def.setting.keyword(),
                format!(
                    "slave '{}': {what} {value} s is not a whole multiple of the master's tick \
                     hStart = {tick} s ({}), and its FMU does not declare \
                     canHandleVariableCommunicationStepSize, so its steps cannot vary to stay on \
                     the tick grid",
                    slave.name,
                    setting_line("hStart")
                ),
            ));
        }
        let first = settings.t_start + offset;
        clocks.push(SlaveClock::Periodic(SampleGrid {
            first,
            interval,
            first_tick: if on_ticks {
                first_tick.unwrap_or(0)
            } else {
                (offset / tick).round() as u64
            },
            interval_ticks: if on_ticks { interval_ticks } else { None },
        }));
    }

    if settings.algorithm == MasterAlgorithm::Newton {
        for cycle in cycles {
            let coupled = connections.real.iter().any(|c| {
                c.input_slave != c.output_slave
                    && cycle.contains(&c.input_slave)
                    && cycle.contains(&c.output_slave)
            });
            let first = cycle[0];
            if let Some(&other) = cycle.iter().find(|&&s| clocks[s.0] != clocks[first.0])
                && coupled
            {
                // Two clocks differ only when one of the slaves has a line.
                let def = lines[other.0]
                    .any()
                    .or(lines[first.0].any())
                    .expect("invariant: different clocks come from a multi-rate line");
                return Err(refuse(
                    def,
                    def.setting.keyword(),
                    format!(
                        "MasterMode NEWTON ({}) solves each cycle's coupled values at one common \
                         communication point, but slaves '{}' and '{}' of cycle {} step on \
                         different clocks; give the slaves of one cycle the same \
                         communicationInterval, communicationOffset and communicationTrigger, or \
                         put them in different cycles",
                        setting_line("MasterMode"),
                        slaves[first.0].name,
                        slaves[other.0].name,
                        slaves[first.0].cycle
                    ),
                ));
            }
        }
    }

    let order = cycles
        .iter()
        .map(|cycle| evaluation_order(cycle, &clocks, connections))
        .collect();
    Ok(Some(MultiRate {
        tick,
        clocks,
        order,
    }))
}

/// The order in which the slaves of one cycle step at an instant: repeatedly the first slave in
/// project order whose predecessors in the cycle (slaves feeding it through a connection, and
/// its trigger) have all stepped; when none is left (an algebraic loop), the first remaining
/// slave in project order whose trigger has stepped, which then reads its loop predecessors'
/// values from before the instant.
fn evaluation_order(
    cycle: &[SlaveIndex],
    clocks: &[SlaveClock],
    connections: &PerType<Vec<Connection>>,
) -> Vec<SlaveIndex> {
    let mut preds: Vec<Vec<SlaveIndex>> = vec![Vec::new(); cycle.len()];
    let position = |s: SlaveIndex| cycle.iter().position(|&c| c == s);
    let mut add = |from: SlaveIndex, to: SlaveIndex| {
        if let (Some(_), Some(j)) = (position(from), position(to))
            && from != to
            && !preds[j].contains(&from)
        {
            preds[j].push(from);
        }
    };
    for (out, inp) in connections
        .real
        .iter()
        .map(|c| (c.output_slave, c.input_slave))
        .chain(
            connections
                .integer
                .iter()
                .map(|c| (c.output_slave, c.input_slave)),
        )
        .chain(
            connections
                .boolean
                .iter()
                .map(|c| (c.output_slave, c.input_slave)),
        )
        .chain(
            connections
                .string
                .iter()
                .map(|c| (c.output_slave, c.input_slave)),
        )
    {
        add(out, inp);
    }
    let trigger_of = |s: SlaveIndex| match clocks[s.0] {
        SlaveClock::Triggered(t) => Some(t),
        SlaveClock::Periodic(_) => None,
    };
    for &s in cycle {
        if let Some(t) = trigger_of(s) {
            add(t, s);
        }
    }
    let mut order: Vec<SlaveIndex> = Vec::with_capacity(cycle.len());
    while order.len() < cycle.len() {
        let remaining = || cycle.iter().enumerate().filter(|(_, s)| !order.contains(s));
        let free = remaining().find(|(j, _)| preds[*j].iter().all(|p| order.contains(p)));
        // A trigger cycle (refused by the parser, possible in a project built in code) never
        // steps: its slaves go last.
        let next = free
            .or_else(|| {
                remaining().find(|(_, s)| {
                    trigger_of(**s).is_none_or(|t| order.contains(&t) || position(t).is_none())
                })
            })
            .or_else(|| remaining().next());
        let Some((_, &s)) = next else {
            break;
        };
        order.push(s);
    }
    order
}
