/*
 * calls.c: one FMI 2.0 or 3.0 co-simulation call of the FMU helper: decode the arguments
 * (protocol.h's encoding), call the FMU's function with the helper's own callbacks, write the
 * status and the outputs. The FMI types are written out here after fmi2FunctionTypes.h and
 * fmi3FunctionTypes.h (FMI 2.0.4 §2.1, FMI 3.0 §2.2); on both Windows targets the FMI
 * functions use the default C calling convention.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmu_host.h"

typedef uint32_t VR;
typedef int Status; /* fmi2Status / fmi3Status */

/* FMI 2.0 callbacks (fmi2CallbackFunctions). */
typedef void (*Fmi2Logger)(void *, const char *, int, const char *, const char *, ...);
typedef struct {
    Fmi2Logger logger;
    void *(*allocate_memory)(size_t, size_t);
    void (*free_memory)(void *);
    void (*step_finished)(void *, int);
    void *component_environment;
} Fmi2Callbacks;
typedef void (*Fmi3LogMessage)(void *, int, const char *, const char *);

/* Function-pointer types shared by FMI 2.0 and 3.0 (same C signature up to the names). */
typedef const char *(*VoidString)(void);
typedef Status (*InstanceOnly)(void *);
typedef void (*FreeInstance)(void *);
typedef Status (*StateInOut)(void *, void **);
typedef Status (*StateIn)(void *, void *);
typedef Status (*StateSize)(void *, void *, size_t *);
typedef Status (*StateSerialize)(void *, void *, void *, size_t);
typedef Status (*StateDeserialize)(void *, const void *, size_t, void **);
/* FMI 2.0 */
typedef Status (*Fmi2SetDebugLogging)(void *, int, size_t, const char *const *);
typedef void *(*Fmi2Instantiate)(const char *, int, const char *, const char *, const Fmi2Callbacks *, int, int);
typedef Status (*Fmi2SetupExperiment)(void *, int, double, double, int, double);
typedef Status (*Fmi2Get)(void *, const VR *, size_t, void *);
typedef Status (*Fmi2Set)(void *, const VR *, size_t, const void *);
typedef Status (*Fmi2DirectionalDerivative)(void *, const VR *, size_t, const VR *, size_t, const double *, double *);
typedef Status (*Fmi2DoStep)(void *, double, double, int);
typedef Status (*Fmi2GetStatus)(void *, int, int *);
/* FMI 3.0 */
typedef Status (*Fmi3SetDebugLogging)(void *, bool, size_t, const char *const *);
typedef void *(*Fmi3Instantiate)(const char *, const char *, const char *, bool, bool, bool, bool, const VR *, size_t, void *, Fmi3LogMessage, void *);
typedef Status (*Fmi3EnterInitializationMode)(void *, bool, double, double, bool, double);
typedef Status (*Fmi3UpdateDiscreteStates)(void *, bool *, bool *, bool *, bool *, bool *, double *);
typedef Status (*Fmi3DoStep)(void *, double, double, bool, bool *, bool *, bool *, double *);
typedef Status (*Fmi3Get)(void *, const VR *, size_t, void *, size_t);
typedef Status (*Fmi3Set)(void *, const VR *, size_t, const void *, size_t);
typedef Status (*Fmi3GetBinary)(void *, const VR *, size_t, size_t *, const uint8_t **, size_t);
typedef Status (*Fmi3SetBinary)(void *, const VR *, size_t, const size_t *, const uint8_t *const *, size_t);
typedef Status (*Fmi3DirectionalDerivative)(void *, const VR *, size_t, const VR *, size_t, const double *, size_t, double *, size_t);

static void *instance;

static void fmi2_logger(void *env, const char *name, int status, const char *category, const char *message, ...)
{
    char text[4096];
    va_list args, copy;
    (void)env;
    (void)name;
    if (message == NULL) message = "";
    va_start(args, message);
    va_copy(copy, args);
    int n = vsnprintf(text, sizeof text, message, args);
    if (n >= (int)sizeof text) {
        char *big = (char *)malloc((size_t)n + 1);
        if (big != NULL) vsnprintf(big, (size_t)n + 1, message, copy);
        log_record(status, category, big != NULL ? big : text);
        free(big);
    } else {
        log_record(status, category, n < 0 ? message : text);
    }
    va_end(copy);
    va_end(args);
}

