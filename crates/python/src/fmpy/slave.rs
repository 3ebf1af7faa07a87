//! One FMI 1.0/2.0 or 3.0 co-simulation instance behind one set of calls, and the recorder
//! that samples its variables into typed result columns.
//!
//! Spec: FMI 2.0.2 §2.1.7 (getting and setting values), FMI 3.0 §2.2.6; FMPy 0.3
//! `simulation.Recorder` (which variables, in which order, with which dtype).

use fmi::{DataType, Instance, Instance3, ScalarVariable, ValueRef};

use crate::results::ColumnData;

/// A value to set: the Python value converted to the variable's kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// Float32 / Float64 / Real.
    Real(f64),
    /// Any integer type or enumeration (range checked when set).
    Int(i128),
    /// Boolean.
    Bool(bool),
    /// String.
    Str(String),
}

/// A co-simulation instance of either FMI generation.
#[derive(Debug)]
pub enum Slave {
    /// FMI 1.0 or 2.0.
    V2(Instance),
    /// FMI 3.0 (boxed: an FMI 3.0 instance is much larger).
    V3(Box<Instance3>),
}

/// A failed FMI call or a value that does not fit its variable.
pub type CallResult<T> = Result<T, String>;

fn fmi_error(e: fmi::Error) -> String {
    e.to_string()
}

/// The result of an FMI call with its error as a message.
pub fn call<T>(r: fmi::Result<T>) -> CallResult<T> {
    r.map_err(fmi_error)
}

/// Converts `values` to `T`, naming the type and value that does not fit.
fn ints<T: TryFrom<i128>>(values: &[Scalar], dt: DataType) -> CallResult<Vec<T>> {
    values
        .iter()
        .map(|v| match v {
            Scalar::Int(i) => {
                T::try_from(*i).map_err(|_| format!("{i} is out of the range of {}", dt.name()))
            }
            Scalar::Real(r) => Err(format!("{r} is not an integer ({} expected)", dt.name())),
            Scalar::Bool(b) => T::try_from(i128::from(*b))
                .map_err(|_| format!("{b} is out of the range of {}", dt.name())),
            Scalar::Str(s) => Err(format!("'{s}' is not an integer ({} expected)", dt.name())),
        })
        .collect()
}

fn reals(values: &[Scalar]) -> CallResult<Vec<f64>> {
    values
        .iter()
        .map(|v| match v {
            Scalar::Real(r) => Ok(*r),
            Scalar::Int(i) => Ok(*i as f64),
            Scalar::Bool(b) => Ok(f64::from(u8::from(*b))),
            Scalar::Str(s) => Err(format!("'{s}' is not a number")),
        })
        .collect()
}

fn bools(values: &[Scalar]) -> CallResult<Vec<bool>> {
    values
        .iter()
        .map(|v| match v {
            Scalar::Bool(b) => Ok(*b),
            Scalar::Int(i) => Ok(*i != 0),
            Scalar::Real(r) => Ok(*r != 0.0),
            Scalar::Str(s) => Err(format!("'{s}' is not a Boolean")),
        })
        .collect()
}

fn strings(values: &[Scalar]) -> CallResult<Vec<String>> {
    values
        .iter()
        .map(|v| match v {
            Scalar::Str(s) => Ok(s.clone()),
            other => Err(format!("{other:?} is not a string")),
        })
        .collect()
}

impl Slave {
    /// Sets the variables `vrs` of type `dt` to `values` (one each).
    ///
    /// # Errors
    /// A message for a value that does not fit `dt` or a failed set call.
    pub fn set(&mut self, dt: DataType, vrs: &[ValueRef], values: &[Scalar]) -> CallResult<()> {
        match self {
            Slave::V2(s) => match dt {
                DataType::Float64 => s.set_real(vrs, &reals(values)?),
                DataType::Boolean => s.set_boolean(vrs, &bools(values)?),
                DataType::String => s.set_string(vrs, &strings(values)?),
                _ => s.set_integer(vrs, &ints::<i32>(values, dt)?),
            },
            Slave::V3(s) => match dt {
                DataType::Float32 => {
                    let v: Vec<f32> = reals(values)?.into_iter().map(|r| r as f32).collect();
                    s.set_float32(vrs, &v)
                }
                DataType::Float64 => s.set_float64(vrs, &reals(values)?),
                DataType::Int8 => s.set_int8(vrs, &ints(values, dt)?),
                DataType::UInt8 => s.set_uint8(vrs, &ints(values, dt)?),
                DataType::Int16 => s.set_int16(vrs, &ints(values, dt)?),
                DataType::UInt16 => s.set_uint16(vrs, &ints(values, dt)?),
                DataType::Int32 => s.set_int32(vrs, &ints(values, dt)?),
                DataType::UInt32 => s.set_uint32(vrs, &ints(values, dt)?),
                DataType::Int64 => s.set_int64(vrs, &ints(values, dt)?),
                DataType::UInt64 => s.set_uint64(vrs, &ints(values, dt)?),
                DataType::Boolean => s.set_boolean(vrs, &bools(values)?),
                DataType::String => s.set_string(vrs, &strings(values)?),
                DataType::Binary => {
                    return Err("Binary values cannot be set by simulate_fmu".into());
                }
            },
        }
        .map(drop)
        .map_err(fmi_error)
    }
}

/// The variables of one FMI type that are recorded, and their columns.
#[derive(Debug)]
struct Group {
    data_type: DataType,
    vrs: Vec<ValueRef>,
    columns: Vec<ColumnData>,
}

