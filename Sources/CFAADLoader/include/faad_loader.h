#ifndef PRACTICE_FAAD_LOADER_H
#define PRACTICE_FAAD_LOADER_H

/* libfaad2 (AAC) is loaded on first use (dlopen), not linked, so that a WAV or FLAC never
   loads it. faad_loader.c defines the NeAACDec functions PracticeCore calls as forwarders
   to the loaded library; NeAACDecOpen returns NULL when it cannot be loaded, and this says
   why (NULL once it is loaded). */
const char *practice_faad_load_error(void);

#endif