static void fmi3_log_message(void *env, int status, const char *category, const char *message)
{
    (void)env;
    log_record(status, category, message);
}

static const Fmi2Callbacks fmi2_callbacks = {fmi2_logger, calloc, free, NULL, NULL};

/* Element size of the values of a getter or setter id (0: not a fixed-size getter/setter). */
static size_t element_size(uint32_t id)
{
    switch (id) {
    case MSIM_FN_FMI2_GET_REAL: case MSIM_FN_FMI2_SET_REAL:
    case MSIM_FN_FMI3_GET_FLOAT64: case MSIM_FN_FMI3_SET_FLOAT64:
    case MSIM_FN_FMI3_GET_INT64: case MSIM_FN_FMI3_SET_INT64:
    case MSIM_FN_FMI3_GET_UINT64: case MSIM_FN_FMI3_SET_UINT64:
        return 8;
    case MSIM_FN_FMI2_GET_INTEGER: case MSIM_FN_FMI2_SET_INTEGER:
    case MSIM_FN_FMI2_GET_BOOLEAN: case MSIM_FN_FMI2_SET_BOOLEAN:
    case MSIM_FN_FMI3_GET_FLOAT32: case MSIM_FN_FMI3_SET_FLOAT32:
    case MSIM_FN_FMI3_GET_INT32: case MSIM_FN_FMI3_SET_INT32:
    case MSIM_FN_FMI3_GET_UINT32: case MSIM_FN_FMI3_SET_UINT32:
        return 4;
    case MSIM_FN_FMI3_GET_INT16: case MSIM_FN_FMI3_SET_INT16:
    case MSIM_FN_FMI3_GET_UINT16: case MSIM_FN_FMI3_SET_UINT16:
        return 2;
    case MSIM_FN_FMI3_GET_INT8: case MSIM_FN_FMI3_SET_INT8:
    case MSIM_FN_FMI3_GET_UINT8: case MSIM_FN_FMI3_SET_UINT8:
    case MSIM_FN_FMI3_GET_BOOLEAN: case MSIM_FN_FMI3_SET_BOOLEAN:
        return 1;
    default:
        return 0;
    }
}

/* Whether `n` elements of `size` bytes fit into a response (so scratch memory is bounded). */
static int fits(uint64_t n, size_t size, uint32_t id)
{
    if (n <= MSIM_RESPONSE_CAPACITY / (size ? size : 1)) return 1;
    log_helper("%s: %llu values do not fit into the response area", function_name(id), (unsigned long long)n);
    return 0;
}

#define ENTER(id) set_in_progress(id)
#define LEAVE() set_in_progress(0)

/* Fixed-size getters of both versions: vr[], (FMI 3.0: u64 nValues) -> T[]. */
static Status get_values(void *f, uint32_t id, Reader *r, Writer *w)
{
    size_t nvr, size = element_size(id);
    const VR *vr = (const VR *)rd_array(r, 4, &nvr);
    uint64_t n = id < 200 ? nvr : rd_u64(r);
    if (r->bad || !fits(n, size, id)) return 3;
    void *values = scratch((size_t)n * size + 1);
    memset(values, 0, (size_t)n * size);
    ENTER(id);
    Status status = id < 200 ? ((Fmi2Get)f)(instance, vr, nvr, values)
                             : ((Fmi3Get)f)(instance, vr, nvr, values, (size_t)n);
    LEAVE();
    wr_i32(w, status);
    wr_array(w, values, size, (size_t)n);
    return status;
}

