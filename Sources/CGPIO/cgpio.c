#include "cgpio.h"
#include <gpiod.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libgpiod 2.x dropped the 1.x line API (gpiod_line_*) and added request configs. */
#if defined(GPIOD_LINE_BULK_MAX_LINES)
#define CGPIO_API 1
#else
#define CGPIO_API 2
#endif

/* Events read per call: more than a bounce train leaves queued between two polls. */
#define CGPIO_BATCH 16

struct cgpio_chip {
    struct gpiod_chip *chip;
    char name[32];
    char label[64];
    unsigned int lines;
};

int cgpio_api_version(void) { return CGPIO_API; }

/* What a request asks of its lines: each API below turns it into its own flags or settings, and the public
   request functions at the end are written once for both. */
struct line_setup {
    bool output; /* else an input with edge events */
    bool active_low;
    enum cgpio_bias bias;
};

/* A name the library may give as NULL (an unnamed line, a free one) is copied as "". */
static void copy_text(char *to, size_t size, const char *text) { snprintf(to, size, "%s", text ? text : ""); }

static int by_number(const void *a, const void *b) {
    unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
    return (x > y) - (x < y);
}

/* Both APIs open chips by path only in the end (2.x only by path at all), so listing /dev is shared. */
int cgpio_chip_path(unsigned int index, char *path, size_t size) {
    unsigned long numbers[256];
    size_t count = 0;
    DIR *dir = opendir("/dev");
    if (!dir) return -1;
    struct dirent *entry;
    while ((entry = readdir(dir)) && count < 256) {
        char *end;
        if (strncmp(entry->d_name, "gpiochip", 8) != 0 || !isdigit((unsigned char)entry->d_name[8])) continue;
        unsigned long number = strtoul(entry->d_name + 8, &end, 10);
        if (*end == '\0') numbers[count++] = number;
    }
    closedir(dir);
    if (index >= count) {
        errno = ENOENT;
        return -1;
    }
    qsort(numbers, count, sizeof *numbers, by_number);
    snprintf(path, size, "/dev/gpiochip%lu", numbers[index]);
    return 0;
}

#if CGPIO_API == 1

struct cgpio_request {
    struct gpiod_line_bulk bulk;
    bool events;
};

const char *cgpio_library_version(void) { return gpiod_version_string(); }

static int describe(cgpio_chip *chip) {
    copy_text(chip->name, sizeof chip->name, gpiod_chip_name(chip->chip));
    copy_text(chip->label, sizeof chip->label, gpiod_chip_label(chip->chip));
    chip->lines = gpiod_chip_num_lines(chip->chip);
    return 0;
}

int cgpio_chip_find_line(cgpio_chip *chip, const char *name) {
    struct gpiod_line *line = gpiod_chip_find_line(chip->chip, name);
    return line ? (int)gpiod_line_offset(line) : -1;
}

int cgpio_line_info(cgpio_chip *chip, unsigned int offset, char *name, size_t name_size, char *consumer,
                    size_t consumer_size) {
    struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
    /* The chip caches line info from when it was first asked; the holder may have changed since. */
    if (!line || gpiod_line_update(line) < 0) return -1;
    copy_text(name, name_size, gpiod_line_name(line));
    copy_text(consumer, consumer_size, gpiod_line_consumer(line));
    return gpiod_line_is_used(line) ? 1 : 0;
}

static cgpio_request *request_lines(cgpio_chip *chip, const unsigned int *offsets, size_t count,
                                    struct line_setup setup, const char *consumer) {
    if (count == 0 || count > GPIOD_LINE_BULK_MAX_LINES) {
        errno = EINVAL;
        return NULL;
    }
    int type = setup.output ? GPIOD_LINE_REQUEST_DIRECTION_OUTPUT : GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES;
    int flags = setup.active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    if (setup.bias == CGPIO_BIAS_DISABLE) flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
    if (setup.bias == CGPIO_BIAS_PULL_UP) flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    if (setup.bias == CGPIO_BIAS_PULL_DOWN) flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    cgpio_request *request = calloc(1, sizeof *request);
    if (!request) return NULL;
    request->events = !setup.output;
    unsigned int copy[GPIOD_LINE_BULK_MAX_LINES]; /* 1.6 takes the offsets non-const */
    memcpy(copy, offsets, count * sizeof *offsets);
    struct gpiod_line_request_config config = { .consumer = consumer, .request_type = type, .flags = flags };
    int values[GPIOD_LINE_BULK_MAX_LINES] = { 0 };
    if (gpiod_chip_get_lines(chip->chip, copy, (unsigned int)count, &request->bulk) == 0
        && gpiod_line_request_bulk(&request->bulk, &config, values) == 0)
        return request;
    int saved = errno;
    free(request);
    errno = saved;
    return NULL;
}

