/* libsoxr alone, as the appliance runs it for a file at another rate than the mix (Resampler.swift: interleaved
 * stereo Float32, soxr's 16-bit recipe, 1024 frames a call): reads raw interleaved Float32 stereo (argv[1]) into
 * memory, converts it from argv[2] Hz to argv[3] Hz, and prints the CPU seconds of the conversion alone. */
#include <soxr.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpuSeconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return now.tv_sec + now.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: soxr RAW_FLOAT_STEREO FROM_HZ TO_HZ\n"); return 2; }
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 1; }
    fseek(file, 0, SEEK_END);
    long bytes = ftell(file);
    rewind(file);
    float *input = malloc(bytes);
    if (!input || fread(input, 1, bytes, file) != (size_t)bytes) { fprintf(stderr, "cannot read %s\n", argv[1]); return 1; }
    fclose(file);
    size_t frames = bytes / 8, chunk = 1024, room = 4 * (chunk * 2 + 64), done = 0, produced = 0;
    float *output = malloc(room * 8);
    soxr_error_t error = NULL;
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    soxr_quality_spec_t quality = soxr_quality_spec(SOXR_16_BITQ, 0);
    soxr_t soxr = soxr_create(atof(argv[2]), atof(argv[3]), 2, &error, &io, &quality, NULL);
    if (error) { fprintf(stderr, "soxr: %s\n", error); return 1; }
    double start = cpuSeconds();
    while (done < frames) {
        size_t used = 0, made = 0, count = frames - done < chunk ? frames - done : chunk;
        soxr_process(soxr, input + 2 * done, count, &used, output, room, &made);
        done += used;
        produced += made;
    }
    for (size_t made = 1; made > 0;) soxr_process(soxr, NULL, 0, NULL, output, room, &made), produced += made;
    printf("%.3f %zu\n", cpuSeconds() - start, produced);
    soxr_delete(soxr);
    return 0;
}
