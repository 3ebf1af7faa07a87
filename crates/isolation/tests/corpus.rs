//! The helper on real FMUs of the conformance corpus, per platform: the 20-sim Threetank
//! (FMI 2.0; linux64, linux32, win64 and win32 binaries) against its reference results, the
//! Reference FMUs' Feedthrough (FMI 2.0 0.0.1: linux64, win64; FMI 3.0 0.0.37: x86_64-linux,
//! x86_64-windows, x86-windows) through every value type, and FMI 3.0 BouncingBall's FMU state
//! serialization. A platform whose helper cannot run here must say what to install.
//! A few seconds in all (Wine's start-up dominates).

mod common;

use std::path::Path;

use common::*;
use isolation::protocol::*;
use isolation::{Error, Helper, Platform};

/// A call that takes longer fails the test instead of hanging it.
const CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// Launches a helper for `library`, or checks that the platform's refusal says what to install.
fn launch_or_refusal(platform: Platform, library: &Path, fmi_version: u32) -> Option<Helper> {
    match isolation::availability(platform) {
        Ok(()) => Some(launch(platform, library, fmi_version, Some(CALL_TIMEOUT))),
        Err(message) => {
            let error = Helper::launch(&isolation::Launch {
                platform,
                library,
                fmi_version,
                call_timeout: None,
            })
            .unwrap_err();
            assert!(matches!(error, Error::Unavailable { .. }), "{error:?}");
            assert!(message.contains("install"), "{message}");
            eprintln!("{platform}: refused as expected here: {error}");
            None
        }
    }
}

/// The reference value of `column` at time `t` in a cross-check `_ref.csv`.
fn reference(csv: &Path, column: &str, t: f64) -> f64 {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .unwrap()
        .split(',')
        .map(|h| h.trim_matches('"'))
        .collect();
    let index = header
        .iter()
        .position(|h| *h == column)
        .unwrap_or_else(|| panic!("{column}"));
    lines
        .map(|line| {
            line.split(',')
                .map(|v| v.parse::<f64>().unwrap())
                .collect::<Vec<_>>()
        })
        .find(|row| (row[0] - t).abs() < 1e-9)
        .map(|row| row[index])
        .unwrap_or_else(|| panic!("no row at t = {t} in {}", csv.display()))
}

#[test]
fn threetank_matches_its_reference_on_every_platform() {
    let folder = "crosscheck/fmi2/20sim/4.6.4.8004/Threetank";
    let dir = extract(&corpus(&format!("{folder}/Threetank.fmu")));
    let csv = corpus(&format!("{folder}/Threetank_ref.csv"));
    let guid = "{68b70e52-b296-43ca-b2c3-6560276b134f}";
    // Tank1_level, Tank2_level, Tank3_level.
    let vrs = [67, 68, 69];
    let expected: Vec<f64> = [
        "source.i.Tank1_level",
        "source.i.Tank2_level",
        "source.i.Tank3_level",
    ]
    .iter()
    .map(|column| reference(&csv, column, 0.2))
    .collect();
    let mut results = Vec::new();
    for platform in Platform::ALL {
        let library = library(dir.path(), "Threetank", platform, 2);
        let Some(mut helper) = launch_or_refusal(platform, &library, 2) else {
            continue;
        };
        fmi2_start(&mut helper, guid, &dir.path().join("resources")).unwrap();
        for k in 0..10 {
            assert_eq!(do_step(&mut helper, f64::from(k) * 0.02, 0.02).unwrap(), 0);
        }
        let values = get_real(&mut helper, &vrs).unwrap();
        for (value, reference) in values.iter().zip(&expected) {
            let bound = 1e-9 + 1e-6 * reference.abs();
            assert!(
                (value - reference).abs() <= bound,
                "{platform}: {values:?} vs {expected:?}"
            );
        }
        assert_eq!(call(&mut helper, FN_FMI2_FREE_INSTANCE, |_| {}).unwrap(), 0);
        results.push(platform);
    }
    assert!(results.contains(&Platform::Linux64) && results.contains(&Platform::Linux32));
}

