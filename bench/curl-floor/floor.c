/* What Debian's libcurl costs a process's VmRSS for one plain-http transfer, as the appliance loads it
 * (dlopen, RTLD_NOW | RTLD_LOCAL, when the first transfer starts): VmRSS and the resident kilobytes of
 * libcurl's own mapping, of the libraries it brings (every file mapping that was not there before it was
 * loaded) and of anonymous memory, after each step. The transfer (argv[1], an http:// URL) is read for
 * argv[2] seconds into a callback that drops it, as a stream's first seconds are. argv[3], if given, is another
 * flavour's soname (libcurl-gnutls.so.4, libcurl-nss.so.4) in place of libcurl.so.4. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BEFORE 256
static char before[MAX_BEFORE][256];
static int beforeCount = 0;

static int wasThere(const char *path) {
    for (int i = 0; i < beforeCount; i++) if (strcmp(before[i], path) == 0) return 1;
    return 0;
}

static void show(const char *step, int remember) {
    char line[512], name[256] = "";
    long curl = 0, closure = 0, others = 0, anonymous = 0, vmrss = 0, kb;
    FILE *smaps = fopen("/proc/self/smaps", "r");
    while (smaps && fgets(line, sizeof line, smaps)) {
        unsigned long from, to;
        char path[256] = "";
        int fields = sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &from, &to, path);
        if (fields >= 2) {
            strcpy(name, fields == 3 ? path : "");
            if (remember && name[0] == '/' && !wasThere(name) && beforeCount < MAX_BEFORE) strcpy(before[beforeCount++], name);
            continue;
        }
        if (sscanf(line, "Rss: %ld kB", &kb) != 1) continue;
        if (strstr(name, "libcurl")) curl += kb;
        else if (name[0] == '\0' || name[0] == '[') anonymous += kb;
        else if (wasThere(name)) others += kb;
        else closure += kb;
    }
    if (smaps) fclose(smaps);
    FILE *status = fopen("/proc/self/status", "r");
    while (status && fgets(line, sizeof line, status)) sscanf(line, "VmRSS: %ld", &vmrss);
    if (status) fclose(status);
    printf("| %s | %ld | %ld | %ld | %ld | %ld |\n", step, vmrss, curl, closure, anonymous, others);
}

static size_t drop(char *data, size_t size, size_t count, void *context) {
    (void)data; (void)context;
    return size * count;
}

typedef void CURL;
int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: floor http://URL SECONDS [SONAME]\n"); return 2; }
    const char *soname = argc > 3 ? argv[3] : "libcurl.so.4";
    printf("| step | VmRSS kB | libcurl | the libraries it brings | anonymous | the rest |\n|---|---:|---:|---:|---:|---:|\n");
    show("started", 1);
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!library) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    char step[128];
    snprintf(step, sizeof step, "`dlopen(\"%s\")`", soname);
    show(step, 0);
    int (*global_init)(long) = (int (*)(long))dlsym(library, "curl_global_init");
    CURL *(*easy_init)(void) = (CURL *(*)(void))dlsym(library, "curl_easy_init");
    int (*setopt)(CURL *, int, ...) = (int (*)(CURL *, int, ...))dlsym(library, "curl_easy_setopt");
    int (*perform)(CURL *) = (int (*)(CURL *))dlsym(library, "curl_easy_perform");
    if (!global_init || !easy_init || !setopt || !perform) { fprintf(stderr, "libcurl lacks a symbol\n"); return 1; }
    global_init(3 /* CURL_GLOBAL_DEFAULT */);
    show("`curl_global_init`", 0);
    CURL *easy = easy_init();
    setopt(easy, 10002 /* CURLOPT_URL */, argv[1]);
    setopt(easy, 20011 /* CURLOPT_WRITEFUNCTION */, drop);
    setopt(easy, 155 /* CURLOPT_TIMEOUT_MS */, atol(argv[2]) * 1000L);
    perform(easy); /* ends by its timeout: the stream never does */
    snprintf(step, sizeof step, "%s s of an http stream from loopback", argv[2]);
    show(step, 0);
    return 0;
}