/* Fixed-size setters of both versions: vr[], T[] -> (). */
static Status set_values(void *f, uint32_t id, Reader *r, Writer *w)
{
    size_t nvr, n, i, size = element_size(id);
    const VR *vr = (const VR *)rd_array(r, 4, &nvr);
    unsigned char *values = (unsigned char *)rd_array(r, size, &n);
    if (r->bad) return 3;
    if (id < 200 && n != nvr) {
        log_helper("%s: %lu values for %lu value references", function_name(id), (unsigned long)n, (unsigned long)nvr);
        wr_i32(w, 3);
        return 3;
    }
    if (id == MSIM_FN_FMI3_SET_BOOLEAN)
        for (i = 0; i < n; i++) values[i] = values[i] != 0;
    ENTER(id);
    Status status = id < 200 ? ((Fmi2Set)f)(instance, vr, nvr, values)
                             : ((Fmi3Set)f)(instance, vr, nvr, values, n);
    LEAVE();
    wr_i32(w, status);
    return status;
}

/* String getters: vr[], (FMI 3.0: u64 nValues) -> str[]. */
static Status get_strings(void *f, uint32_t id, Reader *r, Writer *w)
{
    size_t nvr, i;
    const VR *vr = (const VR *)rd_array(r, 4, &nvr);
    uint64_t n = id < 200 ? nvr : rd_u64(r);
    if (r->bad || !fits(n, 4, id)) return 3;
    const char **values = (const char **)scratch((size_t)n * sizeof(char *) + 1);
    memset(values, 0, (size_t)n * sizeof(char *));
    ENTER(id);
    Status status = id < 200 ? ((Fmi2Get)f)(instance, vr, nvr, values)
                             : ((Fmi3Get)f)(instance, vr, nvr, values, (size_t)n);
    LEAVE();
    wr_i32(w, status);
    wr_u32(w, (uint32_t)n);
    for (i = 0; i < n; i++) wr_str(w, values[i]);
    return status;
}

static Status set_strings(void *f, uint32_t id, Reader *r, Writer *w)
{
    size_t nvr, n;
    const VR *vr = (const VR *)rd_array(r, 4, &nvr);
    const char **values = rd_strs(r, &n);
    if (r->bad) return 3;
    ENTER(id);
    Status status = id < 200 ? ((Fmi2Set)f)(instance, vr, nvr, values)
                             : ((Fmi3Set)f)(instance, vr, nvr, values, n);
    LEAVE();
    wr_i32(w, status);
    return status;
}

static Status get_binaries(void *f, uint32_t id, Reader *r, Writer *w)
{
    size_t nvr, i;
    const VR *vr = (const VR *)rd_array(r, 4, &nvr);
    uint64_t n = rd_u64(r);
    if (r->bad || !fits(n, 4, id)) return 3;
    size_t *sizes = (size_t *)scratch((size_t)n * sizeof(size_t) + 1);
    const uint8_t **values = (const uint8_t **)scratch((size_t)n * sizeof(uint8_t *) + 1);
    memset(sizes, 0, (size_t)n * sizeof(size_t));
    memset(values, 0, (size_t)n * sizeof(uint8_t *));
    ENTER(id);
    Status status = ((Fmi3GetBinary)f)(instance, vr, nvr, sizes, values, (size_t)n);
    LEAVE();
    wr_i32(w, status);
    wr_u32(w, (uint32_t)n);
    for (i = 0; i < n; i++) wr_bytes_str(w, values[i], values[i] ? sizes[i] : 0);
    return status;
}

static Status set_binaries(void *f, uint32_t id, Reader *r, Writer *w)
{
    size_t nvr, n = 0, i;
    const VR *vr = (const VR *)rd_array(r, 4, &nvr);
    uint32_t count = rd_u32(r);
    if (r->bad || count > (r->len - r->pos) / 4) return r->bad = 1, 3;
    size_t *sizes = (size_t *)scratch(count * sizeof(size_t) + 1);
    const uint8_t **values = (const uint8_t **)scratch(count * sizeof(uint8_t *) + 1);
    for (i = 0; i < count && !r->bad; i++, n++) {
        sizes[i] = rd_u32(r);
        values[i] = rd_take(r, sizes[i]);
    }
    if (r->bad) return 3;
    ENTER(id);
    Status status = ((Fmi3SetBinary)f)(instance, vr, nvr, sizes, values, n);
    LEAVE();
    wr_i32(w, status);
    return status;
}

