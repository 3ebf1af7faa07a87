/*
 * C shim for the FMI logger callback.
 *
 * The FMI logger is C-variadic (printf-style), which stable Rust cannot define. This shim formats
 * the message with vsnprintf and forwards the finished text to a non-variadic Rust function.
 * One signature serves FMI 1.0 (first argument: fmiComponent) and FMI 2.0 (first argument:
 * fmi2ComponentEnvironment): both are a pointer, and both status enums are passed as int.
 *
 * Spec: FMI 2.0.2 section 2.1.5 (fmi2CallbackLogger), FMI 1.0 CS section 4.1 (fmiCallbackLogger).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Implemented in Rust (src/ffi/mod.rs). Never unwinds. */
extern void mastersim_fmi_log_message(const char *instance_name, int status, const char *category,
                                      const char *message);

void mastersim_fmi_logger(void *component, const char *instance_name, int status,
                          const char *category, const char *message, ...)
{
    char small[512];
    va_list args;
    int needed;
    char *large;

    (void)component;
    if (message == NULL) {
        mastersim_fmi_log_message(instance_name, status, category, "");
        return;
    }

    va_start(args, message);
    needed = vsnprintf(small, sizeof small, message, args);
    va_end(args);

    if (needed < 0) {
        /* Invalid format: pass the unformatted text rather than dropping the message. */
        mastersim_fmi_log_message(instance_name, status, category, message);
        return;
    }
    if ((size_t)needed < sizeof small) {
        mastersim_fmi_log_message(instance_name, status, category, small);
        return;
    }

    /* The message did not fit: format it again into a buffer of the measured size. */
    large = (char *)malloc((size_t)needed + 1);
    if (large == NULL) {
        mastersim_fmi_log_message(instance_name, status, category, small); /* truncated */
        return;
    }
    va_start(args, message);
    vsnprintf(large, (size_t)needed + 1, message, args);
    va_end(args);
    mastersim_fmi_log_message(instance_name, status, category, large);
    free(large);
}
