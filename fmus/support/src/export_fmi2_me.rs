//! [`export_fmi2_me!`](crate::export_fmi2_me): the C entry points of [`crate::fmi2_me`] and
//! [`crate::fmi2`], generated for one Model Exchange model type (feature `me`).

/// Exports every FMI 2.0 function of a Model Exchange FMU for an
/// [`MeModel`](crate::MeModel) type `M`, unprefixed and with C linkage: the common and
/// co-simulation functions of [`export_fmi2!`](crate::export_fmi2) for
/// [`ModelExchange<M>`](crate::ModelExchange) (with `fmi2Instantiate` and `fmi2Reset` of
/// [`crate::fmi2_me`]), and fmi2SetTime, fmi2SetContinuousStates, fmi2EnterEventMode,
/// fmi2NewDiscreteStates, fmi2EnterContinuousTimeMode, fmi2CompletedIntegratorStep,
/// fmi2GetDerivatives, fmi2GetEventIndicators, fmi2GetContinuousStates and
/// fmi2GetNominalsOfContinuousStates.
///
/// The co-simulation functions are there for FMUs that offer both interfaces
/// ([`MeModel::co_simulation`](crate::MeModel::co_simulation)); for a Model Exchange only
/// FMU, `fmi2Instantiate` refuses `fmi2CoSimulation`, so they are never reached with a valid
/// instance. The same linking rules as for [`export_fmi2!`](crate::export_fmi2) apply.
///
/// Spec: FMI 2.0.2 §2.1, §3.2 and §4.2.
#[macro_export]
macro_rules! export_fmi2_me {
    ($model:ty) => {
        $crate::export_fmi2!(
            $crate::ModelExchange<$model>,
            do_step = $crate::fmi2::do_step::<$crate::ModelExchange<$model>>,
            set_fmu_state = $crate::fmi2::set_fmu_state::<$crate::ModelExchange<$model>>,
            deserialize_fmu_state =
                $crate::fmi2::deserialize_fmu_state::<$crate::ModelExchange<$model>>,
            instantiate = $crate::fmi2_me::instantiate::<$model>,
            reset = $crate::fmi2_me::reset::<$model>
        );

        const _: () = {
            use $crate::fmi2 as f;
            use $crate::fmi2_me as me;
            type M = $model;

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2SetTime(c: f::Component, time: f::Real) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { me::set_time::<M>(c, time) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2SetContinuousStates(
                c: f::Component,
                x: *const f::Real,
                nx: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { me::set_continuous_states::<M>(c, x, nx) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2EnterEventMode(c: f::Component) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { me::enter_event_mode::<M>(c) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2NewDiscreteStates(
                c: f::Component,
                event_info: *mut me::EventInfo,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { me::new_discrete_states::<M>(c, event_info) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2EnterContinuousTimeMode(c: f::Component) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { me::enter_continuous_time_mode::<M>(c) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2CompletedIntegratorStep(
                c: f::Component,
                no_set_fmu_state_prior_to_current_point: f::Boolean,
                enter_event_mode: *mut f::Boolean,
                terminate_simulation: *mut f::Boolean,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe {
                    me::completed_integrator_step::<M>(
                        c,
                        no_set_fmu_state_prior_to_current_point,
                        enter_event_mode,
                        terminate_simulation,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetDerivatives(
                c: f::Component,
                derivatives: *mut f::Real,
                nx: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { me::get_derivatives::<M>(c, derivatives, nx) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetEventIndicators(
                c: f::Component,
                event_indicators: *mut f::Real,
                ni: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { me::get_event_indicators::<M>(c, event_indicators, ni) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetContinuousStates(
                c: f::Component,
                x: *mut f::Real,
                nx: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { me::get_continuous_states::<M>(c, x, nx) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi2GetNominalsOfContinuousStates(
                c: f::Component,
                x_nominal: *mut f::Real,
                nx: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 2.0 calling contract that this forwards.
                unsafe { me::get_nominals_of_continuous_states::<M>(c, x_nominal, nx) }
            }
        };
    };
}
