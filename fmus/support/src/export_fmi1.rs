//! [`export_fmi1!`](crate::export_fmi1): the C entry points of [`crate::fmi1`], generated for one model type.

/// Exports every FMI 1.0 co-simulation function for a [`Model`](crate::Model) type, each named
/// `<modelIdentifier>_fmiXxx` with C linkage (`#[unsafe(export_name = …)]`).
///
/// `$id` must be a string literal equal to the `modelIdentifier` attribute of the
/// modelDescription (and the shared library's file name). As with
/// [`export_fmi2!`](crate::export_fmi2), the functions live in an anonymous `const` block;
/// invoke it once per shared library.
///
/// Exported (prefixed): fmiGetTypesPlatform, fmiGetVersion, fmiSetDebugLogging,
/// fmiInstantiateSlave, fmiInitializeSlave, fmiTerminateSlave, fmiResetSlave,
/// fmiFreeSlaveInstance, fmiSetRealInputDerivatives, fmiGetRealOutputDerivatives,
/// fmiCancelStep, fmiDoStep, fmiGetStatus, fmiGetRealStatus, fmiGetIntegerStatus,
/// fmiGetBooleanStatus, fmiGetStringStatus, fmiGet/Set{Real,Integer,Boolean,String}.
///
/// Spec: FMI 1.0 for Co-Simulation §3.
#[macro_export]
macro_rules! export_fmi1 {
    ($model:ty, $id:literal) => {
        const _: () = {
            use $crate::fmi1 as f;
            type M = $model;

            #[unsafe(export_name = concat!($id, "_fmiGetTypesPlatform"))]
            extern "C" fn get_types_platform() -> *const ::core::ffi::c_char {
                f::get_types_platform()
            }

            #[unsafe(export_name = concat!($id, "_fmiGetVersion"))]
            extern "C" fn get_version() -> *const ::core::ffi::c_char {
                f::get_version()
            }

            #[unsafe(export_name = concat!($id, "_fmiSetDebugLogging"))]
            unsafe extern "C" fn set_debug_logging(
                c: f::Component,
                logging_on: f::Boolean,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::set_debug_logging::<M>(c, logging_on) }
            }

            #[unsafe(export_name = concat!($id, "_fmiInstantiateSlave"))]
            #[allow(clippy::too_many_arguments)]
            unsafe extern "C" fn instantiate_slave(
                instance_name: f::FmiString,
                guid: f::FmiString,
                fmu_location: f::FmiString,
                mime_type: f::FmiString,
                timeout: f::Real,
                visible: f::Boolean,
                interactive: f::Boolean,
                functions: f::CallbackFunctions,
                logging_on: f::Boolean,
            ) -> f::Component {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe {
                    f::instantiate_slave::<M>(
                        instance_name,
                        guid,
                        fmu_location,
                        mime_type,
                        timeout,
                        visible,
                        interactive,
                        functions,
                        logging_on,
                    )
                }
            }

            #[unsafe(export_name = concat!($id, "_fmiInitializeSlave"))]
            unsafe extern "C" fn initialize_slave(
                c: f::Component,
                t_start: f::Real,
                stop_time_defined: f::Boolean,
                t_stop: f::Real,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::initialize_slave::<M>(c, t_start, stop_time_defined, t_stop) }
            }

            #[unsafe(export_name = concat!($id, "_fmiTerminateSlave"))]
            unsafe extern "C" fn terminate_slave(c: f::Component) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::terminate_slave::<M>(c) }
            }

            #[unsafe(export_name = concat!($id, "_fmiResetSlave"))]
            unsafe extern "C" fn reset_slave(c: f::Component) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::reset_slave::<M>(c) }
            }

            #[unsafe(export_name = concat!($id, "_fmiFreeSlaveInstance"))]
            unsafe extern "C" fn free_slave_instance(c: f::Component) {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::free_slave_instance::<M>(c) }
            }

            #[unsafe(export_name = concat!($id, "_fmiSetRealInputDerivatives"))]
            unsafe extern "C" fn set_real_input_derivatives(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                order: *const f::Integer,
                value: *const f::Real,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::set_real_input_derivatives::<M>(c, vr, nvr, order, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiGetRealOutputDerivatives"))]
            unsafe extern "C" fn get_real_output_derivatives(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                order: *const f::Integer,
                value: *mut f::Real,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::get_real_output_derivatives::<M>(c, vr, nvr, order, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiCancelStep"))]
            unsafe extern "C" fn cancel_step(c: f::Component) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::cancel_step::<M>(c) }
            }

            #[unsafe(export_name = concat!($id, "_fmiDoStep"))]
            unsafe extern "C" fn do_step(
                c: f::Component,
                current_communication_point: f::Real,
                communication_step_size: f::Real,
                new_step: f::Boolean,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe {
                    f::do_step::<M>(
                        c,
                        current_communication_point,
                        communication_step_size,
                        new_step,
                    )
                }
            }

            #[unsafe(export_name = concat!($id, "_fmiGetStatus"))]
            unsafe extern "C" fn get_status(
                c: f::Component,
                kind: f::StatusKind,
                value: *mut f::Status,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::get_status::<M>(c, kind, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiGetRealStatus"))]
            unsafe extern "C" fn get_real_status(
                c: f::Component,
                kind: f::StatusKind,
                value: *mut f::Real,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::get_real_status::<M>(c, kind, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiGetIntegerStatus"))]
            unsafe extern "C" fn get_integer_status(
                c: f::Component,
                kind: f::StatusKind,
                value: *mut f::Integer,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::get_integer_status::<M>(c, kind, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiGetBooleanStatus"))]
            unsafe extern "C" fn get_boolean_status(
                c: f::Component,
                kind: f::StatusKind,
                value: *mut f::Boolean,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::get_boolean_status::<M>(c, kind, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiGetStringStatus"))]
            unsafe extern "C" fn get_string_status(
                c: f::Component,
                kind: f::StatusKind,
                value: *mut f::FmiString,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::get_string_status::<M>(c, kind, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiGetReal"))]
            unsafe extern "C" fn get_real(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *mut f::Real,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::get_real::<M>(c, vr, nvr, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiGetInteger"))]
            unsafe extern "C" fn get_integer(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *mut f::Integer,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::get_integer::<M>(c, vr, nvr, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiGetBoolean"))]
            unsafe extern "C" fn get_boolean(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *mut f::Boolean,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::get_boolean::<M>(c, vr, nvr, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiGetString"))]
            unsafe extern "C" fn get_string(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *mut f::FmiString,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::get_string::<M>(c, vr, nvr, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiSetReal"))]
            unsafe extern "C" fn set_real(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *const f::Real,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::set_real::<M>(c, vr, nvr, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiSetInteger"))]
            unsafe extern "C" fn set_integer(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *const f::Integer,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::set_integer::<M>(c, vr, nvr, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiSetBoolean"))]
            unsafe extern "C" fn set_boolean(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *const f::Boolean,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::set_boolean::<M>(c, vr, nvr, value) }
            }

            #[unsafe(export_name = concat!($id, "_fmiSetString"))]
            unsafe extern "C" fn set_string(
                c: f::Component,
                vr: *const f::ValueReference,
                nvr: usize,
                value: *const f::FmiString,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 1.0 calling contract that this forwards.
                unsafe { f::set_string::<M>(c, vr, nvr, value) }
            }
        };
    };
}
