#ifndef PRACTICE_CPLATFORM_H
#define PRACTICE_CPLATFORM_H

/* Names the calling thread (pthread_setname_np, a GNU extension Swift's Glibc module
   does not expose), so `top -H` and profilers can tell the feeder and render threads
   apart. Names longer than 15 bytes are cut. */
void practice_set_thread_name(const char *name);

#endif
