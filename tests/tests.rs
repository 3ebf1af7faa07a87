//! Self-contained integration tests: the `mastersim` binary on the bundled projects with the
//! own test FMUs built from the current source. Nothing here needs files outside the repository.

mod algebraic_loop;
mod architecture;
mod bad_input;
mod checkpoints;
mod cli;
mod docs;
mod examples;
mod faults;
mod first_hour;
mod fmi3;
mod hostile;
mod info;
mod isolation;
mod isolation_leaks;
mod live_record;
mod live_scene;
mod live_seek;
mod live_view;
mod model_exchange;
mod model_exchange_e2e;
mod model_quirks;
mod multirate;
mod packed_fmus;
mod parallel;
mod result_files;
mod session_api;
mod ssp;
mod sweeps;
mod working_dir_lock;
