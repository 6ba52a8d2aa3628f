#ifndef PRACTICE_CFAAD_SHIM_H
#define PRACTICE_CFAAD_SHIM_H
#include <neaacdec.h>
#endif
