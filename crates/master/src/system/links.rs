//! A slave's transfer lists: what it moves in values of each FMI type, built per slave from
//! the plan ([`Links`]), and the packed form of its Real transfers that nearly every step uses
//! ([`RealLinks`]).
//!
//! Spec: MasterSim reference §7.3 (`sync`, `update`).

use fmi::ValueRef;

use crate::Result;
use crate::any_slave::AnySlave;
use crate::index::{GlobalIndex, LocalIndex};
use crate::plan::OutputVariable;
use crate::project::ValueMap;
use crate::slave::Slave;

/// The cache slot of an output that is neither coupled nor written: it is never read.
const NOT_READ: usize = usize::MAX;

/// A value type the master moves between slaves: the batched get and set calls of its type.
pub(crate) trait Transfer: Clone + Default + Send {
    /// Reads `values` (one per value reference) from `slave`.
    fn get(slave: &mut AnySlave, vrs: &[ValueRef], values: &mut [Self]) -> Result<()>;
    /// Writes `values` (one per value reference) into `slave`.
    fn set(slave: &mut AnySlave, vrs: &[ValueRef], values: &[Self]) -> Result<()>;
    /// Applies a connection's value mapping (Integer and Boolean; the plan refuses it on the
    /// other types, which keep this no-op).
    fn map(&mut self, _map: &ValueMap) {}
}

impl Transfer for f64 {
    fn get(slave: &mut AnySlave, vrs: &[ValueRef], values: &mut [f64]) -> Result<()> {
        slave.get_real(vrs, values)
    }
    fn set(slave: &mut AnySlave, vrs: &[ValueRef], values: &[f64]) -> Result<()> {
        slave.set_real(vrs, values)
    }
}

impl Transfer for i128 {
    fn get(slave: &mut AnySlave, vrs: &[ValueRef], values: &mut [i128]) -> Result<()> {
        slave.get_integer(vrs, values)
    }
    fn set(slave: &mut AnySlave, vrs: &[ValueRef], values: &[i128]) -> Result<()> {
        slave.set_integer(vrs, values)
    }
    fn map(&mut self, map: &ValueMap) {
        *self = map.apply(*self);
    }
}

impl Transfer for bool {
    fn get(slave: &mut AnySlave, vrs: &[ValueRef], values: &mut [bool]) -> Result<()> {
        slave.get_boolean(vrs, values)
    }
    fn set(slave: &mut AnySlave, vrs: &[ValueRef], values: &[bool]) -> Result<()> {
        slave.set_boolean(vrs, values)
    }
    fn map(&mut self, map: &ValueMap) {
        *self = map.apply(i128::from(*self)) != 0;
    }
}

impl Transfer for String {
    fn get(slave: &mut AnySlave, vrs: &[ValueRef], values: &mut [String]) -> Result<()> {
        slave.get_string(vrs, values)
    }
    fn set(slave: &mut AnySlave, vrs: &[ValueRef], values: &[String]) -> Result<()> {
        slave.set_string(vrs, values)
    }
}

impl Transfer for Vec<u8> {
    fn get(slave: &mut AnySlave, vrs: &[ValueRef], values: &mut [Vec<u8>]) -> Result<()> {
        slave.get_binary(vrs, values)
    }
    fn set(slave: &mut AnySlave, vrs: &[ValueRef], values: &[Vec<u8>]) -> Result<()> {
        slave.set_binary(vrs, values)
    }
}

/// Everything one slave moves in values of one FMI type: its selected outputs (value
/// references and the values read last, coupled outputs first), where coupled outputs go in
/// the coupling vectors, and its connected inputs (value references, where each comes from,
/// the values handed to the set call).
#[derive(Debug, Clone, Default)]
pub(crate) struct Links<T> {
    /// Value references of the selected outputs in cache order: the coupled ones first.
    pub(super) output_vrs: Vec<ValueRef>,
    /// Outputs as read last, in cache order.
    cache: Vec<T>,
    /// Number of coupled outputs (the first entries of the cache).
    coupled: usize,
    /// `(global, slot)`: copy `cache[slot]` into the coupling vector at `global`.
    sync: Vec<(GlobalIndex, usize)>,
    /// Value references of the connected inputs.
    pub(super) input_vrs: Vec<ValueRef>,
    /// The connection feeding each input.
    sources: Vec<GlobalIndex>,
    /// `(offset, scale_factor)` per input (Real only; empty for the other types).
    pub(super) transforms: Vec<(f64, f64)>,
    /// `(input position, mapping)` of the inputs whose connection maps values (Integer and
    /// Boolean; usually empty).
    pub(super) maps: Vec<(usize, ValueMap)>,
    /// The input values of the next set call, one per input.
    buffer: Vec<T>,
}

