#ifndef PRACTICE_CALSA_SHIM_H
#define PRACTICE_CALSA_SHIM_H
#include <alsa/asoundlib.h>

/* libasound prints its own messages to stderr; the player reports errors itself.
   The handler type is variadic, which Swift cannot implement, so it lives here. */
static void practice_alsa_silent_handler(const char *file, int line, const char *function,
                                         int err, const char *fmt, ...) {
  (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/* Silences libasound's error output (snd_lib_error_set_handler). */
static inline void practice_alsa_silence_errors(void) {
  snd_lib_error_set_handler(practice_alsa_silent_handler);
}

#endif
