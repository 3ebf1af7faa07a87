//! Corpus conformance suite.