impl<T: Transfer> Links<T> {
    /// The selected `outputs` of one type: those at `coupled` (local indices, any order,
    /// repeats allowed) first, then the other written ones; an output that is neither coupled
    /// nor written (`outputOnly`) is never read. Returns the links and the cache slot of every
    /// local index ([`NOT_READ`] for outputs that are not read).
    pub(super) fn outputs(
        outputs: &[OutputVariable],
        coupled: &[LocalIndex],
    ) -> (Self, Vec<usize>) {
        let is_coupled = |l: usize| coupled.iter().any(|c| c.0 == l);
        let order: Vec<usize> = (0..outputs.len())
            .filter(|&l| is_coupled(l))
            .chain((0..outputs.len()).filter(|&l| !is_coupled(l) && outputs[l].written))
            .collect();
        let mut slot_of = vec![NOT_READ; outputs.len()];
        for (slot, &l) in order.iter().enumerate() {
            slot_of[l] = slot;
        }
        let links = Links {
            output_vrs: order.iter().map(|&l| outputs[l].vr).collect(),
            cache: vec![T::default(); order.len()],
            coupled: order.iter().filter(|&&l| is_coupled(l)).count(),
            ..Links::default()
        };
        (links, slot_of)
    }

    /// Adds connection `global` of this type, whose output is in cache slot `slot`.
    pub(super) fn add_output(&mut self, global: GlobalIndex, slot: usize) {
        self.sync.push((global, slot));
    }

    /// Adds connection `global` of this type feeding the input `vr`.
    pub(super) fn add_input(&mut self, global: GlobalIndex, vr: ValueRef) {
        self.input_vrs.push(vr);
        self.sources.push(global);
        self.buffer.push(T::default());
    }

    /// Nothing to move at a step: no coupled outputs and no inputs (outputs that feed no
    /// connection are read only for result rows).
    pub(super) fn idle_per_step(&self) -> bool {
        self.coupled == 0 && self.input_vrs.is_empty()
    }

    /// The value in cache slot `slot`.
    pub(crate) fn cached(&self, slot: usize) -> &T {
        &self.cache[slot]
    }

    /// Reads the coupled outputs (one batched call, none without coupled outputs).
    pub(super) fn read_coupled(&mut self, slave: &mut AnySlave) -> Result<()> {
        let k = self.coupled;
        if k == 0 {
            return Ok(());
        }
        T::get(slave, &self.output_vrs[..k], &mut self.cache[..k])
    }

    /// Reads the outputs that feed no connection (one batched call, none without such outputs).
    pub(super) fn read_uncoupled(&mut self, slave: &mut AnySlave) -> Result<()> {
        let k = self.coupled;
        if k == self.output_vrs.len() {
            return Ok(());
        }
        T::get(slave, &self.output_vrs[k..], &mut self.cache[k..])
    }

    /// Copies the cached coupled outputs into the coupling vector `target` (one entry per
    /// connection).
    pub(super) fn sync_into(&self, target: &mut [T]) {
        for &(g, slot) in &self.sync {
            target[g.0].clone_from(&self.cache[slot]);
        }
    }

    /// Sets the inputs from the coupling vector `source` (one batched call, none without
    /// inputs).
    pub(super) fn update_from(&mut self, slave: &mut AnySlave, source: &[T]) -> Result<()> {
        if self.input_vrs.is_empty() {
            return Ok(());
        }
        for (b, &g) in self.buffer.iter_mut().zip(&self.sources) {
            b.clone_from(&source[g.0]);
        }
        for (i, map) in &self.maps {
            self.buffer[*i].map(map);
        }
        T::set(slave, &self.input_vrs, &self.buffer)
    }
}

/// One connected Real input: the connection feeding it and the connection's transform.
#[derive(Debug, Clone, Copy)]
struct RealInput {
    /// The connection feeding the input.
    source: GlobalIndex,
    /// The input is `offset + scale · value` of the connection.
    offset: f64,
    /// See `offset`.
    scale: f64,
}

