//! Time units of the IBK unit list and MasterSim's exact conversion arithmetic.

use std::fmt;
use std::str::FromStr;

/// A time unit of the IBK unit list.
///
/// Only time units are accepted. MasterSim accepts any IBK unit for time settings and uses its
/// SI base value as seconds (`tEnd 5 m` gives 5 s); mastersim rejects non-time units instead.
///
/// Spec: MasterSim reference §3.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// Millisecond (`ms`).
    Millisecond,
    /// Second (`s`).
    Second,
    /// Minute (`min`, 60 s).
    Minute,
    /// Hour (`h`, 3600 s).
    Hour,
    /// Day (`d`, 86400 s).
    Day,
    /// Year of 365 days (`a`, 31 536 000 s).
    Year,
}

impl TimeUnit {
    /// All time units, from the smallest to the largest.
    pub const ALL: [TimeUnit; 6] = [
        TimeUnit::Millisecond,
        TimeUnit::Second,
        TimeUnit::Minute,
        TimeUnit::Hour,
        TimeUnit::Day,
        TimeUnit::Year,
    ];

    /// The accepted unit names, for error messages.
    pub const ACCEPTED: &'static str = "ms, s, min, h, d, a";

    /// The unit for a unit name (case-sensitive), or `None` when it is not a time unit.
    ///
    /// Spec: MasterSim reference §3.3 (units are case-sensitive).
    pub fn from_name(name: &str) -> Option<TimeUnit> {
        TimeUnit::ALL.into_iter().find(|u| u.name() == name)
    }

    /// The unit name as written in project and table files (`ms`, `s`, `min`, `h`, `d`, `a`).
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Millisecond => "ms",
            TimeUnit::Second => "s",
            TimeUnit::Minute => "min",
            TimeUnit::Hour => "h",
            TimeUnit::Day => "d",
            TimeUnit::Year => "a",
        }
    }

    /// Seconds per unit, as the IBK unit list stores it (`ms` is `1.0/1000.0`).
    pub fn factor(self) -> f64 {
        match self {
            TimeUnit::Millisecond => 1.0 / 1000.0,
            TimeUnit::Second => 1.0,
            TimeUnit::Minute => 60.0,
            TimeUnit::Hour => 3600.0,
            TimeUnit::Day => 86400.0,
            TimeUnit::Year => 3.1536e7,
        }
    }

    /// Converts a value in this unit to seconds: `v * factor`.
    ///
    /// Spec: MasterSim reference §3.3, §15.1 (the same multiplication gives bit-identical times).
    pub fn to_seconds(self, v: f64) -> f64 {
        match self {
            TimeUnit::Second => v,
            _ => v * self.factor(),
        }
    }

    /// Converts seconds to this unit: `s * (1.0 / factor)` (multiplication by the reciprocal).
    ///
    /// Spec: MasterSim reference §3.3, §15.1.
    pub fn from_seconds(self, s: f64) -> f64 {
        match self {
            TimeUnit::Second => s,
            _ => s * (1.0 / self.factor()),
        }
    }
}

impl fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A unit name that is not one of the accepted time units.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a time unit, expected one of ms, s, min, h, d, a")]
pub struct NotATimeUnit(pub String);

impl FromStr for TimeUnit {
    type Err = NotATimeUnit;

    /// Parses a unit name (see [`TimeUnit::from_name`]).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TimeUnit::from_name(s).ok_or_else(|| NotATimeUnit(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_case_sensitive() {
        for u in TimeUnit::ALL {
            assert_eq!(TimeUnit::from_name(u.name()), Some(u));
            assert_eq!(u.name().parse::<TimeUnit>(), Ok(u));
            assert_eq!(u.to_string(), u.name());
        }
        assert_eq!(TimeUnit::from_name("S"), None);
        assert_eq!(TimeUnit::from_name("Min"), None);
        let err = "m".parse::<TimeUnit>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "'m' is not a time unit, expected one of ms, s, min, h, d, a"
        );
        assert!("K".parse::<TimeUnit>().is_err());
    }

    #[test]
    fn conversion_uses_mastersim_arithmetic() {
        assert_eq!(TimeUnit::Millisecond.to_seconds(3.0), 3.0 * (1.0 / 1000.0));
        assert_eq!(TimeUnit::Minute.to_seconds(30.0), 1800.0);
        assert_eq!(TimeUnit::Hour.to_seconds(6.0), 21600.0);
        assert_eq!(TimeUnit::Day.to_seconds(1.0), 86400.0);
        assert_eq!(TimeUnit::Year.to_seconds(1.0), 31_536_000.0);
        assert_eq!(TimeUnit::Second.to_seconds(0.1), 0.1);
        // The reciprocal of 1/1000 is exactly 1000, as the reference table states.
        assert_eq!(1.0 / (1.0 / 1000.0), 1000.0);
        assert_eq!(TimeUnit::Millisecond.from_seconds(2.5), 2500.0);
        assert_eq!(TimeUnit::Minute.from_seconds(0.1), 0.1 * (1.0 / 60.0));
        assert_eq!(TimeUnit::Hour.from_seconds(7200.0), 7200.0 * (1.0 / 3600.0));
        assert_eq!(TimeUnit::Year.from_seconds(1.0), 1.0 / 3.1536e7);
    }
}
