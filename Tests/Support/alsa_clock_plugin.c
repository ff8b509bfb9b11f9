/*
 * A test sound card for alsa-lib (an ioplug external plugin): it plays at real time from a ring of
 * `buffer_size` frames, as a DMA buffer does, so `snd_pcm_delay` and `snd_pcm_rewind` mean what they mean on
 * hardware. Options:
 *   capture FILE  each frame is appended to FILE (or a FIFO) when the clock plays it, not when it is written.
 *                 alsa-lib's `file` plugin behind `null` cannot stand in for this: it writes what it is given
 *                 one buffer late and in bursts, and after a rewind holds the new frames back another ~0.2 s.
 *   flag FILE     while FILE exists the card stops taking frames and stops interrupting, as a wedged DAC or
 *                 a stalled dmix does (writes find no room, poll times out); when it goes, the card runs again.
 *
 *   pcm_type.playola_clock { lib "/path/libasound_module_pcm_playola_clock.so" }
 *   pcm.card { type playola_clock capture "/path/capture.raw" }
 *
 * S16_LE stereo at 44.1 or 48 kHz. Built by bench/startup.sh, StartFromSilenceTests and ALSASinkTests:
 * cc -shared -fPIC -DPIC ... -lasound.
 */
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    snd_pcm_ioplug_t io;
    int timer;
    int capture;               /* -1: none */
    char *flag;                /* NULL: none */
    int running;
    int armed;
    double started;            /* monotonic seconds at start */
    snd_pcm_uframes_t base;    /* frames played before `started` */
    snd_pcm_uframes_t played;  /* frames played so far (absolute, as io->appl_ptr) */
    int16_t *ring;             /* buffer_size frames, indexed by absolute frame % buffer_size */
} card_t;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void arm(card_t *c, int on) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    spec.it_interval.tv_nsec = spec.it_value.tv_nsec = on ? 5000000 : 0;
    timerfd_settime(c->timer, 0, &spec, NULL);
    c->armed = on;
}

/* Plays (appends to the capture) what the clock has reached since the last call, never past what was
 * written: a card that runs dry stops there (this one waits instead of an underrun). Frozen, it stands. */
static void update(card_t *c) {
    if (!c->running) return;
    if (c->flag && access(c->flag, F_OK) == 0) {
        arm(c, 0);
        c->base = c->played;
        c->started = now();
        return;
    }
    if (!c->armed) arm(c, 1);
    snd_pcm_uframes_t target = c->base + (snd_pcm_uframes_t)((now() - c->started) * c->io.rate);
    if (target > c->io.appl_ptr) target = c->io.appl_ptr;
    while (c->played < target) {
        snd_pcm_uframes_t at = c->played % c->io.buffer_size;
        snd_pcm_uframes_t run = target - c->played;
        if (run > c->io.buffer_size - at) run = c->io.buffer_size - at;
        if (c->capture >= 0 && write(c->capture, c->ring + 2 * at, run * 4) < 0) { /* a reader gone: it plays on */ }
        c->played += run;
    }
}

static int card_hw_params(snd_pcm_ioplug_t *io, snd_pcm_hw_params_t *params) {
    card_t *c = io->private_data;
    free(c->ring);
    c->ring = calloc(io->buffer_size, 4);
    return c->ring ? 0 : -ENOMEM;
}

static int card_start(snd_pcm_ioplug_t *io) {
    card_t *c = io->private_data;
    c->running = 1;
    c->started = now();
    c->base = c->played;
    arm(c, 1);
    return 0;
}

static int card_stop(snd_pcm_ioplug_t *io) {
    card_t *c = io->private_data;
    update(c);
    c->running = 0;
    arm(c, 0);
    return 0;
}

static int card_prepare(snd_pcm_ioplug_t *io) {
    card_t *c = io->private_data;
    c->played = c->base = 0;
    c->running = 0;
    return 0;
}

static snd_pcm_sframes_t card_pointer(snd_pcm_ioplug_t *io) {
    card_t *c = io->private_data;
    update(c);
    return c->played % io->buffer_size;
}

