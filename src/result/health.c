#include "result/health.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "result/result.h"
#include "result/result_int.h"

const double result_stall_share = 0.4;

const char *const result_stall_cause_names[RESULT_N_STALL_CAUSES] = {"none", "steal", "runqueue",
                                                                     "late"};

enum result_stall_cause result_stall_classify(const struct result_health_in *in, double *lost_ms)
{
    const double lost[RESULT_N_STALL_CAUSES] = {0, in->steal_ms, in->run_delay_max_ms,
                                                in->late_max_ms};
    enum result_stall_cause worst = RESULT_STALL_NONE;
    for (int c = RESULT_STALL_STEAL; c < RESULT_N_STALL_CAUSES; c++)
        if (lost[c] > lost[worst]) /* a tie goes to the cause before */
            worst = (enum result_stall_cause)c;
    *lost_ms = 0;
    if (in->duration_ms <= 0 || lost[worst] <= result_stall_share * in->duration_ms)
        return RESULT_STALL_NONE;
    /* Whole milliseconds, as the file holds them: the summary's sum is then the intervals'. A
     * sliver of a last interval that would lose no whole millisecond is no stall. */
    double whole = round(lost[worst] > in->duration_ms ? in->duration_ms : lost[worst]);
    if (whole < 1)
        return RESULT_STALL_NONE;
    *lost_ms = whole;
    return worst;
}

void result_health_add(struct result_client_health *s, double t_s, double duration_s,
                       const struct result_interval_health *h)
{
    if (!h->present)
        return;
    if (!s->present) {
        memset(s, 0, sizeof *s);
        s->present = 1;
        s->steal_share = -1;
    }
    s->intervals++;
    if (h->run_delay_ms >= 0)
        s->run_delay_ms += h->run_delay_ms;
    if (h->steal_ms >= 0) {
        s->steal_ms += h->steal_ms;
        s->steal_of_ms += duration_s * 1000.0;
    }
    if (h->cause == RESULT_STALL_NONE)
        return;
    s->intervals_stalled++;
    s->stalled_ms += h->stalled_ms;
    if (s->intervals_stalled == 1 || h->stalled_ms > s->worst_ms) {
        s->worst_ms = h->stalled_ms;
        s->worst_t_s = t_s;
        s->worst_cause = h->cause;
    }
}

void result_health_finish(struct result_client_health *s)
{
    if (s->present)
        s->steal_share = s->steal_of_ms > 0 ? s->steal_ms / s->steal_of_ms : -1;
}

void result_health_merge(struct result_client_health *dst, const struct result_client_health *src)
{
    if (!src->present)
        return;
    if (!dst->present) {
        *dst = *src;
        return;
    }
    dst->intervals += src->intervals;
    dst->intervals_stalled += src->intervals_stalled;
    dst->stalled_ms += src->stalled_ms;
    if (src->worst_ms > dst->worst_ms) {
        dst->worst_ms = src->worst_ms;
        dst->worst_t_s = src->worst_t_s;
        dst->worst_cause = src->worst_cause;
    }
    dst->run_delay_ms = dst->run_delay_ms >= 0 && src->run_delay_ms >= 0
                            ? dst->run_delay_ms + src->run_delay_ms
                            : -1;
    dst->steal_ms += src->steal_ms;
    dst->steal_of_ms += src->steal_of_ms;
    result_health_finish(dst);
}

static json_t *ms(double v)
{
    return json_integer((json_int_t)llround(v));
}

static enum result_stall_cause cause_named(const char *name)
{
    for (int c = RESULT_STALL_STEAL; name && c < RESULT_N_STALL_CAUSES; c++)
        if (strcmp(name, result_stall_cause_names[c]) == 0)
            return (enum result_stall_cause)c;
    return RESULT_STALL_NONE;
}

