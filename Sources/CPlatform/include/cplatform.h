#ifndef PRACTICE_CPLATFORM_H
#define PRACTICE_CPLATFORM_H

#include <stddef.h>

/* Names the calling thread (pthread_setname_np, a GNU extension Swift's Glibc module
   does not expose), so `top -H` and profilers can tell the feeder and render threads
   apart. Names longer than 15 bytes are cut. */
void practice_set_thread_name(const char *name);

/* Puts the terminal on `fd` into raw input mode (no echo, no line buffering, no
   signal keys: Ctrl-C arrives as byte 3) after saving its settings, and installs
   handlers that put the saved settings back before the process dies of SIGSEGV,
   SIGBUS, SIGILL, SIGTRAP (a Swift trap), SIGFPE or SIGABRT, then re-raise it.
   Returns 0, or -1 with errno set (not a terminal). */
int practice_terminal_raw(int fd);

/* Puts the saved settings back (tcsetattr, async-signal-safe); harmless if none. */
void practice_terminal_restore(void);

/* Switches the terminal on `fd` to its alternate screen with the cursor hidden (`on`),
   or back to the primary screen with the cursor shown and attributes reset. While it is
   on, the fatal-signal handlers (as in practice_terminal_raw) switch back too. */
void practice_terminal_screen(int fd, int on);

/* The height of the terminal on `fd` (TIOCGWINSZ), or 0 when it cannot tell. */
int practice_terminal_rows(int fd);

/* The width of the terminal on `fd` (TIOCGWINSZ), or 80 when it cannot tell. */
int practice_terminal_columns(int fd);

/* Opens `path` (bytes, in any encoding) with O_PATH | O_CLOEXEC: a descriptor that
   names the file without reading it, so /proc/self/fd/N reaches it by a UTF-8 name.
   Returns the descriptor, or -1 with errno set. (Swift's Glibc module lacks O_PATH.) */
int practice_open_path(const char *path);

/* Starts `count` threads with the default attributes (the stack size libdispatch's own
   workers get), all alive at once, and joins them. Returns 0, or the error number of the
   pthread_create that failed (EAGAIN under a low address-space limit). libdispatch retries
   a thread it cannot create forever (_dispatch_temporary_resource_shortage), so a process
   that would hang there can say so first. */
int practice_can_start_threads(int count);

/* Whether `bytes` can be allocated now: mallocs and frees them. Returns 0, or ENOMEM.
   Swift's allocate(capacity:) and its arrays end the process when malloc fails, so a
   process about to make its buffers under a low address-space limit can say so first. */
int practice_can_allocate(size_t bytes);

/* Blocks SIGINT and SIGTERM in the calling thread (threads started later inherit the mask)
   and starts a thread that waits for them (sigwait) and calls `callback` with each. Not a
   libdispatch source: libdispatch may itself be stuck (retrying a thread it cannot create)
   when a signal has to end the process. Returns 0, or pthread_create's error number (the
   signals are then unblocked again). */
int practice_signal_thread(void (*callback)(int));

#endif
