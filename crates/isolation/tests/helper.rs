//! The helper process over the raw protocol with the project's own FMUs (`fmus/packed/`):
//! stepping, the FMU's log, FMU states, crashes (SIGSEGV, SIGABRT, exit()), hangs (call
//! timeout), the helper's death with its master, the self-test of every built helper, and
//! bad input. Quick: about a second in all, most of it the 1 s call timeout.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::*;
use isolation::protocol::*;
use isolation::{Error, Helper, Launch, Platform};

const FAULTY_GUID: &str = "{ce8d09ab-e224-4762-a43e-12a821ef96d3}";
const U: u32 = 1;
const Y: u32 = 2;
const HANG_TIME: u32 = 7;
const SEGFAULT_TIME: u32 = 8;
const ABORT_TIME: u32 = 9;
const EXIT_TIME: u32 = 12;

/// The Faulty FMU unpacked, and its linux64 library.
fn faulty() -> (tempfile::TempDir, PathBuf) {
    let dir = extract(&workspace().join("fmus/packed/Faulty.fmu"));
    let library = library(dir.path(), "Faulty", Platform::Linux64, 2);
    (dir, library)
}

/// A Faulty instance, initialized, with `parameter` set to `value` before initialization.
fn faulty_helper(
    parameter: Option<(u32, f64)>,
    timeout: Option<Duration>,
) -> (tempfile::TempDir, Helper) {
    let (dir, library) = faulty();
    let mut helper = launch(Platform::Linux64, &library, 2, timeout);
    let uri = helper.helper_file_uri(&dir.path().join("resources"));
    let status = call(&mut helper, FN_FMI2_INSTANTIATE, |r| {
        r.string(Some(b"faulty"))
            .i32(1)
            .string(Some(FAULTY_GUID.as_bytes()));
        r.string(Some(uri.as_bytes())).i32(0).i32(1);
    })
    .unwrap();
    assert_eq!(status, 0);
    if let Some((vr, value)) = parameter {
        assert_eq!(set_real(&mut helper, &[vr], &[value]).unwrap(), 0);
    }
    for id in [
        FN_FMI2_ENTER_INITIALIZATION_MODE,
        FN_FMI2_EXIT_INITIALIZATION_MODE,
    ] {
        assert_eq!(call(&mut helper, id, |_| {}).unwrap(), 0);
    }
    (dir, helper)
}

#[test]
fn faulty_fmu_steps_through_the_helper_with_one_round_trip_per_step() {
    let (_dir, mut helper) = faulty_helper(None, None);
    assert!(helper.exports(FN_FMI2_DO_STEP) && helper.exports(FN_FMI2_GET_FMU_STATE));
    assert!(
        !helper.exports(FN_FMI3_DO_STEP),
        "an FMI 2.0 library exports no FMI 3.0 function"
    );
    let mut t = 0.0;
    for step in 1..=10 {
        // setter, doStep and getter in one message, as crate fmi's proxies send them.
        let mut request = helper.request();
        request.call(FN_FMI2_SET_REAL).u32s(&[U]).f64s(&[2.0]);
        request.call(FN_FMI2_DO_STEP).f64(t).f64(0.1).i32(1);
        request.call(FN_FMI2_GET_REAL).u32s(&[Y]);
        request.call(FN_FMI2_GET_INTEGER).u32s(&[3]);
        let mut response = helper.round_trip().unwrap();
        assert_eq!(response.answered(), 4);
        assert_eq!(response.status().unwrap(), 0, "fmi2SetReal");
        assert_eq!(response.status().unwrap(), 0, "fmi2DoStep");
        assert_eq!(response.status().unwrap(), 0, "fmi2GetReal");
        let y = response.array::<f64>().unwrap();
        assert_eq!(response.status().unwrap(), 0, "fmi2GetInteger");
        assert_eq!(response.array::<i32>().unwrap(), vec![step]);
        t += 0.1;
        assert_eq!(y, vec![2.0 + t], "y = u + t after step {step}");
    }
    // FMU state: get at t = 1, step on, set back: y is that of t = 1 again.
    helper.request().call(FN_FMI2_GET_FMU_STATE).u64(0);
    let mut response = helper.round_trip().unwrap();
    assert_eq!(response.status().unwrap(), 0);
    let state = response.u64().unwrap();
    assert_ne!(state, 0, "a state handle");
    let before = get_real(&mut helper, &[Y]).unwrap();
    assert_eq!(do_step(&mut helper, t, 0.1).unwrap(), 0);
    assert_ne!(get_real(&mut helper, &[Y]).unwrap(), before);
    assert_eq!(
        call(&mut helper, FN_FMI2_SET_FMU_STATE, |r| {
            r.u64(state);
        })
        .unwrap(),
        0
    );
    assert_eq!(get_real(&mut helper, &[Y]).unwrap(), before);
    helper.request().call(FN_FMI2_FREE_FMU_STATE).u64(state);
    let mut response = helper.round_trip().unwrap();
    assert_eq!(
        (response.status().unwrap(), response.u64().unwrap()),
        (0, 0)
    );
    assert_eq!(call(&mut helper, FN_FMI2_TERMINATE, |_| {}).unwrap(), 0);
    assert_eq!(call(&mut helper, FN_FMI2_FREE_INSTANCE, |_| {}).unwrap(), 0);
    let pid = helper.pid();
    drop(helper);
    // The helper unloaded the FMU and answered QUIT; its exit is reaped on the launcher
    // thread, and a census waits for that.
    isolation::census().expect("census");
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "the helper is reaped after its QUIT"
    );
}

