#ifndef PRACTICE_CURL_LOADER_H
#define PRACTICE_CURL_LOADER_H

#include <curl/curl.h>

/* libcurl is loaded on first use (dlopen), not linked, like cairo: it brings OpenSSL,
   nghttp2, libssh2, LDAP, Kerberos and more, which only `pull` needs; every other command
   should not pay for loading them. curl_easy_setopt and curl_easy_getinfo are variadic,
   which Swift cannot call, so this gives one typed function per argument type. Each
   returns CURLE_FAILED_INIT (or NULL) when the library cannot be loaded, and this says why
   (NULL once it is loaded; curl_global_init has then run). */
const char *practice_curl_load_error(void);

CURL *practice_curl_easy_init(void);
void practice_curl_easy_cleanup(CURL *handle);
CURLcode practice_curl_easy_perform(CURL *handle);
const char *practice_curl_easy_strerror(CURLcode code);

CURLcode practice_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode practice_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
/* A string (copied by libcurl), a pointer kept by libcurl (an slist, user data) or NULL. */
CURLcode practice_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value);
/* CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION. */
typedef size_t (*practice_curl_data_callback)(char *data, size_t size, size_t count, void *user);
CURLcode practice_curl_setopt_callback(
    CURL *handle, CURLoption option, practice_curl_data_callback callback);

CURLcode practice_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);

struct curl_slist *practice_curl_slist_append(struct curl_slist *list, const char *text);
void practice_curl_slist_free_all(struct curl_slist *list);

#endif
