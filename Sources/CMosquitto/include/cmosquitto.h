#ifndef CMOSQUITTO_H
#define CMOSQUITTO_H
/* libmosquitto, loaded when [fleet] is first set (dlopen), not when playola starts: a box without a fleet never
   maps it nor the OpenSSL it links. The binary names libmosquitto only here; Swift calls these cmosquitto_
   functions, one per libmosquitto call it makes (PlayolaFleet's MQTTClient, the one caller). mosquitto.h
   gives the types and constants. */
#include <mosquitto.h>

/* Loads libmosquitto.so.1 and runs mosquitto_lib_init, once (thread-safe). NULL when loaded; else why not
   (the same text at every call). Every other function here may be called only after it returned NULL. */
const char *cmosquitto_load(void);

typedef void (*cmosquitto_connect_callback)(struct mosquitto *client, void *context, int code);
typedef void (*cmosquitto_message_callback)(struct mosquitto *client, void *context, const struct mosquitto_message *message);

struct mosquitto *cmosquitto_new(const char *id, bool clean_session, void *context);
void cmosquitto_destroy(struct mosquitto *client);
void cmosquitto_user_data_set(struct mosquitto *client, void *context);
int cmosquitto_will_set(struct mosquitto *client, const char *topic, int length, const void *payload, int qos, bool retain);
int cmosquitto_username_pw_set(struct mosquitto *client, const char *user, const char *password);
int cmosquitto_tls_set(struct mosquitto *client, const char *ca_file, const char *ca_path, const char *cert_file, const char *key_file);
int cmosquitto_int_option(struct mosquitto *client, enum mosq_opt_t option, int value);
int cmosquitto_connect(struct mosquitto *client, const char *host, int port, int keepalive);
int cmosquitto_disconnect(struct mosquitto *client);
int cmosquitto_publish(struct mosquitto *client, const char *topic, int length, const void *payload, int qos, bool retain);
int cmosquitto_subscribe(struct mosquitto *client, const char *pattern, int qos);
int cmosquitto_socket(struct mosquitto *client);
bool cmosquitto_want_write(struct mosquitto *client);
int cmosquitto_loop_read(struct mosquitto *client);
int cmosquitto_loop_write(struct mosquitto *client);
int cmosquitto_loop_misc(struct mosquitto *client);
void cmosquitto_connect_callback_set(struct mosquitto *client, cmosquitto_connect_callback callback);
void cmosquitto_disconnect_callback_set(struct mosquitto *client, cmosquitto_connect_callback callback);
typedef void (*cmosquitto_log_callback)(struct mosquitto *client, void *context, int level, const char *text);
void cmosquitto_log_callback_set(struct mosquitto *client, cmosquitto_log_callback callback);
void cmosquitto_message_callback_set(struct mosquitto *client, cmosquitto_message_callback callback);
const char *cmosquitto_strerror(int code);
const char *cmosquitto_connack_string(int code);

#endif
