#ifndef PRACTICE_CAIRO_LOADER_H
#define PRACTICE_CAIRO_LOADER_H

/* libcairo is loaded on first use (dlopen), not linked: it brings fontconfig, FreeType,
   pixman, libpng and the X libraries, which only the pictures (`view -o`, `stats -o`)
   need; `play` and every other command should not pay for loading them. cairo_loader.c
   defines the cairo functions PracticeCore calls as forwarders to the loaded library;
   the surface constructors return NULL when it cannot be loaded, and this says why. */
const char *practice_cairo_load_error(void);

/* Where a picture is written: a file descriptor, and the first errno a write met (0 while
   none failed). */
struct practice_cairo_sink {
  int fd;
  int error;
};

/* A cairo_write_func_t for the *_for_stream calls: writes all of `data` to the sink's
   descriptor; after a failure (recorded in `error`), every call fails. The closure is a
   struct practice_cairo_sink. */
#include <cairo/cairo.h>
cairo_status_t practice_cairo_fd_write(void *closure, const unsigned char *data, unsigned int length);

#endif
