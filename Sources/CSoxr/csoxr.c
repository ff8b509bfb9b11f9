#include "csoxr.h"

#include <lazy_library.h>

/* libsoxr0 ships it in bookworm and trixie; packaging/build-deb.sh adds the package to Depends. */
#define CSOXR_SONAME "libsoxr.so.0"

/* Written once, by load() (lazy_library.h). */
static struct {
    soxr_io_spec_t (*io_spec)(soxr_datatype_t, soxr_datatype_t);
    soxr_quality_spec_t (*quality_spec)(unsigned long, unsigned long);
    soxr_t (*create)(double, double, unsigned, soxr_error_t *, soxr_io_spec_t const *, soxr_quality_spec_t const *,
                     soxr_runtime_spec_t const *);
    soxr_error_t (*process)(soxr_t, soxr_in_t, size_t, size_t *, soxr_out_t, size_t, size_t *);
    void (*delete)(soxr_t);
} api;
static lazy_library library = LAZY_LIBRARY_INIT;

static void load(void) {
    const lazy_symbol symbols[] = {
        {"soxr_io_spec", &api.io_spec}, {"soxr_quality_spec", &api.quality_spec}, {"soxr_create", &api.create},
        {"soxr_process", &api.process}, {"soxr_delete", &api.delete},
    };
    lazy_library_open(&library, CSOXR_SONAME, symbols, sizeof symbols / sizeof *symbols);
}

const char *csoxr_load(void) { return lazy_library_load(&library, load); }

soxr_io_spec_t csoxr_io_spec(soxr_datatype_t input, soxr_datatype_t output) { return api.io_spec(input, output); }
soxr_quality_spec_t csoxr_quality_spec(unsigned long recipe, unsigned long flags) { return api.quality_spec(recipe, flags); }
soxr_t csoxr_create(double input_rate, double output_rate, unsigned channels, soxr_error_t *error,
                    soxr_io_spec_t const *io, soxr_quality_spec_t const *quality, soxr_runtime_spec_t const *runtime) {
    return api.create(input_rate, output_rate, channels, error, io, quality, runtime);
}
soxr_error_t csoxr_process(soxr_t resampler, soxr_in_t input, size_t input_frames, size_t *consumed,
                           soxr_out_t output, size_t output_frames, size_t *produced) {
    return api.process(resampler, input, input_frames, consumed, output, output_frames, produced);
}
void csoxr_delete(soxr_t resampler) { api.delete(resampler); }
