//! Isolated FMUs ([`Fmu::load_isolated`]): each instance in a helper process, against the
//! same library in this process. The FMUs are the project's own packed FMUs
//! (`fmus/packed`), extracted into temporary directories, so the tests need no corpus: the
//! FMI 2.0 `Prey`, `FourVarsFeedThrough` (all four types), `Part2` (serializable FMU states)
//! and `Faulty` (crashes and hangs), the FMI 3.0 `Prey3` and `AllTypes` (all thirteen types,
//! arrays included).
//!
//! Run with `cargo test --release -p mastersim-fmi --test isolated` (a few seconds).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use fmi::archive::{ExtractOptions, extract};
use fmi::isolation::{self, Platform};
use fmi::{
    Error, Fmi3InstantiateOptions, Fmu, Instance, Instance3, InstantiateOptions, Interface,
    ValueRef,
};

/// Communication step size of the runs, s.
const H: f64 = 0.01;

/// `fmus/packed/<name>.fmu` extracted into a temporary directory.
fn extracted(name: &str) -> tempfile::TempDir {
    let fmu = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fmus/packed")
        .join(format!("{name}.fmu"));
    assert!(fmu.is_file(), "packed FMU missing: '{}'", fmu.display());
    let dir = tempfile::tempdir().expect("temporary directory");
    extract(&fmu, dir.path(), &ExtractOptions::default())
        .unwrap_or_else(|e| panic!("extracting {}: {e}", fmu.display()));
    dir
}

/// The FMU in `dir` loaded isolated (native platform, no call timeout).
fn isolated(dir: &Path) -> Arc<Fmu> {
    Fmu::load_isolated(dir, Interface::CoSimulation, Platform::native(), None)
        .unwrap_or_else(|e| panic!("loading {} isolated: {e}", dir.display()))
}

/// The FMU in `dir` loaded in this process.
fn in_process(dir: &Path) -> Arc<Fmu> {
    Fmu::load(dir).unwrap_or_else(|e| panic!("loading {}: {e}", dir.display()))
}

/// An initialized FMI 2.0 instance at t = 0 s; `parameters` (vr, value) are set before
/// initialization.
fn initialized(fmu: &Arc<Fmu>, parameters: &[(u32, f64)]) -> Instance {
    let mut instance = fmu
        .instantiate("inst", &InstantiateOptions::default())
        .expect("instantiate");
    instance.setup_experiment(None, 0.0, None).expect("setup");
    for &(vr, value) in parameters {
        instance
            .set_real(&[ValueRef(vr)], &[value])
            .expect("parameter");
    }
    instance.enter_initialization_mode().expect("enter");
    instance.exit_initialization_mode().expect("exit");
    instance
}

/// Prey (FMI 2.0): the input `y` (vr 2) follows a ramp, the output `x` (vr 1) is read after
/// every step; returns the bits of `x` and the round trips of the stepping (when isolated).
fn run_prey(fmu: &Arc<Fmu>, steps: usize) -> (Vec<u64>, Option<u64>) {
    let mut prey = initialized(fmu, &[]);
    let before = prey.helper_calls().map(|c| c.round_trips);
    let mut x = [0.0];
    let mut bits = Vec::with_capacity(steps);
    for k in 0..steps {
        let t = k as f64 * H;
        prey.set_real(&[ValueRef(2)], &[4.0 + t]).expect("set y");
        prey.do_step(t, H, true).expect("doStep");
        prey.get_real(&[ValueRef(1)], &mut x).expect("get x");
        bits.push(x[0].to_bits());
    }
    let after = prey.helper_calls().map(|c| c.round_trips);
    (bits, after.zip(before).map(|(a, b)| a - b))
}

/// The same outputs, bit for bit, and one round trip per step of set input, `doStep` and get
/// output (the first step's getter goes alone: nothing was prefetched yet).
#[test]
fn fmi2_isolated_is_bit_identical_with_one_round_trip_per_step() {
    let dir = extracted("Prey");
    let steps = 300;
    let (expected, none) = run_prey(&in_process(dir.path()), steps);
    assert_eq!(none, None, "an in-process instance has no helper");
    let (found, round_trips) = run_prey(&isolated(dir.path()), steps);
    assert_eq!(found, expected);
    assert_eq!(round_trips, Some(steps as u64 + 1));
}

