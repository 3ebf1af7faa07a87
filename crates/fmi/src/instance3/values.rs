//! Batched get and set of FMI 3.0 variable values: ten numeric types, Boolean, String and
//! Binary.
//!
//! FMI 3.0 passes two counts: `nValueReferences` (`vrs.len()`) and `nValues`
//! (`values.len()`), because one value reference may name an array variable whose elements
//! are passed flattened in row-major order. For scalar variables the two are equal. The FMU
//! checks that `nValues` matches the variables; this module only refuses values without value
//! references, and passes an empty batch to nobody.
//!
//! Nothing is allocated per call once warmed up: numeric and Boolean values are passed to the
//! FMU in the caller's slices (`fmi3Boolean` is C `bool`, the same type as Rust `bool`); the
//! string and binary pointers, the sizes and the NUL-terminated copies of string inputs live
//! in buffers kept in the instance ([`Scratch`]), which grow only when a batch needs more room
//! than every batch before; returned strings and bytes are copied into the caller's `String`s
//! and `Vec<u8>`s, which grow only when a value does not fit.

use std::ffi::c_char;
use std::ptr;

use super::{Instance3, raw_vrs};
use crate::ffi::{self, fmi3};
use crate::{Error, Result, Status, ValueRef};

/// Buffers reused by the String and Binary getters and setters of one instance.
///
/// Invariant (part of the argument for `unsafe impl Send for Instance3`): `string_pointers`
/// and `binary_pointers` are empty whenever no string or binary call of the instance is
/// running. Such a call fills them, hands them to the FMU, reads them, and clears them before
/// it returns; it writes every entry before anything reads it, so an entry never outlives the
/// call that wrote it.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// The string pointers of one batch: written by the FMU (get), or pointing into
    /// `c_strings` (set).
    string_pointers: Vec<fmi3::fmi3String>,
    /// NUL-terminated copies of one batch of string inputs, back to back.
    c_strings: Vec<u8>,
    /// The binary pointers of one batch: written by the FMU (get), or pointing into the
    /// caller's byte slices (set).
    binary_pointers: Vec<fmi3::fmi3Binary>,
    /// The sizes of the binary values of one batch, bytes.
    binary_sizes: Vec<usize>,
}

impl Scratch {
    /// Copies `values`, each followed by a NUL byte, into `c_strings` and points
    /// `string_pointers` at the copies: `string_pointers.len() == values.len()`, in order.
    ///
    /// # Errors
    /// The index of the first value that contains a NUL byte; both buffers are empty then.
    fn fill_c_strings<S: AsRef<str>>(&mut self, values: &[S]) -> std::result::Result<(), usize> {
        self.clear();
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

    /// Empties every buffer (their capacity is kept).
    fn clear(&mut self) {
        self.string_pointers.clear();
        self.c_strings.clear();
        self.binary_pointers.clear();
        self.binary_sizes.clear();
    }
}

/// Generates the public getter and setter of one fixed-size FMI 3.0 type.
macro_rules! fixed_size_accessors {
    ($($name:literal, $rust:ty, $get:ident, $set:ident;)*) => {$(
        #[doc = concat!("`fmi3Get", $name, "`: reads ", $name, " variables (`", stringify!($rust), "`), in the units")]
        /// declared in the modelDescription.
        ///
        /// Shapes: `vrs.len()` variables, `values.len()` elements in all (one per scalar, the
        /// product of the dimensions per array, flattened row-major). An empty batch returns
        /// `Ok(Status::Ok)` without calling the FMU.
        ///
        /// # Errors
        /// [`Error::LengthMismatch`] for values without value references;
        #[doc = concat!("[`Error::Unsupported`] when the FMU does not export `fmi3Get", $name, "`;")]
        /// [`Error::Discard`] / [`Error::CallFailed`] for a failing status (including a
        /// `values.len()` that does not match the variables); [`Error::InvalidCall`] after
        /// Fatal.
        ///
        #[doc = concat!("Spec: FMI 3.0 `fmi3Get", $name, "` (getting and setting variable values).")]
        #[inline]
        pub fn $get(&mut self, vrs: &[ValueRef], values: &mut [$rust]) -> Result<Status> {
            let function = self.functions.$get;
            self.get_fixed(concat!("fmi3Get", $name), function, vrs, values)
        }

        #[doc = concat!("`fmi3Set", $name, "`: sets ", $name, " variables (`", stringify!($rust), "`), in the units")]
        /// declared in the modelDescription.
        ///
        /// Shapes: `vrs.len()` variables, `values.len()` elements in all (one per scalar, the
        /// product of the dimensions per array, flattened row-major). An empty batch returns
        /// `Ok(Status::Ok)` without calling the FMU.
        ///
        /// # Errors
        /// [`Error::LengthMismatch`] for values without value references;
        #[doc = concat!("[`Error::Unsupported`] when the FMU does not export `fmi3Set", $name, "`;")]
        /// [`Error::Discard`] / [`Error::CallFailed`] for a failing status (including a
        /// `values.len()` that does not match the variables); [`Error::InvalidCall`] after
        /// Fatal.
        ///
        #[doc = concat!("Spec: FMI 3.0 `fmi3Set", $name, "` (getting and setting variable values).")]
        #[inline]
        pub fn $set(&mut self, vrs: &[ValueRef], values: &[$rust]) -> Result<Status> {
            let function = self.functions.$set;
            self.set_fixed(concat!("fmi3Set", $name), function, vrs, values)
        }
    )*};
}

impl Instance3 {
    fixed_size_accessors! {
        "Float32", f32, get_float32, set_float32;
        "Float64", f64, get_float64, set_float64;
        "Int8", i8, get_int8, set_int8;
        "UInt8", u8, get_uint8, set_uint8;
        "Int16", i16, get_int16, set_int16;
        "UInt16", u16, get_uint16, set_uint16;
        "Int32", i32, get_int32, set_int32;
        "UInt32", u32, get_uint32, set_uint32;
        "Int64", i64, get_int64, set_int64;
        "UInt64", u64, get_uint64, set_uint64;
        "Boolean", bool, get_boolean, set_boolean;
    }

