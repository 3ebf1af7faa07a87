//! Batched get and set of variable values for all four types.
//!
//! Each call checks `values.len() == vrs.len()`, converts booleans to the version's C type,
//! builds C strings for string inputs and copies returned strings before it returns. An empty
//! batch is not passed to the FMU.

use std::ffi::{CString, c_char};
use std::ptr;

use super::{Instance, fmi1, fmi1_bool, fmi2, fmi2_bool, raw_vrs};
use crate::ffi::{self, Functions};
use crate::{Error, Result, Status, ValueRef};

impl Instance {
    /// `fmi2GetReal` / `fmiGetReal`: reads Real variables, in the units declared in the
    /// modelDescription.
    ///
    /// Shapes: `values.len() == vrs.len()`. An empty batch returns `Ok(Status::Ok)` without
    /// calling the FMU.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`]; [`Error::Discard`] / [`Error::CallFailed`] for a failing
    /// status; [`Error::InvalidCall`] after Fatal.
    ///
    /// Spec: FMI 2.0.2 §2.1.7 (getting and setting variable values), FMI 1.0 CS §4.2 (data
    /// exchange).
    pub fn get_real(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<Status> {
        let function = self.function("fmiGetReal", "fmi2GetReal");
        self.check_len(function, vrs.len(), values.len())?;
        let _call = self.enter(function)?;
        if vrs.is_empty() {
            return Ok(Status::Ok);
        }
        let (c, n, vr, out) = (self.component, vrs.len(), raw_vrs(vrs), values.as_mut_ptr());
        // SAFETY: `vr` and `out` point to `n` elements each (lengths checked above) and outlive
        // the call; `c` is a live instance of this library.
        let status = unsafe {
            match self.fmu.functions() {
                Functions::V1(f) => (f.get_real)(c, vr, n, out),
                Functions::V2(f) => (f.get_real)(c, vr, n, out),
            }
        };
        self.check(function, status)
    }

    /// `fmi2GetInteger` / `fmiGetInteger`: reads Integer (and Enumeration) variables.
    ///
    /// Shapes: `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// As [`Instance::get_real`].
    ///
    /// Spec: FMI 2.0.2 §2.1.7, FMI 1.0 CS §4.2.
    pub fn get_integer(&mut self, vrs: &[ValueRef], values: &mut [i32]) -> Result<Status> {
        let function = self.function("fmiGetInteger", "fmi2GetInteger");
        self.check_len(function, vrs.len(), values.len())?;
        let _call = self.enter(function)?;
        if vrs.is_empty() {
            return Ok(Status::Ok);
        }
        let (c, n, vr, out) = (self.component, vrs.len(), raw_vrs(vrs), values.as_mut_ptr());
        // SAFETY: `vr` and `out` point to `n` elements each (lengths checked above) and outlive
        // the call; `i32` is `c_int` on supported platforms.
        let status = unsafe {
            match self.fmu.functions() {
                Functions::V1(f) => (f.get_integer)(c, vr, n, out),
                Functions::V2(f) => (f.get_integer)(c, vr, n, out),
            }
        };
        self.check(function, status)
    }

    /// `fmi2GetBoolean` / `fmiGetBoolean`: reads Boolean variables (any non-zero value is true).
    ///
    /// Shapes: `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// As [`Instance::get_real`].
    ///
    /// Spec: FMI 2.0.2 §2.1.7 (`fmi2Boolean` is `int`), FMI 1.0 CS §4.2 (`fmiBoolean` is `char`).
    pub fn get_boolean(&mut self, vrs: &[ValueRef], values: &mut [bool]) -> Result<Status> {
        let function = self.function("fmiGetBoolean", "fmi2GetBoolean");
        self.check_len(function, vrs.len(), values.len())?;
        let _call = self.enter(function)?;
        if vrs.is_empty() {
            return Ok(Status::Ok);
        }
        let (c, n, vr) = (self.component, vrs.len(), raw_vrs(vrs));
        let status = match self.fmu.functions() {
            Functions::V1(f) => {
                let mut buffer = vec![fmi1::fmiFalse; n];
                // SAFETY: `vr` and `buffer` hold `n` elements and outlive the call.
                let status = unsafe { (f.get_boolean)(c, vr, n, buffer.as_mut_ptr()) };
                values
                    .iter_mut()
                    .zip(&buffer)
                    .for_each(|(v, &b)| *v = b != fmi1::fmiFalse);
                status
            }
            Functions::V2(f) => {
                let mut buffer = vec![fmi2::fmi2False; n];
                // SAFETY: `vr` and `buffer` hold `n` elements and outlive the call.
                let status = unsafe { (f.get_boolean)(c, vr, n, buffer.as_mut_ptr()) };
                values
                    .iter_mut()
                    .zip(&buffer)
                    .for_each(|(v, &b)| *v = b != fmi2::fmi2False);
                status
            }
        };
        self.check(function, status)
    }

    /// `fmi2GetString` / `fmiGetString`: reads String variables; existing strings are
    /// overwritten in place (their allocations are reused). The FMU's strings are copied
    /// before this returns.
    ///
    /// Shapes: `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// As [`Instance::get_real`], plus [`Error::NullPointer`] when the FMU returns a NULL
    /// string. Invalid UTF-8 is replaced with U+FFFD.
    ///
    /// Spec: FMI 2.0.2 §2.1.7 (returned strings must be copied), FMI 1.0 CS §4.2.
    pub fn get_string(&mut self, vrs: &[ValueRef], values: &mut [String]) -> Result<Status> {
        let function = self.function("fmiGetString", "fmi2GetString");
        self.check_len(function, vrs.len(), values.len())?;
        let _call = self.enter(function)?;
        if vrs.is_empty() {
            return Ok(Status::Ok);
        }
        let (c, n, vr) = (self.component, vrs.len(), raw_vrs(vrs));
        let mut pointers: Vec<*const c_char> = vec![ptr::null(); n];
        // SAFETY: `vr` and `pointers` hold `n` elements and outlive the call.
        let status = unsafe {
            match self.fmu.functions() {
                Functions::V1(f) => (f.get_string)(c, vr, n, pointers.as_mut_ptr()),
                Functions::V2(f) => (f.get_string)(c, vr, n, pointers.as_mut_ptr()),
            }
        };
        let status = self.check(function, status)?;
        for (value, &pointer) in values.iter_mut().zip(&pointers) {
            // SAFETY: after a successful call the FMU has filled each pointer with NULL or a
            // NUL-terminated string valid until its next call; we copy it right away.
            let Some(text) = (unsafe { ffi::copy_c_string(pointer) }) else {
                return Err(Error::NullPointer {
                    instance: self.name.clone(),
                    function,
                });
            };
            value.clear();
            value.push_str(&text);
        }
        Ok(status)
    }

    /// `fmi2SetReal` / `fmiSetReal`: sets Real variables, in the units declared in the
    /// modelDescription.
    ///
    /// Shapes: `values.len() == vrs.len()`. An empty batch returns `Ok(Status::Ok)` without
    /// calling the FMU.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`]; [`Error::Discard`] / [`Error::CallFailed`] for a failing
    /// status; [`Error::InvalidCall`] after Fatal.
    ///
    /// Spec: FMI 2.0.2 §2.1.7, FMI 1.0 CS §4.2.
    pub fn set_real(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<Status> {
        let function = self.function("fmiSetReal", "fmi2SetReal");
        self.check_len(function, vrs.len(), values.len())?;
        let _call = self.enter(function)?;
        if vrs.is_empty() {
            return Ok(Status::Ok);
        }
        let (c, n, vr, input) = (self.component, vrs.len(), raw_vrs(vrs), values.as_ptr());
        // SAFETY: `vr` and `input` point to `n` elements each and outlive the call.
        let status = unsafe {
            match self.fmu.functions() {
                Functions::V1(f) => (f.set_real)(c, vr, n, input),
                Functions::V2(f) => (f.set_real)(c, vr, n, input),
            }
        };
        self.check(function, status)
    }

    /// `fmi2SetInteger` / `fmiSetInteger`: sets Integer (and Enumeration) variables.
    ///
    /// Shapes: `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// As [`Instance::set_real`].
    ///
    /// Spec: FMI 2.0.2 §2.1.7, FMI 1.0 CS §4.2.
    pub fn set_integer(&mut self, vrs: &[ValueRef], values: &[i32]) -> Result<Status> {
        let function = self.function("fmiSetInteger", "fmi2SetInteger");
        self.check_len(function, vrs.len(), values.len())?;
        let _call = self.enter(function)?;
        if vrs.is_empty() {
            return Ok(Status::Ok);
        }
        let (c, n, vr, input) = (self.component, vrs.len(), raw_vrs(vrs), values.as_ptr());
        // SAFETY: `vr` and `input` point to `n` elements each and outlive the call.
        let status = unsafe {
            match self.fmu.functions() {
                Functions::V1(f) => (f.set_integer)(c, vr, n, input),
                Functions::V2(f) => (f.set_integer)(c, vr, n, input),
            }
        };
        self.check(function, status)
    }

    /// `fmi2SetBoolean` / `fmiSetBoolean`: sets Boolean variables.
    ///
    /// Shapes: `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// As [`Instance::set_real`].
    ///
    /// Spec: FMI 2.0.2 §2.1.7 (`fmi2Boolean` is `int`), FMI 1.0 CS §4.2 (`fmiBoolean` is `char`).
    pub fn set_boolean(&mut self, vrs: &[ValueRef], values: &[bool]) -> Result<Status> {
        let function = self.function("fmiSetBoolean", "fmi2SetBoolean");
        self.check_len(function, vrs.len(), values.len())?;
        let _call = self.enter(function)?;
        if vrs.is_empty() {
            return Ok(Status::Ok);
        }
        let (c, n, vr) = (self.component, vrs.len(), raw_vrs(vrs));
        let status = match self.fmu.functions() {
            Functions::V1(f) => {
                let buffer: Vec<fmi1::fmiBoolean> = values.iter().map(|&v| fmi1_bool(v)).collect();
                // SAFETY: `vr` and `buffer` hold `n` elements and outlive the call.
                unsafe { (f.set_boolean)(c, vr, n, buffer.as_ptr()) }
            }
            Functions::V2(f) => {
                let buffer: Vec<fmi2::fmi2Boolean> = values.iter().map(|&v| fmi2_bool(v)).collect();
                // SAFETY: `vr` and `buffer` hold `n` elements and outlive the call.
                unsafe { (f.set_boolean)(c, vr, n, buffer.as_ptr()) }
            }
        };
        self.check(function, status)
    }

    /// `fmi2SetString` / `fmiSetString`: sets String variables (copied to C strings first).
    ///
    /// Shapes: `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// As [`Instance::set_real`], plus [`Error::InteriorNul`] when a value contains a NUL byte
    /// (nothing is set then).
    ///
    /// Spec: FMI 2.0.2 §2.1.7, FMI 1.0 CS §4.2.
    pub fn set_string<S: AsRef<str>>(&mut self, vrs: &[ValueRef], values: &[S]) -> Result<Status> {
        let function = self.function("fmiSetString", "fmi2SetString");
        self.check_len(function, vrs.len(), values.len())?;
        let _call = self.enter(function)?;
        if vrs.is_empty() {
            return Ok(Status::Ok);
        }
        let strings = values
            .iter()
            .enumerate()
            .map(|(index, v)| {
                CString::new(v.as_ref()).map_err(|_| Error::InteriorNul {
                    instance: self.name.clone(),
                    function,
                    index,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let pointers: Vec<*const c_char> = strings.iter().map(|s| s.as_ptr()).collect();
        let (c, n, vr, input) = (self.component, vrs.len(), raw_vrs(vrs), pointers.as_ptr());
        // SAFETY: `vr` and `pointers` hold `n` elements; every pointer refers to a
        // NUL-terminated string in `strings`, which outlives the call (the FMU copies them).
        let status = unsafe {
            match self.fmu.functions() {
                Functions::V1(f) => (f.set_string)(c, vr, n, input),
                Functions::V2(f) => (f.set_string)(c, vr, n, input),
            }
        };
        self.check(function, status)
    }
}
