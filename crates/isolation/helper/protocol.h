/*
 * protocol.h: the message protocol between the mastersim master and its FMU helper processes
 * (fmu_host.c). This file is the only definition of the protocol: crates/isolation/build.rs
 * turns every `#define MSIM_<NAME> <number>` line into `pub const <NAME>` and every
 * `X(<id>, <NAME>, <symbol>)` line of MSIM_FUNCTIONS into `pub const FN_<NAME>: u32` plus a
 * name table, for the Rust side (crates/isolation/src/protocol.rs).
 *
 * SHARED REGION
 * The master creates a file in /dev/shm of MSIM_REGION_SIZE bytes and passes its path (for a
 * Windows helper under Wine: Z:\dev\shm\...) as the helper's only argument. Both map it shared.
 * All numbers in the region are little-endian. The header fields are 32-bit words at the
 * MSIM_OFF_* offsets; the request area starts at MSIM_REQUEST_OFFSET, the response area at
 * MSIM_RESPONSE_OFFSET (separate areas, so the helper may write outputs while it still reads
 * arguments).
 *
 * HANDSHAKE
 * Start-up: the helper maps the region, checks MSIM_OFF_MAGIC and MSIM_OFF_VERSION (written by
 * the master), writes MSIM_READY_VALUE into MSIM_OFF_READY and wakes the master.
 * A round trip: the master writes the calls into the request area, their byte length into
 * MSIM_OFF_REQUEST_LEN, then increments MSIM_OFF_REQUEST_SEQ (release) and, if
 * MSIM_OFF_HELPER_SLEEPING is 1, FUTEX_WAKEs that word. The helper waits until the request
 * sequence differs from the last one it answered (spin for MSIM_OFF_SPIN_MICROSECONDS, then
 * FUTEX_WAIT with MSIM_OFF_HELPER_SLEEPING set to 1; a Windows helper polls instead), executes the calls,
 * writes the response, MSIM_OFF_RESPONSE_LEN, MSIM_OFF_RESPONSE_CALLS, MSIM_OFF_LOG_OFFSET,
 * then stores the request sequence into MSIM_OFF_RESPONSE_SEQ (release) and wakes the master
 * if MSIM_OFF_MASTER_SLEEPING is 1.
 * Before each call into the FMU the helper writes the call's function id into
 * MSIM_OFF_FUNCTION_IN_PROGRESS and 0 after it, so that the master can name the function when
 * the helper dies or hangs.
 *
 * ENCODING (both directions)
 *   u8/i8/u16/i16/u32/i32/u64/i64/f32/f64: little-endian, unaligned, no padding.
 *   bool3 (FMI 3.0 fmi3Boolean): u8, 0 or 1.   bool2 (FMI 2.0 fmi2Boolean): i32.
 *   str: u32 length + bytes (no NUL); length MSIM_NULL_STRING stands for a NULL pointer.
 *   T[]: u32 count + count elements of T.
 *   bin[] (FMI 3.0 binaries): u32 count, then per element u32 length + bytes.
 *   state: u64 opaque FMU state handle chosen by the helper; 0 is NULL.
 *
 * Function ids: control 1..99, FMI 2.0 101..199, FMI 3.0 201..299.
 *
 * REQUEST: calls one after the other: u32 function id, then that function's arguments.
 * The helper has at most one FMU instance, so no call carries an instance argument.
 *
 * RESPONSE: per answered call: i32 status, then that function's outputs (always all of them,
 * whatever the status; values the FMU did not write are 0 / empty). The helper executes the
 * calls in order and stops after the first call whose status is >= MSIM_STOP_STATUS (fmiError,
 * fmiFatal): MSIM_OFF_RESPONSE_CALLS says how many calls were answered. At
 * MSIM_OFF_LOG_OFFSET (relative to MSIM_RESPONSE_OFFSET) follow the log records of all calls:
 * u32 count, then per record: i32 status, str category, str message (the FMU's message,
 * formatted by the helper with vsnprintf for FMI 2.0). The helper's own diagnostics (library
 * not loadable, function not exported, bad request) are log records with category
 * "mastersim-helper".
 * A call the helper refuses itself (a function the library does not export, value counts that
 * do not match, outputs too large for the response area, a second instance) answers status
 * fmiError (3), no outputs, and such a log record; the request ends there.
 * A request the helper cannot decode answers MSIM_OFF_RESPONSE_CALLS = calls decoded so far and
 * a log record; the master reports a protocol error.
 *
 * PER-FUNCTION ARGUMENTS -> OUTPUTS (after the i32 status)
 *  control:
 *   LOAD            str library (helper's path syntax), u32 fmi_version (2|3)
 *                   -> u32[] ids of the MSIM_FUNCTIONS the library exports. status 0 = loaded,
 *                   3 = not loadable (reason in a log record). Must be the first call.
 *   QUIT            -> (nothing); a Linux helper unloads the library first; the helper
 *                      exits with code 0 after the response.
 *   ECHO            u8[] bytes -> u8[] the same bytes (tests and the round-trip benchmark;
 *                   never touches the FMU).
 *  FMI 2.0 (status is the fmi2Status the FMU returned):
 *   GET_TYPES_PLATFORM, GET_VERSION  -> str (no instance needed)
 *   SET_DEBUG_LOGGING   bool2 loggingOn, str[] categories -> ()
 *   INSTANTIATE         str instanceName, i32 fmuType, str guid, str resourceLocation,
 *                       bool2 visible, bool2 loggingOn -> (); status 0 when the FMU returned an
 *                       instance, 3 when it returned NULL. The helper passes its own callbacks
 *                       (logger, calloc, free, stepFinished NULL).
 *   FREE_INSTANCE       -> (); status 0
 *   SETUP_EXPERIMENT    bool2 toleranceDefined, f64 tolerance, f64 startTime,
 *                       bool2 stopTimeDefined, f64 stopTime -> ()
 *   ENTER_INITIALIZATION_MODE, EXIT_INITIALIZATION_MODE, TERMINATE, RESET, CANCEL_STEP -> ()
 *   GET_REAL     u32[] vr -> f64[] (count = vr count)
 *   GET_INTEGER  u32[] vr -> i32[]
 *   GET_BOOLEAN  u32[] vr -> i32[]
 *   GET_STRING   u32[] vr -> str[]
 *   SET_REAL     u32[] vr, f64[] values -> ()      (value count must equal vr count)
 *   SET_INTEGER  u32[] vr, i32[] values -> ()
 *   SET_BOOLEAN  u32[] vr, i32[] values -> ()
 *   SET_STRING   u32[] vr, str[] values -> ()
 *   GET_FMU_STATE               state in (0 = new) -> state
 *   SET_FMU_STATE               state -> ()
 *   FREE_FMU_STATE              state -> state (0 when freed)
 *   SERIALIZED_FMU_STATE_SIZE   state -> u64 size
 *   SERIALIZE_FMU_STATE         state, u64 size -> u8[] bytes (count = size)
 *   DESERIALIZE_FMU_STATE       u8[] bytes, state in (0 = new) -> state
 *   GET_DIRECTIONAL_DERIVATIVE  u32[] unknowns, u32[] knowns, f64[] dvKnown
 *                               -> f64[] dvUnknown (count = unknowns count)
 *   DO_STEP          f64 currentCommunicationPoint, f64 communicationStepSize,
 *                    bool2 noSetFMUStatePriorToCurrentPoint -> ()
 *   GET_STATUS          i32 kind -> i32 value (fmi2Status)
 *   GET_BOOLEAN_STATUS  i32 kind -> i32 value (fmi2Boolean)
 *  FMI 3.0 (status is the fmi3Status the FMU returned):
 *   FMI3_GET_VERSION    -> str
 *   FMI3_SET_DEBUG_LOGGING  bool3 loggingOn, str[] categories -> ()
 *   FMI3_INSTANTIATE_CO_SIMULATION  str instanceName, str instantiationToken,
 *                       str resourcePath, bool3 visible, bool3 loggingOn, bool3 eventModeUsed,
 *                       bool3 earlyReturnAllowed, u32[] requiredIntermediateVariables -> ();
 *                       status 0 / 3 as for INSTANTIATE (logMessage callback by the helper,
 *                       intermediateUpdate NULL)
 *   FMI3_FREE_INSTANCE  -> (); status 0
 *   FMI3_ENTER_INITIALIZATION_MODE  bool3 toleranceDefined, f64 tolerance, f64 startTime,
 *                       bool3 stopTimeDefined, f64 stopTime -> ()
 *   FMI3_EXIT_INITIALIZATION_MODE, FMI3_ENTER_EVENT_MODE, FMI3_ENTER_STEP_MODE,
 *   FMI3_TERMINATE, FMI3_RESET -> ()
 *   FMI3_UPDATE_DISCRETE_STATES -> bool3 discreteStatesNeedUpdate, bool3 terminateSimulation,
 *                       bool3 nominalsOfContinuousStatesChanged,
 *                       bool3 valuesOfContinuousStatesChanged, bool3 nextEventTimeDefined,
 *                       f64 nextEventTime
 *   FMI3_DO_STEP        f64 currentCommunicationPoint, f64 communicationStepSize,
 *                       bool3 noSetFMUStatePriorToCurrentPoint -> bool3 eventHandlingNeeded,
 *                       bool3 terminateSimulation, bool3 earlyReturn, f64 lastSuccessfulTime
 *   FMI3_GET_<T>        u32[] vr, u64 nValues -> T[] (count = nValues), for T in
 *                       FLOAT32 f32, FLOAT64 f64, INT8 i8, UINT8 u8, INT16 i16, UINT16 u16,
 *                       INT32 i32, UINT32 u32, INT64 i64, UINT64 u64, BOOLEAN bool3, STRING str
 *   FMI3_GET_BINARY     u32[] vr, u64 nValues -> bin[] (count = nValues)
 *   FMI3_SET_<T>        u32[] vr, T[] values -> ()   (nValues = values count)
 *   FMI3_SET_BINARY     u32[] vr, bin[] values -> ()
 *   FMI3_GET_FMU_STATE, FMI3_SET_FMU_STATE, FMI3_FREE_FMU_STATE,
 *   FMI3_SERIALIZED_FMU_STATE_SIZE, FMI3_SERIALIZE_FMU_STATE, FMI3_DESERIALIZE_FMU_STATE:
 *                       as the FMI 2.0 ones above
 *   FMI3_GET_DIRECTIONAL_DERIVATIVE  u32[] unknowns, u32[] knowns, f64[] seed,
 *                       u64 nSensitivity -> f64[] sensitivity (count = nSensitivity)
 */
