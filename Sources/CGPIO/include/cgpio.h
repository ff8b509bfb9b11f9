#ifndef CGPIO_H
#define CGPIO_H
/* The one place that knows which libgpiod API the build found (1.6 on Debian 12, 2.x elsewhere).
   Swift code calls only these functions, so the rest of the appliance is version-independent. */

/** The major API version of libgpiod this module was compiled against: 1 or 2. */
int cgpio_api_version(void);

/** The version string of the libgpiod that is loaded at run time. */
const char *cgpio_library_version(void);

#endif