/// FourVarsFeedThrough: Boolean, Integer, String and Real inputs through the deferred
/// setters, the outputs through the prefetched getters.
#[test]
fn fmi2_all_types_feed_through() {
    let dir = extracted("FourVarsFeedThrough");
    let run = |fmu: &Arc<Fmu>| {
        let mut instance = initialized(fmu, &[]);
        let mut seen = Vec::new();
        let (mut b, mut i, mut s, mut r) = ([false], [0], [String::new()], [0.0]);
        for k in 0..50 {
            let t = f64::from(k) * H;
            instance.set_boolean(&[ValueRef(5)], &[k % 3 == 0]).unwrap();
            instance
                .set_integer(&[ValueRef(6)], &[k * 7 - 100])
                .unwrap();
            instance
                .set_string(&[ValueRef(7)], &[format!("step {k}: Grüße %s %n")])
                .unwrap();
            instance.set_real(&[ValueRef(8)], &[t.sin()]).unwrap();
            instance.do_step(t, H, true).unwrap();
            instance.get_boolean(&[ValueRef(1)], &mut b).unwrap();
            instance.get_integer(&[ValueRef(2)], &mut i).unwrap();
            instance.get_string(&[ValueRef(3)], &mut s).unwrap();
            instance.get_real(&[ValueRef(4)], &mut r).unwrap();
            seen.push(format!("{} {} {} {:?}", b[0], i[0], s[0], r[0].to_bits()));
        }
        seen
    };
    let expected = run(&in_process(dir.path()));
    assert!(
        expected[3].starts_with("true -79 step 3: Grüße %s %n"),
        "{}",
        expected[3]
    );
    assert_eq!(run(&isolated(dir.path())), expected);
}

/// Part2: an FMU state taken, stepped past and restored gives the same outputs again, also
/// through serialization; isolated and in-process agree bit for bit.
#[test]
fn fmi2_fmu_states_round_trip_isolated() {
    let dir = extracted("Part2");
    let run = |fmu: &Arc<Fmu>| {
        let mut part = initialized(fmu, &[]);
        assert!(part.can_serialize_fmu_state());
        let mut out = [0.0];
        let mut stretch = |part: &mut Instance, from: usize| {
            let mut bits = Vec::new();
            for k in from..from + 20 {
                let t = k as f64 * H;
                part.set_real(&[ValueRef(4)], &[(3.0 * t).cos()]).unwrap();
                part.do_step(t, H, false).unwrap();
                part.get_real(&[ValueRef(3)], &mut out).unwrap();
                bits.push(out[0].to_bits());
            }
            bits
        };
        stretch(&mut part, 0);
        let state = part.get_fmu_state(None).expect("get state");
        let first = stretch(&mut part, 20);
        part.set_fmu_state(state).expect("set state");
        assert_eq!(stretch(&mut part, 20), first, "restored state");
        let bytes = part.serialize_fmu_state(state).expect("serialize");
        let copy = part.deserialize_fmu_state(&bytes).expect("deserialize");
        part.set_fmu_state(copy).expect("set deserialized state");
        assert_eq!(stretch(&mut part, 20), first, "deserialized state");
        part.free_fmu_state(copy).expect("free");
        (first, bytes)
    };
    assert_eq!(run(&isolated(dir.path())), run(&in_process(dir.path())));
}

/// Faulty (FMI 2.0) with one fault parameter (vr) at t = 0.05 s, isolated with
/// `call_timeout`: steps until the first error and returns it with the helper's pid.
fn faulty_until_error(parameter: u32, call_timeout: Option<Duration>) -> (Error, u32) {
    let dir = extracted("Faulty");
    let fmu = Fmu::load_isolated(
        dir.path(),
        Interface::CoSimulation,
        Platform::native(),
        call_timeout,
    )
    .expect("load Faulty isolated");
    let mut faulty = initialized(&fmu, &[(parameter, 0.05)]);
    let pid = faulty.helper_calls().expect("isolated").pid;
    for k in 0..100 {
        let t = f64::from(k) * H;
        if let Err(error) = faulty.do_step(t, H, true) {
            // Nothing reaches the dead helper any more; dropping the instance reaps it.
            let again = faulty.get_real(&[ValueRef(2)], &mut [0.0]).unwrap_err();
            assert!(matches!(again, Error::InvalidCall { .. }), "{again}");
            drop(faulty);
            assert!(
                !Path::new(&format!("/proc/{pid}")).exists(),
                "helper {pid} still there"
            );
            return (error, pid);
        }
    }
    panic!("Faulty did not fail");
}

