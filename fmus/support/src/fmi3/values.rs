//! The typed `fmi3Get…`/`fmi3Set…` entry points of [`crate::fmi3`] (re-exported there): one
//! pair per FMI 3.0 type, all array-aware (`nValues` counts elements).
//!
//! Spec: FMI 3.0 §2.2.6.2 (getting and setting variable values).

use super::{Binary, Boolean, FmiString, Instance, Status, ValueReference};
use super::{Float32, Float64, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64};
use crate::instance3::Instance3;
use crate::model::Model;
use crate::model3::{DataType, Values, ValuesMut};
use crate::phase::Status as CallStatus;
use crate::raw::{c_str, slice, slice_mut, with_instance3};

/// Generates the numeric `fmi3Get…`/`fmi3Set…` entry points, which differ only in the C type.
macro_rules! numeric_access {
    ($( $get:ident $set:ident $c_type:ident $variant:ident $get_name:literal $set_name:literal; )*) => { $(
        #[doc = concat!("`", $get_name, "`: reads the ", stringify!($variant), " variables `vrs` (all their elements, in order, arrays row-major) into `values`.")]
        ///
        /// Shapes: `vrs` has `nvr` elements; `values` has `nValues`, which must equal the total
        /// element count (1 per scalar).
        ///
        /// # Errors
        /// Error (logged) for an unknown value reference, a variable of another type, a wrong
        /// `nValues`, a call in a state without read access, or a model error.
        ///
        /// Spec: FMI 3.0 §2.2.6.2 (fmi3Get{VariableType}).
        ///
        /// # Safety
        /// `vrs` must be valid for `nvr` reads and `values` for `nValues` writes (either may be
        /// null with a zero count); `c` must not be in use by a concurrent call.
        pub unsafe fn $get<M: Model>(
            c: Instance,
            vrs: *const ValueReference,
            nvr: usize,
            values: *mut $c_type,
            n_values: usize,
        ) -> Status {
            let body = |inst: &mut Instance3<M>| {
                // SAFETY: caller contract on `vrs`/`values`.
                let (vrs, out) = unsafe {
                    (
                        slice(vrs, nvr, "valueReferences")?,
                        slice_mut(values, n_values, "values")?,
                    )
                };
                inst.get(DataType::$variant, vrs, out, |v| ValuesMut::$variant(v))
            };
            // SAFETY: forwarded caller contract.
            unsafe { with_instance3::<M>(c, $get_name, body) }
        }

        #[doc = concat!("`", $set_name, "`: writes `values` into the ", stringify!($variant), " parameters or inputs `vrs` (all their elements, in order, arrays row-major).")]
        ///
        /// Shapes: `vrs` has `nvr` elements; `values` has `nValues`, which must equal the total
        /// element count.
        ///
        /// # Errors
        /// Error (logged) for an unknown value reference, a variable of another type, a wrong
        /// `nValues`, a variable whose causality forbids the write in the current state, or a
        /// value the model refuses.
        ///
        /// Spec: FMI 3.0 §2.2.6.2 (fmi3Set{VariableType}).
        ///
        /// # Safety
        /// `vrs` must be valid for `nvr` reads and `values` for `nValues` reads (either may be
        /// null with a zero count); `c` must not be in use by a concurrent call.
        pub unsafe fn $set<M: Model>(
            c: Instance,
            vrs: *const ValueReference,
            nvr: usize,
            values: *const $c_type,
            n_values: usize,
        ) -> Status {
            let body = |inst: &mut Instance3<M>| {
                // SAFETY: caller contract on `vrs`/`values`.
                let (vrs, values) = unsafe {
                    (
                        slice(vrs, nvr, "valueReferences")?,
                        slice(values, n_values, "values")?,
                    )
                };
                inst.set(DataType::$variant, vrs, values, |v| Values::$variant(v))
            };
            // SAFETY: forwarded caller contract.
            unsafe { with_instance3::<M>(c, $set_name, body) }
        }
    )* };
}

