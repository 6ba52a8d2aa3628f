#ifndef PRACTICE_CAIRO_LOADER_H
#define PRACTICE_CAIRO_LOADER_H

/* libcairo is loaded on first use (dlopen), not linked: it brings fontconfig, FreeType,
   pixman, libpng and the X libraries, which only the pictures (`view -o`, `stats -o`)
   need; `play` and every other command should not pay for loading them. cairo_loader.c
   defines the cairo functions PracticeCore calls as forwarders to the loaded library;
   the surface constructors return NULL when it cannot be loaded, and this says why. */
const char *practice_cairo_load_error(void);

#endif
