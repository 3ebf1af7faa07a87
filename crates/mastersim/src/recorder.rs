//! Results in memory: an observer that keeps every result row, for programs that use mastersim
//! as a library (`simulate` returns them, like FMPy's `simulate_fmu`).

use std::sync::{Arc, Mutex, PoisonError};

use master::values::TypedValues;
use master::{Observer, ObserverError, OutputLayout};

/// The result rows of a run, by column.
///
/// Numeric columns (Boolean as 0/1, Integer, Real) hold one `f64` per row, String columns one
/// `String` per row; all have the length of [`Results::time`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results {
    time: Vec<f64>,
    names: Vec<String>,
    units: Vec<String>,
    numeric: Vec<Vec<f64>>,
    string_names: Vec<String>,
    strings: Vec<Vec<String>>,
}

impl Results {
    /// Times of the rows, s.
    pub fn time(&self) -> &[f64] {
        &self.time
    }

    /// Names (`<slave>.<variable>`) of the numeric columns, in the order of `values.csv`:
    /// Booleans, Integers, Reals.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The values of numeric column `name` (`<slave>.<variable>`), one per row; `None` for an
    /// unknown name.
    pub fn column(&self, name: &str) -> Option<&[f64]> {
        let i = self.names.iter().position(|n| n == name)?;
        Some(&self.numeric[i])
    }

    /// The unit of numeric column `name` (`-` when it has none).
    pub fn unit(&self, name: &str) -> Option<&str> {
        let i = self.names.iter().position(|n| n == name)?;
        Some(&self.units[i])
    }

    /// The values of String column `name`, one per row; `None` for an unknown name.
    pub fn strings(&self, name: &str) -> Option<&[String]> {
        let i = self.string_names.iter().position(|n| n == name)?;
        Some(&self.strings[i])
    }
}

/// An observer that records every result row in memory. Clones share the recording: keep one
/// and give another to [`crate::Session::add_observer`].
///
/// # Examples
/// ```no_run
/// # fn main() -> Result<(), mastersim::Error> {
/// use mastersim::{Options, Recorder, Session};
///
/// let mut session = Session::open("projects/lotka_volterra.msim", &Options::default())?;
/// let recorder = Recorder::new();
/// session.add_observer(Box::new(recorder.clone()))?;
/// session.run()?;
/// let prey = recorder.results().column("Prey.x").map(<[f64]>::to_vec);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Recorder(Arc<Mutex<Results>>);

impl Recorder {
    /// An empty recording.
    pub fn new() -> Self {
        Recorder::default()
    }

    /// A copy of the rows recorded so far.
    pub fn results(&self) -> Results {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Observer for Recorder {
    fn start(&mut self, layout: &OutputLayout) -> Result<(), ObserverError> {
        let mut r = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let c = &layout.columns;
        let numeric = || [&c.boolean, &c.integer, &c.real].into_iter().flatten();
        *r = Results {
            names: numeric().map(|c| c.name.clone()).collect(),
            units: numeric().map(|c| c.unit.clone()).collect(),
            numeric: numeric().map(|_| Vec::new()).collect(),
            string_names: c.string.iter().map(|c| c.name.clone()).collect(),
            strings: c.string.iter().map(|_| Vec::new()).collect(),
            time: Vec::new(),
        };
        Ok(())
    }

    fn output(&mut self, t: f64, values: &TypedValues) -> Result<(), ObserverError> {
        let mut r = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        r.time.push(t);
        let numeric = values
            .boolean
            .iter()
            .map(|&b| f64::from(u8::from(b)))
            .chain(values.integer.iter().map(|&i| i as f64))
            .chain(values.real.iter().copied());
        for (column, v) in r.numeric.iter_mut().zip(numeric) {
            column.push(v);
        }
        for (column, s) in r.strings.iter_mut().zip(&values.string) {
            column.push(s.clone());
        }
        Ok(())
    }

    /// Drops the rows after `t` (a restored snapshot), so that the rows held are those of an
    /// unbroken run.
    fn rewound(&mut self, t: f64) {
        let mut r = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let keep = r.time.partition_point(|&row| row <= t);
        r.time.truncate(keep);
        for column in &mut r.numeric {
            column.truncate(keep);
        }
        for column in &mut r.strings {
            column.truncate(keep);
        }
    }
}