    /// Checks a batch and starts the call: `Ok(None)` for an empty batch (nothing to call),
    /// `Ok(Some(scope))` otherwise.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] for values without value references (expected 0);
    /// [`Error::InvalidCall`] after Fatal.
    #[inline]
    pub(super) fn begin_batch(
        &self,
        function: &'static str,
        n_vrs: usize,
        n_values: usize,
    ) -> Result<Option<crate::crash::CallScope>> {
        if n_vrs == 0 && n_values != 0 {
            return Err(self.length_mismatch(function, 0, n_values));
        }
        let call = self.enter(function)?;
        Ok((n_vrs != 0).then_some(call))
    }

    /// `fmi3Get<T>` for a type the FMU writes directly into `values`.
    #[inline]
    fn get_fixed<T>(
        &mut self,
        function: &'static str,
        get: Option<fmi3::fmi3GetTYPE<T>>,
        vrs: &[ValueRef],
        values: &mut [T],
    ) -> Result<Status> {
        let Some(_call) = self.begin_batch(function, vrs.len(), values.len())? else {
            return Ok(Status::Ok);
        };
        let get = get.ok_or_else(|| self.unsupported(function))?;
        // SAFETY: `vrs` holds `vrs.len()` value references and `values` room for
        // `values.len()` elements of the C type of `T` (the platform type named by `get`'s
        // signature; `bool` is C `bool`, so the FMU stores only 0 or 1); both outlive the call
        // and the FMU writes at most `nValues` elements; `instance` is live.
        let status = unsafe {
            get(
                self.instance,
                raw_vrs(vrs),
                vrs.len(),
                values.as_mut_ptr(),
                values.len(),
            )
        };
        self.check(function, status)
    }

    /// `fmi3Set<T>` for a type passed to the FMU directly from `values`.
    #[inline]
    fn set_fixed<T>(
        &mut self,
        function: &'static str,
        set: Option<fmi3::fmi3SetTYPE<T>>,
        vrs: &[ValueRef],
        values: &[T],
    ) -> Result<Status> {
        let Some(_call) = self.begin_batch(function, vrs.len(), values.len())? else {
            return Ok(Status::Ok);
        };
        let set = set.ok_or_else(|| self.unsupported(function))?;
        // SAFETY: `vrs` holds `vrs.len()` value references and `values` `values.len()`
        // elements of the C type of `T`; both outlive the call and the FMU only reads them;
        // `instance` is live.
        let status = unsafe {
            set(
                self.instance,
                raw_vrs(vrs),
                vrs.len(),
                values.as_ptr(),
                values.len(),
            )
        };
        self.check(function, status)
    }

