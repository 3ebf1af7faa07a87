/*
 * fmu_host.h: declarations shared by the two files of the FMU helper: fmu_host.c (process,
 * shared region, waiting, library loading, the message loop) and calls.c (decoding each FMI
 * call's arguments, calling the FMU, encoding its outputs). The encoding is protocol.h's.
 */
#ifndef MSIM_FMU_HOST_H
#define MSIM_FMU_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

#define MSIM_ENUM_ENTRY(id, NAME, symbol) MSIM_FN_##NAME = id,
enum msim_function { MSIM_FUNCTIONS(MSIM_ENUM_ENTRY) MSIM_FN_END };
/* Function ids are below this bound (index of the symbol table). */
#define MSIM_MAX_FUNCTION 256

/* Reads arguments from the request area; `bad` is set (and stays) on any overrun. */
typedef struct {
    const unsigned char *data;
    size_t len;
    size_t pos;
    int bad;
} Reader;

/* Writes outputs into the response area; `overflow` is set (and stays) when it is full. */
typedef struct {
    unsigned char *data;
    size_t capacity;
    size_t len;
    int overflow;
} Writer;

const unsigned char *rd_take(Reader *r, size_t n);
uint8_t rd_u8(Reader *r);
uint32_t rd_u32(Reader *r);
int32_t rd_i32(Reader *r);
uint64_t rd_u64(Reader *r);
double rd_f64(Reader *r);
/* An array of `size`-byte elements copied into aligned scratch memory; *count receives the
 * element count. Returns a valid pointer (maybe to zero bytes) even for an empty array. */
void *rd_array(Reader *r, size_t size, size_t *count);
/* A string as a NUL-terminated scratch copy, or NULL for the NULL encoding. */
const char *rd_str(Reader *r);
/* str[]: an array of scratch strings. */
const char **rd_strs(Reader *r, size_t *count);

unsigned char *wr_reserve(Writer *w, size_t n);
void wr_u8(Writer *w, uint8_t v);
void wr_u32(Writer *w, uint32_t v);
void wr_i32(Writer *w, int32_t v);
void wr_u64(Writer *w, uint64_t v);
void wr_f64(Writer *w, double v);
void wr_array(Writer *w, const void *values, size_t size, size_t count);
void wr_str(Writer *w, const char *s);
void wr_bytes_str(Writer *w, const void *bytes, size_t len);

/* Scratch memory for one request (8-byte aligned; freed when the request is answered). */
void *scratch(size_t size);
void scratch_reset(void);

/* Queues a log record for the response (category may be NULL). */
void log_record(int status, const char *category, const char *message);
/* The helper's own diagnostics (category "mastersim-helper"), printf-style. */
void log_helper(const char *format, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The FMU library's symbol for a function id, or NULL. */
void *symbol(uint32_t id);
/* The symbol name of a function id. */
const char *function_name(uint32_t id);
/* Marks the FMI function in progress in the shared header (0: none). */
void set_in_progress(uint32_t id);

/* Loads the library and resolves every function of `fmi_version`; 0 on success. */
int load_library(const char *path, uint32_t fmi_version);

/* Decodes and executes one FMI call `id` (not a control id), writing status and outputs;
 * returns the status. */
int32_t execute_call(uint32_t id, Reader *r, Writer *w);

/* Runs the protocol self-test (see fmu_host.c); returns the process exit code. */
int self_test(void);

#endif
