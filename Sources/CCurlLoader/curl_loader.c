#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <curl/curl.h>
#include "curl_loader.h"

/* The real functions, resolved once from libcurl.so.4. */
static struct {
  CURLcode (*curl_global_init)(long flags);
  CURL *(*curl_easy_init)(void);
  void (*curl_easy_cleanup)(CURL *handle);
  CURLcode (*curl_easy_perform)(CURL *handle);
  const char *(*curl_easy_strerror)(CURLcode code);
  CURLcode (*curl_easy_setopt)(CURL *handle, CURLoption option, ...);
  CURLcode (*curl_easy_getinfo)(CURL *handle, CURLINFO info, ...);
  struct curl_slist *(*curl_slist_append)(struct curl_slist *list, const char *text);
  void (*curl_slist_free_all)(struct curl_slist *list);
} real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *load_error = NULL;

static void load(void) {
  void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    load_error = dlerror();
    return;
  }
#define RESOLVE(name)                                  \
  *(void **)(&real.name) = dlsym(library, #name);      \
  if (real.name == NULL) {                             \
    load_error = "libcurl.so.4 lacks " #name;          \
    return;                                            \
  }
  RESOLVE(curl_global_init)
  RESOLVE(curl_easy_init)
  RESOLVE(curl_easy_cleanup)
  RESOLVE(curl_easy_perform)
  RESOLVE(curl_easy_strerror)
  RESOLVE(curl_easy_setopt)
  RESOLVE(curl_easy_getinfo)
  RESOLVE(curl_slist_append)
  RESOLVE(curl_slist_free_all)
#undef RESOLVE
  /* Not thread-safe in older libcurls; pthread_once makes it run once, before any handle. */
  if (real.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    load_error = "libcurl's global initialisation failed";
  }
}

static int ready(void) {
  pthread_once(&once, load);
  return load_error == NULL;
}

const char *practice_curl_load_error(void) { return ready() ? NULL : load_error; }

CURL *practice_curl_easy_init(void) { return ready() ? real.curl_easy_init() : NULL; }
void practice_curl_easy_cleanup(CURL *handle) { if (handle != NULL && ready()) real.curl_easy_cleanup(handle); }
CURLcode practice_curl_easy_perform(CURL *handle) { return ready() ? real.curl_easy_perform(handle) : CURLE_FAILED_INIT; }
const char *practice_curl_easy_strerror(CURLcode code) { return ready() ? real.curl_easy_strerror(code) : "libcurl is not loaded"; }

CURLcode practice_curl_setopt_long(CURL *handle, CURLoption option, long value) {
  return ready() ? real.curl_easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
CURLcode practice_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
  return ready() ? real.curl_easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
CURLcode practice_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
  return ready() ? real.curl_easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
CURLcode practice_curl_setopt_callback(
    CURL *handle, CURLoption option, practice_curl_data_callback callback) {
  return ready() ? real.curl_easy_setopt(handle, option, callback) : CURLE_FAILED_INIT;
}
CURLcode practice_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
  return ready() ? real.curl_easy_getinfo(handle, info, value) : CURLE_FAILED_INIT;
}

struct curl_slist *practice_curl_slist_append(struct curl_slist *list, const char *text) {
  return ready() ? real.curl_slist_append(list, text) : NULL;
}
void practice_curl_slist_free_all(struct curl_slist *list) {
  if (list != NULL && ready()) real.curl_slist_free_all(list);
}