    /// `fmi3GetString`: reads String variables; existing strings are overwritten in place
    /// (their allocations are reused). The FMU's strings are copied before this returns.
    /// Invalid UTF-8 is replaced with U+FFFD (lossy, as [`String::from_utf8_lossy`]), so one
    /// odd byte does not lose the whole value.
    ///
    /// Allocates only when a value does not fit in its `String`'s capacity, or when the batch
    /// is larger than every batch before (the pointer buffer kept in the instance grows).
    ///
    /// Shapes: `vrs.len()` variables, `values.len()` strings in all (more for string arrays).
    ///
    /// # Errors
    /// As [`Instance3::get_float64`], plus [`Error::NullPointer`] when the FMU returns a NULL
    /// string (earlier values are copied).
    ///
    /// Spec: FMI 3.0 `fmi3GetString` (returned strings are valid until the next call).
    pub fn get_string(&mut self, vrs: &[ValueRef], values: &mut [String]) -> Result<Status> {
        const FUNCTION: &str = "fmi3GetString";
        let Some(_call) = self.begin_batch(FUNCTION, vrs.len(), values.len())? else {
            return Ok(Status::Ok);
        };
        let get = self
            .functions
            .get_string
            .ok_or_else(|| self.unsupported(FUNCTION))?;
        let pointers = &mut self.scratch.string_pointers;
        pointers.clear();
        pointers.resize(values.len(), ptr::null());
        let out = pointers.as_mut_ptr();
        // SAFETY: `vrs` holds `vrs.len()` value references and `out` room for `values.len()`
        // string pointers; both outlive the call; `instance` is live.
        let status = unsafe { get(self.instance, raw_vrs(vrs), vrs.len(), out, values.len()) };
        let result = self.check(FUNCTION, status).and_then(|status| {
            self.copy_returned_strings(FUNCTION, values)
                .map(|()| status)
        });
        // Keeps the invariant of `Scratch`: no pointer outlives this call.
        self.scratch.clear();
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

    /// `fmi3SetString`: sets String variables (copied to C strings first).
    ///
    /// The NUL-terminated copies and their pointers live in buffers kept in the instance,
    /// which allocate only when a batch needs more room (more values, or more bytes of text in
    /// total) than every batch before.
    ///
    /// Shapes: `vrs.len()` variables, `values.len()` strings in all (more for string arrays).
    ///
    /// # Errors
    /// As [`Instance3::set_float64`], plus [`Error::InteriorNul`] when a value contains a NUL
    /// byte (nothing is set then).
    ///
    /// Spec: FMI 3.0 `fmi3SetString` (the FMU copies the strings).
    pub fn set_string<S: AsRef<str>>(&mut self, vrs: &[ValueRef], values: &[S]) -> Result<Status> {
        const FUNCTION: &str = "fmi3SetString";
        let Some(_call) = self.begin_batch(FUNCTION, vrs.len(), values.len())? else {
            return Ok(Status::Ok);
        };
        let set = self
            .functions
            .set_string
            .ok_or_else(|| self.unsupported(FUNCTION))?;
        if let Err(index) = self.scratch.fill_c_strings(values) {
            return Err(Error::InteriorNul {
                instance: self.name.clone(),
                function: FUNCTION,
                index,
            });
        }
        let input = self.scratch.string_pointers.as_ptr();
        // SAFETY: `vrs` holds `vrs.len()` value references and `input` `values.len()` pointers
        // (one per value); every pointer refers to a NUL-terminated copy in
        // `self.scratch.c_strings`, taken after its last write and not touched before the call
        // returns (the FMU copies the strings); `instance` is live.
        let status = unsafe { set(self.instance, raw_vrs(vrs), vrs.len(), input, values.len()) };
        // Keeps the invariant of `Scratch`: no pointer outlives this call.
        self.scratch.clear();
        self.check(FUNCTION, status)
    }

    /// `fmi3GetBinary`: reads Binary variables as byte strings; each `Vec` is overwritten in
    /// place (its allocation reused). The FMU's bytes are copied before this returns; a value
    /// may contain any byte, 0x00 included.
    ///
    /// Allocates only when a value does not fit in its `Vec`'s capacity, or when the batch is
    /// larger than every batch before (the buffers kept in the instance grow).
    ///
    /// Shapes: `vrs.len()` variables, `values.len()` binary values in all (more for arrays).
    ///
    /// # Errors
    /// As [`Instance3::get_float64`], plus [`Error::NullPointer`] when the FMU returns a NULL
    /// pointer for a value of non-zero size (earlier values are copied).
    ///
    /// Spec: FMI 3.0 `fmi3GetBinary` (returned values are valid until the next call).
    pub fn get_binary(&mut self, vrs: &[ValueRef], values: &mut [Vec<u8>]) -> Result<Status> {
        const FUNCTION: &str = "fmi3GetBinary";
        let Some(_call) = self.begin_batch(FUNCTION, vrs.len(), values.len())? else {
            return Ok(Status::Ok);
        };
        let get = self
            .functions
            .get_binary
            .ok_or_else(|| self.unsupported(FUNCTION))?;
        let n = values.len();
        let scratch = &mut self.scratch;
        scratch.binary_sizes.clear();
        scratch.binary_sizes.resize(n, 0);
        scratch.binary_pointers.clear();
        scratch.binary_pointers.resize(n, ptr::null());
        // SAFETY: `vrs` holds `vrs.len()` value references; the size and pointer buffers have
        // room for `n` entries each; all outlive the call; `instance` is live.
        let status = unsafe {
            get(
                self.instance,
                raw_vrs(vrs),
                vrs.len(),
                scratch.binary_sizes.as_mut_ptr(),
                scratch.binary_pointers.as_mut_ptr(),
                n,
            )
        };
        let result = self.check(FUNCTION, status).and_then(|status| {
            self.copy_returned_binaries(FUNCTION, values)
                .map(|()| status)
        });
        // Keeps the invariant of `Scratch`: no pointer outlives this call.
        self.scratch.clear();
        result
    }

    /// Copies the byte strings the FMU returned through `scratch.binary_pointers` and
    /// `scratch.binary_sizes` into `values`, in order.
    ///
    /// # Errors
    /// [`Error::NullPointer`] at the first NULL pointer of non-zero size (earlier values are
    /// copied).
    fn copy_returned_binaries(&self, function: &'static str, values: &mut [Vec<u8>]) -> Result<()> {
        let returned = self
            .scratch
            .binary_pointers
            .iter()
            .zip(&self.scratch.binary_sizes);
        for (value, (&pointer, &size)) in values.iter_mut().zip(returned) {
            value.clear();
            if size == 0 {
                continue;
            }
            if pointer.is_null() {
                return Err(Error::NullPointer {
                    instance: self.name.clone(),
                    function,
                });
            }
            // SAFETY: after a successful call the FMU has filled each entry with a pointer to
            // `size` readable bytes, valid until its next call; we copy them right away,
            // before any other call into the FMU.
            value.extend_from_slice(unsafe { std::slice::from_raw_parts(pointer, size) });
        }
        Ok(())
    }

    /// `fmi3SetBinary`: sets Binary variables. The bytes are passed to the FMU in place (it
    /// copies them); only their sizes and addresses go through buffers kept in the instance,
    /// which allocate only when the batch is larger than every batch before.
    ///
    /// Shapes: `vrs.len()` variables, `values.len()` binary values in all (more for arrays).
    ///
    /// # Errors
    /// As [`Instance3::set_float64`].
    ///
    /// Spec: FMI 3.0 `fmi3SetBinary` (the FMU copies the values).
    pub fn set_binary<B: AsRef<[u8]>>(&mut self, vrs: &[ValueRef], values: &[B]) -> Result<Status> {
        const FUNCTION: &str = "fmi3SetBinary";
        let Some(_call) = self.begin_batch(FUNCTION, vrs.len(), values.len())? else {
            return Ok(Status::Ok);
        };
        let set = self
            .functions
            .set_binary
            .ok_or_else(|| self.unsupported(FUNCTION))?;
        let scratch = &mut self.scratch;
        scratch.clear();
        scratch
            .binary_sizes
            .extend(values.iter().map(|v| v.as_ref().len()));
        scratch
            .binary_pointers
            .extend(values.iter().map(|v| v.as_ref().as_ptr()));
        // SAFETY: `vrs` holds `vrs.len()` value references; the size and pointer buffers hold
        // `values.len()` entries, each pointer addressing `size` readable bytes of the caller's
        // `values`, which outlive the call (the FMU copies them); `instance` is live.
        let status = unsafe {
            set(
                self.instance,
                raw_vrs(vrs),
                vrs.len(),
                scratch.binary_sizes.as_ptr(),
                scratch.binary_pointers.as_ptr(),
                values.len(),
            )
        };
        // Keeps the invariant of `Scratch`: no pointer outlives this call.
        self.scratch.clear();
        self.check(FUNCTION, status)
    }
}
