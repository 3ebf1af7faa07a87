//! [`Fmi3Slave`]: a [`Slave`] backed by an FMI 3.0 co-simulation instance.
//!
//! The master addresses every scalar by its handle ([`fmi::ScalarVariable::handle`]): the
//! position in the FMU's scalar list, in which an array variable takes one position per
//! element. This module maps handles onto the FMU's value references and array offsets, and
//! the master's coupling classes onto the FMU's data types:
//!
//! - a batch of handles becomes one typed call per data type present, with every variable's
//!   value reference passed once and its whole array (`nValues` is the total element count);
//! - Float32 values widen exactly to `f64`; an `f64` set into a Float32 is rounded to the
//!   nearest `f32`;
//! - integers of every width are carried as `i128`; a value set into a narrower type must fit
//!   (the plan checks connections and start values, so a misfit is an error, never a
//!   truncation);
//! - setting some elements of an array sets the whole array: the other elements keep the values
//!   set last (their start values at first), which this slave remembers.
//!
//! Nothing is allocated per call once the buffers have grown to the largest batch.
//!
//! `doStep` follows FMI 3.0 §4.2 (the statuses and flags it returns):
//! - `noSetFMUStatePriorToCurrentPoint` is false while the slave holds a saved FMU state (the
//!   master may roll back to it), true otherwise;
//! - with Event Mode (`hasEventMode`), a step that reports `eventHandlingNeeded` is followed by
//!   Event Mode: `fmi3EnterEventMode`, `fmi3UpdateDiscreteStates` until no further update is
//!   needed, `fmi3EnterStepMode`. The same loop follows `fmi3ExitInitializationMode`, after
//!   which an FMU that uses Event Mode is in Event Mode;
//! - an early return continues the step from `lastSuccessfulTime` to the end of the
//!   communication step (after the event handling, if any), so that every master algorithm
//!   sees a completed step with inputs held over it, as for any other slave;
//! - `terminateSimulation` (from `doStep` or from the discrete-state update) ends the run
//!   cleanly, like FMI 2.0's terminate request: after a completed step the run ends at the
//!   step's end (the step is accepted and the next one reports the request); when the FMU
//!   stops short of the step's end, at the step's start.
//!
//! Spec: FMI 3.0 §2.2.6 (getting and setting values, arrays), §4.2 (co-simulation API),
//! §4.2.3–§4.2.4 (early return, Event Mode); `docs/fmi3.md`.

use fmi::{DataType, FailureStatus, Instance3, ModelDescription, Status, ValueRef};

use crate::fmu_states::{self, StateSlots};
use crate::slave::{RejectReason, Slave, SlaveCapabilities, StateId, StepOutcome};
use crate::time::Readable;
use crate::{Error, Result};

/// How many event iterations or early returns one step may take before the slave gives up.
const MAX_ITERATIONS: usize = 10_000;

/// One FMU variable (a scalar, or a whole array).
#[derive(Debug)]
struct Variable {
    vr: ValueRef,
    data_type: DataType,
    /// Number of elements (1 for a scalar).
    len: usize,
    /// For arrays: where its remembered values start in the shadow of its type.
    shadow: Option<usize>,
}

/// Where a handle points: a variable and the element in it.
#[derive(Debug, Clone, Copy)]
struct Scalar {
    variable: usize,
    offset: usize,
}

/// Buffers of one native type: the values of one call, and the remembered array values.
#[derive(Debug, Default)]
struct Typed<T> {
    buffer: Vec<T>,
    shadow: Vec<T>,
}

/// One [`Typed`] per native type.
#[derive(Debug, Default)]
struct Store {
    float32: Typed<f32>,
    float64: Typed<f64>,
    int8: Typed<i8>,
    uint8: Typed<u8>,
    int16: Typed<i16>,
    uint16: Typed<u16>,
    int32: Typed<i32>,
    uint32: Typed<u32>,
    int64: Typed<i64>,
    uint64: Typed<u64>,
    boolean: Typed<bool>,
    string: Typed<String>,
    binary: Typed<Vec<u8>>,
}

/// A native FMI 3.0 value type and its typed calls.
trait Native: Clone + Default {
    /// The data type whose values are this Rust type.
    const DATA_TYPE: DataType;
    fn get(instance: &mut Instance3, vrs: &[ValueRef], values: &mut [Self]) -> fmi::Result<Status>;
    fn set(instance: &mut Instance3, vrs: &[ValueRef], values: &[Self]) -> fmi::Result<Status>;
    fn typed(store: &mut Store) -> &mut Typed<Self>;
}

