#ifndef PRACTICE_CAUBIO_SHIM_H
#define PRACTICE_CAUBIO_SHIM_H
#include <aubio/aubio.h>
#endif
