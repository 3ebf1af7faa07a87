use std::ffi::CStr;
use std::ptr;

use fmu_packer::{MODELS3, workspace_root};
use fmu_support::fmi3::{self, Instance, STATUS_ERROR, STATUS_OK};

use super::*;

type M = AllTypes;

fn model() -> AllTypes {
    let mut m = AllTypes::instantiate(TOKEN).expect("known token");
    m.initialize(0.0).expect("initialize");
    m
}

#[test]
fn model_description_matches_the_table_and_the_start_values() {
    let root = workspace_root();
    let spec = MODELS3
        .iter()
        .find(|m| m.name == "AllTypes")
        .expect("listed in the packer");
    assert_eq!(spec.package, env!("CARGO_PKG_NAME"));
    let md = spec.read_model_description(&root).expect("readable XML");
    assert_eq!(md.mismatches3(TOKEN, VARIABLES), Vec::<String>::new());
    let m = model();
    assert_eq!(md.start_mismatches3(&m), Vec::<String>::new());
    assert_eq!(md.capability("hasEventMode"), Some("false"));
    assert_eq!(md.capability("canGetAndSetFMUState"), Some("true"));
    assert_eq!(md.capability("canSerializeFMUState"), Some("false"));
    assert!(m.save_state().is_none() && !m.has_event_mode());
    let types: std::collections::BTreeSet<&str> = VARIABLES.iter().map(|v| v.ty.name()).collect();
    assert_eq!(types.len(), 14, "every FMI 3.0 type but Clock: {types:?}");
}

/// Instantiates through the C entry points and enters Step Mode at t = 0.
fn started() -> Instance {
    // SAFETY: NUL-terminated strings that outlive the call; no callbacks.
    let c = unsafe {
        fmi3::instantiate_co_simulation::<M>(
            c"all".as_ptr(),
            c"{adb07f73-8b4e-4ae0-bb1b-12b8b4ee8c72}".as_ptr(),
            ptr::null(),
            false,
            false,
            false,
            false,
            ptr::null(),
            0,
            ptr::null_mut(),
            None,
            None,
        )
    };
    assert!(!c.is_null());
    // SAFETY: a live instance of this thread.
    unsafe {
        assert_eq!(
            fmi3::enter_initialization_mode::<M>(c, false, 0.0, 0.0, false, 0.0),
            STATUS_OK
        );
        assert_eq!(fmi3::exit_initialization_mode::<M>(c), STATUS_OK);
    }
    c
}

/// Gets `n` values of `vr` through an `fmi3Get…` function of element type `T`.
macro_rules! get {
    ($f:ident, $c:expr, $vr:expr, $n:expr, $zero:expr) => {{
        let mut out = vec![$zero; $n];
        // SAFETY: a live instance; one value reference and `n` slots.
        let status = unsafe { fmi3::$f::<M>($c, &$vr, 1, out.as_mut_ptr(), $n) };
        assert_eq!(status, STATUS_OK, "{} of {}", stringify!($f), $vr);
        out
    }};
}

/// Sets the values of `vr` through an `fmi3Set…` function; returns the status.
macro_rules! set {
    ($f:ident, $c:expr, $vr:expr, $values:expr) => {{
        let values = $values;
        // SAFETY: a live instance; one value reference and `values.len()` values.
        unsafe { fmi3::$f::<M>($c, &$vr, 1, values.as_ptr(), values.len()) }
    }};
}