/// A native type carried by the master as `C`.
trait Carried<C>: Native {
    fn carry(&self) -> C;
    /// `None` when the value does not fit this type.
    fn from_carrier(value: &C) -> Option<Self>;
}

macro_rules! native {
    ($t:ty, $data_type:ident, $field:ident, $get:ident, $set:ident) => {
        impl Native for $t {
            const DATA_TYPE: DataType = DataType::$data_type;
            fn get(
                i: &mut Instance3,
                vrs: &[ValueRef],
                values: &mut [Self],
            ) -> fmi::Result<Status> {
                i.$get(vrs, values)
            }
            fn set(i: &mut Instance3, vrs: &[ValueRef], values: &[Self]) -> fmi::Result<Status> {
                i.$set(vrs, values)
            }
            fn typed(store: &mut Store) -> &mut Typed<Self> {
                &mut store.$field
            }
        }
    };
}

native!(f32, Float32, float32, get_float32, set_float32);
native!(f64, Float64, float64, get_float64, set_float64);
native!(i8, Int8, int8, get_int8, set_int8);
native!(u8, UInt8, uint8, get_uint8, set_uint8);
native!(i16, Int16, int16, get_int16, set_int16);
native!(u16, UInt16, uint16, get_uint16, set_uint16);
native!(i32, Int32, int32, get_int32, set_int32);
native!(u32, UInt32, uint32, get_uint32, set_uint32);
native!(i64, Int64, int64, get_int64, set_int64);
native!(u64, UInt64, uint64, get_uint64, set_uint64);
native!(bool, Boolean, boolean, get_boolean, set_boolean);
native!(String, String, string, get_string, set_string);
native!(Vec<u8>, Binary, binary, get_binary, set_binary);

impl Carried<f64> for f64 {
    fn carry(&self) -> f64 {
        *self
    }
    fn from_carrier(value: &f64) -> Option<Self> {
        Some(*value)
    }
}

impl Carried<f64> for f32 {
    fn carry(&self) -> f64 {
        f64::from(*self)
    }
    /// Rounds to the nearest `f32` (out-of-range magnitudes become infinite).
    fn from_carrier(value: &f64) -> Option<Self> {
        Some(*value as f32)
    }
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Carried<i128> for $t {
            fn carry(&self) -> i128 {
                i128::from(*self)
            }
            fn from_carrier(value: &i128) -> Option<Self> {
                <$t>::try_from(*value).ok()
            }
        }
    )*};
}

integer!(i8, u8, i16, u16, i32, u32, i64, u64);

macro_rules! identity {
    ($($t:ty),*) => {$(
        impl Carried<$t> for $t {
            fn carry(&self) -> $t {
                self.clone()
            }
            fn from_carrier(value: &$t) -> Option<Self> {
                Some(value.clone())
            }
        }
    )*};
}

identity!(bool, String, Vec<u8>);

/// The handle table and per-call bookkeeping.
#[derive(Debug, Default)]
struct Layout {
    variables: Vec<Variable>,
    /// By handle.
    scalars: Vec<Scalar>,
    /// Value references of the call being prepared (each variable once).
    vrs: Vec<ValueRef>,
    /// The variables of `vrs`, in the same order.
    gathered: Vec<usize>,
    /// Per variable: the call in which it was last added, and where its values start.
    seen: Vec<(u64, usize)>,
    call: u64,
}

impl Layout {
    /// The handle table of `description` (FMI 3.0: handles are scalar positions).
    fn new(description: &ModelDescription) -> (Layout, Store) {
        let mut layout = Layout::default();
        let mut store = Store::default();
        for v in &description.variables {
            let new_variable = match (&v.array, layout.variables.last()) {
                (Some(a), Some(last)) => !(a.offset > 0 && last.vr == v.value_reference),
                _ => true,
            };
            if new_variable {
                let len = v.array.as_ref().map_or(1, fmi::ArrayElement::len);
                let shadow = v
                    .array
                    .as_ref()
                    .map(|_| shadow_start(&mut store, v.data_type, len));
                layout.variables.push(Variable {
                    vr: v.value_reference,
                    data_type: v.data_type,
                    len,
                    shadow,
                });
            }
            let variable = layout.variables.len() - 1;
            let offset = v.array.as_ref().map_or(0, |a| a.offset);
            if let (Some(start), Some(shadow)) = (&v.start, layout.variables[variable].shadow) {
                set_shadow_start(&mut store, v.data_type, shadow + offset, start);
            }
            layout.scalars.push(Scalar { variable, offset });
        }
        layout.seen = vec![(0, 0); layout.variables.len()];
        (layout, store)
    }

