#ifndef CALSAQUIET_H
#define CALSAQUIET_H
/* alsa-lib prints its own error lines to stderr (e.g. "ALSA lib pcm.c:2666: Unknown PCM default") before
   returning the error code we report ourselves, with context. Its handler type is variadic, which Swift
   cannot implement: this installs one that drops the lines. */
void calsa_silence_library_errors(void);
#endif
