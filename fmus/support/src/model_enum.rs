//! [`model_enum!`](crate::model_enum): one [`Model`](crate::Model) that serves several FMUs.

/// Declares an enum with one variant per model type and implements
/// [`Model`](crate::Model) for it by dispatch.
///
/// [`Model::instantiate`](crate::Model::instantiate) tries the variants in order and keeps the
/// first whose type accepts the GUID, so one shared library can serve several FMUs with
/// different GUIDs. [`Model::acquire_instance`](crate::Model::acquire_instance) and
/// [`Model::release_instance`](crate::Model::release_instance) ask every variant type in turn,
/// so each type must act only on its own GUIDs. Every other method, including
/// [`Model::save_state`](crate::Model::save_state) and
/// [`Model::load_state`](crate::Model::load_state) and the FMI 3.0 methods, goes to the
/// variant's model. The enum
/// derives `Clone` and `Debug`; each inner type must implement `Model + Debug`.
///
/// ```
/// use fmu_support::{Model, ModelError, StepOutcome, Variable};
///
/// #[derive(Clone, Debug)]
/// struct A;
/// impl Model for A {
///     fn instantiate(guid: &str) -> Option<Self> { (guid == "a").then_some(A) }
///     fn variables(&self) -> &'static [Variable] { &[] }
///     fn initialize(&mut self, _: f64) -> Result<(), ModelError> { Ok(()) }
///     fn do_step(&mut self, _: f64, _: f64) -> StepOutcome { StepOutcome::Completed }
/// }
///
/// fmu_support::model_enum! {
///     /// Serves the FMU with GUID "a".
///     pub enum Both { A(A) }
/// }
///
/// assert!(matches!(Both::instantiate("a"), Some(Both::A(_))));
/// assert!(Both::instantiate("b").is_none());
/// ```
#[macro_export]
macro_rules! model_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident($inner:ty) ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant($inner) ),+
        }

        impl $crate::Model for $name {
            fn instantiate(guid: &str) -> ::core::option::Option<Self> {
                $(
                    if let ::core::option::Option::Some(m) =
                        <$inner as $crate::Model>::instantiate(guid)
                    {
                        return ::core::option::Option::Some(Self::$variant(m));
                    }
                )+
                ::core::option::Option::None
            }

            fn acquire_instance(guid: &str) -> ::core::result::Result<(), $crate::ModelError> {
                $( <$inner as $crate::Model>::acquire_instance(guid)?; )+
                ::core::result::Result::Ok(())
            }

            fn release_instance(guid: &str) {
                $( <$inner as $crate::Model>::release_instance(guid); )+
            }

            fn variables(&self) -> &'static [$crate::Variable] {
                match self { $( Self::$variant(m) => $crate::Model::variables(m) ),+ }
            }

            fn initialize(&mut self, start_time: f64)
                -> ::core::result::Result<(), $crate::ModelError>
            {
                match self { $( Self::$variant(m) => $crate::Model::initialize(m, start_time) ),+ }
            }

            fn do_step(&mut self, t: f64, h: f64) -> $crate::StepOutcome {
                match self { $( Self::$variant(m) => $crate::Model::do_step(m, t, h) ),+ }
            }

            fn get_real(&self, vr: u32) -> ::core::result::Result<f64, $crate::ModelError> {
                match self { $( Self::$variant(m) => $crate::Model::get_real(m, vr) ),+ }
            }

            fn set_real(&mut self, vr: u32, value: f64)
                -> ::core::result::Result<(), $crate::ModelError>
            {
                match self { $( Self::$variant(m) => $crate::Model::set_real(m, vr, value) ),+ }
            }

            fn get_integer(&self, vr: u32) -> ::core::result::Result<i32, $crate::ModelError> {
                match self { $( Self::$variant(m) => $crate::Model::get_integer(m, vr) ),+ }
            }

            fn set_integer(&mut self, vr: u32, value: i32)
                -> ::core::result::Result<(), $crate::ModelError>
            {
                match self { $( Self::$variant(m) => $crate::Model::set_integer(m, vr, value) ),+ }
            }

            fn get_boolean(&self, vr: u32) -> ::core::result::Result<bool, $crate::ModelError> {
                match self { $( Self::$variant(m) => $crate::Model::get_boolean(m, vr) ),+ }
            }

            fn set_boolean(&mut self, vr: u32, value: bool)
                -> ::core::result::Result<(), $crate::ModelError>
            {
                match self { $( Self::$variant(m) => $crate::Model::set_boolean(m, vr, value) ),+ }
            }

            fn get_string(&self, vr: u32)
                -> ::core::result::Result<::std::string::String, $crate::ModelError>
            {
                match self { $( Self::$variant(m) => $crate::Model::get_string(m, vr) ),+ }
            }

            fn set_string(&mut self, vr: u32, value: &str)
                -> ::core::result::Result<(), $crate::ModelError>
            {
                match self { $( Self::$variant(m) => $crate::Model::set_string(m, vr, value) ),+ }
            }

            fn directional_derivative(
                &self,
                unknowns: &[u32],
                knowns: &[u32],
                dv_known: &[f64],
                dv_unknown: &mut [f64],
            ) -> ::core::option::Option<::core::result::Result<(), $crate::ModelError>> {
                match self {
                    $( Self::$variant(m) => $crate::Model::directional_derivative(
                        m, unknowns, knowns, dv_known, dv_unknown,
                    ) ),+
                }
            }

            fn save_state(&self) -> ::core::option::Option<::std::vec::Vec<f64>> {
                match self { $( Self::$variant(m) => $crate::Model::save_state(m) ),+ }
            }

            fn load_state(&mut self, state: &[f64])
                -> ::core::result::Result<(), $crate::ModelError>
            {
                match self { $( Self::$variant(m) => $crate::Model::load_state(m, state) ),+ }
            }

            $crate::__model_enum_fmi3! { $( $variant ),+ }
        }
    };
}