void cgpio_request_release(cgpio_request *request) {
    if (!request) return;
    gpiod_line_release_bulk(&request->bulk);
    free(request);
}

size_t cgpio_request_fd_count(const cgpio_request *request) {
    return request->events ? request->bulk.num_lines : 0;
}

int cgpio_request_fd(const cgpio_request *request, size_t index) {
    return gpiod_line_event_get_fd(request->bulk.lines[index]);
}

int cgpio_request_read_events(cgpio_request *request, size_t index, cgpio_event *events, size_t max) {
    struct gpiod_line *line = request->bulk.lines[index];
    struct gpiod_line_event read[CGPIO_BATCH];
    int count = gpiod_line_event_read_multiple(line, read, max < CGPIO_BATCH ? (unsigned int)max : CGPIO_BATCH);
    for (int i = 0; i < count; i++) {
        events[i].timestamp_ns = (uint64_t)read[i].ts.tv_sec * 1000000000u + (uint64_t)read[i].ts.tv_nsec;
        events[i].offset = gpiod_line_offset(line);
        events[i].rising = read[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
    }
    return count;
}

static struct gpiod_line *requested_line(cgpio_request *request, unsigned int offset) {
    for (unsigned int i = 0; i < request->bulk.num_lines; i++)
        if (gpiod_line_offset(request->bulk.lines[i]) == offset) return request->bulk.lines[i];
    errno = EINVAL;
    return NULL;
}

int cgpio_request_get_value(cgpio_request *request, unsigned int offset) {
    struct gpiod_line *line = requested_line(request, offset);
    return line ? gpiod_line_get_value(line) : -1;
}

int cgpio_request_set_value(cgpio_request *request, unsigned int offset, bool active) {
    struct gpiod_line *line = requested_line(request, offset);
    return line ? gpiod_line_set_value(line, active) : -1;
}

#else /* libgpiod 2.x */

struct cgpio_request {
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *events;
};

const char *cgpio_library_version(void) { return gpiod_api_version(); }

static int describe(cgpio_chip *chip) {
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip->chip);
    if (!info) return -1;
    copy_text(chip->name, sizeof chip->name, gpiod_chip_info_get_name(info));
    copy_text(chip->label, sizeof chip->label, gpiod_chip_info_get_label(info));
    chip->lines = (unsigned int)gpiod_chip_info_get_num_lines(info);
    gpiod_chip_info_free(info);
    return 0;
}

int cgpio_chip_find_line(cgpio_chip *chip, const char *name) {
    return gpiod_chip_get_line_offset_from_name(chip->chip, name);
}

int cgpio_line_info(cgpio_chip *chip, unsigned int offset, char *name, size_t name_size, char *consumer,
                    size_t consumer_size) {
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip->chip, offset);
    if (!info) return -1;
    copy_text(name, name_size, gpiod_line_info_get_name(info));
    copy_text(consumer, consumer_size, gpiod_line_info_get_consumer(info));
    int used = gpiod_line_info_is_used(info) ? 1 : 0;
    gpiod_line_info_free(info);
    return used;
}

/* The settings `setup` asks for; NULL when there is no memory for them. */
static struct gpiod_line_settings *line_settings(struct line_setup setup) {
    static const enum gpiod_line_bias biases[] = {
        [CGPIO_BIAS_AS_IS] = GPIOD_LINE_BIAS_AS_IS, [CGPIO_BIAS_DISABLE] = GPIOD_LINE_BIAS_DISABLED,
        [CGPIO_BIAS_PULL_UP] = GPIOD_LINE_BIAS_PULL_UP, [CGPIO_BIAS_PULL_DOWN] = GPIOD_LINE_BIAS_PULL_DOWN,
    };
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (!settings) return NULL;
    if (setup.output) {
        gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT);
        gpiod_line_settings_set_output_value(settings, GPIOD_LINE_VALUE_INACTIVE);
        return settings;
    }
    gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT);
    gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH);
    gpiod_line_settings_set_active_low(settings, setup.active_low);
    gpiod_line_settings_set_bias(settings, biases[setup.bias]);
    /* The default already, but the Swift side compares timestamps with CLOCK_MONOTONIC. */
    gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC);
    return settings;
}

static cgpio_request *request_lines(cgpio_chip *chip, const unsigned int *offsets, size_t count,
                                    struct line_setup setup, const char *consumer) {
    struct gpiod_line_settings *settings = line_settings(setup);
    bool events = !setup.output;
    cgpio_request *request = calloc(1, sizeof *request);
    struct gpiod_line_config *lines = gpiod_line_config_new();
    struct gpiod_request_config *config = gpiod_request_config_new();
    if (request && settings && lines && config
        && gpiod_line_config_add_line_settings(lines, offsets, count, settings) == 0) {
        gpiod_request_config_set_consumer(config, consumer);
        request->request = gpiod_chip_request_lines(chip->chip, config, lines);
        if (request->request && events) request->events = gpiod_edge_event_buffer_new(CGPIO_BATCH);
    }
    int saved = errno;
    gpiod_request_config_free(config);
    gpiod_line_config_free(lines);
    gpiod_line_settings_free(settings);
    if (request && request->request && (!events || request->events)) return request;
    cgpio_request_release(request);
    errno = saved;
    return NULL;
}

