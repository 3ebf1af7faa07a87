//! One helper process with one loaded FMU library: launch, the round trip (futex handshake, or
//! polling for Windows helpers under Wine), crash and hang detection, shutdown.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, ExitStatus};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::message::{Request, Response};
use crate::platform::Platform;
use crate::protocol::{
    self, FN_LOAD, FN_QUIT, OFF_EXCEPTION_CODE, OFF_FUNCTION_IN_PROGRESS, OFF_HELPER_SLEEPING,
    OFF_LOG_OFFSET, OFF_MASTER_CPU, OFF_MASTER_SLEEPING, OFF_READY, OFF_REQUEST_LEN,
    OFF_REQUEST_SEQ, OFF_RESPONSE_CALLS, OFF_RESPONSE_LEN, OFF_RESPONSE_SEQ, OFF_SPIN_MICROSECONDS,
    READY_VALUE,
};
use crate::region::Region;
use crate::spin::Spin;
use crate::wait::{futex_wait, futex_wake};
use crate::{Error, Result, binaries};
use crate::{launcher, prestart};

/// What to start.
#[derive(Debug, Clone)]
pub struct Launch<'a> {
    /// The platform of the library (chooses the helper binary; Windows ones run under Wine).
    pub platform: Platform,
    /// The FMU's shared library (a path of this machine; translated for Windows helpers).
    pub library: &'a Path,
    /// The FMI version of the library: 2 or 3.
    pub fmi_version: u32,
    /// A call that takes longer kills the helper: [`Error::Timeout`]. `None`: no limit.
    pub call_timeout: Option<Duration>,
}

/// One helper process with one loaded FMU library.
///
/// The helper is killed and reaped on drop (after a QUIT it did not answer in time), and dies
/// with the master process (`PR_SET_PDEATHSIG`, set by a launcher thread that lives as long
/// as the process). It runs in its own process group, so that a Ctrl-C in the terminal
/// reaches the master only.
#[derive(Debug)]
pub struct Helper {
    platform: Platform,
    child: Child,
    region: Region,
    exports: Vec<u32>,
    call_timeout: Option<Duration>,
    sequence: u32,
    /// The spin budget of the current round trip, in microseconds.
    spin_microseconds: u32,
    spin: Spin,
    request_len: usize,
    overflow: Option<usize>,
    /// Set once the helper died or was killed: every later round trip returns it again.
    dead: Option<Error>,
}

/// How long a Linux helper may take to start and map the region.
const LINUX_START: Duration = Duration::from_secs(20);
/// How long a helper under Wine may take (the first start of a Wine prefix is slow).
const WINE_START: Duration = Duration::from_secs(60);
/// How often a waiting master checks whether the helper still lives.
const CHECK_EVERY: Duration = Duration::from_millis(50);

impl Helper {
    /// Starts the helper for `launch.platform` (or takes one started ahead by
    /// [`crate::prestart`]), waits until it has mapped the shared region and loads the library.
    ///
    /// # Errors
    /// [`Error::Unavailable`] when no helper for the platform can run here (see
    /// [`crate::availability`]); [`Error::Launch`] when the helper does not start or the
    /// library does not load (the loader's message is in `reason`).
    pub fn launch(launch: &Launch) -> Result<Helper> {
        let platform = launch.platform;
        binaries::availability(platform).map_err(|what_to_install| Error::Unavailable {
            platform,
            what_to_install,
        })?;
        let failed = |reason: String| Error::Launch {
            platform,
            library: launch.library.to_path_buf(),
            reason,
        };
        let (region, child) = match prestart::take(platform) {
            Some((region, child)) => {
                let child = child.map_err(|e| failed(format!("cannot start the helper: {e}")))?;
                (region, child)
            }
            None => {
                let program = binaries::installed(platform)
                    .map_err(|e| failed(format!("cannot write the helper program: {e}")))?;
                let region = Region::create()
                    .map_err(|e| failed(format!("cannot create the shared memory file: {e}")))?;
                let child = launcher::spawn(platform, &program, region.path())
                    .map_err(|e| failed(format!("cannot start {}: {e}", program.display())))?;
                (region, child)
            }
        };
        let mut helper = Helper {
            platform,
            child,
            region,
            exports: Vec::new(),
            call_timeout: launch.call_timeout,
            sequence: 0,
            spin_microseconds: 0,
            spin: Spin::new(),
            request_len: 0,
            overflow: None,
            dead: None,
        };
        helper.wait_ready().map_err(failed)?;
        helper.region.unlink();
        helper
            .load(launch.library, launch.fmi_version)
            .map_err(failed)?;
        Ok(helper)
    }

