//! Naming the FMU call that crashed the process.
//!
//! An FMU is foreign code: a bug in it can end the process with SIGSEGV, SIGBUS, SIGILL,
//! SIGFPE or SIGABRT before any Rust code could react. Every call into an FMU made through
//! [`crate::Instance`] records, for its thread, the instance name and the FMI function in a
//! fixed table of atomics ([`CallScope`]); [`install_crash_report`] installs a handler for
//! those signals that prints, for every call in progress, `mastersim: <signal> in FMU code:
//! instance '<name>' in <function>` to standard error, then lets the signal take its default
//! action (the process ends as it would have without the handler). The handler only reads
//! atomics and calls `write(2)`, both async-signal-safe, and runs on its own stack, so it also
//! works when the crash was a stack overflow.
//!
//! Spec: POSIX `sigaction`, `sigaltstack` (async-signal-safe functions); FMI 2.0.2 §2.1 (the
//! environment calls the FMU's functions; the FMU's own failures are not the master's to
//! handle).

use std::cell::Cell;
use std::ptr;
use std::sync::Once;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// Number of threads whose calls can be recorded at once.
const SLOTS: usize = 64;

/// What one thread is calling: instance name and FMI function (null pointers when idle).
struct Slot {
    instance: AtomicPtr<u8>,
    instance_len: AtomicUsize,
    function: AtomicPtr<u8>,
    function_len: AtomicUsize,
}

#[allow(clippy::declare_interior_mutable_const)]
const IDLE: Slot = Slot {
    instance: AtomicPtr::new(ptr::null_mut()),
    instance_len: AtomicUsize::new(0),
    function: AtomicPtr::new(ptr::null_mut()),
    function_len: AtomicUsize::new(0),
};

static CALLS: [Slot; SLOTS] = [IDLE; SLOTS];
static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// This thread's slot in [`CALLS`] (`usize::MAX` until first used).
    static MY_SLOT: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Records a call into an FMU for the crash report while it is alive.
///
/// The recorded instance name is borrowed: the scope must not outlive the instance (it lives
/// inside one `Instance` method).
#[derive(Debug)]
pub(crate) struct CallScope {
    slot: usize,
}

impl CallScope {
    /// Records that this thread calls `function` of instance `instance`.
    pub(crate) fn enter(instance: &str, function: &'static str) -> CallScope {
        let slot = MY_SLOT.with(|s| {
            if s.get() == usize::MAX {
                s.set(NEXT_SLOT.fetch_add(1, Ordering::Relaxed) % SLOTS);
            }
            s.get()
        });
        let entry = &CALLS[slot];
        entry.instance_len.store(instance.len(), Ordering::Relaxed);
        entry
            .instance
            .store(instance.as_ptr().cast_mut(), Ordering::Relaxed);
        entry.function_len.store(function.len(), Ordering::Relaxed);
        entry
            .function
            .store(function.as_ptr().cast_mut(), Ordering::Release);
        CallScope { slot }
    }
}

impl Drop for CallScope {
    fn drop(&mut self) {
        let entry = &CALLS[self.slot];
        entry.function.store(ptr::null_mut(), Ordering::Release);
        entry.instance.store(ptr::null_mut(), Ordering::Relaxed);
    }
}

/// The fatal signals reported.
const SIGNALS: [(libc::c_int, &str); 5] = [
    (libc::SIGSEGV, "SIGSEGV (invalid memory access)"),
    (libc::SIGBUS, "SIGBUS (bus error)"),
    (libc::SIGILL, "SIGILL (illegal instruction)"),
    (libc::SIGFPE, "SIGFPE (arithmetic exception)"),
    (libc::SIGABRT, "SIGABRT (abort)"),
];

/// Size of the alternate signal stack.
const ALT_STACK: usize = 64 * 1024;

/// Installs the crash report for the whole process (once; later calls do nothing).
///
/// # Errors
/// The operating system's error when the alternate stack or a handler cannot be installed.
///
/// Spec: POSIX `sigaction` (`SA_ONSTACK`, `SA_RESETHAND`), `sigaltstack`.
pub fn install_crash_report() -> std::io::Result<()> {
    static INSTALLED: Once = Once::new();
    let mut result = Ok(());
    INSTALLED.call_once(|| result = install());
    result
}

/// The alternate signal stack: static memory, handed to the kernel once and never freed.
struct AltStack(std::cell::UnsafeCell<[u8; ALT_STACK]>);

// SAFETY: Rust code never reads or writes the memory; only the kernel uses it, as the stack of
// the signal handler.
unsafe impl Sync for AltStack {}

static ALT_STACK_MEMORY: AltStack = AltStack(std::cell::UnsafeCell::new([0; ALT_STACK]));

