#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "cplatform.h"

void practice_set_thread_name(const char *name) {
  char shortName[16];
  strncpy(shortName, name, sizeof shortName - 1);
  shortName[sizeof shortName - 1] = '\0';
  pthread_setname_np(pthread_self(), shortName);
}

static struct termios saved_termios;
static volatile sig_atomic_t saved_fd = -1;

void practice_terminal_restore(void) {
  int fd = saved_fd;
  if (fd >= 0) tcsetattr(fd, TCSAFLUSH, &saved_termios);
}

/* The terminal the player screen is on (its alternate screen in use), or -1. */
static volatile sig_atomic_t screen_fd = -1;
static const char leave_screen[] = "\033[0m\033[?25h\033[?1049l";

static void leave_screen_now(void) {
  int fd = screen_fd;
  if (fd >= 0) {
    ssize_t ignored = write(fd, leave_screen, sizeof leave_screen - 1);
    (void)ignored;
  }
}

static void restore_and_reraise(int sig) {
  leave_screen_now();
  practice_terminal_restore();
  signal(sig, SIG_DFL);
  raise(sig);
}

static void install_fatal_handlers(void) {
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT};
  for (unsigned i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = restore_and_reraise;
    action.sa_flags = SA_RESETHAND;
    sigaction(fatal[i], &action, NULL);
  }
}

int practice_terminal_raw(int fd) {
  struct termios raw;
  if (tcgetattr(fd, &saved_termios) != 0) return -1;
  raw = saved_termios;
  raw.c_lflag &= ~(ICANON | ECHO | ISIG | IEXTEN);
  raw.c_iflag &= ~(IXON | ICRNL);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  saved_fd = fd;
  install_fatal_handlers();
  if (tcsetattr(fd, TCSAFLUSH, &raw) != 0) {
    saved_fd = -1;
    return -1;
  }
  return 0;
}

void practice_terminal_screen(int fd, int on) {
  static const char enter[] = "\033[?1049h\033[?25l\033[2J";
  if (on) {
    screen_fd = fd;
    install_fatal_handlers();
    ssize_t ignored = write(fd, enter, sizeof enter - 1);
    (void)ignored;
  } else {
    leave_screen_now();
    screen_fd = -1;
  }
}

int practice_terminal_rows(int fd) {
  struct winsize size;
  if (ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_row;
}

int practice_terminal_columns(int fd) {
  struct winsize size;
  if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 80;
  return size.ws_col;
}

int practice_open_path(const char *path) { return open(path, O_PATH | O_CLOEXEC); }

static void *idle_thread(void *unused) { return unused; }

int practice_can_allocate(size_t bytes) {
  void *memory = malloc(bytes);
  if (memory == NULL) return ENOMEM;
  free(memory);
  return 0;
}

int practice_can_start_threads(int count) {
  pthread_t threads[8];
  if (count > 8) count = 8;
  int started = 0, error = 0;
  for (; started < count; started++) {
    error = pthread_create(&threads[started], NULL, idle_thread, NULL);
    if (error != 0) break;
  }
  for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
  return error;
}

static void (*signal_callback)(int);
static sigset_t waited_signals;

static void *signal_thread(void *unused) {
  for (;;) {
    int number;
    if (sigwait(&waited_signals, &number) == 0) signal_callback(number);
  }
  return unused;
}

int practice_signal_thread(void (*callback)(int)) {
  sigemptyset(&waited_signals);
  sigaddset(&waited_signals, SIGINT);
  sigaddset(&waited_signals, SIGTERM);
  int error = pthread_sigmask(SIG_BLOCK, &waited_signals, NULL);
  if (error != 0) return error;
  signal_callback = callback;
  pthread_t thread;
  error = pthread_create(&thread, NULL, signal_thread, NULL);
  if (error != 0) {
    pthread_sigmask(SIG_UNBLOCK, &waited_signals, NULL);
    return error;
  }
  pthread_setname_np(thread, "signals");
  pthread_detach(thread);
  return 0;
}