    /// Waits for the helper's ready word; `Err` says why it did not come.
    fn wait_ready(&mut self) -> Result<(), String> {
        let limit = if self.platform.is_windows() {
            WINE_START
        } else {
            LINUX_START
        };
        let start = Instant::now();
        loop {
            if self.region.word(OFF_READY).load(Ordering::Acquire) == READY_VALUE {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "the helper ended before it was ready: {}",
                    describe(status)
                ));
            }
            if start.elapsed() > limit {
                self.kill();
                return Err(format!(
                    "the helper was not ready within {} s",
                    limit.as_secs()
                ));
            }
            futex_wait(self.region.word(OFF_READY), 0, Duration::from_millis(5));
        }
    }

    /// Sends LOAD and keeps the list of exported functions.
    fn load(&mut self, library: &Path, fmi_version: u32) -> Result<(), String> {
        let path = self.helper_path(library);
        self.request()
            .call(FN_LOAD)
            .string(Some(path.as_bytes()))
            .u32(fmi_version);
        let mut response = self.round_trip().map_err(|e| e.to_string())?;
        let status = response.status().map_err(|e| e.to_string())?;
        if status != 0 {
            let records = response.log_records().unwrap_or_default();
            let messages: Vec<String> = records.into_iter().map(|r| r.message).collect();
            return Err(messages.join("; "));
        }
        let exports = response.array::<u32>().map_err(|e| e.to_string())?;
        self.exports = exports;
        Ok(())
    }

    /// Whether the loaded library exports the function `function_id` (`protocol::FN_*`).
    pub fn exports(&self, function_id: u32) -> bool {
        self.exports.contains(&function_id)
    }

    /// The helper's process id (under Wine: of the Wine process that runs it).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The helper's platform.
    pub fn platform(&self) -> Platform {
        self.platform
    }

    /// A path as the helper sees it: `Z:\dev\shm\…` for Windows helpers (Wine maps the Linux
    /// root to drive Z:), unchanged for Linux ones.
    pub fn helper_path(&self, path: &Path) -> String {
        self.platform.path_for_helper(path)
    }

    /// A `file:` URI of a directory or file as the helper sees it, for FMI resource locations:
    /// `file:///Z:/dev/…` for Windows helpers, `file:///dev/…` for Linux ones (RFC 8089;
    /// bytes outside the unreserved set and `/` percent-encoded).
    pub fn helper_file_uri(&self, path: &Path) -> String {
        let mut uri = String::from("file://");
        if self.platform.is_windows() {
            uri.push_str("/Z:");
        }
        for &byte in path.as_os_str().as_encoded_bytes() {
            if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
                uri.push(char::from(byte));
            } else {
                uri.push_str(&format!("%{byte:02X}"));
            }
        }
        uri
    }

    /// Starts a new request (forgets the calls written so far).
    pub fn request(&mut self) -> Request<'_> {
        self.request_len = 0;
        self.overflow = None;
        self.append()
    }

    /// Continues the request written so far (for calls deferred until the next round trip).
    pub fn append(&mut self) -> Request<'_> {
        Request {
            area: self.region.request_area(),
            len: &mut self.request_len,
            overflow: &mut self.overflow,
        }
    }

    /// Bytes of the request written so far (0: nothing to send).
    pub fn pending(&self) -> usize {
        self.request_len
    }

    /// Sends the request written so far and waits for the response; the request is cleared.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the request outgrew the request area (nothing was sent);
    /// [`Error::Crashed`] when the helper died (from then on every round trip returns it);
    /// [`Error::Timeout`] when the call timeout passed (the helper was killed);
    /// [`Error::Protocol`] when the response is malformed.
    pub fn round_trip(&mut self) -> Result<Response<'_>> {
        if let Some(error) = &self.dead {
            return Err(error.clone());
        }
        let len = std::mem::take(&mut self.request_len);
        if let Some(bytes) = self.overflow.take() {
            return Err(Error::TooLarge {
                bytes,
                capacity: protocol::REQUEST_CAPACITY,
            });
        }
        self.send(len);
        self.wait_response()?;
        self.response()
    }

    /// Publishes the request of `len` bytes under the next sequence number and wakes the
    /// helper if it sleeps.
    fn send(&mut self, len: usize) {
        self.sequence = self.sequence.wrapping_add(1);
        // While spinning pays (fewer helpers than processors, spins answered) both sides spin
        // on processors of their own; else a Linux helper runs on the master's processor
        // (`master_cpu`, `follow_master` of fmu_host.c), where nobody spins.
        self.spin_microseconds = self.spin.budget();
        let word = |offset| self.region.word(offset);
        word(OFF_SPIN_MICROSECONDS).store(self.spin_microseconds, Ordering::Relaxed);
        word(OFF_MASTER_CPU).store(master_cpu(self.platform), Ordering::Relaxed);
        word(OFF_REQUEST_LEN).store(len as u32, Ordering::Relaxed);
        word(OFF_REQUEST_SEQ).store(self.sequence, Ordering::SeqCst);
        if word(OFF_HELPER_SLEEPING).load(Ordering::SeqCst) != 0 {
            futex_wake(word(OFF_REQUEST_SEQ));
        }
    }

    /// Waits until the helper answered the current sequence number: spin (as long as [`Spin`]
    /// says), then futex waits (Linux helpers) or yields and short sleeps (Windows helpers),
    /// checking in between whether the helper lives and whether the call timeout passed.
    fn wait_response(&mut self) -> Result<()> {
        let answered = |word: &AtomicU32, sequence: u32| word.load(Ordering::Acquire) == sequence;
        // The usual case for a Linux helper: woken on the master's processor, it ran at once
        // (its slice is short, `fmu_host.c`) and has answered already. No clock read then.
        if answered(self.region.word(OFF_RESPONSE_SEQ), self.sequence) {
            if self.spin_microseconds > 0 {
                self.spin.record(true);
            }
            return Ok(());
        }
        let start = Instant::now();
        let spin = Duration::from_micros(u64::from(self.spin_microseconds));
        if !spin.is_zero() {
            while start.elapsed() < spin {
                if answered(self.region.word(OFF_RESPONSE_SEQ), self.sequence) {
                    self.spin.record(true);
                    return Ok(());
                }
                std::hint::spin_loop();
            }
            self.spin.record(false);
        }
        let mut last_check = Instant::now();
        let mut polls = 0u32;
        loop {
            let word = self.region.word(OFF_RESPONSE_SEQ);
            if self.platform.is_windows() {
                if answered(word, self.sequence) {
                    return Ok(());
                }
                poll_pause(polls);
                polls = polls.saturating_add(1);
            } else {
                let sleeping = self.region.word(OFF_MASTER_SLEEPING);
                sleeping.store(1, Ordering::SeqCst);
                let seen = word.load(Ordering::SeqCst);
                if seen == self.sequence {
                    sleeping.store(0, Ordering::Relaxed);
                    return Ok(());
                }
                futex_wait(word, seen, CHECK_EVERY);
                sleeping.store(0, Ordering::Relaxed);
                if answered(word, self.sequence) {
                    return Ok(());
                }
            }
            if last_check.elapsed() >= CHECK_EVERY || !self.platform.is_windows() {
                last_check = Instant::now();
                self.check_alive(start)?;
            }
        }
    }

    /// `Err` when the helper has ended or the call timeout has passed (then it is killed).
    fn check_alive(&mut self, start: Instant) -> Result<()> {
        let function = protocol::function_name(self.function_in_progress());
        if let Ok(Some(status)) = self.child.try_wait() {
            let exception = self.region.word(OFF_EXCEPTION_CODE).load(Ordering::Acquire);
            let error = if exception != 0 {
                Error::Crashed {
                    function,
                    signal: None,
                    signal_name: exception_name(exception),
                    exit_code: Some(exception as i32),
                }
            } else {
                crashed(function, status)
            };
            self.dead = Some(error.clone());
            return Err(error);
        }
        if let Some(timeout) = self.call_timeout
            && start.elapsed() > timeout
        {
            self.kill();
            let error = Error::Timeout {
                function,
                seconds: timeout.as_secs_f64(),
            };
            self.dead = Some(error.clone());
            return Err(error);
        }
        Ok(())
    }

    fn function_in_progress(&self) -> u32 {
        self.region
            .word(OFF_FUNCTION_IN_PROGRESS)
            .load(Ordering::Acquire)
    }

    /// The response to the current request, its lengths checked against the response area.
    fn response(&self) -> Result<Response<'_>> {
        let area = self.region.response_area();
        let len = self.region.word(OFF_RESPONSE_LEN).load(Ordering::Relaxed) as usize;
        let log_offset = self.region.word(OFF_LOG_OFFSET).load(Ordering::Relaxed) as usize;
        let answered = self.region.word(OFF_RESPONSE_CALLS).load(Ordering::Relaxed);
        if len > area.len() || log_offset > len {
            return Err(Error::Protocol(format!(
                "response of {len} bytes with its log at {log_offset} (area: {} bytes)",
                area.len()
            )));
        }
        Ok(Response::new(
            &area[..log_offset],
            &area[log_offset..len],
            answered,
        ))
    }

    /// Kills the helper's process group and reaps the helper.
    fn kill(&mut self) {
        // Only while the helper is not reaped: its pid (and group id) cannot be reused
        // before that, so the signal cannot reach another process group.
        if matches!(self.child.try_wait(), Ok(None)) {
            let pid = self.child.id() as libc::pid_t;
            // SAFETY: the helper leads its own process group (setpgid in `spawn`); killing the
            // group also ends processes it started (Wine's).
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.wait();
    }

    /// Sends QUIT; `true` when the helper ended within `grace`. A Linux helper unloads its
    /// library and answers before it exits: its answer is awaited, and its exit reaped on the
    /// launcher thread (a helper that does not answer within `grace` is killed). Under Wine,
    /// the exit itself is awaited.
    fn quit(&mut self, grace: Duration) -> bool {
        self.request().call(FN_QUIT);
        let len = std::mem::take(&mut self.request_len);
        self.send(len);
        if self.platform.is_windows() {
            return exits_within(&mut self.child, grace);
        }
        self.call_timeout = Some(grace);
        // An error means the helper ended (reaped by the check) or was killed after `grace`.
        if self.wait_response().is_ok() {
            launcher::reap_later(self.child.id());
        }
        true
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        if self.dead.is_none() && matches!(self.child.try_wait(), Ok(None)) {
            let grace = if self.platform.is_windows() {
                3000
            } else {
                500
            };
            if self.quit(Duration::from_millis(grace)) {
                return;
            }
        }
        self.kill();
    }
}

