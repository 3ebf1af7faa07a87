//! Batched get and set of variable values for all four types.
//!
//! Each call checks `values.len() == vrs.len()`, converts booleans to the version's C type,
//! builds C strings for string inputs and copies returned strings before it returns. An empty
//! batch is not passed to the FMU.
//!
//! Nothing is allocated per call once warmed up: the C booleans, the string pointers and the
//! NUL-terminated copies of string inputs live in buffers kept in the instance ([`Scratch`]),
//! which grow only when a batch needs more room than every batch before; returned strings are
//! copied into the caller's `String`s, which grow only when a value does not fit.

use std::ffi::c_char;
use std::ptr;

use super::{Instance, fmi1, fmi1_bool, fmi2, fmi2_bool, raw_vrs};
use crate::ffi::{self, Functions};
use crate::{Error, Result, Status, ValueRef};

/// Buffers reused by the Boolean and String getters and setters of one instance.
///
/// Invariant (part of the argument for `unsafe impl Send for Instance`): `string_pointers` is
/// empty whenever no `get_string` / `set_string` call of the instance is running. Such a call
/// fills it, hands it to the FMU, reads it, and clears it before it returns; it writes every
/// entry before anything reads it, so an entry never outlives the call that wrote it.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// FMI 1.0 `fmiBoolean` (`char`) values of one batch; unused for FMI 2.0.
    fmi1_booleans: Vec<fmi1::fmiBoolean>,
    /// FMI 2.0 `fmi2Boolean` (`int`) values of one batch; unused for FMI 1.0.
    fmi2_booleans: Vec<fmi2::fmi2Boolean>,
    /// The string pointers of one batch: written by the FMU (get), or pointing into
    /// `c_strings` (set).
    string_pointers: Vec<*const c_char>,
    /// NUL-terminated copies of one batch of string inputs, back to back.
    c_strings: Vec<u8>,
}

impl Scratch {
    /// Copies `values`, each followed by a NUL byte, into `c_strings` and points
    /// `string_pointers` at the copies: `string_pointers.len() == values.len()`, in order.
    ///
    /// # Errors
    /// The index of the first value that contains a NUL byte; both buffers are empty then.
    fn fill_c_strings<S: AsRef<str>>(&mut self, values: &[S]) -> std::result::Result<(), usize> {
        self.clear_strings();
        let mut total = 0;
        for (index, value) in values.iter().enumerate() {
            let bytes = value.as_ref().as_bytes();
            if bytes.contains(&0) {
                return Err(index);
            }
            total += bytes.len() + 1;
        }
        self.c_strings.reserve(total);
        for value in values {
            self.c_strings.extend_from_slice(value.as_ref().as_bytes());
            self.c_strings.push(0);
        }
        // No value contains a NUL byte, so each NUL ends exactly one copy.
        self.string_pointers.reserve(values.len());
        self.string_pointers.extend(
            self.c_strings
                .split_inclusive(|&byte| byte == 0)
                .map(|copy| copy.as_ptr().cast::<c_char>()),
        );
        debug_assert_eq!(self.string_pointers.len(), values.len());
        Ok(())
    }

