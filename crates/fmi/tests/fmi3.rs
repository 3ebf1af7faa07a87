//! FMI 3.0 co-simulation instances ([`fmi::Instance3`]) against the Modelica Reference FMUs of
//! the conformance corpus (`corpus/fmi3`, see its README): BouncingBall, Dahlquist,
//! Feedthrough, Resource, Stair and VanDerPol, built for FMI 3.0 with `x86_64-linux` binaries.
//!
//! The corpus is `$MASTERSIM_CORPUS`, or `../shared/corpus` next to the workspace; every test
//! fails, naming the path it looked for, when it is missing. The FMUs are extracted into
//! temporary directories, never copied into the repository.
//!
//! The tests run one at a time (`serial`): the leak check counts the process's heap, and the
//! log capture is process-wide.
//!
//! Model Exchange instances (FMI 3.0, and FMI 2.0 from `corpus/crosscheck/fmi2`) are tested in
//! [`model_exchange`], isolated instances (helper processes, win64 under Wine, linux32) in
//! [`isolated`], FMU states, directional derivatives and early return in [`states`].
//!
//! Run with `cargo test -p mastersim-fmi --release --test fmi3`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use fmi::archive::{ExtractOptions, extract};

#[path = "fmi3/isolated.rs"]
mod isolated;
#[path = "fmi3/model_exchange.rs"]
mod model_exchange;
#[path = "fmi3/states.rs"]
mod states;
use fmi::{
    Error, FailureStatus, Fmi3InstantiateOptions, FmiVersion, Fmu, Instance3, Status, ValueRef,
};

/// The conformance corpus: `$MASTERSIM_CORPUS`, or `../shared/corpus` next to the workspace.
fn corpus_dir() -> PathBuf {
    let dir = std::env::var_os("MASTERSIM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    assert!(
        dir.is_dir(),
        "the conformance corpus is missing: looked for directory '{}'",
        dir.display()
    );
    dir
}

/// `corpus/fmi3/<model>/<model>.fmu`.
fn corpus_fmu(model: &str) -> PathBuf {
    let path = corpus_dir()
        .join("fmi3")
        .join(model)
        .join(format!("{model}.fmu"));
    assert!(path.is_file(), "corpus FMU missing: '{}'", path.display());
    path
}

/// An extracted and loaded FMU; the directory is removed after the FMU is dropped.
struct Loaded {
    fmu: Arc<Fmu>,
    dir: tempfile::TempDir,
}

/// Extracts `fmu` into a temporary directory (`edit` may change it) and loads it.
fn extract_and(fmu: &Path, edit: impl FnOnce(&Path)) -> (tempfile::TempDir, fmi::Result<Arc<Fmu>>) {
    let dir = tempfile::tempdir().expect("temp dir");
    extract(fmu, dir.path(), &ExtractOptions::default())
        .unwrap_or_else(|e| panic!("extracting {}: {e}", fmu.display()));
    edit(dir.path());
    let loaded = Fmu::load(dir.path());
    (dir, loaded)
}

/// Extracts and loads the corpus FMU `model`.
fn load(model: &str) -> Loaded {
    let (dir, fmu) = extract_and(&corpus_fmu(model), |_| {});
    let fmu = fmu.unwrap_or_else(|e| panic!("loading {model}: {e}"));
    Loaded { fmu, dir }
}

/// The value reference of the variable `name`.
fn vr(fmu: &Fmu, name: &str) -> ValueRef {
    fmu.description()
        .variable_by_name(name)
        .unwrap_or_else(|| panic!("no variable '{name}'"))
        .value_reference
}

/// Instantiates `loaded` with `options`.
fn instantiate(loaded: &Loaded, name: &str, options: &Fmi3InstantiateOptions) -> Instance3 {
    loaded
        .fmu
        .instantiate_fmi3(name, options)
        .unwrap_or_else(|e| panic!("instantiating {name}: {e}"))
}