/* Frames are kept at their place on the timeline, so a rewind's frames are simply written again. */
static snd_pcm_sframes_t card_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                       snd_pcm_uframes_t offset, snd_pcm_uframes_t size) {
    card_t *c = io->private_data;
    const int16_t *source = (const int16_t *)((const char *)areas[0].addr + areas[0].first / 8) + 2 * offset;
    for (snd_pcm_uframes_t k = 0; k < size; k++) {
        snd_pcm_uframes_t at = (io->appl_ptr + k) % io->buffer_size;
        c->ring[2 * at] = source[2 * k];
        c->ring[2 * at + 1] = source[2 * k + 1];
    }
    return size;
}

static int card_poll_revents(snd_pcm_ioplug_t *io, struct pollfd *pfds, unsigned int nfds, unsigned short *revents) {
    card_t *c = io->private_data;
    uint64_t ticks;
    if (read(c->timer, &ticks, sizeof ticks) < 0) { /* nothing pending */ }
    update(c);
    snd_pcm_uframes_t queued = io->appl_ptr - c->played;
    *revents = io->buffer_size - queued >= io->period_size ? POLLOUT : 0;
    return 0;
}

static int card_close(snd_pcm_ioplug_t *io) {
    card_t *c = io->private_data;
    close(c->timer);
    if (c->capture >= 0) close(c->capture);
    free(c->flag);
    free(c->ring);
    free(c);
    return 0;
}

static const snd_pcm_ioplug_callback_t callbacks = {
    .start = card_start,
    .stop = card_stop,
    .prepare = card_prepare,
    .hw_params = card_hw_params,
    .pointer = card_pointer,
    .transfer = card_transfer,
    .poll_revents = card_poll_revents,
    .close = card_close,
};

SND_PCM_PLUGIN_DEFINE_FUNC(playola_clock) {
    snd_config_iterator_t i, next;
    const char *capture = NULL, *flag = NULL;
    snd_config_for_each(i, next, conf) {
        snd_config_t *n = snd_config_iterator_entry(i);
        const char *id;
        if (snd_config_get_id(n, &id) < 0) continue;
        if (strcmp(id, "comment") == 0 || strcmp(id, "type") == 0 || strcmp(id, "hint") == 0) continue;
        if (strcmp(id, "capture") == 0) { snd_config_get_string(n, &capture); continue; }
        if (strcmp(id, "flag") == 0) { snd_config_get_string(n, &flag); continue; }
        return -EINVAL;
    }
    card_t *c = calloc(1, sizeof *c);
    if (!c) return -ENOMEM;
    c->capture = capture ? open(capture, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    c->flag = flag ? strdup(flag) : NULL;
    c->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if ((capture && c->capture < 0) || c->timer < 0) {
        int error = errno;
        if (c->capture >= 0) close(c->capture);
        if (c->timer >= 0) close(c->timer);
        free(c->flag);
        free(c);
        return -error;
    }
    c->io.version = SND_PCM_IOPLUG_VERSION;
    c->io.name = "Playola clocked test card";
    c->io.callback = &callbacks;
    c->io.private_data = c;
    c->io.poll_fd = c->timer;
    c->io.poll_events = POLLIN;
    c->io.mmap_rw = 0;
    int err = snd_pcm_ioplug_create(&c->io, name, stream, mode);
    if (err < 0) { card_close(&c->io); return err; }
    unsigned int access_list[] = { SND_PCM_ACCESS_RW_INTERLEAVED };
    unsigned int format_list[] = { SND_PCM_FORMAT_S16_LE };
    unsigned int rate_list[] = { 44100, 48000 };
    snd_pcm_ioplug_set_param_list(&c->io, SND_PCM_IOPLUG_HW_ACCESS, 1, access_list);
    snd_pcm_ioplug_set_param_list(&c->io, SND_PCM_IOPLUG_HW_FORMAT, 1, format_list);
    snd_pcm_ioplug_set_param_minmax(&c->io, SND_PCM_IOPLUG_HW_CHANNELS, 2, 2);
    snd_pcm_ioplug_set_param_list(&c->io, SND_PCM_IOPLUG_HW_RATE, 2, rate_list);
    snd_pcm_ioplug_set_param_minmax(&c->io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, 1024, 64 * 1024);
    snd_pcm_ioplug_set_param_minmax(&c->io, SND_PCM_IOPLUG_HW_PERIODS, 2, 32);
    *pcmp = c->io.pcm;
    return 0;
}
SND_PCM_PLUGIN_SYMBOL(playola_clock);