/// Samples the recorded variables into one column each, grouped and ordered by type as
/// FMPy's recorder is: FMI 1.0/2.0 Real, Integer (and Enumeration), Boolean; FMI 3.0
/// Float32, Float64, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64 (and Enumeration),
/// UInt64, Boolean; within a type in the order of the model description. String and Binary
/// variables are not recorded (FMPy records neither).
#[derive(Debug)]
pub struct Recorder {
    time: Vec<f64>,
    names: Vec<String>,
    groups: Vec<Group>,
}

fn empty_column(dt: DataType) -> ColumnData {
    match dt {
        DataType::Float32 => ColumnData::F32(Vec::new()),
        DataType::Int8 => ColumnData::I8(Vec::new()),
        DataType::UInt8 => ColumnData::U8(Vec::new()),
        DataType::Int16 => ColumnData::I16(Vec::new()),
        DataType::UInt16 => ColumnData::U16(Vec::new()),
        DataType::Int32 => ColumnData::I32(Vec::new()),
        DataType::UInt32 => ColumnData::U32(Vec::new()),
        DataType::Int64 => ColumnData::I64(Vec::new()),
        DataType::UInt64 => ColumnData::U64(Vec::new()),
        DataType::Boolean => ColumnData::Bool(Vec::new()),
        _ => ColumnData::F64(Vec::new()),
    }
}

/// Reads the group's variables with `get` into a buffer and appends value `i` to column `i`.
macro_rules! sample_into {
    ($group:expr, $variant:ident, $zero:expr, $get:expr) => {{
        let mut buffer = vec![$zero; $group.vrs.len()];
        $get(&$group.vrs, &mut buffer).map_err(fmi_error)?;
        for (column, value) in $group.columns.iter_mut().zip(buffer) {
            if let ColumnData::$variant(c) = column {
                c.push(value);
            }
        }
    }};
}

impl Recorder {
    /// A recorder of `variables` (in model-description order; String, Binary and `time`
    /// left out), each row to hold `capacity` rows without reallocating.
    pub fn new(variables: &[&ScalarVariable], capacity: usize) -> Recorder {
        let mut recorded: Vec<&ScalarVariable> = variables
            .iter()
            .copied()
            .filter(|v| {
                v.name != "time" && !matches!(v.data_type, DataType::String | DataType::Binary)
            })
            .collect();
        // Stable: the description's order within a type.
        recorded.sort_by_key(|v| v.data_type);
        let mut groups: Vec<Group> = Vec::new();
        for v in &recorded {
            if groups.last().map(|g| g.data_type) != Some(v.data_type) {
                groups.push(Group {
                    data_type: v.data_type,
                    vrs: Vec::new(),
                    columns: Vec::new(),
                });
            }
            let group = groups.last_mut().expect("invariant: pushed above");
            group.vrs.push(v.value_reference);
            group.columns.push(empty_column(v.data_type));
        }
        Recorder {
            time: Vec::with_capacity(capacity),
            names: recorded.iter().map(|v| v.name.clone()).collect(),
            groups,
        }
    }

    /// Appends one row: `t` (s) and the current value of every recorded variable.
    ///
    /// # Errors
    /// The message of a failed get call.
    pub fn sample(&mut self, t: f64, slave: &mut Slave) -> CallResult<()> {
        self.time.push(t);
        for g in &mut self.groups {
            match (&mut *slave, g.data_type) {
                (Slave::V2(s), DataType::Float64) => {
                    sample_into!(g, F64, 0.0, |v, b| s.get_real(v, b))
                }
                (Slave::V2(s), DataType::Boolean) => {
                    sample_into!(g, Bool, false, |v, b| s.get_boolean(v, b))
                }
                (Slave::V2(s), _) => sample_into!(g, I32, 0, |v, b| s.get_integer(v, b)),
                (Slave::V3(s), DataType::Float32) => {
                    sample_into!(g, F32, 0.0, |v, b| s.get_float32(v, b))
                }
                (Slave::V3(s), DataType::Float64) => {
                    sample_into!(g, F64, 0.0, |v, b| s.get_float64(v, b))
                }
                (Slave::V3(s), DataType::Int8) => sample_into!(g, I8, 0, |v, b| s.get_int8(v, b)),
                (Slave::V3(s), DataType::UInt8) => sample_into!(g, U8, 0, |v, b| s.get_uint8(v, b)),
                (Slave::V3(s), DataType::Int16) => {
                    sample_into!(g, I16, 0, |v, b| s.get_int16(v, b))
                }
                (Slave::V3(s), DataType::UInt16) => {
                    sample_into!(g, U16, 0, |v, b| s.get_uint16(v, b))
                }
                (Slave::V3(s), DataType::Int32) => {
                    sample_into!(g, I32, 0, |v, b| s.get_int32(v, b))
                }
                (Slave::V3(s), DataType::UInt32) => {
                    sample_into!(g, U32, 0, |v, b| s.get_uint32(v, b))
                }
                (Slave::V3(s), DataType::Int64) => {
                    sample_into!(g, I64, 0, |v, b| s.get_int64(v, b))
                }
                (Slave::V3(s), DataType::UInt64) => {
                    sample_into!(g, U64, 0, |v, b| s.get_uint64(v, b))
                }
                (Slave::V3(s), _) => sample_into!(g, Bool, false, |v, b| s.get_boolean(v, b)),
            }
        }
        Ok(())
    }

    /// The columns, `time` first, then one per recorded variable (FMPy's field order).
    pub fn into_columns(self) -> Vec<(String, ColumnData)> {
        let mut columns = vec![("time".to_string(), ColumnData::F64(self.time))];
        let values = self.groups.into_iter().flat_map(|g| g.columns);
        columns.extend(self.names.into_iter().zip(values));
        columns
    }
}
