#ifndef SAMPLE_CONVERT_H
#define SAMPLE_CONVERT_H
/* Float samples to little-endian integers for the sink, every sample of the mix on the render thread. In C
   because the compiler vectorizes it here: Swift's float-to-integer conversions check for overflow, one branch
   per sample, and ran at ~31 instructions a sample (callgrind: 14 % of rendering an AAC file, as much as
   any single function of faad's; bench/PROFILE.md, issue 31). The arithmetic is SampleFormat's, exactly: the
   sample clamped to [-1, 1] (NaN to -1), times `full` in double, rounded half away from zero. */
#include <stddef.h>
#include <stdint.h>

/* `full` 32767. */
void sample_convert_s16(const float *source, int16_t *destination, size_t count);
/* `full` 8388607 (24-bit in 4 bytes) or 2147483647 (32-bit). */
void sample_convert_s32(const float *source, int32_t *destination, size_t count, double full);
#endif
