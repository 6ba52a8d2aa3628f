#ifndef PRACTICE_CALSA_SHIM_H
#define PRACTICE_CALSA_SHIM_H
#include <alsa/asoundlib.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Set by the handler below when a message of libasound's said memory ran out. Read and
   cleared in the Swift file that installs the handler (ALSASetup.swift), which therefore
   shares this header's one copy of it. */
static inline int *practice_alsa_memory_flag(void) {
  static int failed = 0;
  return &failed;
}

/* libasound prints its own messages to stderr; the player reports errors itself.
   The handler type is variadic, which Swift cannot implement, so it lives here. It keeps
   one fact of what it silences: whether memory ran out (ENOMEM, or a plugin or config
   library that could not be mapped), which libasound's own return code then hides
   (opening `null` under a memory limit fails with -ENOENT). */
static void practice_alsa_silent_handler(const char *file, int line, const char *function,
                                         int err, const char *fmt, ...) {
  (void)file; (void)line; (void)function;
  char text[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(text, sizeof text, fmt, args);
  va_end(args);
  if (err == ENOMEM || err == -ENOMEM || strstr(text, "Cannot allocate memory")
      || strstr(text, "failed to map segment")) {
    *practice_alsa_memory_flag() = 1;
  }
}

/* Silences libasound's error output (snd_lib_error_set_handler) and clears the memory flag. */
static inline void practice_alsa_silence_errors(void) {
  *practice_alsa_memory_flag() = 0;
  snd_lib_error_set_handler(practice_alsa_silent_handler);
}

/* Whether a message silenced since practice_alsa_silence_errors said memory ran out. */
static inline int practice_alsa_ran_out_of_memory(void) { return *practice_alsa_memory_flag(); }

#endif