/// A segfault, an abort and an exit() in `fmi2DoStep` end the helper only: the error names
/// the instance, the function and the signal or exit code.
#[test]
fn crashes_in_the_helper_are_errors_naming_function_and_signal() {
    let cases: [(u32, Option<i32>, Option<i32>); 3] = [
        (8, Some(libc_signal("SIGSEGV")), None),
        (9, Some(libc_signal("SIGABRT")), None),
        (12, None, Some(3)),
    ];
    for (parameter, expected_signal, expected_exit) in cases {
        let (error, _) = faulty_until_error(parameter, None);
        let text = error.to_string();
        let Error::Isolated {
            instance,
            function,
            source:
                isolation::Error::Crashed {
                    function: in_progress,
                    signal,
                    exit_code,
                    ..
                },
        } = &error
        else {
            panic!("unexpected error: {text}");
        };
        assert_eq!((instance.as_str(), *function), ("inst", "fmi2DoStep"));
        assert_eq!(*in_progress, "fmi2DoStep", "{text}");
        assert_eq!(
            (*signal, *exit_code),
            (expected_signal, expected_exit),
            "{text}"
        );
        assert!(text.contains("fmi2DoStep"), "{text}");
    }
}

/// The number of a signal by name (Linux x86-64).
fn libc_signal(name: &str) -> i32 {
    match name {
        "SIGSEGV" => 11,
        "SIGABRT" => 6,
        other => panic!("unknown signal {other}"),
    }
}

/// A hang in `fmi2DoStep` past the call timeout kills the helper: a timeout error.
#[test]
fn a_hang_past_the_call_timeout_is_a_timeout() {
    let (error, _) = faulty_until_error(7, Some(Duration::from_millis(300)));
    let text = error.to_string();
    assert!(
        matches!(
            &error,
            Error::Isolated {
                function: "fmi2DoStep",
                source: isolation::Error::Timeout {
                    function: "fmi2DoStep",
                    ..
                },
                ..
            }
        ),
        "{text}"
    );
}

/// Prey3 (FMI 3.0) as Prey above: bit-identical, one round trip per step.
#[test]
fn fmi3_isolated_is_bit_identical_with_one_round_trip_per_step() {
    let dir = extracted("Prey3");
    let run = |fmu: &Arc<Fmu>| {
        let mut prey = initialized3(fmu);
        let before = prey.helper_calls().map(|c| c.round_trips);
        let mut x = [0.0];
        let mut bits = Vec::new();
        for k in 0..300 {
            let t = f64::from(k) * H;
            prey.set_float64(&[ValueRef(2)], &[4.0 + t]).unwrap();
            let step = prey.do_step(t, H, true).unwrap();
            assert_eq!(step.last_successful_time, t + H);
            prey.get_float64(&[ValueRef(1)], &mut x).unwrap();
            bits.push(x[0].to_bits());
        }
        let after = prey.helper_calls().map(|c| c.round_trips);
        (bits, after.zip(before).map(|(a, b)| a - b))
    };
    let (expected, _) = run(&in_process(dir.path()));
    let (found, round_trips) = run(&isolated(dir.path()));
    assert_eq!(found, expected);
    assert_eq!(round_trips, Some(301));
}

/// An FMI 3.0 instance in Step Mode at t = 0 s.
fn initialized3(fmu: &Arc<Fmu>) -> Instance3 {
    let mut instance = fmu
        .instantiate_fmi3("inst3", &Fmi3InstantiateOptions::default())
        .expect("instantiate");
    instance
        .enter_initialization_mode(None, 0.0, None)
        .expect("enter");
    instance.exit_initialization_mode().expect("exit");
    instance
}