/* FMU state functions, the same C signatures in both versions. */
static Status state_call(void *f, uint32_t id, Reader *r, Writer *w)
{
    Status status = 3;
    uint64_t size = 0;
    size_t n = 0;
    const void *bytes = NULL;
    if (id == MSIM_FN_FMI2_DESERIALIZE_FMU_STATE || id == MSIM_FN_FMI3_DESERIALIZE_FMU_STATE)
        bytes = rd_array(r, 1, &n);
    void *state = (void *)(uintptr_t)rd_u64(r);
    if (id == MSIM_FN_FMI2_SERIALIZE_FMU_STATE || id == MSIM_FN_FMI3_SERIALIZE_FMU_STATE) size = rd_u64(r);
    if (r->bad || !fits(size, 1, id)) return 3;
    void *buffer = scratch((size_t)size + 1);
    size_t state_size = 0;
    ENTER(id);
    switch (id) {
    case MSIM_FN_FMI2_GET_FMU_STATE: case MSIM_FN_FMI3_GET_FMU_STATE:
    case MSIM_FN_FMI2_FREE_FMU_STATE: case MSIM_FN_FMI3_FREE_FMU_STATE:
        status = ((StateInOut)f)(instance, &state); break;
    case MSIM_FN_FMI2_SET_FMU_STATE: case MSIM_FN_FMI3_SET_FMU_STATE:
        status = ((StateIn)f)(instance, state); break;
    case MSIM_FN_FMI2_SERIALIZED_FMU_STATE_SIZE: case MSIM_FN_FMI3_SERIALIZED_FMU_STATE_SIZE:
        status = ((StateSize)f)(instance, state, &state_size); break;
    case MSIM_FN_FMI2_SERIALIZE_FMU_STATE: case MSIM_FN_FMI3_SERIALIZE_FMU_STATE:
        status = ((StateSerialize)f)(instance, state, buffer, (size_t)size); break;
    default:
        status = ((StateDeserialize)f)(instance, bytes, n, &state); break;
    }
    LEAVE();
    wr_i32(w, status);
    switch (id) {
    case MSIM_FN_FMI2_SET_FMU_STATE: case MSIM_FN_FMI3_SET_FMU_STATE: break;
    case MSIM_FN_FMI2_SERIALIZED_FMU_STATE_SIZE: case MSIM_FN_FMI3_SERIALIZED_FMU_STATE_SIZE:
        wr_u64(w, state_size); break;
    case MSIM_FN_FMI2_SERIALIZE_FMU_STATE: case MSIM_FN_FMI3_SERIALIZE_FMU_STATE:
        wr_array(w, buffer, 1, (size_t)size); break;
    default:
        wr_u64(w, (uint64_t)(uintptr_t)state); break;
    }
    return status;
}

static Status directional_derivative(void *f, uint32_t id, Reader *r, Writer *w)
{
    size_t nu, nk, ns;
    const VR *unknowns = (const VR *)rd_array(r, 4, &nu);
    const VR *knowns = (const VR *)rd_array(r, 4, &nk);
    const double *seed = (const double *)rd_array(r, 8, &ns);
    uint64_t n = id < 200 ? nu : rd_u64(r);
    if (r->bad || !fits(n, 8, id)) return 3;
    double *out = (double *)scratch((size_t)n * 8 + 1);
    memset(out, 0, (size_t)n * 8);
    ENTER(id);
    Status status = id < 200 ? ((Fmi2DirectionalDerivative)f)(instance, unknowns, nu, knowns, nk, seed, out)
                             : ((Fmi3DirectionalDerivative)f)(instance, unknowns, nu, knowns, nk, seed, ns, out, (size_t)n);
    LEAVE();
    wr_i32(w, status);
    wr_array(w, out, 8, (size_t)n);
    return status;
}

