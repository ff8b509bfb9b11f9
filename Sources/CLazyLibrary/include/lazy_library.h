#ifndef LAZY_LIBRARY_H
#define LAZY_LIBRARY_H
/* A C library loaded (dlopen) when it is first needed rather than linked, so that a process that never needs it
   never maps it nor what it links (bench/PROFILE.md, "Memory"): CCurl, CSndFile and CSoxr each keep a table of
   the library's functions that this fills. */
#include <pthread.h>
#include <stddef.h>

typedef struct {
    const char *name; /* the symbol */
    void *slot;       /* where its address goes: a pointer to a function pointer of the symbol's type */
} lazy_symbol;

/* One library's loading: done once (pthread_once, which orders the table's writes before every later return
   of the shim's load function); `loaded`, else `error` says why not. */
typedef struct {
    pthread_once_t once;
    int loaded;
    char error[512];
} lazy_library;
#define LAZY_LIBRARY_INIT { PTHREAD_ONCE_INIT, 0, "" }

/* Opens `soname` (never closed) and resolves each symbol into its slot; sets `library->loaded`, or writes why
   not into `library->error`. Called from the shim's pthread_once routine. */
void lazy_library_open(lazy_library *library, const char *soname, const lazy_symbol *symbols, size_t count);

/* The shim's load call: runs `load` once; NULL when the library is loaded, else why not (the same each call). */
const char *lazy_library_load(lazy_library *library, void (*load)(void));

#endif