/// Whether `child` exits within `grace` (reaped if so): waits on a pidfd (Linux 5.3), which
/// wakes the moment the process ends; where there is none, checks every 50 µs.
fn exits_within(child: &mut Child, grace: Duration) -> bool {
    let start = Instant::now();
    // SAFETY: pidfd_open of our own child, not yet reaped (its pid cannot have been reused).
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, child.id() as libc::pid_t, 0) };
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        let left = grace.saturating_sub(start.elapsed());
        if left.is_zero() {
            break;
        }
        if pidfd >= 0 {
            let mut readable = libc::pollfd {
                fd: pidfd as libc::c_int,
                events: libc::POLLIN,
                revents: 0,
            };
            let millis = left.as_millis().clamp(1, 1000) as libc::c_int;
            // SAFETY: one valid pollfd; an interrupted poll is retried by the loop.
            unsafe { libc::poll(&mut readable, 1, millis) };
        } else {
            std::thread::sleep(Duration::from_micros(50));
        }
    }
    if pidfd >= 0 {
        // SAFETY: the descriptor opened above, closed once.
        unsafe { libc::close(pidfd as libc::c_int) };
    }
    matches!(child.try_wait(), Ok(Some(_)))
}

/// The pause of the `polls`-th check of a polling wait (after the spin): yields the processor
/// for the first checks (a Windows helper answers a cheap call within microseconds, and a
/// sleep costs 60 µs or more on a virtual machine), then sleeps growing from 20 µs to 1 ms.
fn poll_pause(polls: u32) {
    const YIELDS: u32 = 2000;
    if polls < YIELDS {
        std::thread::yield_now();
    } else {
        let micros = (20 + u64::from(polls - YIELDS) * 10).min(1000);
        std::thread::sleep(Duration::from_micros(micros));
    }
}