/// Instantiates without Event Mode and initializes from `start` (s) to `stop` (s), tolerance
/// 1e-5: the instance is then in Step Mode.
fn initialized(loaded: &Loaded, name: &str, start: f64, stop: f64) -> Instance3 {
    let mut instance = instantiate(loaded, name, &Fmi3InstantiateOptions::default());
    instance
        .enter_initialization_mode(Some(1e-5), start, Some(stop))
        .expect("enter initialization mode");
    instance
        .exit_initialization_mode()
        .expect("exit initialization mode");
    instance
}

/// Runs the tests of this file one at a time.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Collects the records logged with targets `fmi3` and `fmu`.
struct Capture(Mutex<Vec<(String, log::Level, String)>>);

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        if matches!(record.target(), "fmi3" | "fmu") {
            self.0.lock().unwrap_or_else(|p| p.into_inner()).push((
                record.target().to_owned(),
                record.level(),
                record.args().to_string(),
            ));
        }
    }
    fn flush(&self) {}
}

static CAPTURE: Capture = Capture(Mutex::new(Vec::new()));

/// Installs the capturing logger (once) and empties it.
fn capture_log() {
    let _ = log::set_logger(&CAPTURE);
    log::set_max_level(log::LevelFilter::Trace);
    CAPTURE.0.lock().unwrap_or_else(|p| p.into_inner()).clear();
}

/// The captured records of `target`.
fn captured(target: &str) -> Vec<(log::Level, String)> {
    CAPTURE
        .0
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .filter(|(t, _, _)| t == target)
        .map(|(_, level, message)| (*level, message.clone()))
        .collect()
}

#[test]
fn fmi3_load_finds_the_x86_64_linux_library() {
    let _serial = serial();
    let loaded = load("BouncingBall");
    let fmu = &loaded.fmu;
    assert_eq!(fmu.description().fmi_version, FmiVersion::V3);
    assert!(
        fmu.library_path()
            .ends_with("binaries/x86_64-linux/BouncingBall.so"),
        "{}",
        fmu.library_path().display()
    );
    assert_eq!(fmu.get_version().as_deref(), Some("3.0"));
    assert_eq!(fmu.get_types_platform(), None);
    let capabilities = &fmu.description().capabilities;
    assert!(capabilities.has_event_mode);
    assert!(capabilities.can_get_and_set_fmu_state);
    assert!(capabilities.can_serialize_fmu_state);
}

#[test]
fn fmi3_missing_platform_names_x86_64_linux() {
    let _serial = serial();
    let (_dir, result) = extract_and(&corpus_fmu("Dahlquist"), |dir| {
        std::fs::remove_dir_all(dir.join("binaries/x86_64-linux")).expect("remove binaries");
    });
    let error = result.expect_err("no x86_64-linux binary");
    let Error::MissingLibrary {
        library,
        platforms: Some(platforms),
    } = &error
    else {
        panic!("unexpected error: {error}");
    };
    assert!(
        library.ends_with("binaries/x86_64-linux/Dahlquist.so"),
        "{}",
        library.display()
    );
    assert!(
        platforms.iter().any(|p| p == "aarch64-linux"),
        "{platforms:?}"
    );
    let text = error.to_string();
    assert!(
        text.contains("x86_64-linux") && text.contains("aarch64-linux"),
        "{text}"
    );
}

#[test]
fn fmi3_and_fmi2_instantiation_refuse_each_others_fmus() {
    let _serial = serial();
    let fmi3 = load("Dahlquist");
    let error = fmi3
        .fmu
        .instantiate("d", &fmi::InstantiateOptions::default())
        .expect_err("FMI 3.0 FMU through Fmu::instantiate");
    assert!(matches!(error, Error::InvalidCall { .. }), "{error}");

    let fmi2_path = corpus_dir().join("crosscheck/fmi2/TestFMUs-0.0.1/Dahlquist/Dahlquist.fmu");
    assert!(
        fmi2_path.is_file(),
        "corpus FMU missing: '{}'",
        fmi2_path.display()
    );
    let (_dir, fmi2) = extract_and(&fmi2_path, |_| {});
    let fmi2 = fmi2.expect("load the FMI 2.0 Dahlquist");
    let error = fmi2
        .instantiate_fmi3("d", &Fmi3InstantiateOptions::default())
        .expect_err("FMI 2.0 FMU through Fmu::instantiate_fmi3");
    let text = error.to_string();
    assert!(
        matches!(error, Error::InvalidCall { .. }) && text.contains("Fmu::instantiate"),
        "{text}"
    );
}