#ifndef MSIM_PROTOCOL_H
#define MSIM_PROTOCOL_H

#define MSIM_PROTOCOL_VERSION 1
/* "MSIM" read as a little-endian u32. */
#define MSIM_MAGIC 0x4d49534d
#define MSIM_READY_VALUE 1

/* Header word offsets (bytes from the start of the region). */
#define MSIM_OFF_MAGIC 0
#define MSIM_OFF_VERSION 4
#define MSIM_OFF_READY 8
#define MSIM_OFF_REQUEST_SEQ 12
#define MSIM_OFF_RESPONSE_SEQ 16
#define MSIM_OFF_HELPER_SLEEPING 20
#define MSIM_OFF_MASTER_SLEEPING 24
#define MSIM_OFF_FUNCTION_IN_PROGRESS 28
#define MSIM_OFF_REQUEST_LEN 32
#define MSIM_OFF_RESPONSE_LEN 36
#define MSIM_OFF_RESPONSE_CALLS 40
#define MSIM_OFF_LOG_OFFSET 44
#define MSIM_OFF_HELPER_PID 48
#define MSIM_OFF_SPIN_MICROSECONDS 52
/* Windows helpers: the code of the exception that ended the helper (0: none). */
#define MSIM_OFF_EXCEPTION_CODE 56
/* Linux helpers: the processor the master's calling thread ran on when it sent the request,
 * plus 1 (0: unknown). Unless the round trip spins (MSIM_OFF_SPIN_MICROSECONDS > 0), the
 * helper moves itself to that processor before it answers, so that each hand-over is a switch
 * between two processes on one processor instead of the wake-up of an idle one (tens of
 * microseconds on a virtual machine); when it spins, to any other processor. */
