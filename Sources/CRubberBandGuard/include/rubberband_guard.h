#ifndef PRACTICE_RUBBERBAND_GUARD_H
#define PRACTICE_RUBBERBAND_GUARD_H
#include <rubberband/rubberband-c.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Rubber Band's C calls that allocate, with the C++ exceptions they can throw caught at
   the boundary: the C API lets std::bad_alloc escape, which a C or Swift caller cannot
   catch (the process aborts, exit 134). */

/* rubberband_new, then rubberband_set_max_process_size(max_process_size). Returns the
   state, or NULL with *out_of_memory set to 1 (std::bad_alloc) or 0 (any other failure). */
RubberBandState practice_rubberband_new(
  unsigned int sample_rate, unsigned int channels, RubberBandOptions options,
  double time_ratio, double pitch_scale, unsigned int max_process_size, int *out_of_memory);

#ifdef __cplusplus
}
#endif
#endif