#[test]
fn a_failing_call_ends_the_request_and_its_log_comes_back() {
    let (_dir, mut helper) = faulty_helper(None, None);
    let mut request = helper.request();
    request.call(FN_FMI2_SET_REAL).u32s(&[U, Y]).f64s(&[1.0]); // counts differ
    request.call(FN_FMI2_DO_STEP).f64(0.0).f64(0.1).i32(1);
    let response = helper.round_trip().unwrap();
    assert_eq!(
        response.answered(),
        1,
        "the helper stops after the failing call"
    );
    let log = response.log_records().unwrap();
    assert!(
        log[0].message.contains("1 values for 2 value references"),
        "{log:?}"
    );
    // A function the library does not export: status fmiError and a log record naming it.
    let mut response = {
        helper
            .request()
            .call(FN_FMI3_DO_STEP)
            .f64(0.0)
            .f64(0.1)
            .u8(0);
        helper.round_trip().unwrap()
    };
    assert_eq!(response.status().unwrap(), 3);
    let log = response.log_records().unwrap();
    assert!(log[0].message.contains("fmi3DoStep"), "{log:?}");
    // Arguments missing: nothing answered, a log record says which call was malformed.
    let response = {
        helper
            .request()
            .call(FN_FMI2_GET_DIRECTIONAL_DERIVATIVE)
            .u32s(&[1]);
        helper.round_trip().unwrap()
    };
    assert_eq!(response.answered(), 0);
    let log = response.log_records().unwrap();
    assert!(
        log[0]
            .message
            .contains("malformed arguments of fmi2GetDirectionalDerivative"),
        "{log:?}"
    );
}