#[test]
fn start_values_reach_the_outputs_at_full_range() {
    let c = started();
    let f32_out = get!(get_float32, c, VR_FLOAT32_OUT, 1, 0f32)[0];
    assert_eq!(f32_out.to_bits(), 0.1f32.to_bits());
    assert_eq!(f64::from(f32_out), 0.100_000_001_490_116_12);
    assert_eq!(get!(get_float64, c, VR_FLOAT64_OUT, 1, 0.0), [0.1]);
    assert_eq!(get!(get_int8, c, VR_INT8_OUT, 1, 0), [i8::MIN]);
    assert_eq!(get!(get_uint8, c, VR_UINT8_OUT, 1, 0), [u8::MAX]);
    assert_eq!(get!(get_int16, c, VR_INT16_OUT, 1, 0), [i16::MIN]);
    assert_eq!(get!(get_uint16, c, VR_UINT16_OUT, 1, 0), [u16::MAX]);
    assert_eq!(get!(get_int32, c, VR_INT32_OUT, 1, 0), [i32::MIN]);
    assert_eq!(get!(get_uint32, c, VR_UINT32_OUT, 1, 0), [u32::MAX]);
    assert_eq!(
        get!(get_int64, c, VR_INT64_OUT, 1, 0),
        [9_223_372_036_854_775_807]
    );
    assert_eq!(
        get!(get_uint64, c, VR_UINT64_OUT, 1, 0),
        [18_446_744_073_709_551_615]
    );
    assert_eq!(get!(get_int64, c, VR_INT64_MIN_OUT, 1, 0), [i64::MIN]);
    assert_eq!(
        get!(get_int64, c, VR_INT64_MINUS_MAX_OUT, 1, 0),
        [-i64::MAX]
    );
    assert_eq!(get!(get_int64, c, VR_ENUM_OUT, 1, 0), [LEVEL_HIGH]);
    assert_eq!(get!(get_boolean, c, VR_BOOLEAN_OUT, 1, false), [true]);
    let text = get!(get_string, c, VR_STRING_OUT, 1, ptr::null());
    // SAFETY: a string the instance keeps alive until the next fmi3GetString.
    let text = unsafe { CStr::from_ptr(text[0]) };
    assert_eq!(text.to_str(), Ok("Grüße aus FMI 3.0"));
    let (mut size, mut bytes) = (0usize, ptr::null::<u8>());
    // SAFETY: a live instance; one value reference and one slot each.
    unsafe {
        assert_eq!(
            fmi3::get_binary::<M>(c, &VR_BINARY_OUT, 1, &mut size, &mut bytes, 1),
            STATUS_OK
        );
        assert_eq!(
            std::slice::from_raw_parts(bytes, size),
            [0, 1, 0xFF, 0x7F, 0x80]
        );
    }
    assert_eq!(get!(get_float64, c, VR_Y, 3, 0.0), [1.0, -2.5, 3.25]);
    assert_eq!(get!(get_int32, c, VR_M_OUT, 4, 0), [11, 12, 21, 22]);
    assert_eq!(get!(get_float64, c, VR_RAMP, 3, 0.0), [1.0, 2.0, 3.0]);
    assert_eq!(get!(get_boolean, c, VR_NO_SET_PRIOR, 1, true), [false]);
    // SAFETY: a live instance of this thread, not used afterwards.
    unsafe { fmi3::free_instance::<M>(c) };
}