/// The FMI 3.0 methods of a [`model_enum!`] type: dispatch to the variant's model when
/// fmu-support has its `fmi3` feature, nothing otherwise (then `Model` has no such methods).
/// Not public API.
#[cfg(feature = "fmi3")]
#[doc(hidden)]
#[macro_export]
macro_rules! __model_enum_fmi3 {
    ($( $variant:ident ),+) => {
        fn variables3(&self) -> &'static [$crate::Variable3] {
            match self { $( Self::$variant(m) => $crate::Model::variables3(m) ),+ }
        }

        fn get_values(&self, vr: u32, values: $crate::ValuesMut<'_>)
            -> ::core::result::Result<(), $crate::ModelError>
        {
            match self { $( Self::$variant(m) => $crate::Model::get_values(m, vr, values) ),+ }
        }

        fn set_values(&mut self, vr: u32, values: $crate::Values<'_>)
            -> ::core::result::Result<(), $crate::ModelError>
        {
            match self { $( Self::$variant(m) => $crate::Model::set_values(m, vr, values) ),+ }
        }

        fn has_event_mode(&self) -> bool {
            match self { $( Self::$variant(m) => $crate::Model::has_event_mode(m) ),+ }
        }

        fn next_event_time(&self) -> ::core::option::Option<f64> {
            match self { $( Self::$variant(m) => $crate::Model::next_event_time(m) ),+ }
        }

        fn update_discrete_states(&mut self, t: f64)
            -> ::core::result::Result<(), $crate::ModelError>
        {
            match self {
                $( Self::$variant(m) => $crate::Model::update_discrete_states(m, t) ),+
            }
        }

        fn might_return_early(&self) -> bool {
            match self { $( Self::$variant(m) => $crate::Model::might_return_early(m) ),+ }
        }

        fn no_set_fmu_state_prior_to_current_point(&mut self, value: bool) {
            match self {
                $( Self::$variant(m) =>
                    $crate::Model::no_set_fmu_state_prior_to_current_point(m, value) ),+
            }
        }
    };
}

/// See the `fmi3` version above: without the feature, `Model` has no FMI 3.0 methods.
#[cfg(not(feature = "fmi3"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __model_enum_fmi3 {
    ($( $variant:ident ),+) => {};
}