    /// Collects the variables of `handles` whose type is `data_type` into `vrs` (each once)
    /// and returns the total number of values of the call (0 when there are none).
    fn gather(&mut self, handles: &[ValueRef], data_type: DataType) -> usize {
        self.call += 1;
        self.vrs.clear();
        self.gathered.clear();
        let mut total = 0;
        for h in handles {
            let Some(scalar) = self.scalars.get(h.0 as usize) else {
                continue;
            };
            let v = &self.variables[scalar.variable];
            if v.data_type != data_type || self.seen[scalar.variable].0 == self.call {
                continue;
            }
            self.seen[scalar.variable] = (self.call, total);
            self.vrs.push(v.vr);
            self.gathered.push(scalar.variable);
            total += v.len;
        }
        total
    }

    /// Position of `handle`'s value in the call's buffer (after [`Layout::gather`]), when it
    /// has the data type gathered.
    fn position(&self, handle: ValueRef, data_type: DataType) -> Option<usize> {
        let scalar = self.scalars.get(handle.0 as usize)?;
        let (call, start) = self.seen[scalar.variable];
        (call == self.call && self.variables[scalar.variable].data_type == data_type)
            .then_some(start + scalar.offset)
    }
}

/// Reserves `len` remembered values of `data_type` and returns where they start.
fn shadow_start(store: &mut Store, data_type: DataType, len: usize) -> usize {
    fn grow<T: Native>(store: &mut Store, len: usize) -> usize {
        let shadow = &mut T::typed(store).shadow;
        let start = shadow.len();
        shadow.resize(start + len, T::default());
        start
    }
    match data_type {
        DataType::Float32 => grow::<f32>(store, len),
        DataType::Float64 => grow::<f64>(store, len),
        DataType::Int8 => grow::<i8>(store, len),
        DataType::UInt8 => grow::<u8>(store, len),
        DataType::Int16 => grow::<i16>(store, len),
        DataType::UInt16 => grow::<u16>(store, len),
        DataType::Int32 => grow::<i32>(store, len),
        DataType::UInt32 => grow::<u32>(store, len),
        DataType::Int64 => grow::<i64>(store, len),
        DataType::UInt64 => grow::<u64>(store, len),
        DataType::Boolean => grow::<bool>(store, len),
        DataType::String => grow::<String>(store, len),
        DataType::Binary => grow::<Vec<u8>>(store, len),
    }
}

/// Stores the start value `text` of one array element as its remembered value (left at the
/// default when it cannot be read: the FMU checks its own start values).
fn set_shadow_start(store: &mut Store, data_type: DataType, at: usize, text: &str) {
    fn put<T: Native>(store: &mut Store, at: usize, value: Option<T>) {
        if let (Some(slot), Some(value)) = (T::typed(store).shadow.get_mut(at), value) {
            *slot = value;
        }
    }
    let t = text.trim();
    let real = t.parse::<f64>().ok();
    let integer = t.parse::<i128>().ok();
    match data_type {
        DataType::Float32 => put(store, at, real.map(|v| v as f32)),
        DataType::Float64 => put(store, at, real),
        DataType::Int8 => put(store, at, integer.and_then(|v| i8::try_from(v).ok())),
        DataType::UInt8 => put(store, at, integer.and_then(|v| u8::try_from(v).ok())),
        DataType::Int16 => put(store, at, integer.and_then(|v| i16::try_from(v).ok())),
        DataType::UInt16 => put(store, at, integer.and_then(|v| u16::try_from(v).ok())),
        DataType::Int32 => put(store, at, integer.and_then(|v| i32::try_from(v).ok())),
        DataType::UInt32 => put(store, at, integer.and_then(|v| u32::try_from(v).ok())),
        DataType::Int64 => put(store, at, integer.and_then(|v| i64::try_from(v).ok())),
        DataType::UInt64 => put(store, at, integer.and_then(|v| u64::try_from(v).ok())),
        DataType::Boolean => put(store, at, matches!(t, "true" | "1").then_some(true)),
        DataType::String => put(store, at, Some(text.to_string())),
        DataType::Binary => put(store, at, output::hex::parse_hex(t)),
    }
}