/// AllTypes (FMI 3.0): every type, arrays and the extreme values, String and Binary with
/// non-ASCII text and zero bytes, set (deferred) and read back after each step.
#[test]
fn fmi3_all_types_feed_through() {
    let dir = extracted("AllTypes");
    let run = |fmu: &Arc<Fmu>| {
        let mut all = initialized3(fmu);
        let mut seen = Vec::new();
        for k in 0..20u8 {
            let t = f64::from(k) * H;
            let v = |vr| [ValueRef(vr)];
            all.set_float32(&v(1), &[f32::from(k) / 3.0]).unwrap();
            all.set_float64(&v(3), &[f64::from(k) / 7.0]).unwrap();
            all.set_int8(&v(5), &[-(k as i8)]).unwrap();
            all.set_uint8(&v(7), &[255 - k]).unwrap();
            all.set_int16(&v(9), &[i16::MIN + i16::from(k)]).unwrap();
            all.set_uint16(&v(11), &[u16::MAX - u16::from(k)]).unwrap();
            all.set_int32(&v(13), &[i32::MIN + i32::from(k)]).unwrap();
            all.set_uint32(&v(15), &[u32::MAX - u32::from(k)]).unwrap();
            all.set_int64(&v(17), &[i64::MAX - i64::from(k)]).unwrap();
            all.set_uint64(&v(19), &[u64::MAX - u64::from(k)]).unwrap();
            all.set_boolean(&v(21), &[k % 2 == 1]).unwrap();
            all.set_string(&v(23), &[format!("Grüße {k} %s")]).unwrap();
            all.set_binary(&v(25), &[vec![0, k, 0xff]]).unwrap();
            all.set_float64(&v(40), &[1.0, -f64::from(k), 3.25])
                .unwrap();
            all.set_int32(&v(42), &[1, 2, 3, i32::from(k)]).unwrap();
            all.do_step(t, H, k % 2 == 0).unwrap();
            seen.push(all_outputs(&mut all));
        }
        seen
    };
    let expected = run(&in_process(dir.path()));
    assert!(expected[19].contains("Grüße 19 %s"), "{}", expected[19]);
    assert_eq!(run(&isolated(dir.path())), expected);
}

/// Every output of AllTypes, formatted (floats as bits).
fn all_outputs(all: &mut Instance3) -> String {
    let v = |vr| [ValueRef(vr)];
    let (mut f32s, mut f64s, mut i8s, mut u8s) = ([0f32], [0f64; 1], [0i8], [0u8]);
    let (mut i16s, mut u16s, mut i32s, mut u32s) = ([0i16], [0u16], [0i32], [0u32]);
    let (mut i64s, mut u64s, mut bools) = ([0i64], [0u64], [false, false]);
    let (mut strings, mut binaries) = ([String::new()], [Vec::new()]);
    let (mut y, mut m) = ([0f64; 3], [0i32; 4]);
    all.get_float32(&v(2), &mut f32s).unwrap();
    all.get_float64(&v(4), &mut f64s).unwrap();
    all.get_int8(&v(6), &mut i8s).unwrap();
    all.get_uint8(&v(8), &mut u8s).unwrap();
    all.get_int16(&v(10), &mut i16s).unwrap();
    all.get_uint16(&v(12), &mut u16s).unwrap();
    all.get_int32(&v(14), &mut i32s).unwrap();
    all.get_uint32(&v(16), &mut u32s).unwrap();
    all.get_int64(&v(18), &mut i64s).unwrap();
    all.get_uint64(&v(20), &mut u64s).unwrap();
    all.get_boolean(&[ValueRef(22), ValueRef(60)], &mut bools)
        .unwrap();
    all.get_string(&v(24), &mut strings).unwrap();
    all.get_binary(&v(26), &mut binaries).unwrap();
    all.get_float64(&v(41), &mut y).unwrap();
    all.get_int32(&v(43), &mut m).unwrap();
    format!(
        "{:x} {:x} {i8s:?} {u8s:?} {i16s:?} {u16s:?} {i32s:?} {u32s:?} {i64s:?} {u64s:?} \
         {bools:?} {strings:?} {binaries:?} {:?} {m:?}",
        f32s[0].to_bits(),
        f64s[0].to_bits(),
        y.map(f64::to_bits)
    )
}