#[test]
fn fmi3_event_mode_needs_has_event_mode() {
    let _serial = serial();
    let loaded = load("Dahlquist");
    let options = Fmi3InstantiateOptions {
        event_mode_used: true,
        ..Default::default()
    };
    let error = loaded
        .fmu
        .instantiate_fmi3("d", &options)
        .expect_err("Dahlquist has no Event Mode");
    assert!(error.to_string().contains("hasEventMode"), "{error}");
}

/// Resource opens `<resourcePath>y.txt`, so it only works with a native path ending in '/'.
#[test]
fn fmi3_resource_reads_its_resource_file() {
    let _serial = serial();
    let loaded = load("Resource");
    assert!(loaded.dir.path().join("resources/y.txt").is_file());
    let mut instance = initialized(&loaded, "resource", 0.0, 1.0);
    let mut y = [0];
    instance
        .get_int32(&[vr(&loaded.fmu, "y")], &mut y)
        .expect("get y");
    assert_eq!(
        y,
        [i32::from(b'a')],
        "the first character of resources/y.txt"
    );
}

/// Dahlquist (x' = -k·x, k = 1, x(0) = 1) integrates with forward Euler at its fixed internal
/// step of 0.1 s, so x(1) = 0.9^10.
#[test]
fn fmi3_dahlquist_initializes_and_steps() {
    let _serial = serial();
    let loaded = load("Dahlquist");
    let x = vr(&loaded.fmu, "x");
    let mut instance = instantiate(&loaded, "dahlquist", &Fmi3InstantiateOptions::default());
    assert_eq!(instance.name(), "dahlquist");
    assert!(!instance.is_failed());
    assert!(Arc::ptr_eq(instance.fmu(), &loaded.fmu));
    let status = instance
        .enter_initialization_mode(Some(1e-5), 0.0, Some(10.0))
        .expect("enter init");
    assert_eq!(status, Status::Ok);
    instance.exit_initialization_mode().expect("exit init");
    let mut value = [0.0];
    instance.get_float64(&[x], &mut value).expect("get x");
    assert_eq!(value, [1.0]);
    let h = 0.1;
    for step in 0..10 {
        let t = f64::from(step) * h;
        let result = instance.do_step(t, h, true).expect("step");
        assert_eq!(result.status, Status::Ok);
        assert!(
            !result.event_handling_needed && !result.terminate_simulation && !result.early_return
        );
        assert!(
            (result.last_successful_time - (t + h)).abs() < 1e-12,
            "{result:?}"
        );
    }
    instance.get_float64(&[x], &mut value).expect("get x");
    assert!(
        (value[0] - 0.9f64.powi(10)).abs() < 1e-12,
        "x(1) = {}",
        value[0]
    );
    instance.terminate().expect("terminate");
    let error = instance.terminate().expect_err("second terminate");
    assert!(matches!(error, Error::InvalidCall { .. }), "{error}");
}