fn crashed(function: &'static str, status: ExitStatus) -> Error {
    let signal = status.signal();
    Error::Crashed {
        function,
        signal,
        signal_name: signal.and_then(signal_name),
        exit_code: status.code(),
    }
}

fn describe(status: ExitStatus) -> String {
    match (status.signal(), status.code()) {
        (Some(signal), _) => format!("killed by {}", signal_name(signal).unwrap_or("a signal")),
        (None, Some(code)) => format!("exit code {code}"),
        _ => status.to_string(),
    }
}

/// The name of a Windows exception code (`EXCEPTION_ACCESS_VIOLATION`), for crash reports of
/// Windows helpers (winnt.h / ntstatus.h values).
pub fn exception_name(code: u32) -> Option<&'static str> {
    Some(match code {
        0xC000_0005 => "EXCEPTION_ACCESS_VIOLATION",
        0xC000_001D => "EXCEPTION_ILLEGAL_INSTRUCTION",
        0xC000_008E => "EXCEPTION_FLT_DIVIDE_BY_ZERO",
        0xC000_0094 => "EXCEPTION_INT_DIVIDE_BY_ZERO",
        0xC000_00FD => "EXCEPTION_STACK_OVERFLOW",
        0xC000_0409 => "STATUS_STACK_BUFFER_OVERRUN",
        0x8000_0003 => "EXCEPTION_BREAKPOINT",
        _ => return None,
    })
}

/// The name of a Linux signal number (`SIGSEGV`), for crash reports.
pub fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGSYS => "SIGSYS",
        _ => return None,
    })
}

/// The processor the calling thread runs on, plus 1, for a Linux helper to follow
/// (`MSIM_OFF_MASTER_CPU` of `protocol.h`); 0 for Windows helpers and when it is unknown.
fn master_cpu(platform: Platform) -> u32 {
    if platform.is_windows() {
        return 0;
    }
    // SAFETY: `sched_getcpu` has no arguments and only reads the calling thread's processor.
    let cpu = unsafe { libc::sched_getcpu() };
    let Ok(cpu) = usize::try_from(cpu) else {
        return 0;
    };
    // The calling thread stays on this processor too: woken by its helper, it would otherwise
    // often resume on the other, idle processor, and the helper would have to follow it.
    thread_local!(static PINNED: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) });
    if PINNED.get() != Some(cpu) {
        // SAFETY: a zeroed `cpu_set_t` is the empty set; `CPU_SET` and `sched_setaffinity`
        // only touch `set`, which lives across the call; 0 is the calling thread.
        let pinned = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
        };
        if pinned {
            PINNED.set(Some(cpu));
        }
    }
    u32::try_from(cpu + 1).unwrap_or(0)
}
