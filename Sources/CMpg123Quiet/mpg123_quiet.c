#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpg123.h>
#include <stddef.h>
#include "mpg123_quiet.h"

typedef mpg123_handle *(*new_function)(const char *decoder, int *error);

/* libmpg123's own mpg123_new: the next definition after the executable's. */
static new_function real_new(void) {
  static new_function found;
  new_function function = __atomic_load_n(&found, __ATOMIC_ACQUIRE);
  if (function == NULL) {
    function = (new_function)dlsym(RTLD_NEXT, "mpg123_new");
    __atomic_store_n(&found, function, __ATOMIC_RELEASE);
  }
  return function;
}

/* mpg123_new with MPG123_QUIET set on the new handle (libsndfile only adds flags later). */
mpg123_handle *mpg123_new(const char *decoder, int *error) {
  new_function function = real_new();
  if (function == NULL) {
    if (error != NULL) *error = MPG123_ERR;
    return NULL;
  }
  mpg123_handle *handle = function(decoder, error);
  if (handle != NULL) mpg123_param(handle, MPG123_ADD_FLAGS, MPG123_QUIET, 0);
  return handle;
}

int practice_mpg123_quiet_in_effect(void) {
  return dlsym(RTLD_DEFAULT, "mpg123_new") == (void *)mpg123_new;
}
