/*
 * A test PCM for alsa-lib (an ioplug external plugin): it plays at real time, like a sound card, until a
 * flag file appears; then it stops taking frames and stops interrupting, as a wedged DAC or a stalled
 * dmix does (writes find no room, and poll times out). When the flag goes, it runs again.
 *
 *   pcm_type.stall { lib "/path/libasound_module_pcm_stall.so" }
 *   pcm.wedged { type stall flag "/path/frozen" }
 *
 * S16_LE, stereo, 48 kHz. Built by the tests (ALSASinkTests): cc -shared -fPIC -DPIC ... -lasound.
 */
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    snd_pcm_ioplug_t io;
    char *flag;
    int timer;
    int running;
    double started;             /* monotonic seconds at start (or at the last thaw) */
    snd_pcm_uframes_t base;     /* frames consumed before `started` */
    snd_pcm_uframes_t consumed; /* frames taken so far (absolute) */
} stall_t;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int frozen(stall_t *s) { return access(s->flag, F_OK) == 0; }

static void arm(stall_t *s, int on) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    if (on) {
        long ns = (long)(1e9 * s->io.period_size / s->io.rate);
        spec.it_value.tv_nsec = ns;
        spec.it_interval.tv_nsec = ns;
    }
    timerfd_settime(s->timer, 0, &spec, NULL);
}

/* Advances the consumed count with the clock, never past what was written, and not while frozen. */
static void update(stall_t *s) {
    if (!s->running) return;
    if (frozen(s)) {
        arm(s, 0);
        s->base = s->consumed;
        s->started = now();
        return;
    }
    snd_pcm_uframes_t target = s->base + (snd_pcm_uframes_t)((now() - s->started) * s->io.rate);
    if (target > s->io.appl_ptr) target = s->io.appl_ptr;
    if (target > s->consumed) s->consumed = target;
    arm(s, 1);
}

static int stall_start(snd_pcm_ioplug_t *io) {
    stall_t *s = io->private_data;
    s->running = 1;
    s->started = now();
    s->base = s->consumed;
    arm(s, 1);
    return 0;
}

static int stall_stop(snd_pcm_ioplug_t *io) {
    stall_t *s = io->private_data;
    s->running = 0;
    arm(s, 0);
    return 0;
}

static int stall_prepare(snd_pcm_ioplug_t *io) {
    stall_t *s = io->private_data;
    s->consumed = s->base = 0;
    s->running = 0;
    return 0;
}

static snd_pcm_sframes_t stall_pointer(snd_pcm_ioplug_t *io) {
    stall_t *s = io->private_data;
    update(s);
    return s->consumed % io->buffer_size;
}

static snd_pcm_sframes_t stall_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                        snd_pcm_uframes_t offset, snd_pcm_uframes_t size) {
    return size; /* taken; the samples go nowhere */
}

static int stall_poll_revents(snd_pcm_ioplug_t *io, struct pollfd *pfds, unsigned int nfds, unsigned short *revents) {
    stall_t *s = io->private_data;
    uint64_t ticks;
    if (read(s->timer, &ticks, sizeof ticks) < 0) { /* nothing pending */ }
    update(s);
    snd_pcm_uframes_t queued = io->appl_ptr - s->consumed;
    *revents = io->buffer_size - queued >= io->period_size ? POLLOUT : 0;
    return 0;
}

static int stall_close(snd_pcm_ioplug_t *io) {
    stall_t *s = io->private_data;
    close(s->timer);
    free(s->flag);
    free(s);
    return 0;
}

static const snd_pcm_ioplug_callback_t callbacks = {
    .start = stall_start,
    .stop = stall_stop,
    .prepare = stall_prepare,
    .pointer = stall_pointer,
    .transfer = stall_transfer,
    .poll_revents = stall_poll_revents,
    .close = stall_close,
};

SND_PCM_PLUGIN_DEFINE_FUNC(stall) {
    snd_config_iterator_t i, next;
    const char *flag = NULL;
    snd_config_for_each(i, next, conf) {
        snd_config_t *n = snd_config_iterator_entry(i);
        const char *id;
        if (snd_config_get_id(n, &id) < 0) continue;
        if (strcmp(id, "comment") == 0 || strcmp(id, "type") == 0 || strcmp(id, "hint") == 0) continue;
        if (strcmp(id, "flag") == 0) { snd_config_get_string(n, &flag); continue; }
        return -EINVAL;
    }
    if (!flag) return -EINVAL;
    stall_t *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    s->flag = strdup(flag);
    s->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    s->io.version = SND_PCM_IOPLUG_VERSION;
    s->io.name = "Playola stall test PCM";
    s->io.callback = &callbacks;
    s->io.private_data = s;
    s->io.poll_fd = s->timer;
    s->io.poll_events = POLLIN;
    s->io.mmap_rw = 0;
    int err = snd_pcm_ioplug_create(&s->io, name, stream, mode);
    if (err < 0) { close(s->timer); free(s->flag); free(s); return err; }
    unsigned int access_list[] = { SND_PCM_ACCESS_RW_INTERLEAVED };
    unsigned int format_list[] = { SND_PCM_FORMAT_S16_LE };
    snd_pcm_ioplug_set_param_list(&s->io, SND_PCM_IOPLUG_HW_ACCESS, 1, access_list);
    snd_pcm_ioplug_set_param_list(&s->io, SND_PCM_IOPLUG_HW_FORMAT, 1, format_list);
    snd_pcm_ioplug_set_param_minmax(&s->io, SND_PCM_IOPLUG_HW_CHANNELS, 2, 2);
    snd_pcm_ioplug_set_param_minmax(&s->io, SND_PCM_IOPLUG_HW_RATE, 48000, 48000);
    snd_pcm_ioplug_set_param_minmax(&s->io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, 1024, 64 * 1024);
    snd_pcm_ioplug_set_param_minmax(&s->io, SND_PCM_IOPLUG_HW_PERIODS, 2, 32);
    *pcmp = s->io.pcm;
    return 0;
}
SND_PCM_PLUGIN_SYMBOL(stall);
