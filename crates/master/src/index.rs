//! Typed indices: which slave, which coupling value, which output of a slave.
//!
//! After validation ([`crate::plan::SimulationPlan::build`]) nothing is looked up by name any
//! more; these newtypes keep the three kinds of position apart, so that a slave index is never
//! used to address a coupling vector.
//!
//! Spec: MasterSim reference §7.2 (global and local indices of the connection mapping).

/// Position of a slave in the plan's slave list (project order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlaveIndex(pub usize);

/// Position of a connection among the connections of its FMI type: the index of its value in
/// the coupling vectors (`y_t`, `y_next`, `y_iter`) of that type.
///
/// Spec: MasterSim reference §7.2 ("global index").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GlobalIndex(pub usize);

/// Position of an output among the selected outputs of one slave and FMI type, in result-column
/// order.
///
/// Spec: MasterSim reference §7.2 ("local index"), §6.8 (output selection).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocalIndex(pub usize);
