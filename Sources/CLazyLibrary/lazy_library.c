#include "lazy_library.h"

#include <dlfcn.h>
#include <stdio.h>

int lazy_library_open(const char *soname, const lazy_symbol *symbols, size_t count, char *error, size_t size) {
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(error, size, "cannot load %s: %s", soname, why ? why : "unknown error");
        return 0;
    }
    for (size_t index = 0; index < count; index++) {
        void *symbol = dlsym(library, symbols[index].name);
        if (!symbol) {
            snprintf(error, size, "%s has no %s", soname, symbols[index].name);
            return 0;
        }
        /* POSIX: the data pointer dlsym returns converts to a function pointer of the symbol's type. */
        *(void **)symbols[index].slot = symbol;
    }
    return 1;
}
