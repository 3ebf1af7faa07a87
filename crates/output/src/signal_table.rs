//! (stub: being implemented)
