//! [`Instance3`]: the FMI 3.0 Model Exchange calls for [`super::driver::Driver`], through
//! `fmu_support::fmi3` and `fmu_support::fmi3_me`.

use std::ffi::CString;
use std::ptr;

use fmu_support::fmi3::{self, STATUS_OK};
use fmu_support::fmi3_me::{self, Array};
use fmu_support::{MeModel, Model, ModelExchange};

use super::M;
use super::driver::Api;

type X = ModelExchange<M>;

/// One FMI 3.0 Model Exchange instance, freed on drop. Every method asserts status OK.
pub(super) struct Instance3 {
    pub(super) c: fmi3::Instance,
    n: usize,
    nz: usize,
}

impl Instance3 {
    /// Instantiates the FMU with `token` for Model Exchange, and runs initialization at t = 0
    /// (then in Event Mode).
    pub(super) fn new(token: &str) -> Self {
        let name = CString::new("test3").expect("no NUL");
        let token_c = CString::new(token).expect("no NUL");
        // SAFETY: valid strings; no callback.
        let c = unsafe {
            fmi3_me::instantiate_model_exchange::<M>(
                name.as_ptr(),
                token_c.as_ptr(),
                ptr::null(),
                false,
                false,
                ptr::null_mut(),
                None,
            )
        };
        assert!(!c.is_null(), "instantiated");
        let model = M::instantiate(token).expect("known token");
        let fmu = Self {
            c,
            n: model.number_of_states(),
            nz: model.number_of_event_indicators(),
        };
        // SAFETY: a live instance (for all unsafe calls of this type).
        unsafe {
            let status = fmi3::enter_initialization_mode::<X>(c, false, 0.0, 0.0, false, 0.0);
            assert_eq!(status, STATUS_OK);
            assert_eq!(fmi3::exit_initialization_mode::<X>(c), STATUS_OK);
        }
        fmu
    }

    fn array(&self, which: Array, n: usize) -> Vec<f64> {
        let mut values = vec![0.0; n];
        // SAFETY: see `new`; `values` has `n` elements.
        let status = unsafe { fmi3_me::get_array::<M>(self.c, which, values.as_mut_ptr(), n) };
        assert_eq!(status, STATUS_OK);
        values
    }

    /// (`fmi3GetNumberOfContinuousStates`, `fmi3GetNumberOfEventIndicators`).
    pub(super) fn sizes(&self) -> (usize, usize) {
        let (mut n, mut nz) = (usize::MAX, usize::MAX);
        // SAFETY: see `new`; valid out-pointers.
        unsafe {
            assert_eq!(
                fmi3_me::get_number::<M>(self.c, false, &raw mut n),
                STATUS_OK
            );
            assert_eq!(
                fmi3_me::get_number::<M>(self.c, true, &raw mut nz),
                STATUS_OK
            );
        }
        (n, nz)
    }
}

impl Api for Instance3 {
    fn set_time(&self, t: f64) {
        // SAFETY: see `new`.
        assert_eq!(unsafe { fmi3_me::set_time::<M>(self.c, t) }, STATUS_OK);
    }

    fn set_states(&self, x: &[f64]) {
        // SAFETY: see `new`; `x` has `x.len()` elements.
        let status = unsafe { fmi3_me::set_continuous_states::<M>(self.c, x.as_ptr(), x.len()) };
        assert_eq!(status, STATUS_OK);
    }

    fn states(&self) -> Vec<f64> {
        self.array(Array::States, self.n)
    }

    fn derivatives(&self) -> Vec<f64> {
        self.array(Array::Derivatives, self.n)
    }

    fn indicators(&self) -> Vec<f64> {
        self.array(Array::EventIndicators, self.nz)
    }

    fn enter_event_mode(&self) {
        // SAFETY: see `new`.
        assert_eq!(unsafe { fmi3::enter_event_mode::<X>(self.c) }, STATUS_OK);
    }

    fn enter_continuous_time_mode(&self) {
        // SAFETY: see `new`.
        let status = unsafe { fmi3_me::enter_continuous_time_mode::<M>(self.c) };
        assert_eq!(status, STATUS_OK);
    }

    fn iterate_events(&self) -> Option<f64> {
        for _ in 0..100 {
            let (mut again, mut terminate, mut nominals, mut values, mut defined) =
                (true, false, false, false, false);
            let mut next = 0.0;
            // SAFETY: see `new`; valid out-pointers.
            let status = unsafe {
                fmi3_me::update_discrete_states::<M>(
                    self.c,
                    &raw mut again,
                    &raw mut terminate,
                    &raw mut nominals,
                    &raw mut values,
                    &raw mut defined,
                    &raw mut next,
                )
            };
            assert_eq!(status, STATUS_OK);
            if !again {
                return defined.then_some(next);
            }
        }
        panic!("event iteration does not end");
    }

    fn real(&self, vr: u32) -> f64 {
        let mut value = 0.0;
        // SAFETY: see `new`; one value reference and one value.
        let status = unsafe { fmi3::get_float64::<X>(self.c, &raw const vr, 1, &raw mut value, 1) };
        assert_eq!(status, STATUS_OK);
        value
    }
}

impl Drop for Instance3 {
    fn drop(&mut self) {
        // SAFETY: a live instance, freed once.
        unsafe { fmi3::free_instance::<X>(self.c) }
    }
}