/// A slave that is an instance of an imported FMI 3.0 FMU.
#[derive(Debug)]
pub struct Fmi3Slave {
    name: String,
    instance: Instance3,
    capabilities: SlaveCapabilities,
    states: StateSlots,
    layout: Layout,
    store: Store,
    /// The FMU was instantiated with Event Mode.
    event_mode: bool,
    /// The FMU asked to terminate (during initialization, or at the end of a completed step):
    /// the next step ends the run at its start.
    terminate_requested: bool,
    /// `(relative tolerance, start, stop)` from `setup_experiment`, for
    /// `fmi3EnterInitializationMode`.
    experiment: Option<(f64, f64, f64)>,
    /// Initialization mode was left: `fmi3Terminate` is allowed (not before).
    initialized: bool,
}

impl Fmi3Slave {
    /// Wraps an instance created with `event_mode_used = event_mode`; `name` is the slave
    /// name of the project.
    pub fn new(name: String, instance: Instance3, event_mode: bool) -> Self {
        let description = instance.fmu().description();
        let c = description.capabilities;
        let capabilities = SlaveCapabilities {
            can_get_and_set_state: instance.can_get_and_set_fmu_state(),
            can_handle_variable_step_size: c.can_handle_variable_communication_step_size,
            provides_directional_derivative: instance.provides_directional_derivative(),
            instantiated_only_once_per_process: c.can_be_instantiated_only_once_per_process,
        };
        let (layout, store) = Layout::new(description);
        Fmi3Slave {
            name,
            instance,
            capabilities,
            states: StateSlots::default(),
            layout,
            store,
            event_mode,
            terminate_requested: false,
            experiment: None,
            initialized: false,
        }
    }

    /// The FMU of the instance.
    pub(crate) fn fmu(&self) -> &std::sync::Arc<fmi::Fmu> {
        self.instance.fmu()
    }

    /// The instance, for the Model Exchange calls ([`crate::model_exchange`]).
    pub(crate) fn instance_mut(&mut self) -> &mut Instance3 {
        &mut self.instance
    }

    /// True while no FMU state is held (`noSetFMUStatePriorToCurrentPoint` may be true).
    pub(crate) fn no_state_held(&self) -> bool {
        self.states.none_held()
    }

    #[inline]
    fn fmi<T>(&self, result: fmi::Result<T>) -> Result<T> {
        result.map_err(|source| self.error(source))
    }

    #[cold]
    #[inline(never)]
    fn error(&self, source: fmi::Error) -> Error {
        Error::Fmi {
            slave: self.name.clone(),
            source: Box::new(source),
        }
    }

    /// Checks the batch shape and every handle.
    fn check(&self, function: &'static str, handles: &[ValueRef], values: usize) -> Result<()> {
        if handles.len() != values {
            return Err(Error::LengthMismatch {
                slave: self.name.clone(),
                function,
                vrs: handles.len(),
                values,
            });
        }
        match handles
            .iter()
            .find(|h| h.0 as usize >= self.layout.scalars.len())
        {
            Some(h) => Err(Error::UnknownHandle {
                slave: self.name.clone(),
                handle: h.0,
            }),
            None => Ok(()),
        }
    }

    /// Reads the handles of native type `T` into `out` (converted to the carrier `C`).
    fn get_typed<T: Carried<C>, C>(&mut self, handles: &[ValueRef], out: &mut [C]) -> Result<()> {
        let total = self.layout.gather(handles, T::DATA_TYPE);
        if total == 0 {
            return Ok(());
        }
        let typed = T::typed(&mut self.store);
        typed.buffer.resize(total, T::default());
        let r = T::get(&mut self.instance, &self.layout.vrs, &mut typed.buffer);
        self.fmi(r)?;
        let typed = T::typed(&mut self.store);
        for (h, value) in handles.iter().zip(out.iter_mut()) {
            if let Some(p) = self.layout.position(*h, T::DATA_TYPE) {
                *value = typed.buffer[p].carry();
            }
        }
        Ok(())
    }

