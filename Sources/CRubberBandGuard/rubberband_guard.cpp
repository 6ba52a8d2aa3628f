#include "rubberband_guard.h"
#include <new>

extern "C" RubberBandState practice_rubberband_new(
  unsigned int sample_rate, unsigned int channels, RubberBandOptions options,
  double time_ratio, double pitch_scale, unsigned int max_process_size, int *out_of_memory) {
  *out_of_memory = 0;
  RubberBandState state = nullptr;
  try {
    state = rubberband_new(sample_rate, channels, options, time_ratio, pitch_scale);
    if (state) rubberband_set_max_process_size(state, max_process_size);
    return state;
  } catch (const std::bad_alloc &) {
    *out_of_memory = 1;
  } catch (...) {
  }
  if (state) {
    try {
      rubberband_delete(state);
    } catch (...) {
    }
  }
  return nullptr;
}
