#include "fmu_host.h"
int msim_calls_placeholder;
