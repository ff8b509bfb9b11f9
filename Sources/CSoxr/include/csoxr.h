#ifndef CSOXR_H
#define CSOXR_H
/* libsoxr, loaded (dlopen) when the first resampler is made, not when playola starts: with the OpenMP
   runtime it links (libgomp) it was ~0.4 MiB resident in every process, one whose device takes its files'
   rate too (bench/PROFILE.md, "Memory"). Swift calls these csoxr_ functions, one per libsoxr call. */
#include <soxr.h>

/* Loads libsoxr.so.0, once (thread-safe). NULL when loaded; else why not (the same text at every call).
   The other functions here may be called only after it returned NULL. */
const char *csoxr_load(void);

soxr_io_spec_t csoxr_io_spec(soxr_datatype_t input, soxr_datatype_t output);
soxr_quality_spec_t csoxr_quality_spec(unsigned long recipe, unsigned long flags);
soxr_t csoxr_create(double input_rate, double output_rate, unsigned channels, soxr_error_t *error,
                    soxr_io_spec_t const *io, soxr_quality_spec_t const *quality, soxr_runtime_spec_t const *runtime);
soxr_error_t csoxr_process(soxr_t resampler, soxr_in_t input, size_t input_frames, size_t *consumed,
                           soxr_out_t output, size_t output_frames, size_t *produced);
void csoxr_delete(soxr_t resampler);

#endif
