#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
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

static void restore_and_reraise(int sig) {
  practice_terminal_restore();
  signal(sig, SIG_DFL);
  raise(sig);
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
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT};
  for (unsigned i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = restore_and_reraise;
    action.sa_flags = SA_RESETHAND;
    sigaction(fatal[i], &action, NULL);
  }
  if (tcsetattr(fd, TCSAFLUSH, &raw) != 0) {
    saved_fd = -1;
    return -1;
  }
  return 0;
}

int practice_terminal_columns(int fd) {
  struct winsize size;
  if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 80;
  return size.ws_col;
}

int practice_open_path(const char *path) { return open(path, O_PATH | O_CLOEXEC); }
