/* What loading libmosquitto costs a process's VmRSS before the fleet sends a byte: the resident kilobytes of
 * each library's mappings (/proc/self/smaps) and VmRSS, after each step. With an argument, that library
 * (libcurl.so.4: what a box playing a stream or a Playola station has loaded) is loaded first, and the steps
 * show what libmosquitto adds to it. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void show(const char *step) {
    char line[512], name[256] = "";
    long crypto = 0, ssl = 0, mosquitto = 0, anonymous = 0, vmrss = 0, kb;
    FILE *smaps = fopen("/proc/self/smaps", "r");
    while (smaps && fgets(line, sizeof line, smaps)) {
        unsigned long from, to;
        char path[256] = "";
        int fields = sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &from, &to, path);
        if (fields >= 2) { strcpy(name, fields == 3 ? path : ""); continue; }
        if (sscanf(line, "Rss: %ld kB", &kb) != 1) continue;
        if (strstr(name, "libcrypto")) crypto += kb;
        else if (strstr(name, "libssl")) ssl += kb;
        else if (strstr(name, "libmosquitto")) mosquitto += kb;
        else if (name[0] == '\0' || name[0] == '[') anonymous += kb;
    }
    if (smaps) fclose(smaps);
    FILE *status = fopen("/proc/self/status", "r");
    while (status && fgets(line, sizeof line, status)) sscanf(line, "VmRSS: %ld", &vmrss);
    if (status) fclose(status);
    printf("| %s | %ld | %ld | %ld | %ld | %ld |\n", step, vmrss, crypto, ssl, mosquitto, anonymous);
}

int main(int argc, char **argv) {
    printf("| step | VmRSS kB | libcrypto | libssl | libmosquitto | anonymous |\n|---|---:|---:|---:|---:|---:|\n");
    show("started");
    if (argc > 1) {
        if (!dlopen(argv[1], RTLD_NOW)) { fprintf(stderr, "%s\n", dlerror()); return 1; }
        show(argv[1]);
    }
    void *library = dlopen("libmosquitto.so.1", RTLD_NOW);
    if (!library) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    show("libmosquitto.so.1 loaded");
    int (*lib_init)(void) = (int (*)(void))dlsym(library, "mosquitto_lib_init");
    void *(*create)(const char *, _Bool, void *) = (void *(*)(const char *, _Bool, void *))dlsym(library, "mosquitto_new");
    int (*tls_set)(void *, const char *, const char *, const char *, const char *, void *) =
        (int (*)(void *, const char *, const char *, const char *, const char *, void *))dlsym(library, "mosquitto_tls_set");
    if (!lib_init || !create || !tls_set) { fprintf(stderr, "libmosquitto lacks a symbol\n"); return 1; }
    lib_init();
    show("mosquitto_lib_init");
    void *client = create("floor", 1, NULL);
    show("mosquitto_new");
    if (tls_set(client, "/etc/ssl/certs/ca-certificates.crt", NULL, NULL, NULL, NULL) != 0) {
        fprintf(stderr, "mosquitto_tls_set failed\n"); return 1;
    }
    show("mosquitto_tls_set (CA file)");
    return 0;
}