#define MSIM_OFF_MASTER_CPU 60
#define MSIM_HEADER_SIZE 64

/* Linux helpers: the environment variable that holds the master's process id. The helper sets
 * its own death signal (PR_SET_PDEATHSIG) and exits at once when its parent is no longer that
 * process (the master died before the death signal was set). */
#define MSIM_MASTER_PID_VARIABLE "MASTERSIM_MASTER_PID"

/* The whole region: 64 MiB (tmpfs allocates only the pages touched). */
#define MSIM_REGION_SIZE 67108864
#define MSIM_REQUEST_OFFSET 64
#define MSIM_REQUEST_CAPACITY 33554368
#define MSIM_RESPONSE_OFFSET 33554432
#define MSIM_RESPONSE_CAPACITY 33554432

#define MSIM_NULL_STRING 0xffffffff
/* A call answering a status >= this (fmiError, fmiFatal) ends the request. */
#define MSIM_STOP_STATUS 3

/* How long a waiter may spin before it sleeps, in microseconds. The master chooses the budget
 * of each round trip (crates/isolation/src/spin.rs: this value while spinning pays, else 0)
 * and writes it into MSIM_OFF_SPIN_MICROSECONDS; the helper spins that long after answering.
 * 0 while there are at least as many helpers as processors: a Linux helper then shares the
 * master thread's processor (MSIM_OFF_MASTER_CPU). */
