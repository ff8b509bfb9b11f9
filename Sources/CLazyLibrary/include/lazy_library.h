#ifndef LAZY_LIBRARY_H
#define LAZY_LIBRARY_H
/* A C library loaded (dlopen) when it is first needed rather than linked, so that a process that never needs it
   never maps it nor what it links (bench/PROFILE.md, "Memory"): CCurl, CSndFile and CSoxr each keep a table of
   the library's functions that this fills. */
#include <stddef.h>

typedef struct {
    const char *name; /* the symbol */
    void *slot;       /* where its address goes: a pointer to a function pointer of the symbol's type */
} lazy_symbol;

/* Opens `soname` (never closed) and resolves each symbol into its slot. Returns 1; or 0, with why in `error`
   (`size` bytes). Call it once (pthread_once): the slots are written before it returns. */
int lazy_library_open(const char *soname, const lazy_symbol *symbols, size_t count, char *error, size_t size);

#endif
