//! [`export_fmi2!`](crate::export_fmi2): the C entry points of [`crate::fmi2`], generated for one model type.

/// Exports every FMI 2.0 co-simulation function for a [`Model`](crate::Model) type, unprefixed and with C
/// linkage (`#[unsafe(no_mangle)]`).
///
/// The generated functions live in an anonymous `const` block, so they add no Rust names to
/// the calling crate. Invoke it at most once per shared library, and only in a crate that is
/// built as a `cdylib`: two such crates linked into one Rust binary would define the same
/// symbols. The test FMU crates therefore invoke it behind their `export` feature.
///
/// Exported: fmi2GetTypesPlatform, fmi2GetVersion, fmi2SetDebugLogging, fmi2Instantiate,
/// fmi2FreeInstance, fmi2SetupExperiment, fmi2EnterInitializationMode,
/// fmi2ExitInitializationMode, fmi2Terminate, fmi2Reset, fmi2Get/Set{Real,Integer,Boolean,String},
/// fmi2GetFMUstate, fmi2SetFMUstate, fmi2FreeFMUstate, fmi2SerializedFMUstateSize,
/// fmi2SerializeFMUstate, fmi2DeSerializeFMUstate, fmi2GetDirectionalDerivative,
/// fmi2SetRealInputDerivatives, fmi2GetRealOutputDerivatives, fmi2DoStep, fmi2CancelStep,
/// fmi2GetStatus, fmi2GetRealStatus, fmi2GetIntegerStatus, fmi2GetBooleanStatus,
/// fmi2GetStringStatus.
///
/// A second form, `export_fmi2!(Model, do_step = path)`, makes `fmi2DoStep` call `path`
/// instead of [`fmi2::do_step::<Model>`](crate::fmi2::do_step). `path` must be an
/// `unsafe fn(Component, Real, Real, Boolean) -> Status` with the contract of
/// [`fmi2::do_step`](crate::fmi2::do_step); it normally forwards to that function and adjusts
/// the status. The fault-injection FMU (`fmus/fault_injection`) uses it to return `fmi2Fatal`,
/// which [`StepOutcome`](crate::StepOutcome) cannot express.
///
/// A third form, `export_fmi2!(Model, do_step = path, set_fmu_state = path,
/// deserialize_fmu_state = path)`, also replaces `fmi2SetFMUstate` and
/// `fmi2DeSerializeFMUstate`: each path must have the signature and contract of
/// [`fmi2::set_fmu_state`](crate::fmi2::set_fmu_state) and
/// [`fmi2::deserialize_fmu_state`](crate::fmi2::deserialize_fmu_state), to which it normally
/// forwards. The fault-injection FMU uses it to fail the way some FMUs fail to restore a
/// serialized state.
///
/// A fourth form adds `instantiate = path, reset = path` to the third, replacing
/// `fmi2Instantiate` and `fmi2Reset`; `export_fmi2_me!` (feature `me`) uses it for
/// FMUs that offer Model Exchange.
///
/// Spec: FMI 2.0.2 §2.1 and §4.2.
#[macro_export]
macro_rules! export_fmi2 {
    ($model:ty) => {
        $crate::export_fmi2!($model, do_step = $crate::fmi2::do_step::<$model>);
    };
    ($model:ty, do_step = $do_step:path) => {
        $crate::export_fmi2!(
            $model,
            do_step = $do_step,
            set_fmu_state = $crate::fmi2::set_fmu_state::<$model>,
            deserialize_fmu_state = $crate::fmi2::deserialize_fmu_state::<$model>
        );
    };
    (
        $model:ty,
        do_step = $do_step:path,
        set_fmu_state = $set_fmu_state:path,
        deserialize_fmu_state = $deserialize_fmu_state:path
    ) => {
        $crate::export_fmi2!(
            $model,
            do_step = $do_step,
            set_fmu_state = $set_fmu_state,
            deserialize_fmu_state = $deserialize_fmu_state,
            instantiate = $crate::fmi2::instantiate::<$model>,
            reset = $crate::fmi2::reset::<$model>
        );
    };
    (
        $model:ty,
        do_step = $do_step:path,
        set_fmu_state = $set_fmu_state:path,
        deserialize_fmu_state = $deserialize_fmu_state:path,
        instantiate = $instantiate:path,
        reset = $reset:path
    ) => {
        const _: () = {
            use $crate::fmi2 as f;
            type M = $model;

            #[unsafe(no_mangle)]
            extern "C" fn fmi2GetTypesPlatform() -> *const ::core::ffi::c_char {
                f::get_types_platform()
            }

            #[unsafe(no_mangle)]
            extern "C" fn fmi2GetVersion() -> *const ::core::ffi::c_char {
                f::get_version()
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2SetDebugLogging(
                c: f::Component,
                logging_on: f::Boolean,
                n_categories: usize,
                categories: *const f::FmiString,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::set_debug_logging::<M>(c, logging_on, n_categories, categories) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2Instantiate(
                instance_name: f::FmiString,
                fmu_type: f::Type,
                guid: f::FmiString,
                resource_location: f::FmiString,
                functions: *const f::CallbackFunctions,
                visible: f::Boolean,
                logging_on: f::Boolean,
            ) -> f::Component {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe {
                    $instantiate(
                        instance_name,
                        fmu_type,
                        guid,
                        resource_location,
                        functions,
                        visible,
                        logging_on,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2FreeInstance(c: f::Component) {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::free_instance::<M>(c) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2SetupExperiment(
                c: f::Component,
                tolerance_defined: f::Boolean,
                tolerance: f::Real,
                start_time: f::Real,
                stop_time_defined: f::Boolean,
                stop_time: f::Real,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe {
                    f::setup_experiment::<M>(
                        c,
                        tolerance_defined,
                        tolerance,
                        start_time,
                        stop_time_defined,
                        stop_time,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2EnterInitializationMode(c: f::Component) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::enter_initialization_mode::<M>(c) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2ExitInitializationMode(c: f::Component) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::exit_initialization_mode::<M>(c) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2Terminate(c: f::Component) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::terminate::<M>(c) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2Reset(c: f::Component) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { $reset(c) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetReal(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *mut f::Real,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::get_real::<M>(c, vr, nvr, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetInteger(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *mut f::Integer,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::get_integer::<M>(c, vr, nvr, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetBoolean(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *mut f::Boolean,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::get_boolean::<M>(c, vr, nvr, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetString(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *mut f::FmiString,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::get_string::<M>(c, vr, nvr, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2SetReal(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *const f::Real,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::set_real::<M>(c, vr, nvr, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2SetInteger(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *const f::Integer,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::set_integer::<M>(c, vr, nvr, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2SetBoolean(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *const f::Boolean,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::set_boolean::<M>(c, vr, nvr, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2SetString(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *const f::FmiString,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::set_string::<M>(c, vr, nvr, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetFMUstate(
                c: f::Component,
                state: *mut f::FmuState,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::get_fmu_state::<M>(c, state) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2SetFMUstate(c: f::Component, state: f::FmuState) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards;
                // `$set_fmu_state` has the contract of `fmi2::set_fmu_state` (see the macro
                // documentation).
                unsafe { $set_fmu_state(c, state) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2FreeFMUstate(
                c: f::Component,
                state: *mut f::FmuState,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::free_fmu_state::<M>(c, state) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2SerializedFMUstateSize(
                c: f::Component,
                state: f::FmuState,
                size: *mut usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::serialized_fmu_state_size::<M>(c, state, size) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2SerializeFMUstate(
                c: f::Component,
                state: f::FmuState,
                bytes: *mut f::Byte,
                size: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::serialize_fmu_state::<M>(c, state, bytes, size) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2DeSerializeFMUstate(
                c: f::Component,
                bytes: *const f::Byte,
                size: usize,
                state: *mut f::FmuState,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards;
                // `$deserialize_fmu_state` has the contract of `fmi2::deserialize_fmu_state`
                // (see the macro documentation).
                unsafe { $deserialize_fmu_state(c, bytes, size, state) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetDirectionalDerivative(
                c: f::Component,
                v_unknown_ref: *const f::ValueReference,
                n_unknown: usize,
                v_known_ref: *const f::ValueReference,
                n_known: usize,
                dv_known: *const f::Real,
                dv_unknown: *mut f::Real,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe {
                    f::get_directional_derivative::<M>(
                        c,
                        v_unknown_ref,
                        n_unknown,
                        v_known_ref,
                        n_known,
                        dv_known,
                        dv_unknown,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2SetRealInputDerivatives(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                order: *const f::Integer,
                value: *const f::Real,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::set_real_input_derivatives::<M>(c, vr, nvr, order, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetRealOutputDerivatives(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                order: *const f::Integer,
                value: *mut f::Real,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::get_real_output_derivatives::<M>(c, vr, nvr, order, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2DoStep(
                c: f::Component,
                current_communication_point: f::Real,
                communication_step_size: f::Real,
                no_set_fmu_state_prior_to_current_point: f::Boolean,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards;
                // `$do_step` has the contract of `fmi2::do_step` (see the macro documentation).
                unsafe {
                    $do_step(
                        c,
                        current_communication_point,
                        communication_step_size,
                        no_set_fmu_state_prior_to_current_point,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2CancelStep(c: f::Component) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::cancel_step::<M>(c) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetStatus(
                c: f::Component,
                kind: f::StatusKind,
                value: *mut f::Status,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::get_status::<M>(c, kind, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetRealStatus(
                c: f::Component,
                kind: f::StatusKind,
                value: *mut f::Real,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::get_real_status::<M>(c, kind, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetIntegerStatus(
                c: f::Component,
                kind: f::StatusKind,
                value: *mut f::Integer,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::get_integer_status::<M>(c, kind, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetBooleanStatus(
                c: f::Component,
                kind: f::StatusKind,
                value: *mut f::Boolean,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::get_boolean_status::<M>(c, kind, value) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetStringStatus(
                c: f::Component,
                kind: f::StatusKind,
                value: *mut f::FmiString,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { f::get_string_status::<M>(c, kind, value) }
            }
        };
    };
}
