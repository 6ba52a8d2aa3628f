#ifndef PRACTICE_CRUBBERBAND_SHIM_H
#define PRACTICE_CRUBBERBAND_SHIM_H
#include <rubberband/rubberband-c.h>
#endif
