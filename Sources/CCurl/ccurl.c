#include "ccurl.h"

#include <lazy_library.h>
#include <stdio.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

/* The soname of libcurl's ABI 4: libcurl4 (bookworm) and libcurl4t64 (trixie) ship it, and the package
   depends on them (packaging/build-deb.sh names the one of the build's architecture). */
#define CCURL_SONAME "libcurl.so.4"

/* Written once, by load() under pthread_once, before any reader can get past ccurl_load(): pthread_once
   orders those writes before every later ccurl_load() return. */
static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
    void (*slist_free_all)(struct curl_slist *list);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout_ms, int *ready);
    CURLMcode (*multi_wakeup)(CURLM *multi);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *left);
    CURLMcode (*multi_cleanup)(CURLM *multi);
} api;
static lazy_library library = LAZY_LIBRARY_INIT;

static void load(void) {
    const lazy_symbol symbols[] = {
        {"curl_global_init", &api.global_init}, {"curl_easy_init", &api.easy_init},
        {"curl_easy_cleanup", &api.easy_cleanup}, {"curl_easy_strerror", &api.easy_strerror},
        {"curl_easy_setopt", &api.easy_setopt}, {"curl_easy_getinfo", &api.easy_getinfo},
        {"curl_slist_append", &api.slist_append}, {"curl_slist_free_all", &api.slist_free_all},
        {"curl_multi_init", &api.multi_init}, {"curl_multi_add_handle", &api.multi_add_handle},
        {"curl_multi_remove_handle", &api.multi_remove_handle}, {"curl_multi_perform", &api.multi_perform},
        {"curl_multi_poll", &api.multi_poll}, {"curl_multi_wakeup", &api.multi_wakeup},
        {"curl_multi_info_read", &api.multi_info_read}, {"curl_multi_cleanup", &api.multi_cleanup},
    };
    /* Never closed: libcurl stays loaded for the life of the process once a transfer has been made. */
    lazy_library_open(&library, CCURL_SONAME, symbols, sizeof symbols / sizeof *symbols);
    if (!library.loaded) return;
    CURLcode code = api.global_init(CURL_GLOBAL_ALL);
    if (code != CURLE_OK) {
        snprintf(library.error, sizeof library.error, "curl_global_init failed: %s", api.easy_strerror(code));
        library.loaded = 0;
    }
}

const char *ccurl_load(void) { return lazy_library_load(&library, load); }

CURL *ccurl_easy_init(void) { return api.easy_init(); }
void ccurl_easy_cleanup(CURL *handle) { api.easy_cleanup(handle); }
const char *ccurl_easy_strerror(CURLcode code) { return api.easy_strerror(code); }
struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *string) { return api.slist_append(list, string); }
void ccurl_slist_free_all(struct curl_slist *list) {
    if (list) api.slist_free_all(list);
}

CURLM *ccurl_multi_init(void) { return api.multi_init(); }
CURLMcode ccurl_multi_add_handle(CURLM *multi, CURL *handle) { return api.multi_add_handle(multi, handle); }
CURLMcode ccurl_multi_remove_handle(CURLM *multi, CURL *handle) { return api.multi_remove_handle(multi, handle); }
CURLMcode ccurl_multi_perform(CURLM *multi, int *running) { return api.multi_perform(multi, running); }
CURLMcode ccurl_multi_poll(CURLM *multi, struct curl_waitfd extra[], unsigned int extra_count, int timeout_ms, int *ready) {
    return api.multi_poll(multi, extra, extra_count, timeout_ms, ready);
}
CURLMcode ccurl_multi_wakeup(CURLM *multi) { return api.multi_wakeup(multi); }
CURLMsg *ccurl_multi_info_read(CURLM *multi, int *left) { return api.multi_info_read(multi, left); }
CURLMcode ccurl_multi_cleanup(CURLM *multi) { return api.multi_cleanup(multi); }

CURLcode ccurl_set_long(CURL *handle, CURLoption option, long value) { return api.easy_setopt(handle, option, value); }
CURLcode ccurl_set_offset(CURL *handle, CURLoption option, curl_off_t value) { return api.easy_setopt(handle, option, value); }
CURLcode ccurl_set_string(CURL *handle, CURLoption option, const char *value) { return api.easy_setopt(handle, option, value); }
CURLcode ccurl_set_pointer(CURL *handle, CURLoption option, void *value) { return api.easy_setopt(handle, option, value); }
CURLcode ccurl_set_data_callback(CURL *handle, CURLoption option, ccurl_data_callback callback) {
    return api.easy_setopt(handle, option, callback);
}
CURLcode ccurl_set_progress_callback(CURL *handle, ccurl_progress_callback callback) {
    return api.easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

CURLcode ccurl_get_long(CURL *handle, CURLINFO info, long *value) { return api.easy_getinfo(handle, info, value); }
CURLcode ccurl_get_offset(CURL *handle, CURLINFO info, curl_off_t *value) { return api.easy_getinfo(handle, info, value); }

CURLcode ccurl_set_socket_callback(CURL *handle, ccurl_socket_callback callback) {
    return api.easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, callback);
}

/* The port and numeric address of a socket address, IPv4 or IPv6; 0 when it is neither. */
static int address_text(const struct sockaddr_storage *address, char *text, size_t size, long *port) {
    if (address->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)address;
        *port = ntohs(in->sin_port);
        return inet_ntop(AF_INET, &in->sin_addr, text, size) != NULL;
    }
    if (address->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)address;
        *port = ntohs(in6->sin6_port);
        return inet_ntop(AF_INET6, &in6->sin6_addr, text, size) != NULL;
    }
    return 0;
}

int ccurl_set_receive_low_water(CURL *handle, curl_socket_t socket, int bytes) {
    long local_port = 0, peer_port = 0, port = 0;
    char *peer_ip = NULL;
    char text[INET6_ADDRSTRLEN];
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    if (api.easy_getinfo(handle, CURLINFO_LOCAL_PORT, &local_port) != CURLE_OK
        || api.easy_getinfo(handle, CURLINFO_PRIMARY_PORT, &peer_port) != CURLE_OK
        || api.easy_getinfo(handle, CURLINFO_PRIMARY_IP, &peer_ip) != CURLE_OK || !peer_ip) return -1;
    if (getsockname(socket, (struct sockaddr *)&address, &length) != 0 || !address_text(&address, text, sizeof text, &port)
        || port != local_port) return -1;
    length = sizeof address;
    if (getpeername(socket, (struct sockaddr *)&address, &length) != 0 || !address_text(&address, text, sizeof text, &port)
        || port != peer_port || strcmp(text, peer_ip) != 0) return -1;
    return setsockopt(socket, SOL_SOCKET, SO_RCVLOWAT, &bytes, sizeof bytes) == 0 ? 0 : -1;
}

int ccurl_message_done(CURLMsg *message, CURL **handle, CURLcode *result) {
    if (message->msg != CURLMSG_DONE) return 0;
    *handle = message->easy_handle;
    *result = message->data.result;
    return 1;
}