#[test]
fn fmi2_feedthrough_passes_reals_and_integers_on_linux64_and_win64() {
    let dir = extract(&corpus(
        "crosscheck/fmi2/TestFMUs-0.0.1/Feedthrough/Feedthrough.fmu",
    ));
    let guid = "{8c4e810f-3df3-4a00-8276-176fa3c9f004}";
    for platform in [Platform::Linux64, Platform::Win64] {
        let library = library(dir.path(), "Feedthrough", platform, 2);
        let Some(mut helper) = launch_or_refusal(platform, &library, 2) else {
            continue;
        };
        fmi2_start(&mut helper, guid, &dir.path().join("resources")).unwrap();
        let mut request = helper.request();
        request
            .call(FN_FMI2_SET_REAL)
            .u32s(&[2, 4])
            .f64s(&[3.5, -1.25]);
        request.call(FN_FMI2_SET_INTEGER).u32s(&[6]).array(&[-7i32]);
        // (Booleans: this old Feedthrough's fmi2GetBoolean does not write its output; the
        // FMI 3.0 test passes Booleans.)
        request.call(FN_FMI2_DO_STEP).f64(0.0).f64(0.1).i32(1);
        request.call(FN_FMI2_GET_REAL).u32s(&[3, 5]);
        request.call(FN_FMI2_GET_INTEGER).u32s(&[7]);
        request.call(FN_FMI2_GET_TYPES_PLATFORM);
        let mut response = helper.round_trip().unwrap();
        assert_eq!(
            response.answered(),
            6,
            "{platform}: {:?}",
            response.log_records()
        );
        for _ in 0..3 {
            assert_eq!(response.status().unwrap(), 0);
        }
        assert_eq!(response.status().unwrap(), 0);
        assert_eq!(
            response.array::<f64>().unwrap(),
            vec![3.5, -1.25],
            "{platform}"
        );
        assert_eq!(response.status().unwrap(), 0);
        assert_eq!(response.array::<i32>().unwrap(), vec![-7], "{platform}");
        assert_eq!(response.status().unwrap(), 0);
        assert_eq!(
            response.string().unwrap(),
            Some(&b"default"[..]),
            "{platform}"
        );
    }
}

/// FMI 3.0: instantiate Feedthrough, initialize, pass one value of several types through.
fn fmi3_feedthrough(helper: &mut Helper, resources: &Path) -> String {
    let platform = helper.platform();
    let uri = helper.helper_path(resources);
    let token = b"{37B954F1-CC86-4D8F-B97F-C7C36F6670D2}";
    let mut request = helper.request();
    request
        .call(FN_FMI3_INSTANTIATE_CO_SIMULATION)
        .string(Some(b"feedthrough"))
        .string(Some(token));
    request
        .string(Some(uri.as_bytes()))
        .u8(0)
        .u8(1)
        .u8(0)
        .u8(0)
        .u32s(&[]);
    request
        .call(FN_FMI3_ENTER_INITIALIZATION_MODE)
        .u8(0)
        .f64(0.0)
        .f64(0.0)
        .u8(0)
        .f64(0.0);
    request.call(FN_FMI3_EXIT_INITIALIZATION_MODE);
    request.call(FN_FMI3_SET_FLOAT64).u32s(&[7]).f64s(&[2.5]);
    request.call(FN_FMI3_SET_INT32).u32s(&[19]).array(&[-4i32]);
    request.call(FN_FMI3_SET_BOOLEAN).u32s(&[27]).array(&[true]);
    request
        .call(FN_FMI3_SET_BINARY)
        .u32s(&[30])
        .binaries([&[1u8, 2, 3][..]].into_iter());
    request.call(FN_FMI3_DO_STEP).f64(0.0).f64(0.1).u8(1);
    request.call(FN_FMI3_GET_FLOAT64).u32s(&[8]).u64(1);
    request.call(FN_FMI3_GET_INT32).u32s(&[20]).u64(1);
    request.call(FN_FMI3_GET_BOOLEAN).u32s(&[28]).u64(1);
    request.call(FN_FMI3_GET_BINARY).u32s(&[31]).u64(1);
    request.call(FN_FMI3_GET_STRING).u32s(&[29]).u64(1);
    let mut response = helper.round_trip().unwrap();
    let log = response.log_records().unwrap();
    assert_eq!(response.answered(), 13, "{platform}: {log:?}");
    for _ in 0..8 {
        assert_eq!(response.status().unwrap(), 0, "{platform}");
    }
    let (event, terminate, early) = (
        response.u8().unwrap(),
        response.u8().unwrap(),
        response.u8().unwrap(),
    );
    assert_eq!((event, terminate, early), (0, 0, 0), "{platform}");
    assert_eq!(
        response.f64().unwrap(),
        0.1,
        "{platform}: lastSuccessfulTime"
    );
    assert_eq!(response.status().unwrap(), 0);
    assert_eq!(response.array::<f64>().unwrap(), vec![2.5], "{platform}");
    assert_eq!(response.status().unwrap(), 0);
    assert_eq!(response.array::<i32>().unwrap(), vec![-4], "{platform}");
    assert_eq!(response.status().unwrap(), 0);
    assert_eq!(response.array::<bool>().unwrap(), vec![true], "{platform}");
    assert_eq!(response.status().unwrap(), 0);
    assert_eq!(
        response.binaries().unwrap(),
        vec![&[1u8, 2, 3][..]],
        "{platform}"
    );
    assert_eq!(response.status().unwrap(), 0);
    let text = response.strings().unwrap()[0].map(|s| String::from_utf8_lossy(s).into_owned());
    assert_eq!(call(helper, FN_FMI3_FREE_INSTANCE, |_| {}).unwrap(), 0);
    text.unwrap_or_default()
}

