#ifndef MSIM_FMU_HOST_H
#define MSIM_FMU_HOST_H
#include "protocol.h"
#endif