void cgpio_request_release(cgpio_request *request) {
    if (!request) return;
    if (request->events) gpiod_edge_event_buffer_free(request->events);
    if (request->request) gpiod_line_request_release(request->request);
    free(request);
}

size_t cgpio_request_fd_count(const cgpio_request *request) { return request->events ? 1 : 0; }

int cgpio_request_fd(const cgpio_request *request, size_t index) {
    (void)index;
    return gpiod_line_request_get_fd(request->request);
}

int cgpio_request_read_events(cgpio_request *request, size_t index, cgpio_event *events, size_t max) {
    (void)index;
    int count = gpiod_line_request_read_edge_events(request->request, request->events,
                                                    max < CGPIO_BATCH ? max : CGPIO_BATCH);
    for (int i = 0; i < count; i++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(request->events, (unsigned long)i);
        events[i].timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
        events[i].offset = gpiod_edge_event_get_line_offset(event);
        events[i].rising = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE;
    }
    return count;
}

int cgpio_request_get_value(cgpio_request *request, unsigned int offset) {
    return (int)gpiod_line_request_get_value(request->request, offset);
}

int cgpio_request_set_value(cgpio_request *request, unsigned int offset, bool active) {
    return gpiod_line_request_set_value(request->request, offset,
                                        active ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
}

#endif

/* Everything below works on both APIs through the functions above. */

cgpio_request *cgpio_request_input(cgpio_chip *chip, const unsigned int *offsets, size_t count, bool active_low,
                                   enum cgpio_bias bias, const char *consumer) {
    return request_lines(chip, offsets, count, (struct line_setup){ .active_low = active_low, .bias = bias }, consumer);
}

cgpio_request *cgpio_request_output(cgpio_chip *chip, const unsigned int *offsets, size_t count,
                                    const char *consumer) {
    return request_lines(chip, offsets, count, (struct line_setup){ .output = true }, consumer);
}

static cgpio_chip *open_path(const char *path) {
    cgpio_chip *chip = calloc(1, sizeof *chip);
    if (!chip) return NULL;
    chip->chip = gpiod_chip_open(path);
    if (chip->chip && describe(chip) == 0) return chip;
    int saved = errno;
    cgpio_chip_close(chip);
    errno = saved;
    return NULL;
}

cgpio_chip *cgpio_chip_open(const char *spec) {
    char path[64];
    if (!spec || !*spec) {
        errno = ENOENT;
        return NULL;
    }
    if (spec[0] == '/') return open_path(spec);
    bool number = strspn(spec, "0123456789") == strlen(spec);
    snprintf(path, sizeof path, number ? "/dev/gpiochip%s" : "/dev/%s", spec);
    if (strncmp(path, "/dev/gpiochip", 13) == 0 && access(path, F_OK) == 0) return open_path(path);
    /* A label: the kernel does not index them, so ask every chip. */
    for (unsigned int i = 0; cgpio_chip_path(i, path, sizeof path) == 0; i++) {
        cgpio_chip *chip = open_path(path);
        if (chip && strcmp(chip->label, spec) == 0) return chip;
        cgpio_chip_close(chip);
    }
    errno = ENOENT;
    return NULL;
}

void cgpio_chip_close(cgpio_chip *chip) {
    if (!chip) return;
    if (chip->chip) gpiod_chip_close(chip->chip);
    free(chip);
}

const char *cgpio_chip_name(const cgpio_chip *chip) { return chip->name; }
const char *cgpio_chip_label(const cgpio_chip *chip) { return chip->label; }
unsigned int cgpio_chip_num_lines(const cgpio_chip *chip) { return chip->lines; }

/* Not 1.6's gpiod_line_find: that gives up at the first chip it cannot open. */
int cgpio_find_line(const char *name, char *chip_name, size_t size) {
    char path[64];
    int failure = ENOENT;
    for (unsigned int i = 0; cgpio_chip_path(i, path, sizeof path) == 0; i++) {
        cgpio_chip *chip = open_path(path);
        if (!chip) {
            failure = errno;
            continue;
        }
        int offset = cgpio_chip_find_line(chip, name);
        if (offset >= 0) copy_text(chip_name, size, chip->name);
        cgpio_chip_close(chip);
        if (offset >= 0) return offset;
    }
    errno = failure;
    return -1;
}