    /// Writes the handles of native type `T` from `values` (converted from the carrier `C`).
    fn set_typed<T: Carried<C>, C>(&mut self, handles: &[ValueRef], values: &[C]) -> Result<()>
    where
        C: std::fmt::Debug,
    {
        let total = self.layout.gather(handles, T::DATA_TYPE);
        if total == 0 {
            return Ok(());
        }
        let layout = &self.layout;
        let typed = T::typed(&mut self.store);
        typed.buffer.resize(total, T::default());
        // Arrays start from their remembered values.
        for &variable in &layout.gathered {
            let v = &layout.variables[variable];
            if let Some(shadow) = v.shadow {
                let start = layout.seen[variable].1;
                typed.buffer[start..start + v.len]
                    .clone_from_slice(&typed.shadow[shadow..shadow + v.len]);
            }
        }
        for (h, value) in handles.iter().zip(values) {
            let Some(p) = layout.position(*h, T::DATA_TYPE) else {
                continue;
            };
            let native = T::from_carrier(value).ok_or_else(|| Error::ValueRange {
                slave: self.name.clone(),
                handle: h.0,
                value: format!("{value:?}"),
                data_type: T::DATA_TYPE,
            })?;
            let scalar = layout.scalars[h.0 as usize];
            if let Some(shadow) = layout.variables[scalar.variable].shadow {
                typed.shadow[shadow + scalar.offset] = native.clone();
            }
            typed.buffer[p] = native;
        }
        let r = T::set(&mut self.instance, &self.layout.vrs, &typed.buffer);
        self.fmi(r).map(drop)
    }

    /// Event Mode after a step (or after initialization, `enter = false`): updates the
    /// discrete states until no further update is needed, then enters Step Mode. Returns true
    /// when the FMU asks to terminate.
    fn handle_events(&mut self, enter: bool) -> Result<bool> {
        if enter {
            let r = self.instance.enter_event_mode();
            self.fmi(r)?;
        }
        for _ in 0..MAX_ITERATIONS {
            let r = self.instance.update_discrete_states();
            let update = self.fmi(r)?;
            if update.terminate_simulation {
                return Ok(true);
            }
            if !update.discrete_states_need_update {
                let r = self.instance.enter_step_mode();
                return self.fmi(r).map(|_| false);
            }
        }
        Err(Error::StepFailed {
            slave: self.name.clone(),
            function: "fmi3UpdateDiscreteStates",
            t: f64::NAN,
            h: f64::NAN,
            reason: format!(
                "discrete states still need an update after {MAX_ITERATIONS} iterations"
            ),
        })
    }

    /// The outcome of a `doStep` that did not succeed at `t` with `h` (s): Discard and Error
    /// reject the step, anything else fails it.
    #[cold]
    #[inline(never)]
    fn step_failure(&self, e: fmi::Error, t: f64, h: f64) -> Result<StepOutcome> {
        match e {
            fmi::Error::Discard { .. } => Ok(StepOutcome::Rejected(RejectReason::Discard)),
            fmi::Error::CallFailed {
                status: FailureStatus::Error,
                ..
            } => Ok(StepOutcome::Rejected(RejectReason::Error)),
            e @ fmi::Error::Isolated { .. } => Err(Error::HelperFailed {
                slave: self.name.clone(),
                function: "fmi3DoStep",
                t,
                h,
                source: Box::new(e),
            }),
            e => Err(Error::StepFailed {
                slave: self.name.clone(),
                function: "fmi3DoStep",
                t,
                h,
                reason: e.to_string(),
            }),
        }
    }
}

impl Slave for Fmi3Slave {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> SlaveCapabilities {
        self.capabilities
    }

    /// FMI 3.0 has no separate experiment set-up: the times go to
    /// `fmi3EnterInitializationMode`, which [`Fmi3Slave::enter_initialization_mode`] calls.
    fn setup_experiment(&mut self, rel_tol: f64, t_start: f64, t_end: f64) -> Result<()> {
        self.experiment = Some((rel_tol, t_start, t_end));
        Ok(())
    }

    fn enter_initialization_mode(&mut self) -> Result<()> {
        let (tolerance, start, stop) = match self.experiment {
            Some((tol, start, stop)) => (Some(tol), start, Some(stop)),
            None => (None, 0.0, None),
        };
        let r = self
            .instance
            .enter_initialization_mode(tolerance, start, stop);
        self.fmi(r).map(drop)
    }