static Status instantiate(void *f, uint32_t id, Reader *r, Writer *w)
{
    const char *name = rd_str(r);
    if (id == MSIM_FN_FMI2_INSTANTIATE) {
        int32_t type = rd_i32(r);
        const char *guid = rd_str(r), *resources = rd_str(r);
        int32_t visible = rd_i32(r), logging = rd_i32(r);
        if (r->bad || instance != NULL) return instance != NULL ? (log_helper("an instance exists already"), 3) : 3;
        ENTER(id);
        instance = ((Fmi2Instantiate)f)(name, type, guid, resources, &fmi2_callbacks, visible, logging);
    } else {
        const char *token = rd_str(r), *resources = rd_str(r);
        bool visible = rd_u8(r), logging = rd_u8(r), event_mode = rd_u8(r), early_return = rd_u8(r);
        size_t n;
        const VR *required = (const VR *)rd_array(r, 4, &n);
        if (r->bad || instance != NULL) return instance != NULL ? (log_helper("an instance exists already"), 3) : 3;
        ENTER(id);
        instance = ((Fmi3Instantiate)f)(name, token, resources, visible, logging, event_mode, early_return,
                                        required, n, NULL, fmi3_log_message, NULL);
    }
    LEAVE();
    Status status = instance != NULL ? 0 : 3;
    wr_i32(w, status);
    return status;
}

static Status set_debug_logging(void *f, uint32_t id, Reader *r, Writer *w)
{
    int32_t on = id < 200 ? rd_i32(r) : rd_u8(r);
    size_t n;
    const char **categories = rd_strs(r, &n);
    if (r->bad) return 3;
    ENTER(id);
    Status status = id < 200 ? ((Fmi2SetDebugLogging)f)(instance, on, n, categories)
                             : ((Fmi3SetDebugLogging)f)(instance, on != 0, n, categories);
    LEAVE();
    wr_i32(w, status);
    return status;
}

static Status start_experiment(void *f, uint32_t id, Reader *r, Writer *w)
{
    int32_t tolerance_defined = id < 200 ? rd_i32(r) : rd_u8(r);
    double tolerance = rd_f64(r), start = rd_f64(r);
    int32_t stop_defined = id < 200 ? rd_i32(r) : rd_u8(r);
    double stop = rd_f64(r);
    if (r->bad) return 3;
    ENTER(id);
    Status status = id < 200
        ? ((Fmi2SetupExperiment)f)(instance, tolerance_defined, tolerance, start, stop_defined, stop)
        : ((Fmi3EnterInitializationMode)f)(instance, tolerance_defined != 0, tolerance, start, stop_defined != 0, stop);
    LEAVE();
    wr_i32(w, status);
    return status;
}

static Status do_step(void *f, uint32_t id, Reader *r, Writer *w)
{
    double t = rd_f64(r), h = rd_f64(r);
    int32_t no_set_prior = id < 200 ? rd_i32(r) : rd_u8(r);
    bool event = false, terminate = false, early = false;
    double last = 0.0;
    Status status;
    if (r->bad) return 3;
    ENTER(id);
    if (id < 200) status = ((Fmi2DoStep)f)(instance, t, h, no_set_prior);
    else status = ((Fmi3DoStep)f)(instance, t, h, no_set_prior != 0, &event, &terminate, &early, &last);
    LEAVE();
    wr_i32(w, status);
    if (id > 200) {
        wr_u8(w, event);
        wr_u8(w, terminate);
        wr_u8(w, early);
        wr_f64(w, last);
    }
    return status;
}

static Status update_discrete_states(void *f, uint32_t id, Reader *r, Writer *w)
{
    bool flags[5] = {false, false, false, false, false};
    double next = 0.0;
    int i;
    (void)r;
    ENTER(id);
    Status status = ((Fmi3UpdateDiscreteStates)f)(instance, &flags[0], &flags[1], &flags[2], &flags[3], &flags[4], &next);
    LEAVE();
    wr_i32(w, status);
    for (i = 0; i < 5; i++) wr_u8(w, flags[i]);
    wr_f64(w, next);
    return status;
}

static Status get_status(void *f, uint32_t id, Reader *r, Writer *w)
{
    int32_t kind = rd_i32(r);
    int value = 0;
    if (r->bad) return 3;
    ENTER(id);
    Status status = ((Fmi2GetStatus)f)(instance, kind, &value);
    LEAVE();
    wr_i32(w, status);
    wr_i32(w, value);
    return status;
}

