//! Number parsing helpers with the semantics MasterSim's C++ libraries have.
//! (CONTRACT STUB: the parser helper fills it.)