#define MSIM_SPIN_MICROSECONDS 50

/* Function ids: X(id, NAME, symbol). Control ids have no symbol in a library ("-"). */
#define MSIM_FUNCTIONS(X) \
    X(1, LOAD, msimLoad) \
    X(2, QUIT, msimQuit) \
    X(3, ECHO, msimEcho) \
    X(101, FMI2_GET_TYPES_PLATFORM, fmi2GetTypesPlatform) \
    X(102, FMI2_GET_VERSION, fmi2GetVersion) \
    X(103, FMI2_SET_DEBUG_LOGGING, fmi2SetDebugLogging) \
    X(104, FMI2_INSTANTIATE, fmi2Instantiate) \
    X(105, FMI2_FREE_INSTANCE, fmi2FreeInstance) \
    X(106, FMI2_SETUP_EXPERIMENT, fmi2SetupExperiment) \
    X(107, FMI2_ENTER_INITIALIZATION_MODE, fmi2EnterInitializationMode) \
    X(108, FMI2_EXIT_INITIALIZATION_MODE, fmi2ExitInitializationMode) \
    X(109, FMI2_TERMINATE, fmi2Terminate) \
    X(110, FMI2_RESET, fmi2Reset) \
    X(111, FMI2_GET_REAL, fmi2GetReal) \
    X(112, FMI2_GET_INTEGER, fmi2GetInteger) \
    X(113, FMI2_GET_BOOLEAN, fmi2GetBoolean) \
    X(114, FMI2_GET_STRING, fmi2GetString) \
    X(115, FMI2_SET_REAL, fmi2SetReal) \
    X(116, FMI2_SET_INTEGER, fmi2SetInteger) \
    X(117, FMI2_SET_BOOLEAN, fmi2SetBoolean) \
    X(118, FMI2_SET_STRING, fmi2SetString) \
    X(119, FMI2_GET_FMU_STATE, fmi2GetFMUstate) \
    X(120, FMI2_SET_FMU_STATE, fmi2SetFMUstate) \
    X(121, FMI2_FREE_FMU_STATE, fmi2FreeFMUstate) \
    X(122, FMI2_SERIALIZED_FMU_STATE_SIZE, fmi2SerializedFMUstateSize) \
    X(123, FMI2_SERIALIZE_FMU_STATE, fmi2SerializeFMUstate) \
    X(124, FMI2_DESERIALIZE_FMU_STATE, fmi2DeSerializeFMUstate) \
    X(125, FMI2_GET_DIRECTIONAL_DERIVATIVE, fmi2GetDirectionalDerivative) \
    X(126, FMI2_DO_STEP, fmi2DoStep) \
    X(127, FMI2_CANCEL_STEP, fmi2CancelStep) \
    X(128, FMI2_GET_STATUS, fmi2GetStatus) \
    X(129, FMI2_GET_BOOLEAN_STATUS, fmi2GetBooleanStatus) \
    X(201, FMI3_GET_VERSION, fmi3GetVersion) \
    X(202, FMI3_SET_DEBUG_LOGGING, fmi3SetDebugLogging) \
    X(203, FMI3_INSTANTIATE_CO_SIMULATION, fmi3InstantiateCoSimulation) \
    X(204, FMI3_FREE_INSTANCE, fmi3FreeInstance) \
    X(205, FMI3_ENTER_INITIALIZATION_MODE, fmi3EnterInitializationMode) \
    X(206, FMI3_EXIT_INITIALIZATION_MODE, fmi3ExitInitializationMode) \
    X(207, FMI3_ENTER_EVENT_MODE, fmi3EnterEventMode) \
    X(208, FMI3_ENTER_STEP_MODE, fmi3EnterStepMode) \
    X(209, FMI3_UPDATE_DISCRETE_STATES, fmi3UpdateDiscreteStates) \
    X(210, FMI3_TERMINATE, fmi3Terminate) \
    X(211, FMI3_RESET, fmi3Reset) \
    X(212, FMI3_DO_STEP, fmi3DoStep) \
    X(213, FMI3_GET_FLOAT32, fmi3GetFloat32) \
    X(214, FMI3_GET_FLOAT64, fmi3GetFloat64) \
    X(215, FMI3_GET_INT8, fmi3GetInt8) \
    X(216, FMI3_GET_UINT8, fmi3GetUInt8) \
    X(217, FMI3_GET_INT16, fmi3GetInt16) \
    X(218, FMI3_GET_UINT16, fmi3GetUInt16) \
    X(219, FMI3_GET_INT32, fmi3GetInt32) \
    X(220, FMI3_GET_UINT32, fmi3GetUInt32) \
    X(221, FMI3_GET_INT64, fmi3GetInt64) \
    X(222, FMI3_GET_UINT64, fmi3GetUInt64) \
    X(223, FMI3_GET_BOOLEAN, fmi3GetBoolean) \
    X(224, FMI3_GET_STRING, fmi3GetString) \
    X(225, FMI3_GET_BINARY, fmi3GetBinary) \
    X(226, FMI3_SET_FLOAT32, fmi3SetFloat32) \
    X(227, FMI3_SET_FLOAT64, fmi3SetFloat64) \
    X(228, FMI3_SET_INT8, fmi3SetInt8) \
    X(229, FMI3_SET_UINT8, fmi3SetUInt8) \
    X(230, FMI3_SET_INT16, fmi3SetInt16) \
    X(231, FMI3_SET_UINT16, fmi3SetUInt16) \
    X(232, FMI3_SET_INT32, fmi3SetInt32) \
    X(233, FMI3_SET_UINT32, fmi3SetUInt32) \
    X(234, FMI3_SET_INT64, fmi3SetInt64) \
    X(235, FMI3_SET_UINT64, fmi3SetUInt64) \
    X(236, FMI3_SET_BOOLEAN, fmi3SetBoolean) \
    X(237, FMI3_SET_STRING, fmi3SetString) \
    X(238, FMI3_SET_BINARY, fmi3SetBinary) \
    X(239, FMI3_GET_FMU_STATE, fmi3GetFMUState) \
    X(240, FMI3_SET_FMU_STATE, fmi3SetFMUState) \
    X(241, FMI3_FREE_FMU_STATE, fmi3FreeFMUState) \
    X(242, FMI3_SERIALIZED_FMU_STATE_SIZE, fmi3SerializedFMUStateSize) \
    X(243, FMI3_SERIALIZE_FMU_STATE, fmi3SerializeFMUState) \
    X(244, FMI3_DESERIALIZE_FMU_STATE, fmi3DeserializeFMUState) \
    X(245, FMI3_GET_DIRECTIONAL_DERIVATIVE, fmi3GetDirectionalDerivative)

#endif
