#include "sample_convert.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the sinks write little-endian samples as the host stores them");

/* Swift's max(-1, s) then min(1, ·), as SampleFormat wrote them: NaN fails both comparisons and becomes -1. The
   result is within ±(full + 0.5), so the int32 conversion is defined. */
static inline int32_t scaled(float sample, double full) {
    float low = sample >= -1.0f ? sample : -1.0f;
    float clamped = low < 1.0f ? low : 1.0f;
    double value = (double)clamped * full;
    return (int32_t)(value + (value < 0 ? -0.5 : 0.5));
}

void sample_convert_s16(const float *source, int16_t *destination, size_t count) {
    for (size_t index = 0; index < count; index++) destination[index] = (int16_t)scaled(source[index], 32767.0);
}

void sample_convert_s32(const float *source, int32_t *destination, size_t count, double full) {
    for (size_t index = 0; index < count; index++) destination[index] = scaled(source[index], full);
}
