#include "cgpio.h"
#include <gpiod.h>

/* libgpiod 2.x dropped the 1.x line API (gpiod_line_*) and added request configs. */
#if defined(GPIOD_LINE_BULK_MAX_LINES)
#define CGPIO_API 1
#else
#define CGPIO_API 2
#endif

int cgpio_api_version(void) { return CGPIO_API; }

const char *cgpio_library_version(void) { return gpiod_version_string(); }