    fn exit_initialization_mode(&mut self) -> Result<()> {
        let r = self.instance.exit_initialization_mode();
        self.fmi(r)?;
        self.initialized = true;
        if self.event_mode && self.handle_events(false)? {
            log::info!(
                "slave '{}' asks to terminate during initialization",
                self.name
            );
            self.terminate_requested = true;
        }
        Ok(())
    }

    fn get_real(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<()> {
        self.check("getFloat64", vrs, values.len())?;
        self.get_typed::<f64, f64>(vrs, values)?;
        self.get_typed::<f32, f64>(vrs, values)
    }

    fn get_integer(&mut self, vrs: &[ValueRef], values: &mut [i128]) -> Result<()> {
        self.check("getInt64", vrs, values.len())?;
        self.get_typed::<i8, i128>(vrs, values)?;
        self.get_typed::<u8, i128>(vrs, values)?;
        self.get_typed::<i16, i128>(vrs, values)?;
        self.get_typed::<u16, i128>(vrs, values)?;
        self.get_typed::<i32, i128>(vrs, values)?;
        self.get_typed::<u32, i128>(vrs, values)?;
        self.get_typed::<i64, i128>(vrs, values)?;
        self.get_typed::<u64, i128>(vrs, values)
    }

    fn get_boolean(&mut self, vrs: &[ValueRef], values: &mut [bool]) -> Result<()> {
        self.check("getBoolean", vrs, values.len())?;
        self.get_typed::<bool, bool>(vrs, values)
    }

    fn get_string(&mut self, vrs: &[ValueRef], values: &mut [String]) -> Result<()> {
        self.check("getString", vrs, values.len())?;
        self.get_typed::<String, String>(vrs, values)
    }

    fn get_binary(&mut self, vrs: &[ValueRef], values: &mut [Vec<u8>]) -> Result<()> {
        self.check("getBinary", vrs, values.len())?;
        self.get_typed::<Vec<u8>, Vec<u8>>(vrs, values)
    }

    fn set_real(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<()> {
        self.check("setFloat64", vrs, values.len())?;
        self.set_typed::<f64, f64>(vrs, values)?;
        self.set_typed::<f32, f64>(vrs, values)
    }

    fn set_integer(&mut self, vrs: &[ValueRef], values: &[i128]) -> Result<()> {
        self.check("setInt64", vrs, values.len())?;
        self.set_typed::<i8, i128>(vrs, values)?;
        self.set_typed::<u8, i128>(vrs, values)?;
        self.set_typed::<i16, i128>(vrs, values)?;
        self.set_typed::<u16, i128>(vrs, values)?;
        self.set_typed::<i32, i128>(vrs, values)?;
        self.set_typed::<u32, i128>(vrs, values)?;
        self.set_typed::<i64, i128>(vrs, values)?;
        self.set_typed::<u64, i128>(vrs, values)
    }

    fn set_boolean(&mut self, vrs: &[ValueRef], values: &[bool]) -> Result<()> {
        self.check("setBoolean", vrs, values.len())?;
        self.set_typed::<bool, bool>(vrs, values)
    }

    fn set_string(&mut self, vrs: &[ValueRef], values: &[String]) -> Result<()> {
        self.check("setString", vrs, values.len())?;
        self.set_typed::<String, String>(vrs, values)
    }

    fn set_binary(&mut self, vrs: &[ValueRef], values: &[Vec<u8>]) -> Result<()> {
        self.check("setBinary", vrs, values.len())?;
        self.set_typed::<Vec<u8>, Vec<u8>>(vrs, values)
    }

    fn do_step(&mut self, t: f64, h: f64) -> Result<StepOutcome> {
        if self.terminate_requested {
            return Ok(StepOutcome::Terminated);
        }
        let no_set_prior = self.states.none_held();
        let end = t + h;
        let mut now = t;
        for _ in 0..MAX_ITERATIONS {
            // The first call gets `h` itself: `(t + h) − t` may differ from it in the last bit.
            let size = if now == t { h } else { end - now };
            let step = match self.instance.do_step(now, size, no_set_prior) {
                Ok(step) => step,
                Err(e) => return self.step_failure(e, t, h),
            };
            let reached = !step.early_return || step.last_successful_time >= end;
            if step.terminate_simulation && !reached {
                log::info!(
                    "slave '{}' asks to terminate at t={} s, before the end of its step",
                    self.name,
                    Readable(step.last_successful_time)
                );
                return Ok(StepOutcome::Terminated);
            }
            let terminate = step.terminate_simulation
                || (step.event_handling_needed && self.event_mode && self.handle_events(true)?);
            if terminate {
                // The step is complete: the run ends at its end, before the next step.
                log::info!(
                    "slave '{}' asks to terminate at t={} s",
                    self.name,
                    Readable(end)
                );
                self.terminate_requested = true;
                return Ok(StepOutcome::Completed);
            }
            if reached {
                return Ok(StepOutcome::Completed);
            }
            if step.last_successful_time < now {
                return Err(Error::StepFailed {
                    slave: self.name.clone(),
                    function: "fmi3DoStep",
                    t,
                    h,
                    reason: format!(
                        "returned early at lastSuccessfulTime={} s, before the step's start {} s",
                        Readable(step.last_successful_time),
                        Readable(now)
                    ),
                });
            }
            log::debug!(
                "slave '{}' returned early at t={} s; continuing to {} s",
                self.name,
                Readable(step.last_successful_time),
                Readable(end)
            );
            now = step.last_successful_time;
        }
        Err(Error::StepFailed {
            slave: self.name.clone(),
            function: "fmi3DoStep",
            t,
            h,
            reason: format!("still short of the step's end after {MAX_ITERATIONS} early returns"),
        })
    }

    fn get_state(&mut self, into: Option<StateId>) -> Result<StateId> {
        self.states.save(&self.name, &mut self.instance, into)
    }

    /// Restores a saved state; a termination requested after the state was saved is
    /// forgotten (the FMU asks again if the repeated step leads there again).
    fn set_state(&mut self, state: StateId) -> Result<()> {
        self.states.restore(&self.name, &mut self.instance, state)?;
        self.terminate_requested = false;
        Ok(())
    }

    fn free_state(&mut self, state: StateId) -> Result<()> {
        self.states.free(&self.name, &mut self.instance, state)
    }

    /// `fmi3GetFMUState` into a new state, `fmi3SerializeFMUState`, `fmi3FreeFMUState`;
    /// `None` unless the FMU declares `canSerializeFMUState`.
    fn serialize_state(&mut self) -> Result<Option<Vec<u8>>> {
        fmu_states::serialize(&self.name, &mut self.instance)
    }

    /// `fmi3DeserializeFMUState` into a new state, `fmi3SetFMUState`, `fmi3FreeFMUState`.
    fn deserialize_state(&mut self, bytes: &[u8]) -> Result<()> {
        fmu_states::deserialize(&self.name, &mut self.instance, bytes)
    }

    /// `fmi3GetDirectionalDerivative` for scalar Float64 unknowns and knowns (the Newton
    /// algorithm's use); other variables are [`Error::Unsupported`].
    fn get_directional_derivative(
        &mut self,
        unknowns: &[ValueRef],
        knowns: &[ValueRef],
        dv_known: &[f64],
        dv_unknown: &mut [f64],
    ) -> Result<()> {
        let to_vrs = |handles: &[ValueRef]| -> Option<Vec<ValueRef>> {
            handles
                .iter()
                .map(|h| {
                    let scalar = self.layout.scalars.get(h.0 as usize)?;
                    let v = &self.layout.variables[scalar.variable];
                    (v.data_type == DataType::Float64 && v.len == 1).then_some(v.vr)
                })
                .collect()
        };
        let (Some(unknowns), Some(knowns)) = (to_vrs(unknowns), to_vrs(knowns)) else {
            return Err(Error::Unsupported {
                slave: self.name.clone(),
                function: "getDirectionalDerivative (of Float64 scalars only)",
            });
        };
        let r = self
            .instance
            .get_directional_derivative(&unknowns, &knowns, dv_known, dv_unknown);
        self.fmi(r).map(drop)
    }

    /// `fmi3Terminate`, unless the instance failed or never left initialization (FMI 3.0
    /// allows terminating only from Step or Event Mode); freeing follows either way.
    fn terminate(&mut self) -> Result<()> {
        if self.instance.is_failed() || !self.initialized {
            log::debug!(
                "not terminating '{}': it failed or was not initialized",
                self.instance.name()
            );
            return Ok(());
        }
        let r = self.instance.terminate();
        self.fmi(r).map(drop)
    }
}
