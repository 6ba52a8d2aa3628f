#ifndef PRACTICE_MPG123_QUIET_H
#define PRACTICE_MPG123_QUIET_H

/* libmpg123, which libsndfile uses to decode MP3, writes "Note: Illegal Audio-MPEG-Header",
 * "Warning: ..." and "[layer3.c:...] error: ..." lines to stderr for damaged streams unless
 * the handle has its MPG123_QUIET flag; libsndfile creates its handles without it and has
 * no switch for it. mpg123_quiet.c defines mpg123_new in the executable: the dynamic linker
 * binds libsndfile's call to it (the executable comes first in the lookup order), and it
 * creates the handle with libmpg123's own mpg123_new and sets MPG123_QUIET on it. Decoding
 * is unchanged; failures still come back as libsndfile errors.
 *
 * Nothing to call: linking the object is enough. This returns whether the interposed
 * mpg123_new is the one the process resolves (1), for a check. */
int practice_mpg123_quiet_in_effect(void);

#endif