#[test]
fn fmi3_feedthrough_passes_every_type_on_every_platform() {
    let dir = extract(&corpus("fmi3/Feedthrough/Feedthrough.fmu"));
    let mut ran = Vec::new();
    for platform in [Platform::Linux64, Platform::Win64, Platform::Win32] {
        let library = library(dir.path(), "Feedthrough", platform, 3);
        let Some(mut helper) = launch_or_refusal(platform, &library, 3) else {
            continue;
        };
        let text = fmi3_feedthrough(&mut helper, &dir.path().join("resources"));
        assert_eq!(text, "Set me!", "{platform}");
        ran.push(platform);
    }
    assert!(ran.contains(&Platform::Linux64));
}

#[test]
fn fmi3_fmu_state_serializes_through_the_helper() {
    let dir = extract(&corpus("fmi3/BouncingBall/BouncingBall.fmu"));
    let library = library(dir.path(), "BouncingBall", Platform::Linux64, 3);
    let mut helper = launch(Platform::Linux64, &library, 3, None);
    let uri = helper.helper_path(&dir.path().join("resources"));
    let token = b"{1AE5E10D-9521-4DE3-80B9-D0EAAA7D5AF1}";
    let mut request = helper.request();
    request
        .call(FN_FMI3_INSTANTIATE_CO_SIMULATION)
        .string(Some(b"ball"))
        .string(Some(token));
    request
        .string(Some(uri.as_bytes()))
        .u8(0)
        .u8(0)
        .u8(0)
        .u8(0)
        .u32s(&[]);
    request
        .call(FN_FMI3_ENTER_INITIALIZATION_MODE)
        .u8(0)
        .f64(0.0)
        .f64(0.0)
        .u8(0)
        .f64(0.0);
    request.call(FN_FMI3_EXIT_INITIALIZATION_MODE);
    request.call(FN_FMI3_GET_FMU_STATE).u64(0);
    let mut response = helper.round_trip().unwrap();
    assert_eq!(response.answered(), 4);
    for _ in 0..4 {
        assert_eq!(response.status().unwrap(), 0);
    }
    let state = response.u64().unwrap();
    helper
        .request()
        .call(FN_FMI3_SERIALIZED_FMU_STATE_SIZE)
        .u64(state);
    let mut response = helper.round_trip().unwrap();
    assert_eq!(response.status().unwrap(), 0);
    let size = response.u64().unwrap();
    assert!(size > 0);
    helper
        .request()
        .call(FN_FMI3_SERIALIZE_FMU_STATE)
        .u64(state)
        .u64(size);
    let mut response = helper.round_trip().unwrap();
    assert_eq!(response.status().unwrap(), 0);
    let bytes = response.array::<u8>().unwrap();
    assert_eq!(bytes.len() as u64, size);
    let height = |helper: &mut Helper| {
        helper.request().call(FN_FMI3_GET_FLOAT64).u32s(&[1]).u64(1);
        let mut response = helper.round_trip().unwrap();
        assert_eq!(response.status().unwrap(), 0);
        response.array::<f64>().unwrap()[0]
    };
    let h0 = height(&mut helper);
    helper
        .request()
        .call(FN_FMI3_DO_STEP)
        .f64(0.0)
        .f64(0.5)
        .u8(0);
    assert_eq!(helper.round_trip().unwrap().status().unwrap(), 0);
    assert_ne!(height(&mut helper), h0, "the ball fell");
    helper
        .request()
        .call(FN_FMI3_DESERIALIZE_FMU_STATE)
        .bytes(&bytes)
        .u64(0);
    let mut response = helper.round_trip().unwrap();
    assert_eq!(response.status().unwrap(), 0);
    let restored = response.u64().unwrap();
    helper.request().call(FN_FMI3_SET_FMU_STATE).u64(restored);
    assert_eq!(helper.round_trip().unwrap().status().unwrap(), 0);
    assert_eq!(height(&mut helper), h0, "back at the serialized state");
}

/// Not a test of its own: the owner process of `a_wine_helper_dies_with_its_master`.
#[test]
fn owner_process_of_the_wine_death_test() {
    owner_process(|dir| {
        extract_to(&corpus("fmi3/Feedthrough/Feedthrough.fmu"), dir);
        let library = library(dir, "Feedthrough", Platform::Win64, 3);
        launch(Platform::Win64, &library, 3, None)
    });
}

#[test]
fn a_wine_helper_dies_with_its_master() {
    isolation::availability(Platform::Win64).expect("win64 helpers run here");
    helper_dies_with_its_owner("owner_process_of_the_wine_death_test");
}
