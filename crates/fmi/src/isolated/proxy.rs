//! The `Proxy`: what an isolated instance's component pointer points to. It owns the helper
//! process, sends each FMI call as a message and reads the answer, defers setters until the
//! next message, prefetches the getters a master makes after `doStep`, forwards the FMU's log
//! records to the logger the instance gave at instantiation, and keeps the transport error
//! that ended the helper.
//!
//! Spec: FMI 2.0.2 §2.1 and FMI 3.0 (the C API the proxies stand in for); the message format
//! is `crates/isolation/helper/protocol.h`.

use std::ffi::{CStr, CString, c_char, c_void};

use isolation::protocol::{STOP_STATUS, function_name};
use isolation::{Helper, LogRecord, Request, Response, Scalar};

use crate::ffi::{fmi2, fmi3};

/// `fmi2OK` / `fmi3OK`.
pub(super) const OK: i32 = 0;
/// `fmi2Fatal` / `fmi3Fatal`: what every call answers once the helper is gone.
pub(super) const FATAL: i32 = 4;

/// Where the FMU's log records go: the callback the instance passed at instantiation.
pub(super) enum LogSink {
    /// FMI 2.0 `fmi2CallbackLogger` (variadic) and its `componentEnvironment`.
    Fmi2 {
        logger: fmi2::fmi2CallbackLogger,
        environment: *mut c_void,
    },
    /// FMI 3.0 `fmi3LogMessageCallback` (NULL: no logging) and the instance environment.
    Fmi3 {
        log_message: Option<fmi3::fmi3LogMessageCallback>,
        environment: *mut c_void,
    },
}

impl LogSink {
    /// Hands one record to the instance's logger: the FMI 2.0 logger gets `"%s"` as format and
    /// the message as its argument, so that a `%` in the message is never read as a format.
    fn forward(&self, instance_name: &CStr, record: &LogRecord) {
        let category = record
            .category
            .as_deref()
            .map(|c| CString::new(c.replace('\0', " ")).unwrap_or_default());
        let category_ptr = category.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
        let message = CString::new(record.message.replace('\0', " ")).unwrap_or_default();
        match *self {
            LogSink::Fmi2 {
                logger,
                environment,
            } => {
                // SAFETY: the logger and its environment are those the instance passed to
                // instantiate, valid until the instance is freed (which frees this proxy
                // first); every string is NUL-terminated and outlives the call; the format
                // "%s" matches the one string argument.
                unsafe {
                    logger(
                        environment,
                        instance_name.as_ptr(),
                        record.status,
                        category_ptr,
                        c"%s".as_ptr(),
                        message.as_ptr(),
                    );
                }
            }
            LogSink::Fmi3 {
                log_message: Some(log_message),
                environment,
            } => {
                // SAFETY: as above; the FMI 3.0 callback is not variadic.
                unsafe { log_message(environment, record.status, category_ptr, message.as_ptr()) }
            }
            LogSink::Fmi3 {
                log_message: None, ..
            } => {}
        }
    }
}

/// What a getter returned, kept for answering the same call again from the cache.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Payload {
    /// Fixed-size values, each in the protocol's little-endian encoding (`Scalar::put`).
    Scalars(Vec<u8>),
    /// Strings or binaries (`None`: a NULL string).
    Texts(Vec<Option<Vec<u8>>>),
}

