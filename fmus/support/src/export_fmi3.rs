//! [`export_fmi3!`](crate::export_fmi3): the C entry points of [`crate::fmi3`], generated for
//! one model type.

/// Exports the FMI 3.0 co-simulation functions for a [`Model`](crate::Model) type, unprefixed
/// and with C linkage (`#[unsafe(no_mangle)]`).
///
/// The generated functions live in an anonymous `const` block, so they add no Rust names to
/// the calling crate. Invoke it at most once per shared library, and only in a crate built as a
/// `cdylib` (behind the crate's `export` feature, as for [`export_fmi2!`](crate::export_fmi2)).
/// One library may export both `export_fmi2!` and `export_fmi3!`: the registry keeps FMI 2.0
/// and FMI 3.0 instances apart, so an `fmi2Component` passed to an FMI 3.0 function gives
/// Error.
///
/// Exported:
/// - working: fmi3GetVersion, fmi3SetDebugLogging, fmi3InstantiateCoSimulation,
///   fmi3FreeInstance, fmi3EnterInitializationMode, fmi3ExitInitializationMode,
///   fmi3EnterEventMode, fmi3Terminate, fmi3Reset, fmi3Get/Set{Float32, Float64, Int8, UInt8,
///   Int16, UInt16, Int32, UInt32, Int64, UInt64, Boolean, String, Binary},
///   fmi3Get/Set/FreeFMUState, fmi3SerializedFMUStateSize, fmi3SerializeFMUState,
///   fmi3DeserializeFMUState, fmi3GetDirectionalDerivative, fmi3EnterConfigurationMode,
///   fmi3ExitConfigurationMode, fmi3UpdateDiscreteStates, fmi3EnterStepMode, fmi3DoStep;
/// - refusing (null): fmi3InstantiateModelExchange, fmi3InstantiateScheduledExecution;
/// - Error (not supported): fmi3GetClock, fmi3SetClock, fmi3GetNumberOfVariableDependencies,
///   fmi3GetVariableDependencies, fmi3GetAdjointDerivative, fmi3Get/SetInterval{Decimal,
///   Fraction}, fmi3Get/SetShift{Decimal, Fraction}, fmi3EvaluateDiscreteStates,
///   fmi3GetOutputDerivatives, fmi3ActivateModelPartition.
///
/// The Model Exchange functions (fmi3EnterContinuousTimeMode, fmi3SetTime, …) are not
/// exported: a co-simulation importer never calls them. `export_fmi3_me!` (features `fmi3` and
/// `me`) exports them, through the internal form
/// `export_fmi3!(@common Model, { … })`, which defines every function but
/// fmi3InstantiateModelExchange and fmi3UpdateDiscreteStates and takes those as items.
///
/// Spec: FMI 3.0 §2.2 and §4.2.
#[macro_export]
macro_rules! export_fmi3 {
    ($model:ty) => {
        $crate::export_fmi3!(@common $model, {
            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3InstantiateModelExchange(
                _instance_name: f::FmiString,
                _instantiation_token: f::FmiString,
                _resource_path: f::FmiString,
                _visible: f::Boolean,
                _logging_on: f::Boolean,
                instance_environment: f::InstanceEnvironment,
                log_message: f::LogMessageCallback,
            ) -> f::Instance {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::instantiate_model_exchange(instance_environment, log_message) }
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
                    f::update_discrete_states::<M>(
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
        });
    };
    // Every function but fmi3InstantiateModelExchange and fmi3UpdateDiscreteStates, which
    // `$extra` defines (`export_fmi3_me!` passes its Model Exchange versions).
    (@common $model:ty, { $($extra:tt)* }) => {
        const _: () = {
            use $crate::fmi3 as f;
            type M = $model;

            $($extra)*

            #[unsafe(no_mangle)]
            extern "C" fn fmi3GetVersion() -> *const ::core::ffi::c_char {
                f::get_version()
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3SetDebugLogging(
                instance: f::Instance,
                logging_on: f::Boolean,
                n_categories: usize,
                categories: *const f::FmiString,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::set_debug_logging::<M>(instance, logging_on, n_categories, categories) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3InstantiateCoSimulation(
                instance_name: f::FmiString,
                instantiation_token: f::FmiString,
                resource_path: f::FmiString,
                visible: f::Boolean,
                logging_on: f::Boolean,
                event_mode_used: f::Boolean,
                early_return_allowed: f::Boolean,
                required_intermediate_variables: *const f::ValueReference,
                n_required_intermediate_variables: usize,
                instance_environment: f::InstanceEnvironment,
                log_message: f::LogMessageCallback,
                intermediate_update: f::IntermediateUpdateCallback,
            ) -> f::Instance {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    f::instantiate_co_simulation::<M>(
                        instance_name,
                        instantiation_token,
                        resource_path,
                        visible,
                        logging_on,
                        event_mode_used,
                        early_return_allowed,
                        required_intermediate_variables,
                        n_required_intermediate_variables,
                        instance_environment,
                        log_message,
                        intermediate_update,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3InstantiateScheduledExecution(
                _instance_name: f::FmiString,
                _instantiation_token: f::FmiString,
                _resource_path: f::FmiString,
                _visible: f::Boolean,
                _logging_on: f::Boolean,
                instance_environment: f::InstanceEnvironment,
                log_message: f::LogMessageCallback,
                _clock_update: f::ClockUpdateCallback,
                _lock_preemption: f::LockPreemptionCallback,
                _unlock_preemption: f::UnlockPreemptionCallback,
            ) -> f::Instance {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::instantiate_scheduled_execution(instance_environment, log_message) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3FreeInstance(instance: f::Instance) {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::free_instance::<M>(instance) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3EnterInitializationMode(
                instance: f::Instance,
                tolerance_defined: f::Boolean,
                tolerance: f::Float64,
                start_time: f::Float64,
                stop_time_defined: f::Boolean,
                stop_time: f::Float64,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    f::enter_initialization_mode::<M>(
                        instance,
                        tolerance_defined,
                        tolerance,
                        start_time,
                        stop_time_defined,
                        stop_time,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3ExitInitializationMode(instance: f::Instance) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::exit_initialization_mode::<M>(instance) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3EnterEventMode(instance: f::Instance) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::enter_event_mode::<M>(instance) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3Terminate(instance: f::Instance) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::terminate::<M>(instance) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3Reset(instance: f::Instance) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::reset::<M>(instance) }
            }

            $crate::__fmi3_typed_access! {
                fmi3GetFloat32 fmi3SetFloat32 get_float32 set_float32 Float32;
                fmi3GetFloat64 fmi3SetFloat64 get_float64 set_float64 Float64;
                fmi3GetInt8 fmi3SetInt8 get_int8 set_int8 Int8;
                fmi3GetUInt8 fmi3SetUInt8 get_uint8 set_uint8 UInt8;
                fmi3GetInt16 fmi3SetInt16 get_int16 set_int16 Int16;
                fmi3GetUInt16 fmi3SetUInt16 get_uint16 set_uint16 UInt16;
                fmi3GetInt32 fmi3SetInt32 get_int32 set_int32 Int32;
                fmi3GetUInt32 fmi3SetUInt32 get_uint32 set_uint32 UInt32;
                fmi3GetInt64 fmi3SetInt64 get_int64 set_int64 Int64;
                fmi3GetUInt64 fmi3SetUInt64 get_uint64 set_uint64 UInt64;
                fmi3GetBoolean fmi3SetBoolean get_boolean set_boolean Boolean;
                fmi3GetString fmi3SetString get_string set_string FmiString;
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetBinary(
                instance: f::Instance,
                value_references: *const f::ValueReference,
                n_value_references: usize,
                value_sizes: *mut usize,
                values: *mut f::Binary,
                n_values: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    f::get_binary::<M>(
                        instance,
                        value_references,
                        n_value_references,
                        value_sizes,
                        values,
                        n_values,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3SetBinary(
                instance: f::Instance,
                value_references: *const f::ValueReference,
                n_value_references: usize,
                value_sizes: *const usize,
                values: *const f::Binary,
                n_values: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    f::set_binary::<M>(
                        instance,
                        value_references,
                        n_value_references,
                        value_sizes,
                        values,
                        n_values,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetFMUState(
                instance: f::Instance,
                state: *mut f::FmuState,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::get_fmu_state::<M>(instance, state) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3SetFMUState(
                instance: f::Instance,
                state: f::FmuState,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::set_fmu_state::<M>(instance, state) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3FreeFMUState(
                instance: f::Instance,
                state: *mut f::FmuState,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::free_fmu_state::<M>(instance, state) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3SerializedFMUStateSize(
                instance: f::Instance,
                state: f::FmuState,
                size: *mut usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::serialized_fmu_state_size::<M>(instance, state, size) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3SerializeFMUState(
                instance: f::Instance,
                state: f::FmuState,
                serialized_state: *mut f::Byte,
                size: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::serialize_fmu_state::<M>(instance, state, serialized_state, size) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3DeserializeFMUState(
                instance: f::Instance,
                serialized_state: *const f::Byte,
                size: usize,
                state: *mut f::FmuState,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::deserialize_fmu_state::<M>(instance, serialized_state, size, state) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetDirectionalDerivative(
                instance: f::Instance,
                unknowns: *const f::ValueReference,
                n_unknowns: usize,
                knowns: *const f::ValueReference,
                n_knowns: usize,
                seed: *const f::Float64,
                n_seed: usize,
                sensitivity: *mut f::Float64,
                n_sensitivity: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    f::get_directional_derivative::<M>(
                        instance,
                        unknowns,
                        n_unknowns,
                        knowns,
                        n_knowns,
                        seed,
                        n_seed,
                        sensitivity,
                        n_sensitivity,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3EnterConfigurationMode(instance: f::Instance) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::enter_configuration_mode::<M>(instance) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3ExitConfigurationMode(instance: f::Instance) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::exit_configuration_mode::<M>(instance) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3EnterStepMode(instance: f::Instance) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::enter_step_mode::<M>(instance) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3DoStep(
                instance: f::Instance,
                current_communication_point: f::Float64,
                communication_step_size: f::Float64,
                no_set_fmu_state_prior_to_current_point: f::Boolean,
                event_handling_needed: *mut f::Boolean,
                terminate_simulation: *mut f::Boolean,
                early_return: *mut f::Boolean,
                last_successful_time: *mut f::Float64,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    f::do_step::<M>(
                        instance,
                        current_communication_point,
                        communication_step_size,
                        no_set_fmu_state_prior_to_current_point,
                        event_handling_needed,
                        terminate_simulation,
                        early_return,
                        last_successful_time,
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetClock(
                instance: f::Instance,
                _value_references: *const f::ValueReference,
                _n_value_references: usize,
                _values: *mut f::Clock,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::unsupported::<M>(instance, "fmi3GetClock", "clocks") }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3SetClock(
                instance: f::Instance,
                _value_references: *const f::ValueReference,
                _n_value_references: usize,
                _values: *const f::Clock,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::unsupported::<M>(instance, "fmi3SetClock", "clocks") }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetNumberOfVariableDependencies(
                instance: f::Instance,
                _value_reference: f::ValueReference,
                _n_dependencies: *mut usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    f::unsupported::<M>(
                        instance,
                        "fmi3GetNumberOfVariableDependencies",
                        "variable dependencies by function (see ModelStructure)",
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetVariableDependencies(
                instance: f::Instance,
                _dependent: f::ValueReference,
                _element_indices_of_dependent: *mut usize,
                _independents: *mut f::ValueReference,
                _element_indices_of_independents: *mut usize,
                _dependency_kinds: *mut f::DependencyKind,
                _n_dependencies: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    f::unsupported::<M>(
                        instance,
                        "fmi3GetVariableDependencies",
                        "variable dependencies by function (see ModelStructure)",
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetAdjointDerivative(
                instance: f::Instance,
                _unknowns: *const f::ValueReference,
                _n_unknowns: usize,
                _knowns: *const f::ValueReference,
                _n_knowns: usize,
                _seed: *const f::Float64,
                _n_seed: usize,
                _sensitivity: *mut f::Float64,
                _n_sensitivity: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    f::unsupported::<M>(
                        instance,
                        "fmi3GetAdjointDerivative",
                        "adjoint derivatives (providesAdjointDerivatives=\"false\")",
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetIntervalDecimal(
                instance: f::Instance,
                _value_references: *const f::ValueReference,
                _n_value_references: usize,
                _intervals: *mut f::Float64,
                _qualifiers: *mut f::IntervalQualifier,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::unsupported::<M>(instance, "fmi3GetIntervalDecimal", "clocks") }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetIntervalFraction(
                instance: f::Instance,
                _value_references: *const f::ValueReference,
                _n_value_references: usize,
                _counters: *mut f::UInt64,
                _resolutions: *mut f::UInt64,
                _qualifiers: *mut f::IntervalQualifier,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::unsupported::<M>(instance, "fmi3GetIntervalFraction", "clocks") }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetShiftDecimal(
                instance: f::Instance,
                _value_references: *const f::ValueReference,
                _n_value_references: usize,
                _shifts: *mut f::Float64,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::unsupported::<M>(instance, "fmi3GetShiftDecimal", "clocks") }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetShiftFraction(
                instance: f::Instance,
                _value_references: *const f::ValueReference,
                _n_value_references: usize,
                _counters: *mut f::UInt64,
                _resolutions: *mut f::UInt64,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::unsupported::<M>(instance, "fmi3GetShiftFraction", "clocks") }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3SetIntervalDecimal(
                instance: f::Instance,
                _value_references: *const f::ValueReference,
                _n_value_references: usize,
                _intervals: *const f::Float64,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::unsupported::<M>(instance, "fmi3SetIntervalDecimal", "clocks") }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3SetIntervalFraction(
                instance: f::Instance,
                _value_references: *const f::ValueReference,
                _n_value_references: usize,
                _counters: *const f::UInt64,
                _resolutions: *const f::UInt64,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::unsupported::<M>(instance, "fmi3SetIntervalFraction", "clocks") }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3SetShiftDecimal(
                instance: f::Instance,
                _value_references: *const f::ValueReference,
                _n_value_references: usize,
                _shifts: *const f::Float64,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::unsupported::<M>(instance, "fmi3SetShiftDecimal", "clocks") }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3SetShiftFraction(
                instance: f::Instance,
                _value_references: *const f::ValueReference,
                _n_value_references: usize,
                _counters: *const f::UInt64,
                _resolutions: *const f::UInt64,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe { f::unsupported::<M>(instance, "fmi3SetShiftFraction", "clocks") }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3EvaluateDiscreteStates(instance: f::Instance) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    f::unsupported::<M>(
                        instance,
                        "fmi3EvaluateDiscreteStates",
                        "evaluation of discrete states (providesEvaluateDiscreteStates=\"false\")",
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3GetOutputDerivatives(
                instance: f::Instance,
                _value_references: *const f::ValueReference,
                _n_value_references: usize,
                _orders: *const f::Int32,
                _values: *mut f::Float64,
                _n_values: usize,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    f::unsupported::<M>(
                        instance,
                        "fmi3GetOutputDerivatives",
                        "output derivatives (maxOutputDerivativeOrder=\"0\")",
                    )
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn fmi3ActivateModelPartition(
                instance: f::Instance,
                _clock_reference: f::ValueReference,
                _activation_time: f::Float64,
            ) -> f::Status {
                // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
                unsafe {
                    f::unsupported::<M>(
                        instance,
                        "fmi3ActivateModelPartition",
                        "Scheduled Execution",
                    )
                }
            }
        };
    };
}

/// Generates the typed `fmi3Get…`/`fmi3Set…` symbols of [`export_fmi3!`] that share one
/// shape (`instance, valueReferences, nValueReferences, values, nValues`). Not public API:
/// expanded inside `export_fmi3!`, where `f` is [`crate::fmi3`] and `M` the model type.
#[doc(hidden)]
#[macro_export]
macro_rules! __fmi3_typed_access {
    ($( $get_symbol:ident $set_symbol:ident $get:ident $set:ident $c_type:ident; )*) => { $(
        #[unsafe(no_mangle)]
        unsafe extern "C" fn $get_symbol(
            instance: f::Instance,
            value_references: *const f::ValueReference,
            n_value_references: usize,
            values: *mut f::$c_type,
            n_values: usize,
        ) -> f::Status {
            // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
            unsafe { f::$get::<M>(instance, value_references, n_value_references, values, n_values) }
        }

        #[unsafe(no_mangle)]
        unsafe extern "C" fn $set_symbol(
            instance: f::Instance,
            value_references: *const f::ValueReference,
            n_value_references: usize,
            values: *const f::$c_type,
            n_values: usize,
        ) -> f::Status {
            // SAFETY: the importer upholds the FMI 3.0 calling contract that this forwards.
            unsafe { f::$set::<M>(instance, value_references, n_value_references, values, n_values) }
        }
    )* };
}
