/*
 * crash_library.c: a minimal FMI 2.0 library whose fmi2DoStep fails in the way its step size
 * asks for, built by tests/helper.rs for every platform whose helper runs here:
 * h = 1: writes to address 0 (SIGSEGV; Windows: EXCEPTION_ACCESS_VIOLATION); h = 2: abort();
 * h = 3: exit(7); h = 4: never returns; any other h: OK.
 */
#include <stdlib.h>
#ifdef _WIN32
#include <windows.h>
#define EXPORT __declspec(dllexport)
#else
#include <unistd.h>
#define EXPORT __attribute__((visibility("default")))
#endif

static int instance;

EXPORT void *fmi2Instantiate(const char *name, int type, const char *guid, const char *resources,
                             const void *callbacks, int visible, int logging)
{
    (void)name; (void)type; (void)guid; (void)resources; (void)callbacks; (void)visible; (void)logging;
    return &instance;
}

EXPORT void fmi2FreeInstance(void *c) { (void)c; }

EXPORT int fmi2DoStep(void *c, double t, double h, int no_set_prior)
{
    (void)c; (void)t; (void)no_set_prior;
    if (h == 1.0) *(volatile int *)(size_t)0 = 1;
    if (h == 2.0) abort();
    if (h == 3.0) exit(7);
    while (h == 4.0) {
#ifdef _WIN32
        Sleep(1000);
#else
        sleep(1);
#endif
    }
    return 0;
}