/// Reads one getter's outputs from a response into a payload, whose buffer it reuses.
pub(super) type ReadPayload = fn(&mut Response<'_>, &mut Payload) -> isolation::Result<()>;

impl Payload {
    /// Reads an array of `T` from `response` into `payload`: the encoded bytes as they are
    /// (little-endian, what `Scalar::get` reads back), into the buffer of the previous step's
    /// payload when it has one, so that a prefetched getter allocates nothing per step.
    pub(super) fn read_scalars<T: Scalar>(
        response: &mut Response<'_>,
        payload: &mut Payload,
    ) -> isolation::Result<()> {
        let bytes = response.array_bytes(T::SIZE)?;
        match payload {
            Payload::Scalars(kept) => {
                kept.clear();
                kept.extend_from_slice(bytes);
            }
            other => *other = Payload::Scalars(bytes.to_vec()),
        }
        Ok(())
    }

    /// Reads a string array (or binary array) from `response` into `payload`.
    pub(super) fn read_texts(
        response: &mut Response<'_>,
        payload: &mut Payload,
    ) -> isolation::Result<()> {
        let texts = response.strings()?;
        *payload = Payload::Texts(texts.into_iter().map(|t| t.map(<[u8]>::to_vec)).collect());
        Ok(())
    }
}

/// One getter call: function, value references, and for FMI 3.0 the number of values.
#[derive(Clone)]
pub(super) struct Getter {
    function: u32,
    vrs: Vec<u32>,
    /// FMI 3.0 `nValues`; `None` for FMI 2.0 (one value per value reference).
    n_values: Option<u64>,
    /// Reads the getter's outputs.
    read: ReadPayload,
}

impl Getter {
    fn matches(&self, function: u32, vrs: &[u32], n_values: Option<u64>) -> bool {
        self.function == function && self.n_values == n_values && self.vrs == vrs
    }

    fn write(&self, request: &mut Request<'_>) {
        request.call(self.function).u32s(&self.vrs);
        if let Some(n) = self.n_values {
            request.u64(n);
        }
    }
}

/// A getter call seen after a `doStep`.
enum Seen {
    /// The call at this position of the plan (answered from the prefetched values).
    Planned(usize),
    /// A call that was not planned.
    New(Getter),
}

/// The getter calls made after a `doStep`, sent along with the next one.
#[derive(Default)]
struct Prefetch {
    /// From a `doStep` until the next call that is not a getter.
    after_step: bool,
    /// The getter calls since the last `doStep`: the next `doStep`'s plan.
    seen: Vec<Seen>,
    /// The getter calls to send with the next `doStep`.
    plan: Vec<Getter>,
    /// Status and outputs of the getters sent with the last `doStep` (by index in `plan`),
    /// valid until any other call.
    answers: Answers,
}

/// The prefetched getters' statuses and outputs: the first `valid` slots; the slots stay
/// allocated from step to step, so that their buffers are reused.
#[derive(Default)]
struct Answers {
    slots: Vec<(i32, Payload)>,
    valid: usize,
}

impl Answers {
    fn clear(&mut self) {
        self.valid = 0;
    }

    fn len(&self) -> usize {
        self.valid
    }

    /// The next slot to fill (valid from now on).
    fn next(&mut self) -> &mut (i32, Payload) {
        if self.valid == self.slots.len() {
            self.slots.push((OK, Payload::Scalars(Vec::new())));
        }
        self.valid += 1;
        &mut self.slots[self.valid - 1]
    }
}

/// The proxy of one isolated instance. Its address is the instance's `fmi2Component` /
/// `fmi3Instance`.
pub(crate) struct Proxy {
    helper: Helper,
    /// The transport error that ended the helper: every later call answers Fatal at once.
    failure: Option<isolation::Error>,
    /// The function ids of the setter calls written into the request but not sent yet.
    deferred: Vec<u32>,
    prefetch: Prefetch,
    log: LogSink,
    instance_name: CString,
    /// FMI 2.0/3.0 `GetString`, FMI 3.0 `GetBinary`: the values of the last such call; the
    /// pointers handed out stay valid until the next call, as FMI requires.
    pub(super) texts: Vec<Option<CString>>,
    /// FMI 3.0 `GetBinary`: see `texts`.
    pub(super) binaries: Vec<Vec<u8>>,
    round_trips: u64,
}

impl Proxy {
    /// A proxy for an instance named `instance_name` in `helper` (not instantiated yet).
    pub(super) fn new(helper: Helper, instance_name: &CStr, log: LogSink) -> Proxy {
        Proxy {
            helper,
            failure: None,
            deferred: Vec::new(),
            prefetch: Prefetch::default(),
            log,
            instance_name: instance_name.to_owned(),
            texts: Vec::new(),
            binaries: Vec::new(),
            round_trips: 0,
        }
    }

    /// The helper process (for its id and platform).
    pub(super) fn helper(&self) -> &Helper {
        &self.helper
    }

    /// Gives the helper back (after an instantiation that returned NULL).
    pub(super) fn into_helper(self) -> Helper {
        self.helper
    }

    /// The transport error that ended the helper, if any.
    pub(crate) fn failure(&self) -> Option<&isolation::Error> {
        self.failure.as_ref()
    }

    /// Round trips to the helper so far.
    pub(crate) fn round_trips(&self) -> u64 {
        self.round_trips
    }

    /// A setter: written into the request and answered OK at once; its status comes with the
    /// next round trip. Fatal at once when the helper is gone.
    pub(super) fn defer(&mut self, function: u32, write: impl FnOnce(&mut Request<'_>)) -> i32 {
        if self.failure.is_some() {
            return FATAL;
        }
        self.end_window();
        let mut request = self.helper.append();
        request.call(function);
        write(&mut request);
        self.deferred.push(function);
        OK
    }

    /// Any call other than a setter or a getter: sent with the deferred setters; `read` reads
    /// its outputs when the helper answered it. Returns the call's status (or the worst status
    /// of a deferred setter, when worse; Fatal when the helper is gone).
    pub(super) fn call(
        &mut self,
        function: u32,
        write: impl FnOnce(&mut Request<'_>),
        read: impl FnOnce(&mut Response<'_>) -> isolation::Result<()>,
    ) -> i32 {
        if self.failure.is_some() {
            return FATAL;
        }
        self.end_window();
        self.exchange(function, write, read, false)
    }

    /// `doStep`: sent with the deferred setters and the getters made after the previous
    /// `doStep`, whose answers are kept for [`Proxy::get`].
    pub(super) fn step(
        &mut self,
        function: u32,
        write: impl FnOnce(&mut Request<'_>),
        read: impl FnOnce(&mut Response<'_>) -> isolation::Result<()>,
    ) -> i32 {
        if self.failure.is_some() {
            return FATAL;
        }
        self.end_window();
        let status = self.exchange(function, write, read, true);
        self.prefetch.after_step = true;
        status
    }

    /// A getter: answered from the values prefetched with the last `doStep` when it asks for
    /// the same values, else sent like any other call. `store` receives the outputs.
    pub(super) fn get(
        &mut self,
        function: u32,
        vrs: &[u32],
        n_values: Option<u64>,
        read: ReadPayload,
        store: &mut dyn FnMut(&Payload),
    ) -> i32 {
        if self.failure.is_some() {
            return FATAL;
        }
        if !self.prefetch.after_step {
            self.end_window();
        }
        let planned = self.prefetch.answers.len().min(self.prefetch.plan.len());
        let cached = self.prefetch.plan[..planned]
            .iter()
            .position(|getter| getter.matches(function, vrs, n_values));
        if let Some(index) = cached {
            let (status, payload) = &self.prefetch.answers.slots[index];
            store(payload);
            self.prefetch.seen.push(Seen::Planned(index));
            return *status;
        }
        let mut payload = Payload::Scalars(Vec::new());
        let mut answered = false;
        let status = self.exchange(
            function,
            |request| {
                request.u32s(vrs);
                if let Some(n) = n_values {
                    request.u64(n);
                }
            },
            |response| {
                read(response, &mut payload)?;
                answered = true;
                Ok(())
            },
            false,
        );
        if answered {
            store(&payload);
        }
        if self.prefetch.after_step {
            self.prefetch.seen.push(Seen::New(Getter {
                function,
                vrs: vrs.to_vec(),
                n_values,
                read,
            }));
        }
        status
    }

    /// Ends the getters' window after a `doStep`: the getters seen become the next plan (kept
    /// as it is when they were the plan's calls in its order, the usual case, which allocates
    /// nothing), and the prefetched answers are dropped.
    fn end_window(&mut self) {
        let prefetch = &mut self.prefetch;
        if prefetch.after_step {
            let unchanged = prefetch.seen.len() == prefetch.plan.len()
                && (prefetch.seen.iter().enumerate())
                    .all(|(i, seen)| matches!(seen, Seen::Planned(j) if *j == i));
            if !unchanged {
                let plan = &prefetch.plan;
                let next = (prefetch.seen.drain(..)).map(|seen| match seen {
                    Seen::Planned(index) => plan[index].clone(),
                    Seen::New(getter) => getter,
                });
                prefetch.plan = next.collect();
            }
            prefetch.seen.clear();
            prefetch.after_step = false;
        }
        prefetch.answers.clear();
    }

    /// One round trip: the deferred setters, the call, and with `prefetch` the planned
    /// getters. Forwards the log records; keeps a transport error.
    fn exchange(
        &mut self,
        function: u32,
        write: impl FnOnce(&mut Request<'_>),
        read: impl FnOnce(&mut Response<'_>) -> isolation::Result<()>,
        prefetch: bool,
    ) -> i32 {
        {
            let mut request = self.helper.append();
            request.call(function);
            write(&mut request);
            if prefetch {
                for getter in &self.prefetch.plan {
                    getter.write(&mut request);
                }
            }
        }
        self.round_trips += 1;
        let mut deferred = std::mem::take(&mut self.deferred);
        let plan = if prefetch {
            &self.prefetch.plan[..]
        } else {
            &[]
        };
        let outcome = self.helper.round_trip().and_then(|mut response| {
            let mut records = Vec::new();
            let answers = &mut self.prefetch.answers;
            let status = read_response(&mut response, &deferred, read, plan, answers, &mut records);
            records.extend(response.log_records()?);
            for record in &records {
                self.log.forward(&self.instance_name, record);
            }
            status
        });
        deferred.clear();
        self.deferred = deferred;
        match outcome {
            Ok(status) => status,
            Err(error) => {
                self.prefetch.answers.clear();
                self.failure = Some(error);
                FATAL
            }
        }
    }
}

/// Reads the statuses of the deferred setters, the call's status and outputs, and the
/// prefetched getters' answers (into `answers`). The helper stops after the first status of
/// Error or worse: calls after it are not answered. A deferred setter that did not return OK
/// gets a log record naming it (into `notes`, category `mastersim-isolation`), and its status
/// is the call's when worse.
fn read_response(
    response: &mut Response<'_>,
    deferred: &[u32],
    read: impl FnOnce(&mut Response<'_>) -> isolation::Result<()>,
    plan: &[Getter],
    answers: &mut Answers,
    notes: &mut Vec<LogRecord>,
) -> isolation::Result<i32> {
    let mut worst = OK;
    for &setter in deferred {
        let status = response.status()?;
        if status != OK {
            notes.push(LogRecord {
                status,
                category: Some("mastersim-isolation".to_owned()),
                message: format!(
                    "{} returned status {status}; the call was deferred until this call, \
                     which reports that status",
                    function_name(setter)
                ),
            });
            worst = worst.max(status);
        }
        if status >= STOP_STATUS as i32 {
            return Ok(worst);
        }
    }
    let status = response.status()?;
    // A call the helper refused itself answers fmiError without outputs, and ends the response.
    if status < STOP_STATUS as i32 || !response.at_end() {
        read(response)?;
    }
    if status < STOP_STATUS as i32 {
        for getter in plan {
            let getter_status = response.status()?;
            let (status, payload) = answers.next();
            *status = getter_status;
            (getter.read)(response, payload)?;
            if getter_status >= STOP_STATUS as i32 {
                break;
            }
        }
    }
    Ok(status.max(worst))
}

/// A slice from an FMU-style pointer and length; empty for a NULL pointer or length 0 (which
/// `std::slice::from_raw_parts` does not allow).
///
/// # Safety
/// Unless `length` is 0 or `pointer` NULL, `pointer` must be valid for reading `length`
/// elements during `'a`.
pub(super) unsafe fn slice<'a, T>(pointer: *const T, length: usize) -> &'a [T] {
    if pointer.is_null() || length == 0 {
        &[]
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts(pointer, length) }
    }
}

/// A mutable slice, as [`slice`].
///
/// # Safety
/// Unless `length` is 0 or `pointer` NULL, `pointer` must be valid for writing `length`
/// elements during `'a`, and not be aliased.
pub(super) unsafe fn slice_mut<'a, T>(pointer: *mut T, length: usize) -> &'a mut [T] {
    if pointer.is_null() || length == 0 {
        &mut []
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts_mut(pointer, length) }
    }
}

/// The bytes of a C string argument; `None` for NULL.
///
/// # Safety
/// `pointer` must be NULL or point to a NUL-terminated string valid during `'a`.
pub(super) unsafe fn c_bytes<'a>(pointer: *const c_char) -> Option<&'a [u8]> {
    if pointer.is_null() {
        None
    } else {
        // SAFETY: guaranteed by the caller.
        Some(unsafe { CStr::from_ptr(pointer) }.to_bytes())
    }
}

/// The proxy a component pointer points to.
///
/// # Safety
/// `component` must be NULL or a pointer made by `Box::into_raw(Box<Proxy>)` (an isolated
/// instance's component) that was not freed, and not be used by another call at the same
/// time (FMI: the calls of one instance are sequential).
pub(super) unsafe fn proxy<'a>(component: *mut c_void) -> Option<&'a mut Proxy> {
    // SAFETY: guaranteed by the caller.
    unsafe { component.cast::<Proxy>().as_mut() }
}
