#include "lazy_library.h"

#include <dlfcn.h>
#include <stdio.h>

void lazy_library_open(lazy_library *library, const char *soname, const lazy_symbol *symbols, size_t count) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(library->error, sizeof library->error, "cannot load %s: %s", soname, why ? why : "unknown error");
        return;
    }
    for (size_t index = 0; index < count; index++) {
        void *symbol = dlsym(handle, symbols[index].name);
        if (!symbol) {
            snprintf(library->error, sizeof library->error, "%s has no %s", soname, symbols[index].name);
            return;
        }
        /* POSIX: the data pointer dlsym returns converts to a function pointer of the symbol's type. */
        *(void **)symbols[index].slot = symbol;
    }
    library->loaded = 1;
}

const char *lazy_library_load(lazy_library *library, void (*load)(void)) {
    pthread_once(&library->once, load);
    return library->loaded ? NULL : library->error;
}