void result_interval_health_json(const struct result_interval *it, json_t *o)
{
    const struct result_interval_health *h = &it->health;
    if (!h->present)
        return;
    json_t *c = json_object();
    json_object_set_new(c, "late_ms", ms(h->late_ms));
    json_object_set_new(c, "late_max_ms", ms(h->late_max_ms));
    if (h->run_delay_ms >= 0)
        json_object_set_new(c, "run_delay_ms", ms(h->run_delay_ms));
    if (h->psi_ms >= 0)
        json_object_set_new(c, "psi_ms", ms(h->psi_ms));
    if (h->steal_ms >= 0)
        json_object_set_new(c, "steal_ms", ms(h->steal_ms));
    /* Both always there, so that a file's keys do not depend on what the machine did. */
    json_object_set_new(c, "stalled_ms", ms(h->cause != RESULT_STALL_NONE ? h->stalled_ms : 0));
    json_object_set_new(c, "cause",
                        h->cause != RESULT_STALL_NONE
                            ? json_string(result_stall_cause_names[h->cause])
                            : json_null());
    json_object_set_new(o, "client_health", c);
}

static double known(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) && json_number_value(v) >= 0 ? json_number_value(v) : -1;
}

int result_interval_health_read(const json_t *o, struct result_interval *it)
{
    const json_t *c = json_object_get(o, "client_health");
    if (!c)
        return 0;
    if (!json_is_object(c))
        return -1;
    struct result_interval_health *h = &it->health;
    h->present = 1;
    h->late_ms = known(c, "late_ms") > 0 ? known(c, "late_ms") : 0;
    h->late_max_ms = known(c, "late_max_ms") > 0 ? known(c, "late_max_ms") : 0;
    h->run_delay_ms = known(c, "run_delay_ms");
    h->psi_ms = known(c, "psi_ms");
    h->steal_ms = known(c, "steal_ms");
    h->cause = cause_named(json_string_value(json_object_get(c, "cause")));
    h->stalled_ms =
        h->cause != RESULT_STALL_NONE && known(c, "stalled_ms") > 0 ? known(c, "stalled_ms") : 0;
    return 0;
}

void result_health_summary_json(const struct result *r, json_t *summary)
{
    const struct result_client_health *s = &r->client_health;
    if (!s->present || !summary)
        return;
    int stalled = s->intervals_stalled > 0;
    json_t *worst =
        json_pack("{s:o, s:o, s:o}", "t_s", stalled ? json_real(s->worst_t_s) : json_null(), "ms",
                  ms(stalled ? s->worst_ms : 0), "cause",
                  stalled ? json_string(result_stall_cause_names[s->worst_cause]) : json_null());
    json_t *steal = s->steal_share < 0
                        ? json_null()
                        : json_real((double)llround(s->steal_share * 10000.0) / 10000.0);
    json_object_set_new(summary, "client_health",
                        json_pack("{s:I, s:I, s:o, s:o, s:o, s:o}", "intervals",
                                  (json_int_t)s->intervals, "intervals_stalled",
                                  (json_int_t)s->intervals_stalled, "stalled_ms", ms(s->stalled_ms),
                                  "worst", worst, "steal_share", steal, "run_delay_ms",
                                  s->run_delay_ms < 0 ? json_null() : ms(s->run_delay_ms)));
}

int result_health_summary_read(const json_t *summary, struct result *r)
{
    const json_t *c = json_object_get(summary, "client_health");
    if (!c)
        return 0;
    if (!json_is_object(c))
        return -1;
    struct result_client_health *s = &r->client_health;
    const json_t *worst = json_object_get(c, "worst");
    s->present = 1;
    s->intervals = (uint64_t)(known(c, "intervals") > 0 ? known(c, "intervals") : 0);
    s->intervals_stalled =
        (uint64_t)(known(c, "intervals_stalled") > 0 ? known(c, "intervals_stalled") : 0);
    s->stalled_ms = known(c, "stalled_ms") > 0 ? known(c, "stalled_ms") : 0;
    s->steal_share = known(c, "steal_share");
    s->run_delay_ms = known(c, "run_delay_ms");
    if (json_is_object(worst)) {
        s->worst_t_s = known(worst, "t_s");
        s->worst_ms = known(worst, "ms") > 0 ? known(worst, "ms") : 0;
        s->worst_cause = cause_named(json_string_value(json_object_get(worst, "cause")));
    }
    /* steal_share weighs a merge by the intervals' time */
    s->steal_of_ms = s->steal_share >= 0 ? (double)s->intervals * 1000.0 : 0;
    s->steal_ms = s->steal_share >= 0 ? s->steal_share * s->steal_of_ms : 0;
    return 0;
}