#[test]
fn every_type_round_trips_from_input_to_output() {
    let c = started();
    assert_eq!(set!(set_float32, c, VR_FLOAT32_IN, [f32::MIN]), STATUS_OK);
    assert_eq!(get!(get_float32, c, VR_FLOAT32_OUT, 1, 0f32), [f32::MIN]);
    assert_eq!(
        set!(set_float64, c, VR_FLOAT64_IN, [f64::MIN_POSITIVE]),
        STATUS_OK
    );
    assert_eq!(
        get!(get_float64, c, VR_FLOAT64_OUT, 1, 0.0),
        [f64::MIN_POSITIVE]
    );
    assert_eq!(set!(set_int8, c, VR_INT8_IN, [i8::MAX]), STATUS_OK);
    assert_eq!(get!(get_int8, c, VR_INT8_OUT, 1, 0), [i8::MAX]);
    assert_eq!(set!(set_uint8, c, VR_UINT8_IN, [0u8]), STATUS_OK);
    assert_eq!(get!(get_uint8, c, VR_UINT8_OUT, 1, 1), [0]);
    assert_eq!(set!(set_int16, c, VR_INT16_IN, [i16::MAX]), STATUS_OK);
    assert_eq!(get!(get_int16, c, VR_INT16_OUT, 1, 0), [i16::MAX]);
    assert_eq!(set!(set_uint16, c, VR_UINT16_IN, [7u16]), STATUS_OK);
    assert_eq!(get!(get_uint16, c, VR_UINT16_OUT, 1, 0), [7]);
    assert_eq!(set!(set_int32, c, VR_INT32_IN, [i32::MAX]), STATUS_OK);
    assert_eq!(get!(get_int32, c, VR_INT32_OUT, 1, 0), [i32::MAX]);
    assert_eq!(set!(set_uint32, c, VR_UINT32_IN, [1u32 << 31]), STATUS_OK);
    assert_eq!(get!(get_uint32, c, VR_UINT32_OUT, 1, 0), [1 << 31]);
    assert_eq!(set!(set_int64, c, VR_INT64_IN, [i64::MIN]), STATUS_OK);
    assert_eq!(get!(get_int64, c, VR_INT64_OUT, 1, 0), [i64::MIN]);
    assert_eq!(
        set!(set_uint64, c, VR_UINT64_IN, [(1u64 << 53) + 1]),
        STATUS_OK
    );
    assert_eq!(get!(get_uint64, c, VR_UINT64_OUT, 1, 0), [(1 << 53) + 1]);
    assert_eq!(set!(set_boolean, c, VR_BOOLEAN_IN, [false]), STATUS_OK);
    assert_eq!(get!(get_boolean, c, VR_BOOLEAN_OUT, 1, true), [false]);
    assert_eq!(set!(set_int64, c, VR_ENUM_IN, [LEVEL_LOW]), STATUS_OK);
    assert_eq!(get!(get_int64, c, VR_ENUM_OUT, 1, 0), [LEVEL_LOW]);
    let text = c"tab\tand, comma";
    assert_eq!(
        set!(set_string, c, VR_STRING_IN, [text.as_ptr()]),
        STATUS_OK
    );
    let out = get!(get_string, c, VR_STRING_OUT, 1, ptr::null());
    // SAFETY: a string the instance keeps alive until the next fmi3GetString.
    assert_eq!(unsafe { CStr::from_ptr(out[0]) }, text);
    let bytes = [0u8; 4];
    // SAFETY: a live instance; one value of four bytes.
    unsafe {
        let (sizes, values) = ([4usize], [bytes.as_ptr()]);
        assert_eq!(
            fmi3::set_binary::<M>(c, &VR_BINARY_IN, 1, sizes.as_ptr(), values.as_ptr(), 1),
            STATUS_OK
        );
        let (mut size, mut pointer) = (0usize, ptr::null::<u8>());
        assert_eq!(
            fmi3::get_binary::<M>(c, &VR_BINARY_OUT, 1, &mut size, &mut pointer, 1),
            STATUS_OK
        );
        assert_eq!(std::slice::from_raw_parts(pointer, size), [0; 4]);
    }
    assert_eq!(set!(set_float64, c, VR_U, [4.0, 5.0, 6.0]), STATUS_OK);
    assert_eq!(get!(get_float64, c, VR_Y, 3, 0.0), [4.0, 5.0, 6.0]);
    assert_eq!(set!(set_int32, c, VR_M_IN, [1, 2, 3, 4]), STATUS_OK);
    assert_eq!(get!(get_int32, c, VR_M_OUT, 4, 0), [1, 2, 3, 4]);
    // SAFETY: a live instance of this thread, not used afterwards.
    unsafe { fmi3::free_instance::<M>(c) };
}

#[test]
fn wrong_types_counts_and_values_are_errors() {
    for (status, what) in [
        (
            {
                let c = started();
                set!(set_float64, c, VR_FLOAT32_IN, [0.1])
            },
            "Float32 through fmi3SetFloat64",
        ),
        (
            {
                let c = started();
                set!(set_float64, c, VR_U, [1.0, 2.0])
            },
            "two values for three elements",
        ),
        (
            {
                let c = started();
                set!(set_int64, c, VR_ENUM_IN, [5i64])
            },
            "not an item of Level",
        ),
        (
            {
                let c = started();
                set!(set_int64, c, VR_INT64_OUT, [5i64])
            },
            "an output",
        ),
        (
            {
                let c = started();
                set!(set_uint64, c, VR_N, [4u64])
            },
            "a structural parameter outside Configuration Mode",
        ),
    ] {
        assert_eq!(status, STATUS_ERROR, "{what}");
    }
}

