#ifndef PRACTICE_CCAIRO_SHIM_H
#define PRACTICE_CCAIRO_SHIM_H
#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>
#include <cairo/cairo-svg.h>
#endif
