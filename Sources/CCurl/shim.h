#ifndef PRACTICE_CCURL_SHIM_H
#define PRACTICE_CCURL_SHIM_H
#include <curl/curl.h>
#endif
