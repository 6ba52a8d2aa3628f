#ifndef PRACTICE_CPLATFORM_H
#define PRACTICE_CPLATFORM_H

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

#endif
