/* fmu_host.c: the FMU helper process (work in progress). */
#include "fmu_host.h"
int main(void) { return 1; }