    /// Empties the string buffers (their capacity is kept).
    fn clear_strings(&mut self) {
        self.string_pointers.clear();
        self.c_strings.clear();
    }
}

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
    #[inline]
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
    /// The FMU writes the version's C booleans into a buffer kept in the instance, which
    /// allocates only when the batch is larger than every batch before.
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
                let buffer = &mut self.scratch.fmi1_booleans;
                buffer.clear();
                buffer.resize(n, fmi1::fmiFalse);
                // SAFETY: `vr` and `buffer` hold `n` elements and outlive the call.
                let status = unsafe { (f.get_boolean)(c, vr, n, buffer.as_mut_ptr()) };
                values
                    .iter_mut()
                    .zip(buffer.iter())
                    .for_each(|(v, &b)| *v = b != fmi1::fmiFalse);
                status
            }
            Functions::V2(f) => {
                let buffer = &mut self.scratch.fmi2_booleans;
                buffer.clear();
                buffer.resize(n, fmi2::fmi2False);
                // SAFETY: `vr` and `buffer` hold `n` elements and outlive the call.
                let status = unsafe { (f.get_boolean)(c, vr, n, buffer.as_mut_ptr()) };
                values
                    .iter_mut()
                    .zip(buffer.iter())
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
    /// Allocates only when a value does not fit in its `String`'s capacity, or when the batch
    /// is larger than every batch before (the pointer buffer kept in the instance grows).
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
        let pointers = &mut self.scratch.string_pointers;
        pointers.clear();
        pointers.resize(n, ptr::null());
        let out = pointers.as_mut_ptr();
        // SAFETY: `vr` and `out` hold `n` elements (lengths checked above) and outlive the
        // call; `c` is a live instance of this library.
        let status = unsafe {
            match self.fmu.functions() {
                Functions::V1(f) => (f.get_string)(c, vr, n, out),
                Functions::V2(f) => (f.get_string)(c, vr, n, out),
            }
        };
        let result = self.check(function, status).and_then(|status| {
            self.copy_returned_strings(function, values)
                .map(|()| status)
        });
        // Keeps the invariant of `Scratch`: no pointer outlives this call.
        self.scratch.string_pointers.clear();
        result
    }

    /// Copies the strings the FMU returned through `scratch.string_pointers` into `values`,
    /// in order.
    ///
    /// # Errors
    /// [`Error::NullPointer`] at the first NULL pointer (earlier values are copied).
    fn copy_returned_strings(&self, function: &'static str, values: &mut [String]) -> Result<()> {
        for (value, &pointer) in values.iter_mut().zip(&self.scratch.string_pointers) {
            // SAFETY: after a successful call the FMU has filled each pointer with NULL or a
            // NUL-terminated string valid until its next call; we copy it right away, before
            // any other call into the FMU.
            if !unsafe { ffi::copy_c_string_into(pointer, value) } {
                return Err(Error::NullPointer {
                    instance: self.name.clone(),
                    function,
                });
            }
        }
        Ok(())
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
    #[inline]
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
    /// The values are converted to the version's C booleans in a buffer kept in the instance,
    /// which allocates only when the batch is larger than every batch before.
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
                let buffer = &mut self.scratch.fmi1_booleans;
                buffer.clear();
                buffer.extend(values.iter().map(|&v| fmi1_bool(v)));
                // SAFETY: `vr` and `buffer` hold `n` elements and outlive the call.
                unsafe { (f.set_boolean)(c, vr, n, buffer.as_ptr()) }
            }
            Functions::V2(f) => {
                let buffer = &mut self.scratch.fmi2_booleans;
                buffer.clear();
                buffer.extend(values.iter().map(|&v| fmi2_bool(v)));
                // SAFETY: `vr` and `buffer` hold `n` elements and outlive the call.
                unsafe { (f.set_boolean)(c, vr, n, buffer.as_ptr()) }
            }
        };
        self.check(function, status)
    }

    /// `fmi2SetString` / `fmiSetString`: sets String variables (copied to C strings first).
    ///
    /// The NUL-terminated copies and their pointers live in buffers kept in the instance,
    /// which allocate only when a batch needs more room (more values, or more bytes of text in
    /// total) than every batch before.
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
        if let Err(index) = self.scratch.fill_c_strings(values) {
            return Err(Error::InteriorNul {
                instance: self.name.clone(),
                function,
                index,
            });
        }
        let (c, n, vr) = (self.component, vrs.len(), raw_vrs(vrs));
        let input = self.scratch.string_pointers.as_ptr();
        // SAFETY: `vr` and `input` hold `n` elements (lengths checked above, one pointer per
        // value); every pointer refers to a NUL-terminated copy in `self.scratch.c_strings`,
        // taken after its last write and not touched before the call returns (the FMU copies
        // the strings).
        let status = unsafe {
            match self.fmu.functions() {
                Functions::V1(f) => (f.set_string)(c, vr, n, input),
                Functions::V2(f) => (f.set_string)(c, vr, n, input),
            }
        };
        // Keeps the invariant of `Scratch`: no pointer outlives this call.
        self.scratch.clear_strings();
        self.check(function, status)
    }
}