#[test]
fn the_structural_parameter_sizes_ramp_in_configuration_mode() {
    // SAFETY: NUL-terminated strings that outlive the call; no callbacks.
    let c = unsafe {
        fmi3::instantiate_co_simulation::<M>(
            c"all".as_ptr(),
            c"{adb07f73-8b4e-4ae0-bb1b-12b8b4ee8c72}".as_ptr(),
            ptr::null(),
            false,
            false,
            false,
            false,
            ptr::null(),
            0,
            ptr::null_mut(),
            None,
            None,
        )
    };
    // SAFETY: a live instance of this thread; arrays of the lengths passed (so below too).
    assert_eq!(unsafe { fmi3::enter_configuration_mode::<M>(c) }, STATUS_OK);
    assert_eq!(get!(get_uint64, c, VR_N, 1, 0), [3]);
    assert_eq!(
        set!(set_uint64, c, VR_N, [17u64]),
        STATUS_ERROR,
        "above max"
    );
    // SAFETY: as above.
    assert_eq!(unsafe { fmi3::reset::<M>(c) }, STATUS_OK);
    // SAFETY: as above.
    assert_eq!(unsafe { fmi3::enter_configuration_mode::<M>(c) }, STATUS_OK);
    assert_eq!(set!(set_uint64, c, VR_N, [5u64]), STATUS_OK);
    // SAFETY: as above.
    unsafe {
        assert_eq!(fmi3::exit_configuration_mode::<M>(c), STATUS_OK);
        assert_eq!(
            fmi3::enter_initialization_mode::<M>(c, false, 0.0, 0.0, false, 0.0),
            STATUS_OK
        );
    }
    assert_eq!(
        get!(get_float64, c, VR_RAMP, 5, 0.0),
        [1.0, 2.0, 3.0, 4.0, 5.0]
    );
    let mut three = [0.0; 3];
    // SAFETY: as above.
    unsafe {
        assert_eq!(
            fmi3::get_float64::<M>(c, &VR_RAMP, 1, three.as_mut_ptr(), 3),
            STATUS_ERROR,
            "ramp has 5 elements now"
        );
        fmi3::free_instance::<M>(c);
    }
}

#[test]
fn steps_report_no_set_prior_and_states_restore_inputs() {
    let c = started();
    let step = |t: f64, h: f64, no_set_prior: bool| {
        let (mut e, mut term, mut early, mut last) = (true, true, true, 0.0);
        // SAFETY: a live instance; pointers to live locals.
        let status = unsafe {
            fmi3::do_step::<M>(
                c,
                t,
                h,
                no_set_prior,
                &mut e,
                &mut term,
                &mut early,
                &mut last,
            )
        };
        assert_eq!(status, STATUS_OK);
        assert!(!e && !term && !early);
        assert_eq!(last, t + h);
    };
    step(0.0, 0.1, true);
    assert_eq!(get!(get_boolean, c, VR_NO_SET_PRIOR, 1, false), [true]);
    let mut state = ptr::null_mut();
    // SAFETY: a live instance; pointers to live locals.
    unsafe {
        assert_eq!(fmi3::get_fmu_state::<M>(c, &mut state), STATUS_OK);
        let mut size = 0;
        assert_eq!(
            fmi3::serialized_fmu_state_size::<M>(c, state, &mut size),
            STATUS_ERROR,
            "canSerializeFMUState=\"false\""
        );
        assert_eq!(fmi3::set_fmu_state::<M>(c, state), STATUS_OK, "recovered");
    }
    assert_eq!(set!(set_int8, c, VR_INT8_IN, [5i8]), STATUS_OK);
    step(0.1, 0.1, false);
    assert_eq!(get!(get_boolean, c, VR_NO_SET_PRIOR, 1, true), [false]);
    // SAFETY: a live instance and its state.
    unsafe {
        assert_eq!(fmi3::set_fmu_state::<M>(c, state), STATUS_OK);
        assert_eq!(fmi3::free_fmu_state::<M>(c, &mut state), STATUS_OK);
    }
    assert_eq!(
        get!(get_int8, c, VR_INT8_OUT, 1, 0),
        [i8::MIN],
        "input restored"
    );
    assert_eq!(get!(get_boolean, c, VR_NO_SET_PRIOR, 1, false), [true]);
    // SAFETY: a live instance of this thread, not used afterwards.
    unsafe { fmi3::free_instance::<M>(c) };
}
