/*
 * fmu_host.c: the FMU helper process of mastersim. It maps the shared region the master
 * created (its only argument: the region file's path), loads one FMU shared library on
 * request, executes the FMI calls the master sends and answers each with its status and
 * outputs, plus the FMU's log messages (protocol.h documents layout, handshake and encoding).
 *
 * Portable C99 with one section per system: Linux (mmap, futex, dlopen) and Windows under
 * Wine (CreateFileMapping, polling, LoadLibraryExW).
 * Usage: fmu_host REGION_PATH | fmu_host --self-test
 */
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#ifdef __i386__
#include <fpu_control.h>
#endif
#include <signal.h>
#include <time.h>
#include <unistd.h>
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmu_host.h"

static unsigned char *region;

static volatile uint32_t *word(size_t offset) { return (volatile uint32_t *)(region + offset); }
static uint32_t load_acquire(size_t offset)
{
    return __atomic_load_n(word(offset), __ATOMIC_ACQUIRE);
}
static void store_release(size_t offset, uint32_t v)
{
    __atomic_store_n(word(offset), v, __ATOMIC_RELEASE);
}
static void store_seq(size_t offset, uint32_t v)
{
    __atomic_store_n(word(offset), v, __ATOMIC_SEQ_CST);
}

void set_in_progress(uint32_t id) { store_release(MSIM_OFF_FUNCTION_IN_PROGRESS, id); }

/* ---- system section: shared region, waiting, waking, libraries ---- */
#ifdef _WIN32

static HMODULE library;