/// A slave's Real transfers, which nearly every step makes, packed: the [`Links`] of `f64` in
/// four exact-size blocks, allocated one after the other when the system is built (so that
/// the blocks of consecutive slaves are adjacent too), with an 80-byte header at the start of
/// the slave's node. A step of a slave with one Real input and output reads about two cache
/// lines of these blocks, where the 200-byte header and the seven blocks of [`Links`] took
/// about eight (`docs/performance.md`, "A slave's data together").
#[derive(Debug, Default)]
pub(crate) struct RealLinks {
    /// Value references: the selected outputs in cache order (the coupled ones first), then the
    /// connected inputs.
    vrs: Box<[ValueRef]>,
    /// Values: the outputs as read last (the cache, in cache order), then the input values of
    /// the next set call.
    values: Box<[f64]>,
    /// `(global, slot)`: copy the cached output `slot` into the coupling vector at `global`.
    sync: Box<[(GlobalIndex, usize)]>,
    /// Where each input comes from, in input order.
    inputs: Box<[RealInput]>,
    /// Number of selected outputs (the first entries of `vrs` and `values`).
    outputs: usize,
    /// Number of coupled outputs (the first entries of the cache).
    coupled: usize,
}

impl RealLinks {
    /// Packs the Real links built by [`super::System::new`].
    pub(super) fn pack(links: &Links<f64>) -> Self {
        debug_assert_eq!(links.transforms.len(), links.input_vrs.len());
        let inputs =
            links
                .sources
                .iter()
                .zip(&links.transforms)
                .map(|(&source, &(offset, scale))| RealInput {
                    source,
                    offset,
                    scale,
                });
        RealLinks {
            vrs: links
                .output_vrs
                .iter()
                .chain(&links.input_vrs)
                .copied()
                .collect(),
            values: links.cache.iter().chain(&links.buffer).copied().collect(),
            sync: links.sync.as_slice().into(),
            inputs: inputs.collect(),
            outputs: links.output_vrs.len(),
            coupled: links.coupled,
        }
    }

    /// The value in cache slot `slot` (`slot` < the number of selected outputs).
    pub(crate) fn cached(&self, slot: usize) -> &f64 {
        &self.values[..self.outputs][slot]
    }

    /// The cached coupled outputs.
    pub(super) fn coupled_cache(&self) -> &[f64] {
        &self.values[..self.coupled]
    }

    /// Reads the coupled outputs (one batched call, none without coupled outputs).
    #[inline]
    pub(super) fn read_coupled(&mut self, slave: &mut AnySlave) -> Result<()> {
        let k = self.coupled;
        if k == 0 {
            return Ok(());
        }
        slave.get_real(&self.vrs[..k], &mut self.values[..k])
    }

    /// Reads the outputs that feed no connection (one batched call, none without such outputs).
    pub(super) fn read_uncoupled(&mut self, slave: &mut AnySlave) -> Result<()> {
        let (k, n) = (self.coupled, self.outputs);
        if k == n {
            return Ok(());
        }
        slave.get_real(&self.vrs[k..n], &mut self.values[k..n])
    }

    /// Copies the cached coupled outputs into the coupling vector `target` (one entry per
    /// connection).
    #[inline]
    pub(super) fn sync_into(&self, target: &mut [f64]) {
        for &(g, slot) in &*self.sync {
            target[g.0] = self.values[slot];
        }
    }

    /// Sets the inputs to `offset + scale · value` of their connections in the coupling vector
    /// `source` (one batched call, none without inputs).
    #[inline]
    pub(super) fn update_from(&mut self, slave: &mut AnySlave, source: &[f64]) -> Result<()> {
        if self.inputs.is_empty() {
            return Ok(());
        }
        let n = self.outputs;
        let buffer = &mut self.values[n..];
        for (b, input) in buffer.iter_mut().zip(&*self.inputs) {
            *b = input.offset + input.scale * source[input.source.0];
        }
        slave.set_real(&self.vrs[n..], buffer)
    }
}

/// The Integer, Boolean, String and Binary transfers of a slave: off the node's hot lines,
/// since most slaves step with Real connections only.
#[derive(Debug, Default)]
pub(crate) struct DiscreteLinks {
    /// Integer outputs and inputs.
    pub integer: Links<i128>,
    /// Boolean outputs and inputs.
    pub boolean: Links<bool>,
    /// String outputs and inputs.
    pub string: Links<String>,
    /// Binary outputs and inputs (FMI 3.0).
    pub binary: Links<Vec<u8>>,
}
