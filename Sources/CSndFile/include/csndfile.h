#ifndef CSNDFILE_H
#define CSNDFILE_H
/* libsndfile, loaded (dlopen) when the first file it decodes (WAV, FLAC, ...) is opened, not when playola
   starts: with the encoders it links (libvorbisenc, libFLAC, libmp3lame) it was ~0.5 MiB resident in every
   process, one playing MP3 or AAC too (bench/PROFILE.md, "Memory"). Swift calls these csf_ functions, one
   per libsndfile call. */
#include <sndfile.h>

/* Loads libsndfile.so.1, once (thread-safe). NULL when loaded; else why not (the same text at every call).
   The other functions here may be called only after it returned NULL. */
const char *csf_load(void);

SNDFILE *csf_open(const char *path, int mode, SF_INFO *info);
int csf_close(SNDFILE *file);
int csf_command(SNDFILE *file, int command, void *data, int size);
sf_count_t csf_readf_float(SNDFILE *file, float *buffer, sf_count_t frames);
sf_count_t csf_seek(SNDFILE *file, sf_count_t frames, int whence);
int csf_error(SNDFILE *file);
const char *csf_strerror(SNDFILE *file);

#endif