static int map_region(const char *path)
{
    HANDLE file = CreateFileA(path, GENERIC_READ | GENERIC_WRITE,
                              FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                              OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (file == INVALID_HANDLE_VALUE) return -1;
    HANDLE mapping = CreateFileMappingA(file, NULL, PAGE_READWRITE, 0, 0, NULL);
    if (mapping == NULL) return -1;
    region = (unsigned char *)MapViewOfFile(mapping, FILE_MAP_ALL_ACCESS, 0, 0, MSIM_REGION_SIZE);
    return region == NULL ? -1 : 0;
}

static uint32_t helper_pid(void) { return (uint32_t)GetCurrentProcessId(); }

/* An exception the FMU does not handle ends the helper at once (no crash dialog, no debugger),
 * its code in the header for the master's report. */
static LONG WINAPI on_exception(EXCEPTION_POINTERS *exception)
{
    store_release(MSIM_OFF_EXCEPTION_CODE, (uint32_t)exception->ExceptionRecord->ExceptionCode);
    TerminateProcess(GetCurrentProcess(), 255);
    return EXCEPTION_EXECUTE_HANDLER;
}

static void prepare_process(void)
{
    SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
    SetUnhandledExceptionFilter(on_exception);
}

/* Raw futexes are not reliable under Wine: poll (spin, yield, then 1 ms sleeps). */
static void wait_request(uint32_t last)
{
    unsigned polls;
    for (polls = 0; load_acquire(MSIM_OFF_REQUEST_SEQ) == last; polls++) {
        if (polls < 20000) continue;
        if (polls < 22000) SwitchToThread();
        else Sleep(polls < 23000 ? 0 : 1);
    }
}

static void wake_master(void) {}

/* Windows helpers run under Wine, which places its threads itself. */
static void follow_master(void) {}
static void wake_ready(void) {}

static int open_library(const char *path)
{
    wchar_t wide[32768];
    if (MultiByteToWideChar(CP_UTF8, 0, path, -1, wide, 32768) == 0) return -1;
    library = LoadLibraryExW(wide, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    if (library == NULL) {
        log_helper("cannot load %s: Windows error %lu", path, (unsigned long)GetLastError());
        return -1;
    }
    return 0;
}

static void *library_symbol(const char *name)
{
    return (void *)(intptr_t)GetProcAddress(library, name);
}

/* Under Wine the master waits for the helper's exit, which unloads the FMU. */
static void close_library(void) {}

#else

static void *library;

static int map_region(const char *path)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return -1;
    void *p = mmap(NULL, MSIM_REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return -1;
    region = (unsigned char *)p;
    return 0;
}

static uint32_t helper_pid(void) { return (uint32_t)getpid(); }

/* The processors this helper may run on, as it started (saved by prepare_process). */
static cpu_set_t allowed;
static int allowed_known;

/* struct sched_attr of sched_setattr(2), which glibc 2.36 does not declare. */
struct slice_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

/* Asks the scheduler for the shortest time slice (0.1 ms, Linux 6.12 and later: sched_runtime
 * of a fair policy is the slice). The master wakes this helper and then waits for it on the
 * same processor: with a slice shorter than the master's, the waking preempts the master at
 * once, the helper answers, and one futex call per side and two context switches make the round
 * trip. Otherwise the master often goes on to FUTEX_WAIT first and the helper must wake it,
 * which costs two more futex calls and a context switch (6.2 against 4.4 µs per slave-step in
 * a chain of 10). Policy and nice value stay as inherited; older kernels ignore the slice. */
static void ask_short_slice(void)
{
    struct slice_attr attr;
    int policy = sched_getscheduler(0);
    if (policy != SCHED_OTHER && policy != SCHED_BATCH) return;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.policy = (uint32_t)policy;
    errno = 0;
    attr.nice = getpriority(PRIO_PROCESS, 0);
    if (errno != 0) return;
    attr.runtime = 100000; /* ns */
    syscall(SYS_sched_setattr, 0, &attr, 0);
}

/* Dies with the master (and at once when the master died before the death signal was set:
 * the parent is then no longer the process named by MSIM_MASTER_PID_VARIABLE, which is
 * removed from the environment the FMU sees) and asks for a short slice; a 32-bit x87 computes at double (53-bit)
 * precision, as Windows sets it: 32-bit FMUs then round like their 64-bit builds (20-sim's
 * linux32 Threetank never ends its second step with the extended precision that Linux sets by
 * default). */
static void prepare_process(void)
{
    const char *master = getenv(MSIM_MASTER_PID_VARIABLE);
    long master_pid = master != NULL ? strtol(master, NULL, 10) : 0;
    unsetenv(MSIM_MASTER_PID_VARIABLE);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (master_pid != 0 && master_pid != (long)getppid()) _exit(1);
    ask_short_slice();
    allowed_known = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
#ifdef __i386__
    fpu_control_t cw;
    _FPU_GETCW(cw);
    cw = (fpu_control_t)((cw & ~_FPU_EXTENDED) | _FPU_DOUBLE);
    _FPU_SETCW(cw);
#endif
}
static uint32_t load_seq(size_t offset) { return __atomic_load_n(word(offset), __ATOMIC_SEQ_CST); }

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void futex(size_t offset, int op, uint32_t value)
{
    syscall(SYS_futex, (uint32_t *)word(offset), op, value, NULL, NULL, 0);
}

/* Spin as long as the master says, then sleep on the request word (the master wakes it when
 * we sleep). */
static void wait_request(uint32_t last)
{
    double spin = (double)load_acquire(MSIM_OFF_SPIN_MICROSECONDS);
    /* The clock only when spinning: a Linux helper that shares the master's processor does not. */
    double start = spin > 0 ? now_us() : 0;
    while (load_acquire(MSIM_OFF_REQUEST_SEQ) == last) {
        if (spin > 0 && now_us() - start < spin) {
            __builtin_ia32_pause();
            continue;
        }
        store_seq(MSIM_OFF_HELPER_SLEEPING, 1);
        if (load_seq(MSIM_OFF_REQUEST_SEQ) == last) futex(MSIM_OFF_REQUEST_SEQ, FUTEX_WAIT, last);
        store_seq(MSIM_OFF_HELPER_SLEEPING, 0);
    }
}

/* Places this helper for the round trip the master asks (MSIM_OFF_MASTER_CPU, and whether it
 * spins, MSIM_OFF_SPIN_MICROSECONDS): without spinning on the master's processor (the master's
 * wake-up then switches to the helper at once); while both spin, on any other processor (on
 * the master's, the spinner would keep the other from running). Only a change costs a call. */
static void follow_master(void)
{
    static uint32_t placed_cpu = 0;
    static int placed_apart = 0;
    uint32_t cpu = load_acquire(MSIM_OFF_MASTER_CPU);
    int apart = load_acquire(MSIM_OFF_SPIN_MICROSECONDS) > 0;
    if (cpu == 0 || cpu > CPU_SETSIZE || (cpu == placed_cpu && apart == placed_apart)) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (apart && allowed_known) {
        set = allowed;
        CPU_CLR((int)(cpu - 1), &set);
        if (CPU_COUNT(&set) == 0) set = allowed;
    } else {
        CPU_SET((int)(cpu - 1), &set);
    }
    if (sched_setaffinity(0, sizeof set, &set) == 0) {
        placed_cpu = cpu;
        placed_apart = apart;
    }
}

static void wake_master(void)
{
    if (load_seq(MSIM_OFF_MASTER_SLEEPING) != 0) futex(MSIM_OFF_RESPONSE_SEQ, FUTEX_WAKE, 1);
}

static void wake_ready(void) { futex(MSIM_OFF_READY, FUTEX_WAKE, 1); }

static int open_library(const char *path)
{
    library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        log_helper("%s", dlerror());
        return -1;
    }
    return 0;
}

static void *library_symbol(const char *name) { return dlsym(library, name); }

/* Unloads the FMU before QUIT is answered, so that its destructors have run by the time the
 * master hears the answer (it does not wait for the exit itself). */
static void close_library(void)
{
    if (library != NULL) dlclose(library);
    library = NULL;
}

#endif

/* ---- reading and writing the encoding ---- */

const unsigned char *rd_take(Reader *r, size_t n)
{
    if (r->bad || n > r->len - r->pos) {
        r->bad = 1;
        return NULL;
    }
    r->pos += n;
    return r->data + r->pos - n;
}

#define READER(name, type)                                  \
    type name(Reader *r)                                    \
    {                                                       \
        type v = 0;                                         \
        const unsigned char *p = rd_take(r, sizeof(type));  \
        if (p != NULL) memcpy(&v, p, sizeof(type));         \
        return v;                                           \
    }
READER(rd_u8, uint8_t)
READER(rd_u32, uint32_t)
READER(rd_i32, int32_t)
READER(rd_u64, uint64_t)
READER(rd_f64, double)

void *rd_array(Reader *r, size_t size, size_t *count)
{
    size_t n = rd_u32(r);
    const unsigned char *p = (r->bad || n > (r->len - r->pos) / size) ? NULL : rd_take(r, n * size);
    if (p == NULL) {
        r->bad = 1;
        n = 0;
    }
    void *copy = scratch(n * size + 1);
    if (n > 0) memcpy(copy, p, n * size);
    *count = n;
    return copy;
}

const char *rd_str(Reader *r)
{
    uint32_t n = rd_u32(r);
    if (n == MSIM_NULL_STRING || r->bad) return NULL;
    const unsigned char *p = rd_take(r, n);
    if (p == NULL) return NULL;
    char *s = (char *)scratch((size_t)n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

const char **rd_strs(Reader *r, size_t *count)
{
    size_t n = rd_u32(r), i;
    if (r->bad || n > (r->len - r->pos) / 4) {
        r->bad = 1;
        n = 0;
    }
    const char **list = (const char **)scratch((n + 1) * sizeof(char *));
    for (i = 0; i < n; i++) list[i] = rd_str(r);
    *count = n;
    return list;
}

unsigned char *wr_reserve(Writer *w, size_t n)
{
    if (w->overflow || n > w->capacity - w->len) {
        w->overflow = 1;
        return NULL;
    }
    w->len += n;
    return w->data + w->len - n;
}

#define WRITER(name, type)                                  \
    void name(Writer *w, type v)                            \
    {                                                       \
        unsigned char *p = wr_reserve(w, sizeof(type));     \
        if (p != NULL) memcpy(p, &v, sizeof(type));         \
    }
WRITER(wr_u8, uint8_t)
WRITER(wr_u32, uint32_t)
WRITER(wr_i32, int32_t)
WRITER(wr_u64, uint64_t)
WRITER(wr_f64, double)

void wr_array(Writer *w, const void *values, size_t size, size_t count)
{
    wr_u32(w, (uint32_t)count);
    unsigned char *p = wr_reserve(w, size * count);
    if (p != NULL && count > 0) memcpy(p, values, size * count);
}

void wr_bytes_str(Writer *w, const void *bytes, size_t len)
{
    if (bytes == NULL && len > 0) {
        wr_u32(w, MSIM_NULL_STRING);
        return;
    }
    wr_u32(w, (uint32_t)len);
    unsigned char *p = wr_reserve(w, len);
    if (p != NULL && len > 0) memcpy(p, bytes, len);
}

void wr_str(Writer *w, const char *s)
{
    if (s == NULL) wr_u32(w, MSIM_NULL_STRING);
    else wr_bytes_str(w, s, strlen(s));
}

/* ---- scratch memory: a bump arena, with malloc for what does not fit ---- */

#define ARENA_SIZE (1u << 20)
static unsigned char arena[ARENA_SIZE];
static size_t arena_used;
static void **extra;
static size_t extra_count, extra_capacity;

void *scratch(size_t size)
{
    size = (size + 7) & ~(size_t)7;
    if (size <= ARENA_SIZE - arena_used) {
        arena_used += size;
        return arena + arena_used - size;
    }
    void *p = calloc(1, size);
    if (p == NULL) {
        fprintf(stderr, "mastersim FMU helper: out of memory (%lu bytes)\n", (unsigned long)size);
        exit(70);
    }
    if (extra_count == extra_capacity) {
        extra_capacity = extra_capacity ? 2 * extra_capacity : 16;
        extra = (void **)realloc(extra, extra_capacity * sizeof(void *));
        if (extra == NULL) exit(70);
    }
    extra[extra_count++] = p;
    return p;
}

void scratch_reset(void)
{
    while (extra_count > 0) free(extra[--extra_count]);
    arena_used = 0;
}

/* ---- log records: encoded as they come, appended to the response ---- */

static Writer logs;
static uint32_t log_count;

void log_record(int status, const char *category, const char *message)
{
    size_t need = 12 + (category ? strlen(category) : 0) + (message ? strlen(message) : 0);
    if (logs.capacity - logs.len < need) {
        size_t capacity = logs.capacity * 2 + need + 4096;
        unsigned char *grown = (unsigned char *)realloc(logs.data, capacity);
        if (grown == NULL) return;
        logs.data = grown;
        logs.capacity = capacity;
    }
    wr_i32(&logs, status);
    wr_str(&logs, category);
    wr_str(&logs, message ? message : "");
    log_count++;
}

void log_helper(const char *format, ...)
{
    char message[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    log_record(3, "mastersim-helper", message);
}

/* ---- functions and the message loop ---- */

#define MSIM_NAME_ENTRY(id, NAME, sym) {id, #sym},
static const struct {
    uint32_t id;
    const char *name;
} names[] = {MSIM_FUNCTIONS(MSIM_NAME_ENTRY)};
static void *symbols[MSIM_MAX_FUNCTION];

const char *function_name(uint32_t id)
{
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].id == id) return names[i].name;
    return "unknown function";
}

void *symbol(uint32_t id) { return id < MSIM_MAX_FUNCTION ? symbols[id] : NULL; }

int load_library(const char *path, uint32_t fmi_version)
{
    size_t i;
    if (library != NULL) {
        log_helper("a library is already loaded");
        return -1;
    }
    if (fmi_version != 2 && fmi_version != 3) {
        log_helper("FMI version %u is not supported by the helper", (unsigned)fmi_version);
        return -1;
    }
    if (path == NULL || open_library(path) != 0) return -1;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        uint32_t id = names[i].id;
        if (id / 100 + 1 == fmi_version) symbols[id] = library_symbol(names[i].name);
    }
    return 0;
}

/* LOAD: the library, then the list of exported function ids. */
static int32_t execute_load(Reader *r, Writer *w)
{
    const char *path = rd_str(r);
    uint32_t version = rd_u32(r), ids[MSIM_MAX_FUNCTION], n = 0, id;
    if (r->bad) return 3;
    int32_t status = load_library(path, version) == 0 ? 0 : 3;
    for (id = 0; id < MSIM_MAX_FUNCTION; id++)
        if (symbols[id] != NULL) ids[n++] = id;
    wr_i32(w, status);
    wr_array(w, ids, 4, n);
    return status;
}

/* ECHO: the bytes back (tests and the round-trip benchmark). */
static int32_t execute_echo(Reader *r, Writer *w)
{
    size_t n;
    void *bytes = rd_array(r, 1, &n);
    if (r->bad) return 3;
    wr_i32(w, 0);
    wr_array(w, bytes, 1, n);
    return 0;
}

/* Executes every call of the request; returns 1 after QUIT. */
static int answer(void)
{
    uint32_t request_len = load_acquire(MSIM_OFF_REQUEST_LEN), answered = 0, quit = 0;
    Reader r = {region + MSIM_REQUEST_OFFSET, 0, 0, 0};
    Writer w = {region + MSIM_RESPONSE_OFFSET, MSIM_RESPONSE_CAPACITY - 4, 0, 0};
    r.len = request_len <= MSIM_REQUEST_CAPACITY ? request_len : 0;
    logs.len = 0;
    log_count = 0;
    while (r.pos < r.len && !quit) {
        uint32_t id = rd_u32(&r);
        size_t start = w.len;
        int32_t status;
        if (id == MSIM_FN_LOAD) status = execute_load(&r, &w);
        else if (id == MSIM_FN_ECHO) status = execute_echo(&r, &w);
        else if (id == MSIM_FN_QUIT) {
            close_library();
            wr_i32(&w, 0);
            status = 0;
            quit = 1;
        } else status = execute_call(id, &r, &w);
        if (r.bad) {
            w.len = start;
            log_helper("malformed arguments of %s (function id %u)", function_name(id),
                       (unsigned)id);
            break;
        }
        if (w.overflow) {
            w.len = start;
            w.overflow = 0;
            wr_i32(&w, 3);
            log_helper("the outputs of %s do not fit into the response area", function_name(id));
            answered++;
            break;
        }
        answered++;
        if (status >= MSIM_STOP_STATUS) break;
    }
    scratch_reset();
    w.capacity = MSIM_RESPONSE_CAPACITY;
    size_t log_offset = w.len;
    wr_u32(&w, log_count);
    unsigned char *p = wr_reserve(&w, logs.len);
    if (p != NULL) memcpy(p, logs.data, logs.len);
    else w.len = log_offset;
    store_release(MSIM_OFF_RESPONSE_CALLS, answered);
    store_release(MSIM_OFF_LOG_OFFSET, (uint32_t)log_offset);
    store_release(MSIM_OFF_RESPONSE_LEN, (uint32_t)w.len);
    return (int)quit;
}

/* The self-test: the encoding of a fixed message, checked byte for byte and read back. The
 * Rust test `encoding_matches_the_helper` checks its own encoder against the same bytes. */
int self_test(void)
{
    static const unsigned char expected[] = {
        0xff, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0xf8, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x02, 0x00,
        0x00, 0x00, 0x61, 0x62, 0xff, 0xff, 0xff, 0xff, 0x01, 0x08, 0x07, 0x06, 0x05,
        0x04, 0x03, 0x02, 0x01};
    unsigned char buffer[64];
    const double reals[2] = {1.5, -2.0};
    Writer w = {buffer, sizeof buffer, 0, 0};
    wr_i32(&w, -1);
    wr_array(&w, reals, 8, 2);
    wr_str(&w, "ab");
    wr_str(&w, NULL);
    wr_u8(&w, 1);
    wr_u64(&w, 0x0102030405060708ull);
    if (w.len != sizeof expected || memcmp(buffer, expected, sizeof expected) != 0) {
        printf("self-test: encoding differs (%lu bytes)\n", (unsigned long)w.len);
        return 1;
    }
    Reader r = {expected, sizeof expected, 0, 0};
    size_t n;
    int32_t status = rd_i32(&r);
    const double *read = (const double *)rd_array(&r, 8, &n);
    const char *text = rd_str(&r), *null = rd_str(&r);
    uint8_t flag = rd_u8(&r);
    uint64_t big = rd_u64(&r);
    int ok = status == -1 && n == 2 && read[0] == 1.5 && read[1] == -2.0 && text != NULL &&
             strcmp(text, "ab") == 0 && null == NULL && flag == 1 && big == 0x0102030405060708ull &&
             !r.bad && r.pos == r.len;
    rd_u8(&r);
    ok = ok && r.bad;
    scratch_reset();
    printf("self-test: %s\n", ok ? "ok" : "decoding differs");
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    uint32_t last = 0;
    if (argc == 2 && strcmp(argv[1], "--self-test") == 0) return self_test();
    if (argc != 2) {
        fprintf(stderr, "usage: fmu_host REGION_PATH | fmu_host --self-test\n"
                        "(the FMU helper of mastersim; the master starts it)\n");
        return 64;
    }
    prepare_process();
    if (map_region(argv[1]) != 0) {
        fprintf(stderr, "mastersim FMU helper: cannot map %s\n", argv[1]);
        return 66;
    }
    if (load_acquire(MSIM_OFF_MAGIC) != MSIM_MAGIC ||
        load_acquire(MSIM_OFF_VERSION) != MSIM_PROTOCOL_VERSION) {
        fprintf(stderr, "mastersim FMU helper: %s is not a protocol %d region\n", argv[1],
                MSIM_PROTOCOL_VERSION);
        return 65;
    }
    store_release(MSIM_OFF_HELPER_PID, helper_pid());
    store_seq(MSIM_OFF_READY, MSIM_READY_VALUE);
    wake_ready();
    for (;;) {
        wait_request(last);
        last = load_acquire(MSIM_OFF_REQUEST_SEQ);
        follow_master();
        int quit = answer();
        store_seq(MSIM_OFF_RESPONSE_SEQ, last);
        wake_master();
        if (quit) return 0;
    }
}
