//! Self-contained integration tests.
