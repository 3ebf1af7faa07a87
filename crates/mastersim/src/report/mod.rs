//! Views of a run's statistics ([`master::Statistics`]): the summary at the end of the run
//! (`log/summary.txt`, `log/summary.json` and the console block) and the line per step of `log/stepstats.tsv`.
//! They only format what the master counted.
//!
//! Spec: MasterSim reference §12.5, §12.7.

mod json;
mod stepstats;
mod summary;

pub use json::{
    CountersJson, RealTimeJson, RunInfo, SUMMARY_JSON_VERSION, SlaveInfo, SlaveJson, SummaryJson,
    TimerJson, TimersJson,
};
pub use stepstats::StepStatsWriter;
pub use summary::{DisplayUnit, Ending, Summary};