static Status simple_call(void *f, uint32_t id, Writer *w)
{
    Status status = 0;
    ENTER(id);
    switch (id) {
    case MSIM_FN_FMI2_GET_TYPES_PLATFORM: case MSIM_FN_FMI2_GET_VERSION: case MSIM_FN_FMI3_GET_VERSION: {
        const char *text = ((VoidString)f)();
        LEAVE();
        wr_i32(w, 0);
        wr_str(w, text);
        return 0;
    }
    case MSIM_FN_FMI2_FREE_INSTANCE: case MSIM_FN_FMI3_FREE_INSTANCE:
        if (instance != NULL) ((FreeInstance)f)(instance);
        instance = NULL;
        break;
    default:
        status = ((InstanceOnly)f)(instance);
    }
    LEAVE();
    wr_i32(w, status);
    return status;
}

int32_t execute_call(uint32_t id, Reader *r, Writer *w)
{
    void *f = symbol(id);
    if (f == NULL) {
        log_helper("%s (function id %u) is not exported by the FMU or not known to the helper", function_name(id), (unsigned)id);
        wr_i32(w, 3);
        return 3;
    }
    if (element_size(id) > 0) {
        const int getter = (id >= MSIM_FN_FMI2_GET_REAL && id <= MSIM_FN_FMI2_GET_BOOLEAN) ||
                           (id >= MSIM_FN_FMI3_GET_FLOAT32 && id <= MSIM_FN_FMI3_GET_BOOLEAN);
        return getter ? get_values(f, id, r, w) : set_values(f, id, r, w);
    }
    switch (id) {
    case MSIM_FN_FMI2_GET_STRING: case MSIM_FN_FMI3_GET_STRING: return get_strings(f, id, r, w);
    case MSIM_FN_FMI2_SET_STRING: case MSIM_FN_FMI3_SET_STRING: return set_strings(f, id, r, w);
    case MSIM_FN_FMI3_GET_BINARY: return get_binaries(f, id, r, w);
    case MSIM_FN_FMI3_SET_BINARY: return set_binaries(f, id, r, w);
    case MSIM_FN_FMI2_INSTANTIATE: case MSIM_FN_FMI3_INSTANTIATE_CO_SIMULATION: return instantiate(f, id, r, w);
    case MSIM_FN_FMI2_SET_DEBUG_LOGGING: case MSIM_FN_FMI3_SET_DEBUG_LOGGING: return set_debug_logging(f, id, r, w);
    case MSIM_FN_FMI2_SETUP_EXPERIMENT: case MSIM_FN_FMI3_ENTER_INITIALIZATION_MODE: return start_experiment(f, id, r, w);
    case MSIM_FN_FMI2_DO_STEP: case MSIM_FN_FMI3_DO_STEP: return do_step(f, id, r, w);
    case MSIM_FN_FMI3_UPDATE_DISCRETE_STATES: return update_discrete_states(f, id, r, w);
    case MSIM_FN_FMI2_GET_STATUS: case MSIM_FN_FMI2_GET_BOOLEAN_STATUS: return get_status(f, id, r, w);
    case MSIM_FN_FMI2_GET_DIRECTIONAL_DERIVATIVE: case MSIM_FN_FMI3_GET_DIRECTIONAL_DERIVATIVE:
        return directional_derivative(f, id, r, w);
    case MSIM_FN_FMI2_GET_FMU_STATE: case MSIM_FN_FMI2_SET_FMU_STATE: case MSIM_FN_FMI2_FREE_FMU_STATE:
    case MSIM_FN_FMI2_SERIALIZED_FMU_STATE_SIZE: case MSIM_FN_FMI2_SERIALIZE_FMU_STATE:
    case MSIM_FN_FMI2_DESERIALIZE_FMU_STATE:
    case MSIM_FN_FMI3_GET_FMU_STATE: case MSIM_FN_FMI3_SET_FMU_STATE: case MSIM_FN_FMI3_FREE_FMU_STATE:
    case MSIM_FN_FMI3_SERIALIZED_FMU_STATE_SIZE: case MSIM_FN_FMI3_SERIALIZE_FMU_STATE:
    case MSIM_FN_FMI3_DESERIALIZE_FMU_STATE:
        return state_call(f, id, r, w);
    default:
        return simple_call(f, id, w);
    }
}
