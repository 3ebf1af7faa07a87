#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

use std::cell::Cell;
use std::ffi::OsStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use fmu_support::{Causality, Model, ModelError, StepOutcome, VarType, Variable, fmi2};

/// GUID of the Faulty FMU.
pub const GUID: &str = "{ce8d09ab-e224-4762-a43e-12a821ef96d3}";

/// Real input `u` (-), start 0.
pub const VR_U: u32 = 1;
/// Real output `y = u + t` (-), `t` the FMU time (s): the start time, then the end of the last
/// completed step. NaN (or +inf) after a completed step that reached `nanTime` (`infTime`),
/// else `u + t + j` after one that reached `jitterTime` ([`Faulty::jitter`]). Direct feedthrough
/// from `u`.
pub const VR_Y: u32 = 2;
/// Integer output `count` (-): the number of completed steps since initialization.
pub const VR_COUNT: u32 = 3;
/// Real parameter `errorTime` (s): the first step that reaches it returns Error, once per
/// instance. Negative: off.
pub const VR_ERROR_TIME: u32 = 4;
/// Real parameter `fatalTime` (s): every step that reaches it returns Fatal. Negative: off.
pub const VR_FATAL_TIME: u32 = 5;
/// Real parameter `nanTime` (s): the step that reaches it completes, and `y` is NaN after it.
/// Negative: off.
pub const VR_NAN_TIME: u32 = 6;
/// Real parameter `hangTime` (s): the step that reaches it never returns. Negative: off.
pub const VR_HANG_TIME: u32 = 7;
/// Real parameter `segfaultTime` (s): the step that reaches it kills the process with SIGSEGV.
/// Negative: off.
pub const VR_SEGFAULT_TIME: u32 = 8;
/// Real parameter `abortTime` (s): the step that reaches it calls `abort()` (SIGABRT).
/// Negative: off.
pub const VR_ABORT_TIME: u32 = 9;
/// Real parameter `discardTime` (s): a step that starts before it and reaches it returns Discard,
/// once per communication point. Negative: off.
pub const VR_DISCARD_TIME: u32 = 10;
/// Real parameter `infTime` (s): the step that reaches it completes, and `y` is +inf after it.
/// Negative: off.
pub const VR_INF_TIME: u32 = 11;
/// Real parameter `exitTime` (s): the step that reaches it ends the process with
/// `std::process::exit(exitCode)`, through the C library's `exit`, so `atexit` handlers run.
/// Negative: off.
pub const VR_EXIT_TIME: u32 = 12;
/// Integer parameter `exitCode` (-): the process exit status of `exitTime`, 0 to 255, start
/// [`DEFAULT_EXIT_CODE`].
pub const VR_EXIT_CODE: u32 = 13;
/// Real parameter `jitterTime` (s): after a completed step that reached it, `y = u + t + j` with
/// an offset `j` that differs from process to process ([`Faulty::jitter`]). Negative: off.
pub const VR_JITTER_TIME: u32 = 14;
/// Real parameter `slowTime` (s): start of the slow window. Every completed step whose end lies
/// in `[slowTime, slowUntil)` first sleeps [`SLOW_STEP`] of wall time; its results are exactly
/// those of a normal step. Negative: off.
pub const VR_SLOW_TIME: u32 = 15;
/// Real parameter `slowUntil` (s): end of the slow window of `slowTime`, excluded. A window
/// with `slowUntil ≤ slowTime` (such as the start value −1) is empty.
pub const VR_SLOW_UNTIL: u32 = 16;

/// Integer parameter `stateFault` (-): how the instance fails to restore a serialized FMU
/// state, 0 to 3 ([`StateFault`]), start 0 (restores). A serialized state works in full
/// otherwise ([`Faulty::state_values`], [`Faulty::load_state_values`]), though the model description does not declare
/// `canSerializeFMUstate`; a test that wants serialization declares it in a copy.
pub const VR_STATE_FAULT: u32 = 17;

/// Start value of `exitCode`.
pub const DEFAULT_EXIT_CODE: i32 = 3;

/// Environment variable read when an instance is created (`fmi2Instantiate`, `fmi2Reset`): the
/// value `off` (exactly) makes the instance ignore every fault time, as if all were −1. Any
/// other value, or none, leaves the faults on.
pub const FAULTS_ENV: &str = "FAULTY_FAULTS";

