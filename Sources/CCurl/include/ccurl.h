#ifndef CCURL_H
#define CCURL_H
/* libcurl's option and info calls are variadic, which Swift cannot call: one typed function per argument
   kind. Everything else in libcurl is called from Swift directly. */
#include <curl/curl.h>

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*ccurl_progress_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                       curl_off_t upload_total, curl_off_t uploaded);

CURLcode ccurl_set_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_set_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_set_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_set_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_set_data_callback(CURL *handle, CURLoption option, ccurl_data_callback callback);
CURLcode ccurl_set_progress_callback(CURL *handle, ccurl_progress_callback callback);

CURLcode ccurl_get_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_get_offset(CURL *handle, CURLINFO info, curl_off_t *value);

/* The easy handle and result of a finished transfer from curl_multi_info_read (a union in C). */
int ccurl_message_done(CURLMsg *message, CURL **handle, CURLcode *result);

#endif
