#include "csndfile.h"

#include <lazy_library.h>

/* libsndfile1 ships it in bookworm and trixie; packaging/build-deb.sh adds the package to Depends. */
#define CSF_SONAME "libsndfile.so.1"

/* Written once, by load() (lazy_library.h). */
static struct {
    SNDFILE *(*open)(const char *, int, SF_INFO *);
    int (*close)(SNDFILE *);
    int (*command)(SNDFILE *, int, void *, int);
    sf_count_t (*readf_float)(SNDFILE *, float *, sf_count_t);
    sf_count_t (*seek)(SNDFILE *, sf_count_t, int);
    int (*error)(SNDFILE *);
    const char *(*strerror)(SNDFILE *);
} api;
static lazy_library library = LAZY_LIBRARY_INIT;

static void load(void) {
    const lazy_symbol symbols[] = {
        {"sf_open", &api.open}, {"sf_close", &api.close}, {"sf_command", &api.command},
        {"sf_readf_float", &api.readf_float}, {"sf_seek", &api.seek}, {"sf_error", &api.error},
        {"sf_strerror", &api.strerror},
    };
    lazy_library_open(&library, CSF_SONAME, symbols, sizeof symbols / sizeof *symbols);
}

const char *csf_load(void) { return lazy_library_load(&library, load); }

SNDFILE *csf_open(const char *path, int mode, SF_INFO *info) { return api.open(path, mode, info); }
int csf_close(SNDFILE *file) { return api.close(file); }
int csf_command(SNDFILE *file, int command, void *data, int size) { return api.command(file, command, data, size); }
sf_count_t csf_readf_float(SNDFILE *file, float *buffer, sf_count_t frames) { return api.readf_float(file, buffer, frames); }
sf_count_t csf_seek(SNDFILE *file, sf_count_t frames, int whence) { return api.seek(file, frames, whence); }
int csf_error(SNDFILE *file) { return api.error(file); }
const char *csf_strerror(SNDFILE *file) { return api.strerror(file); }