/// Wall time that a step in the slow window (`slowTime`, `slowUntil`) sleeps before it
/// completes: 50 ms, with `std::thread::sleep`, so it uses no CPU. A master that paces the
/// simulation at real time overruns with every slow step shorter than 50 ms of simulated time
/// (or longer, if it runs faster than real time); a window of a few steps still costs little
/// test time. The sleep lasts at least this long, possibly longer on a loaded machine.
pub const SLOW_STEP: Duration = Duration::from_millis(50);

/// Scale of the jitter offset `j` (-): `j` lies in `[JITTER_SCALE, 2·JITTER_SCALE)`.
pub const JITTER_SCALE: f64 = 1e-6;

/// The variables of Faulty, as in `models/Faulty/modelDescription.xml`.
pub const FAULTY_VARIABLES: &[Variable] = &[
    Variable::new("u", VR_U, VarType::Real, Causality::Input),
    Variable::new("y", VR_Y, VarType::Real, Causality::Output),
    Variable::new("count", VR_COUNT, VarType::Integer, Causality::Output),
    Variable::new(
        "errorTime",
        VR_ERROR_TIME,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new(
        "fatalTime",
        VR_FATAL_TIME,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new("nanTime", VR_NAN_TIME, VarType::Real, Causality::Parameter),
    Variable::new(
        "hangTime",
        VR_HANG_TIME,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new(
        "segfaultTime",
        VR_SEGFAULT_TIME,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new(
        "abortTime",
        VR_ABORT_TIME,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new(
        "discardTime",
        VR_DISCARD_TIME,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new("infTime", VR_INF_TIME, VarType::Real, Causality::Parameter),
    Variable::new(
        "exitTime",
        VR_EXIT_TIME,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new(
        "exitCode",
        VR_EXIT_CODE,
        VarType::Integer,
        Causality::Parameter,
    ),
    Variable::new(
        "jitterTime",
        VR_JITTER_TIME,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new(
        "slowTime",
        VR_SLOW_TIME,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new(
        "slowUntil",
        VR_SLOW_UNTIL,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new(
        "stateFault",
        VR_STATE_FAULT,
        VarType::Integer,
        Causality::Parameter,
    ),
];

/// Relative tolerance with which a time counts as having reached a fault time `T`: the
/// allowance is `TIME_TOLERANCE·max(1, |T|)` seconds. It keeps rounding in an accumulated time
/// (a sum of steps of 0.1 s can end just below 0.3) from delaying a fault by one step.
pub const TIME_TOLERANCE: f64 = 1e-9;

/// The allowance (s) for the fault time `at` (s): `TIME_TOLERANCE·max(1, |at|)`.
fn tolerance(at: f64) -> f64 {
    TIME_TOLERANCE * at.abs().max(1.0)
}

/// Whether the fault time `at` (s) is switched on (`at >= 0`) and the time `time` (s) has
/// reached it, within [`TIME_TOLERANCE`].
pub fn reached(time: f64, at: f64) -> bool {
    at >= 0.0 && time >= at - tolerance(at)
}

/// Whether the time `time` (s) lies before the fault time `at` (s), by more than
/// [`TIME_TOLERANCE`].
fn before(time: f64, at: f64) -> bool {
    time < at - tolerance(at)
}

/// The fault times (s), one per parameter, and the end of the slow window. Negative: off.
/// [`Default`] gives the start values (all −1, off).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaultTimes {
    /// `errorTime` (s).
    pub error: f64,
    /// `fatalTime` (s).
    pub fatal: f64,
    /// `nanTime` (s).
    pub nan: f64,
    /// `hangTime` (s).
    pub hang: f64,
    /// `segfaultTime` (s).
    pub segfault: f64,
    /// `abortTime` (s).
    pub abort: f64,
    /// `discardTime` (s).
    pub discard: f64,
    /// `infTime` (s).
    pub inf: f64,
    /// `exitTime` (s).
    pub exit: f64,
    /// `jitterTime` (s).
    pub jitter: f64,
    /// `slowTime` (s): start of the slow window.
    pub slow: f64,
    /// `slowUntil` (s): end of the slow window, excluded.
    pub slow_until: f64,
}

impl Default for FaultTimes {
    fn default() -> Self {
        Self {
            error: -1.0,
            fatal: -1.0,
            nan: -1.0,
            hang: -1.0,
            segfault: -1.0,
            abort: -1.0,
            discard: -1.0,
            inf: -1.0,
            exit: -1.0,
            jitter: -1.0,
            slow: -1.0,
            slow_until: -1.0,
        }
    }
}

/// What a step does instead of completing; see [`Faulty::fault`]. Listed in order of
/// precedence: when one step reaches several fault times, the first in this list wins.
/// (A slow step completes, so it is not listed here; see [`Faulty::slow`].)
///
/// Spec: FMI 2.0.2 §2.1.3 (status codes), §4.2.2 (`fmi2DoStep`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Writes to address 0: the process dies with SIGSEGV.
    Segfault,
    /// Calls `std::process::abort()`: the process dies with SIGABRT.
    Abort,
    /// Calls `std::process::exit(exitCode)`: the process ends with that exit status, after
    /// the C library's `atexit` handlers.
    Exit,
    /// Sleeps for ever: `fmi2DoStep` never returns.
    Hang,
    /// `fmi2DoStep` returns `fmi2Fatal`.
    Fatal,
    /// `fmi2DoStep` returns `fmi2Error`.
    Error,
    /// `fmi2DoStep` returns `fmi2Discard`.
    Discard,
}

/// Bits of `discarded_at` meaning "no step discarded yet" (a NaN that no time equals).
const NOT_DISCARDED: u64 = u64::MAX;

/// What an instance remembers about faults it has already injected. Shared by the model and all
/// its clones (the copy a step runs on, and saved FMU states), so it survives both a rejected
/// step, whose copy the export layer drops, and `fmi2SetFMUstate`. Cleared by
/// [`Model::initialize`] and `fmi2Reset`.
#[derive(Debug)]
struct Memory {
    /// Whether the one Error of `errorTime` has been returned.
    error_fired: AtomicBool,
    /// `f64::to_bits` of the FMU time (s) from which a step was last discarded, or
    /// [`NOT_DISCARDED`].
    discarded_at: AtomicU64,
}

impl Memory {
    fn new() -> Self {
        Self {
            error_fired: AtomicBool::new(false),
            discarded_at: AtomicU64::new(NOT_DISCARDED),
        }
    }

    fn clear(&self) {
        self.error_fired.store(false, Ordering::Relaxed);
        self.discarded_at.store(NOT_DISCARDED, Ordering::Relaxed);
    }
}

thread_local! {
    /// Set by [`Faulty::do_step`] when it fails because of `fatalTime`; read and cleared by
    /// [`fmi2_do_step`] on the same thread, which then turns the Error into Fatal.
    static FATAL: Cell<bool> = const { Cell::new(false) };
}

/// Whether the value of [`FAULTS_ENV`] switches the faults off: exactly `off`.
fn faults_switched_off(value: Option<&OsStr>) -> bool {
    value == Some(OsStr::new("off"))
}

/// SplitMix64: spreads the bits of `x` over the whole word.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The jitter offset `j` (-) of a new instance, in `[JITTER_SCALE, 2·JITTER_SCALE)`: from the
/// process id, the system time in ns and a count of the instances created in this process. So
/// it differs from process to process, and between instances of one process.
fn new_jitter() -> f64 {
    static CREATED: AtomicU64 = AtomicU64::new(0);
    // Truncated to the low 64 bits of the ns count: only its variation matters.
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let pid = u64::from(std::process::id());
    let n = CREATED.fetch_add(1, Ordering::Relaxed);
    let bits = mix(mix(mix(nanos) ^ pid) ^ n);
    // The top 53 bits as a fraction in [0, 1).
    let fraction = (bits >> 11) as f64 / (1u64 << 53) as f64;
    JITTER_SCALE * (1.0 + fraction)
}

/// The Faulty FMU: `y = u + t` and a step counter, with faults switched on by parameters (see
/// the README for the exact rules).
///
/// `Send`: the fault memory is shared through an `Arc` of atomics, and the only other shared
/// state is the thread-local flags of the exported functions, each set and read within one
/// call.
#[derive(Debug)]
pub struct Faulty {
    u: f64,
    /// FMU time (s): the start time, then the end of the last completed step.
    time: f64,
    count: i32,
    times: FaultTimes,
    /// `exitCode`, 0 to 255.
    exit_code: i32,
    /// `stateFault`.
    state_fault: StateFault,
    /// The model was made by [`Faulty::load_state_values`] (`fmi2DeSerializeFMUstate`); not part of the state.
    deserialized: bool,
    /// The offset `j` (-) of `y` after `jitterTime`, fixed when the model is created.
    jitter: f64,
    /// [`FAULTS_ENV`] was `off` when the model was created: every fault time is ignored.
    faults_off: bool,
    memory: Arc<Memory>,
}

impl Faulty {
    /// The output `y` (-): `u + t`, with `t` the FMU time (s). After a completed step (`count >
    /// 0`) whose end reached `nanTime` it is NaN, else after one that reached `infTime` it is
    /// +inf, else after one that reached `jitterTime` it is `u + t + j` ([`Faulty::jitter`]).
    /// Before the first step it is always `u + t`, whatever the start time. With the faults
    /// switched off ([`FAULTS_ENV`]) it is always `u + t`.
    pub fn y(&self) -> f64 {
        let stepped = self.count > 0;
        let ft = self.active_times();
        if stepped && reached(self.time, ft.nan) {
            f64::NAN
        } else if stepped && reached(self.time, ft.inf) {
            f64::INFINITY
        } else if stepped && reached(self.time, ft.jitter) {
            self.u + self.time + self.jitter
        } else {
            self.u + self.time
        }
    }

    /// The offset `j` (-) that `jitterTime` adds to `y`: in `[JITTER_SCALE, 2·JITTER_SCALE)`,
    /// never zero, drawn from the process id and the system time when the model is created
    /// (`fmi2Instantiate`, `fmi2Reset`). It stays the same for the instance's life, including
    /// FMU states, and differs between processes (and between instances).
    pub fn jitter(&self) -> f64 {
        self.jitter
    }

    /// Whether [`FAULTS_ENV`] was `off` when the model was created: then every fault time is
    /// ignored (the parameters keep the values set, but have no effect).
    pub fn faults_off(&self) -> bool {
        self.faults_off
    }

    /// The fault times in effect: the parameters, or all off (−1) if the faults are switched
    /// off.
    fn active_times(&self) -> FaultTimes {
        if self.faults_off {
            FaultTimes::default()
        } else {
            self.times
        }
    }

    /// The fault that a step from `t` with size `h` (s) injects now, or `None` if it completes.
    /// Has no side effects; [`Model::do_step`] acts on it.
    ///
    /// With `end = t + h`, in order of precedence:
    /// - [`Fault::Segfault`], [`Fault::Abort`], [`Fault::Exit`], [`Fault::Hang`],
    ///   [`Fault::Fatal`]: `end` has reached `segfaultTime`, `abortTime`, `exitTime`,
    ///   `hangTime`, `fatalTime`;
    /// - [`Fault::Error`]: `end` has reached `errorTime`, and this instance has not returned
    ///   that Error yet;
    /// - [`Fault::Discard`]: `t` lies before `discardTime`, `end` has reached it, and no step
    ///   from the current FMU time has been discarded yet.
    ///
    /// "Reached" means `end ≥ T − 1e-9·max(1, |T|)` for a fault time `T ≥ 0` ([`reached`]).
    /// `nanTime`, `infTime` and `jitterTime` do not stop a step; see [`Faulty::y`]. Nor does
    /// the slow window; see [`Faulty::slow`]. With the faults switched off ([`FAULTS_ENV`])
    /// this is always `None`.
    pub fn fault(&self, t: f64, h: f64) -> Option<Fault> {
        let end = t + h;
        let ft = &self.active_times();
        if reached(end, ft.segfault) {
            Some(Fault::Segfault)
        } else if reached(end, ft.abort) {
            Some(Fault::Abort)
        } else if reached(end, ft.exit) {
            Some(Fault::Exit)
        } else if reached(end, ft.hang) {
            Some(Fault::Hang)
        } else if reached(end, ft.fatal) {
            Some(Fault::Fatal)
        } else if reached(end, ft.error) && !self.memory.error_fired.load(Ordering::Relaxed) {
            Some(Fault::Error)
        } else if reached(end, ft.discard)
            && before(t, ft.discard)
            && self.memory.discarded_at.load(Ordering::Relaxed) != self.time.to_bits()
        {
            Some(Fault::Discard)
        } else {
            None
        }
    }

    /// Whether a step from `t` with size `h` (s) lies in the slow window: its end `t + h` has
    /// reached `slowTime` ([`reached`]) and lies before `slowUntil` by more than the same
    /// allowance, `1e-9·max(1, |slowUntil|)`. So the window is `[slowTime, slowUntil)` with
    /// rounding in the end time forgiven at both bounds, and empty if `slowUntil ≤ slowTime`.
    /// Such a step, if it completes ([`Faulty::fault`] is `None`), sleeps [`SLOW_STEP`] before
    /// completing exactly like any other step. Has no side effects. With the faults switched
    /// off ([`FAULTS_ENV`]) this is always `false`.
    pub fn slow(&self, t: f64, h: f64) -> bool {
        let end = t + h;
        let ft = &self.active_times();
        reached(end, ft.slow) && before(end, ft.slow_until)
    }
}

/// Kills the process with SIGSEGV by writing one byte to address 0.
fn segfault() -> ! {
    // The optimizer cannot see through `black_box`, so it cannot prove the address null and
    // treat the write as unreachable.
    let address = std::hint::black_box(std::ptr::null_mut::<u8>());
    // SAFETY: none; this write is deliberately unsound. It is the fault that `segfaultTime`
    // injects: a real invalid memory access, as a buggy FMU would make, rather than a signal
    // raised by hand. Address 0 is never mapped on Linux (`vm.mmap_min_addr` > 0), so the
    // write traps and the kernel kills the process with SIGSEGV. A volatile write is never
    // removed or reordered by the compiler. Nothing after it runs.
    unsafe { std::ptr::write_volatile(address, 1) };
    // Only reached if page 0 were mapped: die anyway.
    std::process::abort()
}

/// Never returns: sleeps 100 ms at a time, for ever, so that it does not occupy a CPU.
fn hang() -> ! {
    loop {
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn finite(name: &'static str, value: f64) -> Result<f64, ModelError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(ModelError::InvalidValue {
            name,
            value: value.to_string(),
            reason: "must be finite",
        })
    }
}

fn exit_code(value: i32) -> Result<i32, ModelError> {
    if (0..=255).contains(&value) {
        Ok(value)
    } else {
        Err(ModelError::InvalidValue {
            name: "exitCode",
            value: value.to_string(),
            reason: "must be 0 to 255 (a process exit status)",
        })
    }
}

impl Model for Faulty {
    /// Also reads [`FAULTS_ENV`] and draws the jitter offset ([`Faulty::jitter`]).
    fn instantiate(guid: &str) -> Option<Self> {
        (guid == GUID).then(|| Self {
            u: 0.0,
            time: 0.0,
            count: 0,
            times: FaultTimes::default(),
            exit_code: DEFAULT_EXIT_CODE,
            state_fault: StateFault::None,
            deserialized: false,
            jitter: new_jitter(),
            faults_off: faults_switched_off(std::env::var_os(FAULTS_ENV).as_deref()),
            memory: Arc::new(Memory::new()),
        })
    }

    fn variables(&self) -> &'static [Variable] {
        FAULTY_VARIABLES
    }

    fn initialize(&mut self, start_time: f64) -> Result<(), ModelError> {
        self.time = start_time;
        self.count = 0;
        self.memory.clear();
        Ok(())
    }

    /// Completes the step (`t ← t + h`, `count ← count + 1`) unless [`Faulty::fault`] says
    /// otherwise; a completing step in the slow window ([`Faulty::slow`]) first sleeps
    /// [`SLOW_STEP`]. A fatal step returns [`StepOutcome::Error`] here and sets a thread-local
    /// flag that [`fmi2_do_step`] turns into `fmi2Fatal`.
    fn do_step(&mut self, t: f64, h: f64) -> StepOutcome {
        match self.fault(t, h) {
            Some(Fault::Segfault) => segfault(),
            Some(Fault::Abort) => std::process::abort(),
            Some(Fault::Exit) => std::process::exit(self.exit_code),
            Some(Fault::Hang) => hang(),
            Some(Fault::Fatal) => {
                FATAL.set(true);
                StepOutcome::Error(format!(
                    "fatalTime = {} s reached: fmi2Fatal",
                    self.times.fatal
                ))
            }
            Some(Fault::Error) => {
                self.memory.error_fired.store(true, Ordering::Relaxed);
                StepOutcome::Error(format!("errorTime = {} s reached", self.times.error))
            }
            Some(Fault::Discard) => {
                self.memory
                    .discarded_at
                    .store(self.time.to_bits(), Ordering::Relaxed);
                StepOutcome::Discard(format!(
                    "discardTime = {} s lies in the step (once per communication point)",
                    self.times.discard
                ))
            }
            None => {
                if self.slow(t, h) {
                    // Wall time only: the state and outputs are those of a normal step.
                    std::thread::sleep(SLOW_STEP);
                }
                self.time = t + h;
                self.count = self.count.saturating_add(1);
                StepOutcome::Completed
            }
        }
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        let ft = &self.times;
        match vr {
            VR_U => Ok(self.u),
            VR_Y => Ok(self.y()),
            VR_ERROR_TIME => Ok(ft.error),
            VR_FATAL_TIME => Ok(ft.fatal),
            VR_NAN_TIME => Ok(ft.nan),
            VR_HANG_TIME => Ok(ft.hang),
            VR_SEGFAULT_TIME => Ok(ft.segfault),
            VR_ABORT_TIME => Ok(ft.abort),
            VR_DISCARD_TIME => Ok(ft.discard),
            VR_INF_TIME => Ok(ft.inf),
            VR_EXIT_TIME => Ok(ft.exit),
            VR_JITTER_TIME => Ok(ft.jitter),
            VR_SLOW_TIME => Ok(ft.slow),
            VR_SLOW_UNTIL => Ok(ft.slow_until),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        let ft = &mut self.times;
        match vr {
            VR_U => self.u = finite("u", value)?,
            VR_ERROR_TIME => ft.error = finite("errorTime", value)?,
            VR_FATAL_TIME => ft.fatal = finite("fatalTime", value)?,
            VR_NAN_TIME => ft.nan = finite("nanTime", value)?,
            VR_HANG_TIME => ft.hang = finite("hangTime", value)?,
            VR_SEGFAULT_TIME => ft.segfault = finite("segfaultTime", value)?,
            VR_ABORT_TIME => ft.abort = finite("abortTime", value)?,
            VR_DISCARD_TIME => ft.discard = finite("discardTime", value)?,
            VR_INF_TIME => ft.inf = finite("infTime", value)?,
            VR_EXIT_TIME => ft.exit = finite("exitTime", value)?,
            VR_JITTER_TIME => ft.jitter = finite("jitterTime", value)?,
            VR_SLOW_TIME => ft.slow = finite("slowTime", value)?,
            VR_SLOW_UNTIL => ft.slow_until = finite("slowUntil", value)?,
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    fn get_integer(&self, vr: u32) -> Result<i32, ModelError> {
        match vr {
            VR_COUNT => Ok(self.count),
            VR_EXIT_CODE => Ok(self.exit_code),
            VR_STATE_FAULT => Ok(self.state_fault.value()),
            _ => Err(ModelError::unknown(VarType::Integer, vr)),
        }
    }

    fn set_integer(&mut self, vr: u32, value: i32) -> Result<(), ModelError> {
        match vr {
            VR_EXIT_CODE => self.exit_code = exit_code(value)?,
            VR_STATE_FAULT => self.state_fault = StateFault::of(value)?,
            _ => return Err(ModelError::unknown(VarType::Integer, vr)),
        }
        Ok(())
    }

    /// [`Faulty::state_values`].
    fn save_state(&self) -> Option<Vec<f64>> {
        Some(self.state_values())
    }

    /// [`Faulty::load_state_values`].
    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        self.load_state_values(state)
    }
}

/// `fmi2DoStep` of Faulty: [`fmi2::do_step`], except that a step failing because of
/// `fatalTime` returns `fmi2Fatal` ([`fmi2::STATUS_FATAL`]) instead of `fmi2Error`. The
/// instance is then in the error phase, as after an Error (the support layer logs the failure
/// with status Error and the text "fmi2Fatal").
///
/// Exported as `fmi2DoStep` through `export_fmi2!(Faulty, do_step = fmi2_do_step)`.
///
/// Spec: FMI 2.0.2 §4.2.2 (`fmi2DoStep`), §2.1.3 (`fmi2Fatal`).
///
/// # Safety
/// As for [`fmi2::do_step`]: `c` must not be in use by a concurrent call.
pub unsafe fn fmi2_do_step(
    c: fmi2::Component,
    current_communication_point: fmi2::Real,
    communication_step_size: fmi2::Real,
    no_set_fmu_state_prior_to_current_point: fmi2::Boolean,
) -> fmi2::Status {
    FATAL.set(false);
    // SAFETY: forwarded caller contract.
    let status = unsafe {
        fmi2::do_step::<Faulty>(
            c,
            current_communication_point,
            communication_step_size,
            no_set_fmu_state_prior_to_current_point,
        )
    };
    if FATAL.replace(false) && status == fmi2::STATUS_ERROR {
        fmi2::STATUS_FATAL
    } else {
        status
    }
}

mod state;
pub use state::{StateFault, fmi2_deserialize_fmu_state, fmi2_set_fmu_state};

#[cfg(feature = "export")]
fmu_support::export_fmi2!(
    Faulty,
    do_step = fmi2_do_step,
    set_fmu_state = fmi2_set_fmu_state,
    deserialize_fmu_state = fmi2_deserialize_fmu_state
);

#[cfg(test)]
mod tests;