numeric_access! {
    get_float32 set_float32 Float32 Float32 "fmi3GetFloat32" "fmi3SetFloat32";
    get_float64 set_float64 Float64 Float64 "fmi3GetFloat64" "fmi3SetFloat64";
    get_int8 set_int8 Int8 Int8 "fmi3GetInt8" "fmi3SetInt8";
    get_uint8 set_uint8 UInt8 UInt8 "fmi3GetUInt8" "fmi3SetUInt8";
    get_int16 set_int16 Int16 Int16 "fmi3GetInt16" "fmi3SetInt16";
    get_uint16 set_uint16 UInt16 UInt16 "fmi3GetUInt16" "fmi3SetUInt16";
    get_int32 set_int32 Int32 Int32 "fmi3GetInt32" "fmi3SetInt32";
    get_uint32 set_uint32 UInt32 UInt32 "fmi3GetUInt32" "fmi3SetUInt32";
    get_int64 set_int64 Int64 Int64 "fmi3GetInt64" "fmi3SetInt64";
    get_uint64 set_uint64 UInt64 UInt64 "fmi3GetUInt64" "fmi3SetUInt64";
}

/// `fmi3GetBoolean`: reads Boolean variables (writes the bytes 1 or 0).
///
/// Shapes and errors as for [`get_float64`].
///
/// Spec: FMI 3.0 §2.2.6.2.
///
/// # Safety
/// As for [`get_float64`].
pub unsafe fn get_boolean<M: Model>(
    c: Instance,
    vrs: *const ValueReference,
    nvr: usize,
    values: *mut Boolean,
    n_values: usize,
) -> Status {
    let body = |inst: &mut Instance3<M>| {
        // SAFETY: caller contract; `bool` and `u8` have the same layout, and only the bytes 0
        // and 1 are written.
        let (vrs, out) = unsafe {
            (
                slice(vrs, nvr, "valueReferences")?,
                slice_mut(values.cast::<u8>(), n_values, "values")?,
            )
        };
        let mut flags = vec![false; n_values];
        inst.get(DataType::Boolean, vrs, &mut flags, |v| {
            ValuesMut::Boolean(v)
        })?;
        for (o, f) in out.iter_mut().zip(flags) {
            *o = u8::from(f);
        }
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3GetBoolean", body) }
}

/// `fmi3SetBoolean`: writes Boolean parameters or inputs; any non-zero byte is true.
///
/// Shapes and errors as for [`set_float64`].
///
/// Spec: FMI 3.0 §2.2.6.2.
///
/// # Safety
/// As for [`set_float64`].
pub unsafe fn set_boolean<M: Model>(
    c: Instance,
    vrs: *const ValueReference,
    nvr: usize,
    values: *const Boolean,
    n_values: usize,
) -> Status {
    let body = |inst: &mut Instance3<M>| {
        // SAFETY: caller contract; the bytes are read as `u8`, so none is an invalid `bool`.
        let (vrs, bytes) = unsafe {
            (
                slice(vrs, nvr, "valueReferences")?,
                slice(values.cast::<u8>(), n_values, "values")?,
            )
        };
        let flags: Vec<bool> = bytes.iter().map(|&b| b != 0).collect();
        inst.set(DataType::Boolean, vrs, &flags, |v| Values::Boolean(v))
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3SetBoolean", body) }
}

/// `fmi3GetString`: the returned strings stay valid until the next `fmi3GetString` on this
/// instance (or its freeing).
///
/// Shapes and errors as for [`get_float64`]; also Error for a string with a NUL byte.
///
/// Spec: FMI 3.0 §2.2.6.2.
///
/// # Safety
/// As for [`get_float64`].
pub unsafe fn get_string<M: Model>(
    c: Instance,
    vrs: *const ValueReference,
    nvr: usize,
    values: *mut FmiString,
    n_values: usize,
) -> Status {
    let body = |inst: &mut Instance3<M>| {
        // SAFETY: caller contract on `vrs`/`values`.
        let (vrs, out) = unsafe {
            (
                slice(vrs, nvr, "valueReferences")?,
                slice_mut(values, n_values, "values")?,
            )
        };
        inst.get_strings(vrs, n_values, |i, s| out[i] = s.as_ptr())
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3GetString", body) }
}

/// `fmi3SetString`: each string must be UTF-8.
///
/// Shapes and errors as for [`set_float64`].
///
/// Spec: FMI 3.0 §2.2.6.2.
///
/// # Safety
/// As for [`set_float64`]; each `values[i]` must be null or a NUL-terminated string.
pub unsafe fn set_string<M: Model>(
    c: Instance,
    vrs: *const ValueReference,
    nvr: usize,
    values: *const FmiString,
    n_values: usize,
) -> Status {
    let body = |inst: &mut Instance3<M>| {
        // SAFETY: caller contract on `vrs`/`values`.
        let (vrs, pointers) = unsafe {
            (
                slice(vrs, nvr, "valueReferences")?,
                slice(values, n_values, "values")?,
            )
        };
        let texts = pointers
            .iter()
            // SAFETY: each element is null or NUL-terminated per the caller contract.
            .map(|&p| unsafe { c_str(p, "values[i]") })
            .collect::<Result<Vec<_>, _>>()?;
        inst.set(DataType::String, vrs, &texts, |v| Values::String(v))
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3SetString", body) }
}

/// `fmi3GetBinary`: writes each element's size (bytes) to `valueSizes` and its address to
/// `values`; the bytes stay valid until the next `fmi3GetBinary` on this instance (or its
/// freeing).
///
/// Shapes: `valueSizes` and `values` have `nValues` elements; errors as for [`get_float64`].
///
/// Spec: FMI 3.0 §2.2.6.2.
///
/// # Safety
/// `vrs` must be valid for `nvr` reads, `value_sizes` and `values` for `nValues` writes; `c`
/// must not be in use by a concurrent call.
pub unsafe fn get_binary<M: Model>(
    c: Instance,
    vrs: *const ValueReference,
    nvr: usize,
    value_sizes: *mut usize,
    values: *mut Binary,
    n_values: usize,
) -> Status {
    let body = |inst: &mut Instance3<M>| {
        // SAFETY: caller contract on the three arrays.
        let (vrs, sizes, out) = unsafe {
            (
                slice(vrs, nvr, "valueReferences")?,
                slice_mut(value_sizes, n_values, "valueSizes")?,
                slice_mut(values, n_values, "values")?,
            )
        };
        inst.get_binaries(vrs, n_values, |i, b| {
            sizes[i] = b.len();
            out[i] = b.as_ptr();
        })
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3GetBinary", body) }
}

/// `fmi3SetBinary`: element `i` is `valueSizes[i]` bytes at `values[i]` (a null pointer is
/// allowed for zero bytes).
///
/// Shapes: `valueSizes` and `values` have `nValues` elements; errors as for [`set_float64`].
///
/// Spec: FMI 3.0 §2.2.6.2.
///
/// # Safety
/// `vrs` must be valid for `nvr` reads, `value_sizes` and `values` for `nValues` reads, and
/// each `values[i]` for `valueSizes[i]` reads; `c` must not be in use by a concurrent call.
pub unsafe fn set_binary<M: Model>(
    c: Instance,
    vrs: *const ValueReference,
    nvr: usize,
    value_sizes: *const usize,
    values: *const Binary,
    n_values: usize,
) -> Status {
    let body = |inst: &mut Instance3<M>| {
        // SAFETY: caller contract on the three arrays.
        let (vrs, sizes, pointers) = unsafe {
            (
                slice(vrs, nvr, "valueReferences")?,
                slice(value_sizes, n_values, "valueSizes")?,
                slice(values, n_values, "values")?,
            )
        };
        let bytes = pointers
            .iter()
            .zip(sizes)
            // SAFETY: each element points to `valueSizes[i]` bytes per the caller contract.
            .map(|(&p, &n)| unsafe { slice(p, n, "values[i]") })
            .collect::<Result<Vec<_>, _>>()?;
        inst.set(DataType::Binary, vrs, &bytes, |v| Values::Binary(v))
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3SetBinary", body) }
}
