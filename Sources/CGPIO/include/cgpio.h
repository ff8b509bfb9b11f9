#ifndef CGPIO_H
#define CGPIO_H
/* The one place that knows which libgpiod API the build found (1.6 on Debian 12, 2.x elsewhere).
   Swift code calls only these functions, so the rest of the appliance is version-independent.
   Failures return NULL or -1 with errno set, as libgpiod does. Values and edges are logical: inverted
   when the lines were requested active-low. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cgpio_chip cgpio_chip;
/** Lines of one chip requested together: all inputs or all outputs. */
typedef struct cgpio_request cgpio_request;

enum cgpio_bias { CGPIO_BIAS_AS_IS = 0, CGPIO_BIAS_DISABLE, CGPIO_BIAS_PULL_UP, CGPIO_BIAS_PULL_DOWN };

typedef struct {
    /** CLOCK_MONOTONIC on kernels since 5.7; the wall clock before that. */
    uint64_t timestamp_ns;
    unsigned int offset;
    bool rising;
} cgpio_event;

/** The major API version of libgpiod this module was compiled against: 1 or 2. */
int cgpio_api_version(void);

/** The version string of the libgpiod that is loaded at run time. */
const char *cgpio_library_version(void);

/** Writes the path of the index-th chip in /dev, in chip number order; -1 when there are fewer chips. */
int cgpio_chip_path(unsigned int index, char *path, size_t size);

/** A chip by path (/dev/gpiochip0), name (gpiochip0), number (0) or label (pinctrl-bcm2711). ENOENT: none. */
cgpio_chip *cgpio_chip_open(const char *chip);
void cgpio_chip_close(cgpio_chip *chip);
const char *cgpio_chip_name(const cgpio_chip *chip);
const char *cgpio_chip_label(const cgpio_chip *chip);
unsigned int cgpio_chip_num_lines(const cgpio_chip *chip);

/** The offset of the first line with this name on the chip, or -1 (ENOENT). */
int cgpio_chip_find_line(cgpio_chip *chip, const char *name);

/** Finds a line by name on every chip: writes the chip's name and returns the offset, or -1 (ENOENT, or
    the error of a chip that could not be opened, as the line may be there). */
int cgpio_find_line(const char *name, char *chip_name, size_t size);

/** Copies the line's name and consumer ("" when none); 1 when the line is in use, 0 when free, -1. */
int cgpio_line_info(cgpio_chip *chip, unsigned int offset, char *name, size_t name_size, char *consumer,
                    size_t consumer_size);

/** Inputs reporting both edges. */
cgpio_request *cgpio_request_input(cgpio_chip *chip, const unsigned int *offsets, size_t count, bool active_low,
                                   enum cgpio_bias bias, const char *consumer);
/** Outputs, driven inactive. */
cgpio_request *cgpio_request_output(cgpio_chip *chip, const unsigned int *offsets, size_t count,
                                    const char *consumer);
void cgpio_request_release(cgpio_request *request);

/** Event file descriptors to poll: one per line on libgpiod 1.x, one per request on 2.x. */
size_t cgpio_request_fd_count(const cgpio_request *request);
int cgpio_request_fd(const cgpio_request *request, size_t index);

/** Reads up to max pending events from the fd at index (blocks when there are none); the count, or -1. */
int cgpio_request_read_events(cgpio_request *request, size_t index, cgpio_event *events, size_t max);

/** 0 or 1, or -1. */
int cgpio_request_get_value(cgpio_request *request, unsigned int offset);
int cgpio_request_set_value(cgpio_request *request, unsigned int offset, bool active);

#endif