fn install() -> std::io::Result<()> {
    let alt = libc::stack_t {
        ss_sp: ALT_STACK_MEMORY.0.get().cast(),
        ss_flags: 0,
        ss_size: ALT_STACK,
    };
    // SAFETY: `alt` describes a valid, writable region that is never freed.
    if unsafe { libc::sigaltstack(&alt, ptr::null_mut()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    for (signal, _) in SIGNALS {
        // SAFETY: a zeroed `sigaction` is a valid starting value; the fields set below are
        // the handler (an `extern "C"` function with the SA_SIGINFO signature), the flags and
        // an emptied mask.
        let result = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = report as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESETHAND;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, ptr::null_mut())
        };
        if result != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Writes `bytes` to standard error (async-signal-safe).
fn write_stderr(bytes: &[u8]) {
    // SAFETY: `bytes` is a valid slice for the duration of the call; write(2) is
    // async-signal-safe. A short or failed write only shortens the report.
    unsafe {
        libc::write(libc::STDERR_FILENO, bytes.as_ptr().cast(), bytes.len());
    }
}

/// The signal handler: reports every FMU call in progress, then returns. `SA_RESETHAND` has
/// restored the default action, so the faulting instruction (or `abort`) ends the process.
extern "C" fn report(
    signal: libc::c_int,
    _info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    let name = SIGNALS
        .iter()
        .find(|(s, _)| *s == signal)
        .map_or("fatal signal", |(_, n)| n);
    let mut reported = false;
    for entry in &CALLS {
        let function = entry.function.load(Ordering::Acquire);
        let instance = entry.instance.load(Ordering::Relaxed);
        if function.is_null() || instance.is_null() {
            continue;
        }
        // SAFETY: the pointers and lengths were stored together by `CallScope::enter` from a
        // live `&str` (the instance name inside a running `Instance` method) and a `&'static
        // str`; they are cleared before either goes away.
        let (instance, function) = unsafe {
            (
                std::slice::from_raw_parts(instance, entry.instance_len.load(Ordering::Relaxed)),
                std::slice::from_raw_parts(function, entry.function_len.load(Ordering::Relaxed)),
            )
        };
        for part in [
            b"mastersim: ".as_slice(),
            name.as_bytes(),
            b" in FMU code: instance '",
            instance,
            b"' in ",
            function,
            b"\n",
        ] {
            write_stderr(part);
        }
        reported = true;
    }
    if !reported {
        for part in [
            b"mastersim: ".as_slice(),
            name.as_bytes(),
            b" (not inside an FMU call)\n",
        ] {
            write_stderr(part);
        }
    }
}

/// The FMU call that ended the process by calling the C library's `exit`.
///
/// Spec: C `exit` (exit handlers run on the calling thread, before the process ends).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitInCall {
    /// The instance that called `exit` (its instance name, the slave name in mastersim).
    pub instance: String,
    /// The FMI function it was in.
    pub function: String,
    /// The exit status it passed.
    pub code: i32,
}

/// The handler installed by [`on_exit_in_fmu_call`].
static EXIT_HANDLER: std::sync::OnceLock<fn(&ExitInCall)> = std::sync::OnceLock::new();

/// The call in progress on the calling thread, if it is inside an FMU.
fn current_call() -> Option<(String, String)> {
    let slot = MY_SLOT.with(Cell::get);
    let entry = CALLS.get(slot)?;
    let function = entry.function.load(Ordering::Acquire);
    let instance = entry.instance.load(Ordering::Relaxed);
    if function.is_null() || instance.is_null() {
        return None;
    }
    // SAFETY: as in `report`: the pointers and lengths were stored together from a live
    // `&str` and a `&'static str`, and the call they describe is still in progress on this
    // very thread (it is the one calling `exit`), so the instance name is alive.
    let (instance, function) = unsafe {
        (
            std::slice::from_raw_parts(instance, entry.instance_len.load(Ordering::Relaxed)),
            std::slice::from_raw_parts(function, entry.function_len.load(Ordering::Relaxed)),
        )
    };
    Some((
        String::from_utf8_lossy(instance).into_owned(),
        String::from_utf8_lossy(function).into_owned(),
    ))
}

/// The exit handler registered with the C library: calls the installed handler when the
/// thread calling `exit` is inside an FMU call.
extern "C" fn exit_hook(code: libc::c_int, _arg: *mut libc::c_void) {
    let (Some(handler), Some((instance, function))) = (EXIT_HANDLER.get(), current_call()) else {
        return;
    };
    handler(&ExitInCall {
        instance,
        function,
        code,
    });
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe extern "C" {
    /// glibc's `on_exit`: like `atexit`, but the handler receives the exit status.
    fn on_exit(
        function: extern "C" fn(libc::c_int, *mut libc::c_void),
        arg: *mut libc::c_void,
    ) -> libc::c_int;
}

/// Installs, once per process, `handler` to run when code inside an FMU call ends the process
/// with the C library's `exit` (some FMUs do that when their solver fails). The handler runs
/// on the thread that called `exit`, while that FMU call is still in progress and the other
/// threads still run, before the process ends with the FMU's exit status; it must not return
/// into the FMU (it cannot) and should only save what is complete. Exits outside FMU calls do
/// not call it. Later calls keep the first handler.
///
/// # Errors
/// The operating system's error when the exit handler cannot be registered; on C libraries
/// without `on_exit` (other than glibc), always.
///
/// Spec: C `exit`, glibc `on_exit(3)`.
pub fn on_exit_in_fmu_call(handler: fn(&ExitInCall)) -> std::io::Result<()> {
    static REGISTERED: Once = Once::new();
    let mut result = Ok(());
    if EXIT_HANDLER.set(handler).is_err() {
        return Ok(());
    }
    REGISTERED.call_once(|| result = register_exit_hook());
    result
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn register_exit_hook() -> std::io::Result<()> {
    // SAFETY: `exit_hook` is an `extern "C"` function with the signature glibc expects, valid
    // for the life of the process; the argument is unused.
    if unsafe { on_exit(exit_hook, ptr::null_mut()) } != 0 {
        return Err(std::io::Error::other("on_exit failed"));
    }
    Ok(())
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn register_exit_hook() -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "this C library has no on_exit",
    ))
}
