//! [`export_fmi3_me!`](crate::export_fmi3_me): the C entry points of [`crate::fmi3_me`] and
//! [`crate::fmi3`], generated for one Model Exchange model type (features `fmi3` and `me`).

/// Exports every FMI 3.0 function of a Model Exchange FMU for an
/// [`MeModel`](crate::MeModel) type `M` with FMI 3.0 variables, unprefixed and with C linkage:
/// the functions of [`export_fmi3!`](crate::export_fmi3) for
/// [`ModelExchange<M>`](crate::ModelExchange), with fmi3InstantiateModelExchange and
/// fmi3UpdateDiscreteStates of [`crate::fmi3_me`], and fmi3EnterContinuousTimeMode,
/// fmi3CompletedIntegratorStep, fmi3SetTime, fmi3SetContinuousStates,
/// fmi3GetContinuousStateDerivatives, fmi3GetEventIndicators, fmi3GetContinuousStates,
/// fmi3GetNominalsOfContinuousStates, fmi3GetNumberOfEventIndicators and
/// fmi3GetNumberOfContinuousStates. `fmi3InstantiateCoSimulation` gives a co-simulation
/// instance whose `fmi3DoStep` is refused (only [`export_fmi2_me!`](crate::export_fmi2_me)
/// offers both interfaces). May be combined with `export_fmi2_me!` in one library.
///
/// Spec: FMI 3.0 §2.2, §3.2.
#[macro_export]
macro_rules! export_fmi3_me {
    ($model:ty) => {
        $crate::export_fmi3!(@common $crate::ModelExchange<$model>, {
            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3InstantiateModelExchange(
                instance_name: f::FmiString,
                instantiation_token: f::FmiString,
                resource_path: f::FmiString,
                visible: f::Boolean,
                logging_on: f::Boolean,
                instance_environment: f::InstanceEnvironment,
                log_message: f::LogMessageCallback,
            ) -> f::Instance {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    $crate::fmi3_me::instantiate_model_exchange::<$model>(
                        instance_name,
                        instantiation_token,
                        resource_path,
                        visible,
                        logging_on,
                        instance_environment,
                        log_message,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3UpdateDiscreteStates(
                instance: f::Instance,
                discrete_states_need_update: *mut f::Boolean,
                terminate_simulation: *mut f::Boolean,
                nominals_of_continuous_states_changed: *mut f::Boolean,
                values_of_continuous_states_changed: *mut f::Boolean,
                next_event_time_defined: *mut f::Boolean,
                next_event_time: *mut f::Float64,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    $crate::fmi3_me::update_discrete_states::<$model>(
                        instance,
                        discrete_states_need_update,
                        terminate_simulation,
                        nominals_of_continuous_states_changed,
                        values_of_continuous_states_changed,
                        next_event_time_defined,
                        next_event_time,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3EnterContinuousTimeMode(instance: f::Instance) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { $crate::fmi3_me::enter_continuous_time_mode::<$model>(instance) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3CompletedIntegratorStep(
                instance: f::Instance,
                no_set_fmu_state_prior_to_current_point: f::Boolean,
                enter_event_mode: *mut f::Boolean,
                terminate_simulation: *mut f::Boolean,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    $crate::fmi3_me::completed_integrator_step::<$model>(
                        instance,
                        no_set_fmu_state_prior_to_current_point,
                        enter_event_mode,
                        terminate_simulation,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3SetTime(instance: f::Instance, time: f::Float64) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { $crate::fmi3_me::set_time::<$model>(instance, time) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3SetContinuousStates(
                instance: f::Instance,
                continuous_states: *const f::Float64,
                n_continuous_states: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    $crate::fmi3_me::set_continuous_states::<$model>(
                        instance,
                        continuous_states,
                        n_continuous_states,
                    )
                }
            }

            $crate::__export_fmi3_me_array!($model, fmi3GetContinuousStateDerivatives, Derivatives);
            $crate::__export_fmi3_me_array!($model, fmi3GetEventIndicators, EventIndicators);
            $crate::__export_fmi3_me_array!($model, fmi3GetContinuousStates, States);
            $crate::__export_fmi3_me_array!($model, fmi3GetNominalsOfContinuousStates, Nominals);

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetNumberOfEventIndicators(
                instance: f::Instance,
                n: *mut usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { $crate::fmi3_me::get_number::<$model>(instance, true, n) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetNumberOfContinuousStates(
                instance: f::Instance,
                n: *mut usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { $crate::fmi3_me::get_number::<$model>(instance, false, n) }
            }
        });
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __export_fmi3_me_array {
    ($model:ty, $name:ident, $which:ident) => {
        #[unsafe(no_mangle)]
        unsafe extern "C" fn $name(
            instance: $crate::fmi3::Instance,
            values: *mut $crate::fmi3::Float64,
            n: usize,
        ) -> $crate::fmi3::Status {
            // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
            unsafe {
                $crate::fmi3_me::get_array::<$model>(
                    instance,
                    $crate::fmi3_me::Array::$which,
                    values,
                    n,
                )
            }
        }
    };
}
