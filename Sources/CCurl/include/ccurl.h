#ifndef CCURL_H
#define CCURL_H
/* libcurl, loaded when the first transfer starts (dlopen), not when playola starts: the library and what it
   links (OpenSSL, GnuTLS, Kerberos, LDAP, ...) were ~6.5 MiB resident in every process, a local station's
   too (bench/PROFILE.md, "Memory"). The binary names libcurl only here; Swift calls these ccurl_ functions,
   one per libcurl call it makes. curl/curl.h gives the types and constants. libcurl's option and info
   calls are variadic, which Swift cannot call: one typed function per argument kind. */
#include <curl/curl.h>

/* Loads libcurl.so.4 and runs curl_global_init, once (thread-safe). NULL when loaded; else why not
   (the same text at every call). Every other function here may be called only after it returned NULL,
   except ccurl_slist_free_all(NULL), which does nothing. */
const char *ccurl_load(void);

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*ccurl_progress_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                       curl_off_t upload_total, curl_off_t uploaded);

CURL *ccurl_easy_init(void);
void ccurl_easy_cleanup(CURL *handle);
const char *ccurl_easy_strerror(CURLcode code);
struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *string);
void ccurl_slist_free_all(struct curl_slist *list);

CURLM *ccurl_multi_init(void);
CURLMcode ccurl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode ccurl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode ccurl_multi_perform(CURLM *multi, int *running);
CURLMcode ccurl_multi_poll(CURLM *multi, struct curl_waitfd extra[], unsigned int extra_count, int timeout_ms, int *ready);
CURLMcode ccurl_multi_wakeup(CURLM *multi);
CURLMsg *ccurl_multi_info_read(CURLM *multi, int *left);
CURLMcode ccurl_multi_cleanup(CURLM *multi);

CURLcode ccurl_set_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_set_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_set_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_set_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_set_data_callback(CURL *handle, CURLoption option, ccurl_data_callback callback);
CURLcode ccurl_set_progress_callback(CURL *handle, ccurl_progress_callback callback);

CURLcode ccurl_get_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_get_offset(CURL *handle, CURLINFO info, curl_off_t *value);

/* Called with each socket libcurl makes for the handle (CURLOPT_SOCKOPTFUNCTION; `context` is
   CURLOPT_SOCKOPTDATA), before it connects; return CURL_SOCKOPT_OK. */
typedef int (*ccurl_socket_callback)(void *context, curl_socket_t socket, curlsocktype purpose);
CURLcode ccurl_set_socket_callback(CURL *handle, ccurl_socket_callback callback);

/* Raises the kernel's wake-up threshold (SO_RCVLOWAT) of `socket` to `bytes` if it is the connection the
   handle's transfer is on now (its local port and its peer's address and port are the ones libcurl reports:
   a socket libcurl made and closed again, as happy eyeballs does, whose number now names another file or
   connection, is left alone). poll then reports it readable once that much has arrived (or at EOF or an
   error), not at every TCP segment. For a long-lived stream only: a small response on a socket with a raised
   threshold waits for bytes that never come. 0 when set; -1 when it is not the transfer's or was refused.
   (CURLINFO_ACTIVESOCKET cannot be used: libcurl 7.88 answers it only once a transfer is done.) */
int ccurl_set_receive_low_water(CURL *handle, curl_socket_t socket, int bytes);

/* The easy handle and result of a finished transfer from curl_multi_info_read (a union in C). */
int ccurl_message_done(CURLMsg *message, CURL **handle, CURLcode *result);

#endif