/// Feedthrough copies each input to the output of the same type: every type round-trips,
/// extreme integers and binary values with zero bytes included.
#[test]
fn fmi3_feedthrough_round_trips_every_type() {
    let _serial = serial();
    let loaded = load("Feedthrough");
    let fmu = &loaded.fmu;
    let v = |name: &str| vr(fmu, name);
    let mut instance = instantiate(&loaded, "feedthrough", &Fmi3InstantiateOptions::default());

    // A fixed String parameter: set after instantiation, read back after initialization.
    let text = "grüße, \u{1F600}";
    instance
        .set_string(&[v("String_parameter")], &[text])
        .expect("set String");
    instance
        .enter_initialization_mode(None, 0.0, None)
        .expect("enter init");
    instance.exit_initialization_mode().expect("exit init");
    let mut strings = [String::from("old contents")];
    instance
        .get_string(&[v("String_parameter")], &mut strings)
        .expect("get String");
    assert_eq!(strings[0], text);

    let set_all = |instance: &mut Instance3, int64: i64, binary: &[u8]| {
        instance
            .set_float32(
                &[v("Float32_continuous_input"), v("Float32_discrete_input")],
                &[-3.5, f32::MAX],
            )
            .expect("set Float32");
        instance
            .set_float64(
                &[v("Float64_continuous_input"), v("Float64_discrete_input")],
                &[std::f64::consts::PI, -1e300],
            )
            .expect("set Float64");
        instance
            .set_int8(&[v("Int8_input")], &[i8::MIN])
            .expect("set Int8");
        instance
            .set_uint8(&[v("UInt8_input")], &[u8::MAX])
            .expect("set UInt8");
        instance
            .set_int16(&[v("Int16_input")], &[i16::MIN])
            .expect("set Int16");
        instance
            .set_uint16(&[v("UInt16_input")], &[u16::MAX])
            .expect("set UInt16");
        instance
            .set_int32(&[v("Int32_input")], &[i32::MIN])
            .expect("set Int32");
        instance
            .set_uint32(&[v("UInt32_input")], &[u32::MAX])
            .expect("set UInt32");
        instance
            .set_int64(&[v("Int64_input"), v("Enumeration_input")], &[int64, 2])
            .expect("set Int64");
        instance
            .set_uint64(&[v("UInt64_input")], &[u64::MAX])
            .expect("set UInt64");
        instance
            .set_boolean(&[v("Boolean_input")], &[true])
            .expect("set Boolean");
        instance
            .set_binary(&[v("Binary_input")], &[binary])
            .expect("set Binary");
    };

    let mut t = 0.0;
    let h = 0.1;
    for (int64, binary) in [
        (i64::MIN, &[0x00, 0x01, 0xff, 0x00][..]),
        (i64::MAX, &[0x00][..]),
        (-1, &[][..]),
    ] {
        set_all(&mut instance, int64, binary);
        let result = instance.do_step(t, h, false).expect("step");
        assert_eq!(result.status, Status::Ok);
        t += h;

        // Reads `names` with `get` into an array like `expected` and compares.
        macro_rules! assert_outputs {
            ($get:ident, $names:expr, $expected:expr) => {{
                let expected = $expected;
                let vrs: Vec<ValueRef> = $names.iter().map(|name| v(name)).collect();
                let mut values = expected.map(|_| Default::default());
                instance.$get(&vrs, &mut values).expect(stringify!($get));
                assert_eq!(values, expected, "{}", stringify!($get));
            }};
        }
        assert_outputs!(
            get_float32,
            ["Float32_continuous_output", "Float32_discrete_output"],
            [-3.5f32, f32::MAX]
        );
        assert_outputs!(
            get_float64,
            ["Float64_continuous_output", "Float64_discrete_output"],
            [std::f64::consts::PI, -1e300]
        );
        assert_outputs!(get_int8, ["Int8_output"], [i8::MIN]);
        assert_outputs!(get_uint8, ["UInt8_output"], [u8::MAX]);
        assert_outputs!(get_int16, ["Int16_output"], [i16::MIN]);
        assert_outputs!(get_uint16, ["UInt16_output"], [u16::MAX]);
        assert_outputs!(get_int32, ["Int32_output"], [i32::MIN]);
        assert_outputs!(get_uint32, ["UInt32_output"], [u32::MAX]);
        // Outputs and inputs in one batch.
        assert_outputs!(
            get_int64,
            ["Int64_output", "Enumeration_output", "Int64_input"],
            [int64, 2, int64]
        );
        assert_outputs!(get_uint64, ["UInt64_output"], [u64::MAX]);
        assert_outputs!(get_boolean, ["Boolean_output"], [true]);
        let mut binaries = [vec![0xAA; 16], Vec::new()];
        instance
            .get_binary(&[v("Binary_output"), v("Binary_input")], &mut binaries)
            .expect("get Binary");
        assert_eq!(binaries, [binary.to_vec(), binary.to_vec()]);
    }

    // Booleans both ways in one batch (input and output).
    instance
        .set_boolean(&[v("Boolean_input")], &[false])
        .expect("set Boolean");
    let mut booleans = [true, true];
    instance
        .get_boolean(&[v("Boolean_input"), v("Boolean_output")], &mut booleans)
        .expect("get Boolean");
    assert_eq!(booleans, [false, false]);

    // Empty batches are not passed on; values without value references are refused.
    assert_eq!(
        instance.set_float64(&[], &[]).expect("empty set"),
        Status::Ok
    );
    assert_eq!(
        instance.get_binary(&[], &mut []).expect("empty get"),
        Status::Ok
    );
    let error = instance
        .set_float64(&[], &[1.0])
        .expect_err("values without vrs");
    assert!(
        matches!(
            error,
            Error::LengthMismatch {
                expected: 0,
                found: 1,
                ..
            }
        ),
        "{error}"
    );
    let error = instance
        .set_string(&[v("String_parameter")], &["a\0b"])
        .expect_err("interior NUL");
    assert!(
        matches!(error, Error::InteriorNul { index: 0, .. }),
        "{error}"
    );
    assert!(!instance.is_failed());
}