/// FMI 1.0 and Model Exchange are refused before any process starts; the platforms an FMU
/// ships are listed with whether they run here.
#[test]
fn refusals_and_shipped_platforms() {
    let oscillator = extracted("Oscillator");
    let error = Fmu::load_isolated(
        oscillator.path(),
        Interface::CoSimulation,
        Platform::native(),
        None,
    )
    .unwrap_err();
    assert!(matches!(error, Error::IsolationRefused { .. }), "{error}");
    assert!(error.to_string().contains("FMI 1.0"), "{error}");
    let linear = extracted("Linear");
    let error = Fmu::load_isolated(
        linear.path(),
        Interface::ModelExchange,
        Platform::native(),
        None,
    )
    .unwrap_err();
    assert!(error.to_string().contains("Model Exchange"), "{error}");

    let prey3 = extracted("Prey3");
    let description = in_process(prey3.path()).description().clone();
    let shipped = fmi::shipped_platforms(prey3.path(), &description);
    assert_eq!(shipped.len(), 1, "{shipped:?}");
    assert_eq!(shipped[0].platform, Platform::Linux64);
    assert_eq!(shipped[0].availability, Ok(()));
    let library: PathBuf = prey3.path().join("binaries/x86_64-linux/Prey3.so");
    assert_eq!(shipped[0].library, library);
    // A win32 library needs Wine's 32-bit part: without it, the error says what to install.
    let fake = tempfile::tempdir().unwrap();
    std::fs::copy(
        prey3.path().join("modelDescription.xml"),
        fake.path().join("modelDescription.xml"),
    )
    .unwrap();
    std::fs::create_dir_all(fake.path().join("binaries/x86-windows")).unwrap();
    std::fs::write(fake.path().join("binaries/x86-windows/Prey3.dll"), b"MZ").unwrap();
    let error = Fmu::load_isolated(fake.path(), Interface::CoSimulation, Platform::Win32, None)
        .unwrap_err();
    assert!(matches!(error, Error::IsolatedLoad { .. }), "{error}");
    if let Err(what_to_install) = isolation::availability(Platform::Win32) {
        assert!(error.to_string().contains(&what_to_install), "{error}");
    }
    // No win64 library: loading for win64 says which folders the FMU has.
    let error = Fmu::load_isolated(prey3.path(), Interface::CoSimulation, Platform::Win64, None)
        .unwrap_err();
    assert!(matches!(error, Error::MissingLibrary { .. }), "{error}");
}

/// Collects the records logged with target `fmu` (the FMUs' messages).
struct Capture(std::sync::Mutex<Vec<String>>);

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        if record.target() == "fmu" {
            let mut records = self.0.lock().unwrap_or_else(|p| p.into_inner());
            records.push(format!("{} {}", record.level(), record.args()));
        }
    }
    fn flush(&self) {}
}

static CAPTURE: Capture = Capture(std::sync::Mutex::new(Vec::new()));

/// The captured FMU messages that contain `text` (tests run in parallel: each looks for its
/// own messages).
fn captured(text: &str) -> Vec<String> {
    let _ = log::set_logger(&CAPTURE);
    log::set_max_level(log::LevelFilter::Trace);
    let records = CAPTURE.0.lock().unwrap_or_else(|p| p.into_inner());
    records
        .iter()
        .filter(|r| r.contains(text))
        .cloned()
        .collect()
}

/// The FMU's log messages reach the instance's logger with the instance name, category and
/// level, and an Error status of the FMU stays an FMU error (not a transport one).
#[test]
fn log_messages_and_fmu_errors_come_through() {
    captured("");
    let dir = extracted("Faulty");
    let fmu = isolated(dir.path());
    let mut faulty = fmu
        .instantiate("logging", &InstantiateOptions::default())
        .unwrap();
    faulty.setup_experiment(None, 0.0, None).unwrap();
    faulty.set_real(&[ValueRef(4)], &[0.05]).unwrap(); // errorTime
    faulty.enter_initialization_mode().unwrap();
    faulty.exit_initialization_mode().unwrap();
    let error = (0..100)
        .find_map(|k| faulty.do_step(f64::from(k) * H, H, true).err())
        .expect("Faulty fails at errorTime");
    assert!(
        matches!(
            error,
            Error::CallFailed {
                function: "fmi2DoStep",
                status: fmi::FailureStatus::Error,
                ..
            }
        ),
        "{error}"
    );
    let messages = captured("[logging:logStatusError]");
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("ERROR") && m.contains("errorTime = 0.05 s reached")),
        "{messages:?}"
    );
}

/// A deferred setter that fails makes the next call fail with its status, and a log message
/// names the setter (AllTypes refuses an enumeration value outside its items).
#[test]
fn a_failing_deferred_setter_fails_the_next_call() {
    captured("");
    let dir = extracted("AllTypes");
    let fmu = isolated(dir.path());
    let mut all = initialized3(&fmu);
    assert!(all.set_int64(&[ValueRef(27)], &[5]).is_ok(), "deferred");
    let error = all.do_step(0.0, H, true).unwrap_err();
    assert!(
        matches!(
            error,
            Error::CallFailed {
                function: "fmi3DoStep",
                status: fmi::FailureStatus::Error,
                ..
            }
        ),
        "{error}"
    );
    let messages = captured("[inst3:mastersim-isolation] fmi3SetInt64 returned status 3");
    assert_eq!(messages.len(), 1, "{messages:?}");
}
