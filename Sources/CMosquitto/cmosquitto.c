#include "cmosquitto.h"

#include <lazy_library.h>
#include <stdio.h>

/* The soname of libmosquitto's ABI 1: libmosquitto1 ships it on bookworm and trixie alike, and the package
   depends on it (packaging/build-deb.sh). */
#define CMOSQUITTO_SONAME "libmosquitto.so.1"

/* Written once, by load() under pthread_once, before any reader can get past cmosquitto_load(): pthread_once
   orders those writes before every later cmosquitto_load() return. */
static struct {
    int (*lib_init)(void);
    struct mosquitto *(*new_client)(const char *id, bool clean_session, void *context);
    void (*destroy)(struct mosquitto *client);
    void (*user_data_set)(struct mosquitto *client, void *context);
    int (*will_set)(struct mosquitto *client, const char *topic, int length, const void *payload, int qos, bool retain);
    int (*username_pw_set)(struct mosquitto *client, const char *user, const char *password);
    int (*tls_set)(struct mosquitto *client, const char *ca_file, const char *ca_path, const char *cert_file, const char *key_file,
                   int (*pw_callback)(char *buf, int size, int rwflag, void *userdata));
    int (*int_option)(struct mosquitto *client, enum mosq_opt_t option, int value);
    int (*connect)(struct mosquitto *client, const char *host, int port, int keepalive);
    int (*disconnect)(struct mosquitto *client);
    int (*publish)(struct mosquitto *client, int *mid, const char *topic, int length, const void *payload, int qos, bool retain);
    int (*subscribe)(struct mosquitto *client, int *mid, const char *pattern, int qos);
    int (*socket)(struct mosquitto *client);
    bool (*want_write)(struct mosquitto *client);
    int (*loop_read)(struct mosquitto *client, int max_packets);
    int (*loop_write)(struct mosquitto *client, int max_packets);
    int (*loop_misc)(struct mosquitto *client);
    void (*connect_callback_set)(struct mosquitto *client, void (*callback)(struct mosquitto *, void *, int));
    void (*disconnect_callback_set)(struct mosquitto *client, void (*callback)(struct mosquitto *, void *, int));
    void (*message_callback_set)(struct mosquitto *client,
                                 void (*callback)(struct mosquitto *, void *, const struct mosquitto_message *));
    void (*log_callback_set)(struct mosquitto *client, void (*callback)(struct mosquitto *, void *, int, const char *));
    const char *(*strerror)(int code);
    const char *(*connack_string)(int code);
} api;
static lazy_library library = LAZY_LIBRARY_INIT;

static void load(void) {
    const lazy_symbol symbols[] = {
        {"mosquitto_lib_init", &api.lib_init}, {"mosquitto_new", &api.new_client},
        {"mosquitto_destroy", &api.destroy}, {"mosquitto_user_data_set", &api.user_data_set},
        {"mosquitto_will_set", &api.will_set},
        {"mosquitto_username_pw_set", &api.username_pw_set}, {"mosquitto_tls_set", &api.tls_set},
        {"mosquitto_int_option", &api.int_option}, {"mosquitto_connect", &api.connect},
        {"mosquitto_disconnect", &api.disconnect}, {"mosquitto_publish", &api.publish},
        {"mosquitto_subscribe", &api.subscribe}, {"mosquitto_socket", &api.socket},
        {"mosquitto_want_write", &api.want_write}, {"mosquitto_loop_read", &api.loop_read},
        {"mosquitto_loop_write", &api.loop_write}, {"mosquitto_loop_misc", &api.loop_misc},
        {"mosquitto_connect_callback_set", &api.connect_callback_set},
        {"mosquitto_disconnect_callback_set", &api.disconnect_callback_set},
        {"mosquitto_message_callback_set", &api.message_callback_set},
        {"mosquitto_log_callback_set", &api.log_callback_set}, {"mosquitto_strerror", &api.strerror}, {"mosquitto_connack_string", &api.connack_string},
    };
    /* Never closed: once a fleet is configured the library stays for the life of the process. */
    lazy_library_open(&library, CMOSQUITTO_SONAME, symbols, sizeof symbols / sizeof *symbols);
    if (!library.loaded) return;
    int code = api.lib_init();
    if (code != MOSQ_ERR_SUCCESS) {
        snprintf(library.error, sizeof library.error, "mosquitto_lib_init failed: %s", api.strerror(code));
        library.loaded = 0;
    }
}

const char *cmosquitto_load(void) { return lazy_library_load(&library, load); }

struct mosquitto *cmosquitto_new(const char *id, bool clean_session, void *context) { return api.new_client(id, clean_session, context); }
void cmosquitto_destroy(struct mosquitto *client) { api.destroy(client); }
void cmosquitto_user_data_set(struct mosquitto *client, void *context) { api.user_data_set(client, context); }
int cmosquitto_will_set(struct mosquitto *client, const char *topic, int length, const void *payload, int qos, bool retain) {
    return api.will_set(client, topic, length, payload, qos, retain);
}
int cmosquitto_username_pw_set(struct mosquitto *client, const char *user, const char *password) {
    return api.username_pw_set(client, user, password);
}
int cmosquitto_tls_set(struct mosquitto *client, const char *ca_file, const char *ca_path, const char *cert_file, const char *key_file) {
    /* No passphrase callback: a key file with a passphrase would make OpenSSL ask on the terminal. */
    return api.tls_set(client, ca_file, ca_path, cert_file, key_file, NULL);
}
int cmosquitto_int_option(struct mosquitto *client, enum mosq_opt_t option, int value) { return api.int_option(client, option, value); }
int cmosquitto_connect(struct mosquitto *client, const char *host, int port, int keepalive) {
    return api.connect(client, host, port, keepalive);
}
int cmosquitto_disconnect(struct mosquitto *client) { return api.disconnect(client); }
int cmosquitto_publish(struct mosquitto *client, const char *topic, int length, const void *payload, int qos, bool retain) {
    return api.publish(client, NULL, topic, length, payload, qos, retain);
}
int cmosquitto_subscribe(struct mosquitto *client, const char *pattern, int qos) { return api.subscribe(client, NULL, pattern, qos); }
int cmosquitto_socket(struct mosquitto *client) { return api.socket(client); }
bool cmosquitto_want_write(struct mosquitto *client) { return api.want_write(client); }
int cmosquitto_loop_read(struct mosquitto *client) { return api.loop_read(client, 1); }
int cmosquitto_loop_write(struct mosquitto *client) { return api.loop_write(client, 1); }
int cmosquitto_loop_misc(struct mosquitto *client) { return api.loop_misc(client); }
void cmosquitto_connect_callback_set(struct mosquitto *client, cmosquitto_connect_callback callback) {
    api.connect_callback_set(client, callback);
}
void cmosquitto_disconnect_callback_set(struct mosquitto *client, cmosquitto_connect_callback callback) {
    api.disconnect_callback_set(client, callback);
}
void cmosquitto_message_callback_set(struct mosquitto *client, cmosquitto_message_callback callback) {
    api.message_callback_set(client, callback);
}
void cmosquitto_log_callback_set(struct mosquitto *client, cmosquitto_log_callback callback) {
    api.log_callback_set(client, callback);
}
const char *cmosquitto_strerror(int code) { return api.strerror(code); }
const char *cmosquitto_connack_string(int code) { return api.connack_string(code); }