/// Stair counts the seconds: its counter (Int32, start 1) increments at every whole second
/// through a time event, and it asks to end the simulation when the counter reaches 10. With
/// Event Mode used, the master handles each event: Event Mode, update the discrete states
/// until nothing changes, back to Step Mode.
#[test]
fn fmi3_stair_in_event_mode_counts_seconds_and_asks_to_terminate() {
    let _serial = serial();
    let loaded = load("Stair");
    let counter = vr(&loaded.fmu, "counter");
    let options = Fmi3InstantiateOptions {
        event_mode_used: true,
        ..Default::default()
    };
    let mut instance = instantiate(&loaded, "stair", &options);

    /// Event iteration, then back to Step Mode; returns the FMU's termination request.
    fn handle_event(instance: &mut Instance3) -> bool {
        let mut terminate = false;
        for iteration in 0.. {
            assert!(iteration < 10, "event iteration does not converge");
            let states = instance
                .update_discrete_states()
                .expect("update discrete states");
            terminate |= states.terminate_simulation;
            if !states.discrete_states_need_update {
                break;
            }
        }
        instance.enter_step_mode().expect("enter step mode");
        terminate
    }

    instance
        .enter_initialization_mode(None, 0.0, Some(10.0))
        .expect("enter init");
    instance
        .exit_initialization_mode()
        .expect("exit init: now in Event Mode");
    assert!(!handle_event(&mut instance));
    let mut value = [0];
    instance
        .get_int32(&[counter], &mut value)
        .expect("get counter");
    assert_eq!(value, [1]);

    let h = 0.2;
    let mut events = Vec::new();
    let mut terminated_at = None;
    for step in 0..50 {
        let t = f64::from(step) * h;
        let result = instance.do_step(t, h, true).expect("step");
        assert!(!result.early_return, "early return was not allowed");
        let mut terminate = result.terminate_simulation;
        if result.event_handling_needed {
            instance.enter_event_mode().expect("enter event mode");
            terminate |= handle_event(&mut instance);
        }
        instance
            .get_int32(&[counter], &mut value)
            .expect("get counter");
        let now = t + h;
        // The counter is 1 + the number of whole seconds passed.
        assert_eq!(value[0], 1 + (now + 1e-9).floor() as i32, "at t = {now}");
        if result.event_handling_needed {
            events.push((now, value[0]));
        }
        if terminate {
            terminated_at = Some((now, value[0]));
            break;
        }
    }
    let (time, count) = terminated_at.expect("Stair asks to terminate");
    assert!((time - 9.0).abs() < 1e-9, "terminates at t = {time}");
    assert_eq!(count, 10);
    assert_eq!(events.len(), 9, "one event per whole second: {events:?}");
    instance.terminate().expect("terminate");
}