#[test]
fn echo_and_a_request_too_large() {
    let (_dir, library) = faulty();
    let mut helper = launch(Platform::Linux64, &library, 2, None);
    let bytes: Vec<u8> = (0..=255).collect();
    helper.request().call(FN_ECHO).bytes(&bytes);
    let mut response = helper.round_trip().unwrap();
    assert_eq!(response.status().unwrap(), 0);
    assert_eq!(response.array::<u8>().unwrap(), bytes);
    let huge = vec![0u8; REQUEST_CAPACITY];
    helper.request().call(FN_ECHO).bytes(&huge);
    match helper.round_trip() {
        Err(Error::TooLarge { bytes, capacity }) => {
            assert_eq!((bytes, capacity), (REQUEST_CAPACITY + 8, REQUEST_CAPACITY));
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    // The helper is still usable.
    helper.request().call(FN_ECHO).bytes(b"again");
    assert_eq!(helper.round_trip().unwrap().status().unwrap(), 0);
}

#[test]
fn a_helper_outlives_the_thread_that_launched_it() {
    let (_dir, library) = faulty();
    let mut helper = std::thread::spawn(move || launch(Platform::Linux64, &library, 2, None))
        .join()
        .unwrap();
    std::thread::sleep(Duration::from_millis(50));
    helper.request().call(FN_ECHO).bytes(b"alive");
    let mut response = helper.round_trip().expect("the helper still runs");
    assert_eq!(response.status().unwrap(), 0);
    assert_eq!(response.array::<u8>().unwrap(), b"alive");
}

/// Steps Faulty with `parameter` set so that the step to 0.3 s is fatal; returns the error.
fn fatal_step(parameter: u32, timeout: Option<Duration>) -> (Error, u32) {
    let (_dir, mut helper) = faulty_helper(Some((parameter, 0.3)), timeout);
    let pid = helper.pid();
    let mut t = 0.0;
    for _ in 0..2 {
        assert_eq!(do_step(&mut helper, t, 0.1).unwrap(), 0);
        t += 0.1;
    }
    let error = do_step(&mut helper, t, 0.1).expect_err("the third step is fatal");
    // Every later call reports the same end.
    let again = do_step(&mut helper, t, 0.1).expect_err("dead");
    assert_eq!(again.to_string(), error.to_string());
    drop(helper);
    (error, pid)
}

#[test]
fn a_segfault_is_reported_with_signal_and_function() {
    let (error, pid) = fatal_step(SEGFAULT_TIME, None);
    match &error {
        Error::Crashed {
            function,
            signal_name,
            exit_code,
            ..
        } => {
            assert_eq!(
                (*function, *signal_name, *exit_code),
                ("fmi2DoStep", Some("SIGSEGV"), None)
            );
        }
        other => panic!("expected Crashed, got {other:?}"),
    }
    assert_eq!(
        error.to_string(),
        "the FMU's process was killed by SIGSEGV (signal 11) in fmi2DoStep"
    );
    assert!(gone(pid));
}

#[test]
fn an_abort_is_reported_as_sigabrt() {
    let (error, _) = fatal_step(ABORT_TIME, None);
    assert!(
        matches!(
            error,
            Error::Crashed {
                function: "fmi2DoStep",
                signal_name: Some("SIGABRT"),
                ..
            }
        ),
        "{error:?}"
    );
}

#[test]
fn an_exit_is_reported_with_its_exit_code() {
    let (error, _) = fatal_step(EXIT_TIME, None);
    assert!(
        matches!(
            error,
            Error::Crashed {
                function: "fmi2DoStep",
                signal: None,
                exit_code: Some(3),
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "the FMU's process exited with code 3 in fmi2DoStep"
    );
}

#[test]
fn a_hang_ends_with_the_call_timeout() {
    let start = Instant::now();
    let (error, pid) = fatal_step(HANG_TIME, Some(Duration::from_secs(1)));
    assert!(
        matches!(
            error,
            Error::Timeout {
                function: "fmi2DoStep",
                seconds: 1.0
            }
        ),
        "{error:?}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert!(gone(pid), "the hanging helper was killed and reaped");
}

/// Not a test of its own: the owner process of `the_helper_dies_with_its_master`.
#[test]
fn owner_process_of_the_death_test() {
    owner_process(|dir| {
        extract_to(&workspace().join("fmus/packed/Faulty.fmu"), dir);
        let library = library(dir, "Faulty", Platform::Linux64, 2);
        launch(Platform::Linux64, &library, 2, None)
    });
}

#[test]
fn the_helper_dies_with_its_master() {
    helper_dies_with_its_owner("owner_process_of_the_death_test");
}

/// The C compiler and flags that build a shared library for `platform`.
fn library_compiler(platform: Platform) -> (&'static str, &'static [&'static str]) {
    match platform {
        Platform::Linux64 => ("cc", &["-shared", "-fPIC"]),
        Platform::Linux32 => ("gcc", &["-m32", "-shared", "-fPIC"]),
        Platform::Win64 => ("x86_64-w64-mingw32-gcc", &["-shared"]),
        Platform::Win32 => ("i686-w64-mingw32-gcc", &["-shared"]),
    }
}

/// What ends the crash library's step of size `h` on `platform`.
fn expected_end(platform: Platform, h: f64) -> String {
    let exception = "the FMU's process ended with the Windows exception EXCEPTION_ACCESS_VIOLATION";
    match (h as u32, platform.is_windows()) {
        (1, false) => "the FMU's process was killed by SIGSEGV (signal 11) in fmi2DoStep".into(),
        (1, true) => format!("{exception} (0xC0000005) in fmi2DoStep"),
        (2, false) => "the FMU's process was killed by SIGABRT (signal 6) in fmi2DoStep".into(),
        // The Windows C runtime's abort() exits with code 3.
        (2, true) => "the FMU's process exited with code 3 in fmi2DoStep".into(),
        (3, _) => "the FMU's process exited with code 7 in fmi2DoStep".into(),
        _ => "the FMU did not return from fmi2DoStep within 1 s: its process was killed".into(),
    }
}

#[test]
fn crashes_and_hangs_are_reported_on_every_platform_that_runs_here() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crash_library.c");
    for platform in Platform::ALL {
        if let Err(message) = isolation::availability(platform) {
            assert!(message.contains("install"), "{platform}: {message}");
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let library = dir
            .path()
            .join(format!("crash.{}", platform.library_extension()));
        let (compiler, flags) = library_compiler(platform);
        let output = Command::new(compiler)
            .args(flags)
            .arg("-o")
            .arg(&library)
            .arg(&source)
            .output();
        let output =
            output.unwrap_or_else(|e| panic!("{platform}: `{compiler}` not runnable: {e}"));
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let ends: Vec<_> = std::thread::scope(|scope| {
            let steps = [1.0, 2.0, 3.0, 4.0].map(|h| {
                let library = &library;
                scope.spawn(move || {
                    let mut helper = launch(platform, library, 2, Some(Duration::from_secs(1)));
                    let status = call(&mut helper, FN_FMI2_INSTANTIATE, |r| {
                        r.string(Some(b"crash"))
                            .i32(1)
                            .string(None)
                            .string(None)
                            .i32(0)
                            .i32(0);
                    });
                    assert_eq!(status.unwrap(), 0);
                    let pid = helper.pid();
                    let error = do_step(&mut helper, 0.0, h).expect_err("a fatal step");
                    drop(helper);
                    assert!(gone(pid), "{platform}: helper {pid} reaped");
                    (h, error.to_string())
                })
            });
            steps.map(|step| step.join().unwrap()).into_iter().collect()
        });
        for (h, end) in ends {
            assert_eq!(end, expected_end(platform, h), "{platform}, h = {h}");
        }
    }
}

#[test]
fn every_built_helper_passes_its_self_test() {
    for platform in Platform::ALL {
        let Ok(program) = isolation::helper_program(platform) else {
            // Not built: availability says what to install.
            let message = isolation::availability(platform).unwrap_err();
            assert!(message.contains("install"), "{message}");
            continue;
        };
        if let Err(message) = isolation::availability(platform) {
            assert!(message.contains("install wine"), "{platform}: {message}");
            eprintln!("{platform}: helper built, cannot run here: {message}");
            continue;
        }
        let mut command = if platform.is_windows() {
            let mut command = Command::new("wine");
            command.arg(&program).env("WINEDEBUG", "-all");
            command
        } else {
            Command::new(&program)
        };
        let output = command.arg("--self-test").output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("self-test: ok"),
            "{platform}: {stdout}"
        );
    }
}

#[test]
fn a_library_that_does_not_load_is_a_launch_error_with_the_loaders_message() {
    let missing = std::env::temp_dir().join("no-such-dir/NoSuch.so");
    let error = Helper::launch(&Launch {
        platform: Platform::Linux64,
        library: &missing,
        fmi_version: 2,
        call_timeout: None,
    })
    .unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, Error::Launch { .. }), "{error:?}");
    assert!(
        text.contains("NoSuch.so") && text.contains("No such file"),
        "{text}"
    );
}
