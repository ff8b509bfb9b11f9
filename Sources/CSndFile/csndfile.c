#include "csndfile.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* libsndfile1 ships it in bookworm and trixie; packaging/build-deb.sh adds the package to Depends. */
#define CSF_SONAME "libsndfile.so.1"

/* Written once by load() under pthread_once, which orders the writes before every later csf_load() return. */
static struct {
    SNDFILE *(*open)(const char *, int, SF_INFO *);
    int (*close)(SNDFILE *);
    int (*command)(SNDFILE *, int, void *, int);
    sf_count_t (*readf_float)(SNDFILE *, float *, sf_count_t);
    sf_count_t (*seek)(SNDFILE *, sf_count_t, int);
    int (*error)(SNDFILE *);
    const char *(*strerror)(SNDFILE *);
} api;
static int loaded;
static char load_error[512];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static int resolve(void *library, void *slot, const char *name) {
    void *symbol = dlsym(library, name);
    if (!symbol) {
        snprintf(load_error, sizeof load_error, "%s has no %s", CSF_SONAME, name);
        return 0;
    }
    *(void **)slot = symbol; /* POSIX: dlsym's pointer converts to the function's type. */
    return 1;
}

static void load(void) {
    void *library = dlopen(CSF_SONAME, RTLD_NOW | RTLD_LOCAL); /* never closed */
    if (!library) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load %s: %s", CSF_SONAME, why ? why : "unknown error");
        return;
    }
    if (!resolve(library, &api.open, "sf_open") || !resolve(library, &api.close, "sf_close") ||
        !resolve(library, &api.command, "sf_command") || !resolve(library, &api.readf_float, "sf_readf_float") ||
        !resolve(library, &api.seek, "sf_seek") || !resolve(library, &api.error, "sf_error") ||
        !resolve(library, &api.strerror, "sf_strerror"))
        return;
    loaded = 1;
}

const char *csf_load(void) {
    pthread_once(&load_once, load);
    return loaded ? NULL : load_error;
}

SNDFILE *csf_open(const char *path, int mode, SF_INFO *info) { return api.open(path, mode, info); }
int csf_close(SNDFILE *file) { return api.close(file); }
int csf_command(SNDFILE *file, int command, void *data, int size) { return api.command(file, command, data, size); }
sf_count_t csf_readf_float(SNDFILE *file, float *buffer, sf_count_t frames) { return api.readf_float(file, buffer, frames); }
sf_count_t csf_seek(SNDFILE *file, sf_count_t frames, int whence) { return api.seek(file, frames, whence); }
int csf_error(SNDFILE *file) { return api.error(file); }
const char *csf_strerror(SNDFILE *file) { return api.strerror(file); }