/// Steps `instance` `n` times by `h` from `t`, returning the values of `vrs` after each step.
fn trajectory(instance: &mut Instance3, vrs: &[ValueRef], t: f64, h: f64, n: u32) -> Vec<Vec<f64>> {
    (0..n)
        .map(|k| {
            instance
                .do_step(t + f64::from(k) * h, h, false)
                .expect("step");
            let mut values = vec![0.0; vrs.len()];
            instance.get_float64(vrs, &mut values).expect("get");
            values
        })
        .collect()
}

/// `do_step` logs its arguments at debug level (target `fmi3`); the FMU's own messages reach
/// the `log` crate (target `fmu`) with the instance name; an Error status marks the instance
/// failed until `reset`.
#[test]
fn fmi3_logging_errors_and_reset() {
    let _serial = serial();
    capture_log();
    let loaded = load("Dahlquist");
    let mut instance = initialized(&loaded, "logged", 0.0, 10.0);
    instance.do_step(0.0, 0.1, false).expect("step");
    instance.do_step(0.1, 0.1, true).expect("step");
    let debug = captured("fmi3");
    assert!(
        debug.contains(&(
            log::Level::Debug,
            "fmi3DoStep(t=0, h=0.1, noSetFMUStatePriorToCurrentPoint=false)".to_owned()
        )),
        "{debug:?}"
    );
    assert!(
        debug.contains(&(
            log::Level::Debug,
            "fmi3DoStep(t=0.1, h=0.1, noSetFMUStatePriorToCurrentPoint=true)".to_owned()
        )),
        "{debug:?}"
    );

    // The wrong communication point: the FMU logs why and returns Error.
    let error = instance.do_step(5.0, 0.1, false).expect_err("wrong time");
    assert!(
        matches!(
            error,
            Error::CallFailed {
                function: "fmi3DoStep",
                status: FailureStatus::Error,
                ..
            }
        ),
        "{error}"
    );
    assert!(instance.is_failed());
    let messages = captured("fmu");
    assert!(
        messages.iter().any(|(level, m)| *level == log::Level::Error
            && m.starts_with("[logged:")
            && m.contains("currentCommunicationPoint")),
        "{messages:?}"
    );

    instance.reset().expect("reset");
    assert!(!instance.is_failed());
    instance
        .enter_initialization_mode(None, 0.0, Some(10.0))
        .expect("enter init after reset");
    instance.exit_initialization_mode().expect("exit init");
    instance.do_step(0.0, 0.1, false).expect("step after reset");
}

/// The heap in use (bytes), over all arenas, as glibc counts it.
fn heap_in_use() -> usize {
    // SAFETY: `mallinfo2` only reads the allocator's statistics.
    let info = unsafe { libc::mallinfo2() };
    info.uordblks + info.hblkhd
}

/// Dropping an instance frees everything it made the FMU allocate: its states (saved and
/// never freed explicitly) and the instance itself. Hundreds of instantiate/step/save/drop
/// rounds must leave the heap where one round left it.
#[test]
fn fmi3_drop_frees_instances_and_states() {
    let _serial = serial();
    let loaded = load("VanDerPol");
    let states = [vr(&loaded.fmu, "x0"), vr(&loaded.fmu, "x1")];
    let round = |k: usize| {
        let mut instance = initialized(&loaded, &format!("round{k}"), 0.0, 20.0);
        trajectory(&mut instance, &states, 0.0, 0.01, 3);
        for _ in 0..3 {
            instance.get_fmu_state(None).expect("get state");
        }
        let saved = instance.get_fmu_state(None).expect("get state");
        instance.serialize_fmu_state(saved).expect("serialize");
        // Dropped in Step Mode: terminated, states freed, instance freed.
    };
    round(0);
    round(1);
    let before = heap_in_use();
    for k in 0..500 {
        round(k);
    }
    let after = heap_in_use();
    let growth = after.saturating_sub(before);
    assert!(
        growth < 32 * 1024,
        "heap grew by {growth} bytes over 500 rounds ({before} → {after})"
    );
}
