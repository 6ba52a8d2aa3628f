#ifndef PRACTICE_AUBIO_LOADER_H
#define PRACTICE_AUBIO_LOADER_H

/* libaubio is loaded on first use (dlopen), not linked: Debian's libaubio pulls in
   libavcodec and some 150 shared libraries, which would cost every `practice` command
   ~35 ms of start-up and ~30 MB of memory. aubio_loader.c defines the aubio functions
   PracticeCore calls as forwarders to the loaded library; a `new_*` function returns
   NULL when the library cannot be loaded, and this says why. */
const char *practice_aubio_load_error(void);

#endif
