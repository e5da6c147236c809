/* sweep.json: write and read the plan and state of a sweep. */
#include "result/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "result/result_int.h"
#include "os/os.h"

const char *const sweep_status_names[4] = {"pending", "complete", "incomplete", "failed"};

static void settings_free(struct sweep_setting *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(s[i].name);
        free(s[i].value);
    }
    free(s);
}

void sweep_comparison_free(struct sweep_comparison *c)
{
    free(c->axis);
    free(c->baseline);
    free(c->value);
    settings_free(c->cell, c->n_cell);
    free(c->metric);
    free(c->verdict);
    free(c->method);
    free(c->detail);
    free(c->script);
    free(c->stmt_class);
    for (size_t i = 0; i < c->n_stalled; i++) {
        free(c->stalled[i].setup);
        free(c->stalled[i].side);
        free(c->stalled[i].cause);
    }
    free(c->stalled);
    memset(c, 0, sizeof *c);
}

void sweep_doc_free(struct sweep_doc *d)
{
    free(d->command);
    free(d->clients);
    free(d->rates);
    free(d->scales);
    for (size_t i = 0; i < d->n_sets; i++) {
        free(d->sets[i].name);
        for (size_t k = 0; k < d->sets[i].n; k++)
            free(d->sets[i].values[k]);
        free(d->sets[i].values);
    }
    free(d->sets);
    for (size_t i = 0; i < d->n_setups; i++) {
        free(d->setups[i].label);
        free(d->setups[i].conn);
    }
    free(d->setups);
    for (size_t i = 0; i < d->n_cells; i++) {
        settings_free(d->cells[i].settings, d->cells[i].n_settings);
        free(d->cells[i].file);
    }
    free(d->cells);
    free(d->max_rate.slo);
    free(d->compare_axis);
    for (size_t i = 0; i < d->n_comparisons; i++)
        sweep_comparison_free(&d->comparisons[i]);
    free(d->comparisons);
    free(d->speeds);
    memset(d, 0, sizeof *d);
}

size_t sweep_doc_add_cell(struct sweep_doc *d, const struct sweep_cell *c)
{
    if (d->n_cells == d->cap_cells) {
        d->cap_cells = d->cap_cells ? 2 * d->cap_cells : 16;
        d->cells = xrealloc(d->cells, d->cap_cells * sizeof *d->cells);
    }
    struct sweep_cell *n = &d->cells[d->n_cells];
    *n = *c;
    n->file = xstrdup(c->file ? c->file : "");
    n->settings = xcalloc(c->n_settings ? c->n_settings : 1, sizeof *n->settings);
    for (size_t i = 0; i < c->n_settings; i++)
        n->settings[i] =
            (struct sweep_setting){xstrdup(c->settings[i].name), xstrdup(c->settings[i].value)};
    return d->n_cells++;
}

static json_t *num_or_null(double v, int known)
{
    return known ? json_real(v) : json_null();
}

const char *sweep_speed_text(char *buf, size_t size, double speed)
{
    if (speed == SWEEP_SPEED_MAX)
        snprintf(buf, size, "max");
    else
        snprintf(buf, size, "%g", speed);
    return buf;
}

/* A speed: a number, or "max". */
static json_t *speed_json(double speed)
{
    return speed == SWEEP_SPEED_MAX ? json_string("max") : json_real(speed);
}

/* A speed read back: "max", a positive number, else 0 (none). */
static double speed_from_json(const json_t *v)
{
    if (json_is_string(v) && strcmp(json_string_value(v), "max") == 0)
        return SWEEP_SPEED_MAX;
    return json_is_number(v) && json_number_value(v) > 0 ? json_number_value(v) : 0;
}

static json_t *settings_json(const struct sweep_setting *s, size_t n)
{
    json_t *o = json_object();
    for (size_t i = 0; i < n; i++)
        json_object_set_new(o, s[i].name, json_string(s[i].value));
    return o;
}

static json_t *cell_json(const struct sweep_doc *d, const struct sweep_cell *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "setup", json_string(d->setups[c->setup].label));
    /* null: the sweep has no clients axis; 0 is -c 0 (analytic streams alone) */
    json_object_set_new(o, "clients", d->n_clients ? json_integer(c->clients) : json_null());
    json_object_set_new(o, "rate", num_or_null(c->rate, c->rate > 0));
    json_object_set_new(o, "scale", c->scale ? json_integer(c->scale) : json_null());
    json_object_set_new(o, "settings", settings_json(c->settings, c->n_settings));
    json_object_set_new(o, "speed", c->speed != 0 ? speed_json(c->speed) : json_null());
    json_object_set_new(o, "trial", json_integer(c->trial));
    json_object_set_new(o, "file", json_string(c->file));
    json_object_set_new(o, "status", json_string(sweep_status_names[c->status]));
    if (c->slo_met >= 0)
        json_object_set_new(o, "slo_met", json_boolean(c->slo_met));
    if (c->client_stalled)
        json_object_set_new(o, "client_stalled", json_true());
    return o;
}

static json_t *axes_json(const struct sweep_doc *d)
{
    json_t *axes = json_object(), *a = json_array();
    for (size_t i = 0; i < d->n_clients; i++)
        json_array_append_new(a, json_integer(d->clients[i]));
    json_object_set_new(axes, "clients", a);
    a = json_array();
    for (size_t i = 0; i < d->n_rates; i++)
        json_array_append_new(a, json_real(d->rates[i]));
    json_object_set_new(axes, "rate", a);
    a = json_array();
    for (size_t i = 0; i < d->n_scales; i++)
        json_array_append_new(a, json_integer(d->scales[i]));
    json_object_set_new(axes, "scale", a);
    json_t *sets = json_object();
    for (size_t i = 0; i < d->n_sets; i++) {
        a = json_array();
        for (size_t k = 0; k < d->sets[i].n; k++)
            json_array_append_new(a, json_string(d->sets[i].values[k]));
        json_object_set_new(sets, d->sets[i].name, a);
    }
    json_object_set_new(axes, "settings", sets);
    a = json_array();
    for (size_t i = 0; i < d->n_speeds; i++)
        json_array_append_new(a, speed_json(d->speeds[i]));
    json_object_set_new(axes, "speed", a);
    json_object_set_new(axes, "trials", json_integer(d->trials));
    return axes;
}

/* An axis value: a number for clients, rate, scale and speed (but "max"), else the text. */
static json_t *axis_value_json(const char *axis, const char *text)
{
    char *end;
    double v = strtod(text, &end);
    if (*text && !*end && strcmp(axis, "speed") == 0)
        return json_real(v);
    if (*text && !*end &&
        (strcmp(axis, "clients") == 0 || strcmp(axis, "scale") == 0 || strcmp(axis, "rate") == 0))
        return strcmp(axis, "rate") == 0 ? json_real(v) : json_integer((json_int_t)v);
    return json_string(text);
}

static json_t *comparison_json(const struct sweep_comparison *c)
{
    json_t *o = json_object(), *cell = json_object();
    json_object_set_new(o, "axis", json_string(c->axis));
    json_object_set_new(o, "baseline", axis_value_json(c->axis, c->baseline));
    json_object_set_new(o, "value", axis_value_json(c->axis, c->value));
    for (size_t i = 0; i < c->n_cell; i++)
        json_object_set_new(cell, c->cell[i].name,
                            axis_value_json(c->cell[i].name, c->cell[i].value));
    json_object_set_new(o, "cell", cell);
    if (c->script)
        json_object_set_new(o, "script", json_string(c->script));
    if (c->stmt_class)
        json_object_set_new(o, "class", json_string(c->stmt_class));
    json_object_set_new(o, "metric", json_string(c->metric));
    json_object_set_new(o, "a", num_or_null(c->a, isfinite(c->a)));
    json_object_set_new(o, "b", num_or_null(c->b, isfinite(c->b)));
    json_object_set_new(o, "change_pct", num_or_null(c->change_pct, isfinite(c->change_pct)));
    json_object_set_new(o, "ci_low", num_or_null(c->ci_low, isfinite(c->ci_low)));
    json_object_set_new(o, "ci_high", num_or_null(c->ci_high, isfinite(c->ci_high)));
    json_object_set_new(o, "verdict", json_string(c->verdict));
    json_object_set_new(o, "method", json_string(c->method));
    json_object_set_new(o, "df", num_or_null(c->df, isfinite(c->df)));
    json_object_set_new(o, "homogeneous",
                        c->homogeneous < 0 ? json_null() : json_boolean(c->homogeneous));
    json_object_set_new(o, "detail", json_string(c->detail ? c->detail : ""));
    if (c->n_stalled) {
        json_t *a = json_array();
        for (size_t i = 0; i < c->n_stalled; i++) {
            const struct sweep_stall *s = &c->stalled[i];
            json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:I, s:I, s:s}", "setup", s->setup,
                                               "side", s->side, "trial", s->trial, "stalled_ms",
                                               (json_int_t)llround(s->stalled_ms), "intervals",
                                               (json_int_t)s->intervals, "cause", s->cause));
        }
        json_object_set_new(o, "stalled", a);
    }
    return o;
}

json_t *sweep_comparisons_json(const struct sweep_doc *d)
{
    json_t *a = json_array();
    for (size_t i = 0; i < d->n_comparisons; i++)
        json_array_append_new(a, comparison_json(&d->comparisons[i]));
    return a;
}

static json_t *doc_json(const struct sweep_doc *d)
{
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string(SWEEP_FORMAT));
    json_object_set_new(root, "version", json_integer(SWEEP_VERSION));
    json_object_set_new(root, "command", json_string(d->command ? d->command : ""));
    json_object_set_new(root, "axes", axes_json(d));
    json_t *setups = json_array();
    for (size_t i = 0; i < d->n_setups; i++) {
        json_t *s = json_object();
        json_object_set_new(s, "label", json_string(d->setups[i].label));
        json_object_set_new(s, "conn", json_string(d->setups[i].conn ? d->setups[i].conn : ""));
        json_array_append_new(setups, s);
    }
    json_object_set_new(root, "setups", setups);
    json_t *cells = json_array();
    for (size_t i = 0; i < d->n_cells; i++)
        json_array_append_new(cells, cell_json(d, &d->cells[i]));
    json_object_set_new(root, "cells", cells);
    if (d->max_rate.have) {
        const struct sweep_max_rate *m = &d->max_rate;
        json_t *o = json_object();
        json_object_set_new(o, "tps", num_or_null(m->tps, m->tps > 0));
        json_object_set_new(o, "slo", json_string(m->slo ? m->slo : ""));
        json_object_set_new(o, "ci_low", num_or_null(m->ci_low, isfinite(m->ci_low)));
        json_object_set_new(o, "ci_high", num_or_null(m->ci_high, isfinite(m->ci_high)));
        json_object_set_new(o, "failed_at", num_or_null(m->failed_at, m->failed_at > 0));
        json_object_set_new(root, "max_rate", o);
    }
    if (d->compare_axis)
        json_object_set_new(root, "compare", json_string(d->compare_axis));
    if (d->duet)
        json_object_set_new(root, "duet", json_true());
    json_object_set_new(root, "comparisons", sweep_comparisons_json(d));
    return root;
}

int sweep_doc_write(const struct sweep_doc *d, const char *path, struct err *e)
{
    json_t *root = doc_json(d);
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(root);
    char *tmp = xasprintf("%s.tmp-%ld", path, (long)getpid());
    int fd = os_open(tmp, O_WRONLY | O_CREAT | O_TRUNC | OS_O_CLOEXEC, 0644);
    int ok = fd >= 0 && text && result_write_all(fd, text, strlen(text)) == 0 &&
             result_write_all(fd, "\n", 1) == 0 && os_fsync(fd) == 0;
    int saved = errno;
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    if (ok && os_replace(tmp, path) != 0) {
        saved = errno;
        ok = 0;
    }
    if (ok)
        result_sync_dir(path);
    else
        os_unlink(tmp);
    free(tmp);
    free(text);
    return ok ? 0 : err_set(e, ERR_RUNTIME, "cannot write %s: %s", path, strerror(saved));
}

static int bad(struct err *e, const char *path, const char *why)
{
    return err_set(e, ERR_INPUT, "%s: %s", path, why);
}

static char *str_dup(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return xstrdup(s ? s : "");
}

static int64_t *int_array(const json_t *a, size_t *n)
{
    *n = json_array_size(a);
    int64_t *v = xcalloc(*n + 1, sizeof *v);
    for (size_t i = 0; i < *n; i++)
        v[i] = json_integer_value(json_array_get(a, i));
    return v;
}

static int read_axes(const json_t *axes, struct sweep_doc *d)
{
    const json_t *c = json_object_get(axes, "clients"), *r = json_object_get(axes, "rate"),
                 *s = json_object_get(axes, "scale"), *sets = json_object_get(axes, "settings");
    if (!json_is_array(c) || !json_is_array(r) || !json_is_array(s) || !json_is_object(sets))
        return -1;
    d->clients = int_array(c, &d->n_clients);
    d->scales = int_array(s, &d->n_scales);
    d->n_rates = json_array_size(r);
    d->rates = xcalloc(d->n_rates + 1, sizeof *d->rates);
    for (size_t i = 0; i < d->n_rates; i++)
        d->rates[i] = json_number_value(json_array_get(r, i));
    d->n_sets = json_object_size(sets);
    d->sets = xcalloc(d->n_sets + 1, sizeof *d->sets);
    size_t k = 0;
    const char *name;
    const json_t *vals;
    json_object_foreach((json_t *)sets, name, vals)
    {
        struct sweep_set_axis *a = &d->sets[k++];
        a->name = xstrdup(name);
        a->n = json_array_size(vals);
        a->values = xcalloc(a->n + 1, sizeof *a->values);
        for (size_t i = 0; i < a->n; i++) {
            const char *v = json_string_value(json_array_get(vals, i));
            a->values[i] = xstrdup(v ? v : "");
        }
    }
    d->trials = (int)json_integer_value(json_object_get(axes, "trials"));
    const json_t *sp = json_object_get(axes, "speed"); /* absent before speed axes */
    d->n_speeds = json_array_size(sp);
    d->speeds = xcalloc(d->n_speeds + 1, sizeof *d->speeds);
    for (size_t i = 0; i < d->n_speeds; i++)
        if ((d->speeds[i] = speed_from_json(json_array_get(sp, i))) == 0)
            return -1;
    return 0;
}

static int read_cell(const json_t *o, struct sweep_doc *d)
{
    const char *setup = json_string_value(json_object_get(o, "setup"));
    const char *status = json_string_value(json_object_get(o, "status"));
    const char *file = json_string_value(json_object_get(o, "file"));
    const json_t *settings = json_object_get(o, "settings");
    if (!setup || !status || !file || !json_is_object(settings))
        return -1;
    struct sweep_cell c = {.slo_met = -1};
    for (c.setup = 0; c.setup < d->n_setups; c.setup++)
        if (strcmp(d->setups[c.setup].label, setup) == 0)
            break;
    if (c.setup == d->n_setups)
        return -1;
    for (c.status = 0; c.status < 4; c.status++)
        if (strcmp(sweep_status_names[c.status], status) == 0)
            break;
    if (c.status == 4)
        return -1;
    c.clients = json_integer_value(json_object_get(o, "clients"));
    c.rate = json_number_value(json_object_get(o, "rate"));
    c.scale = json_integer_value(json_object_get(o, "scale"));
    c.trial = (int)json_integer_value(json_object_get(o, "trial"));
    c.speed = speed_from_json(json_object_get(o, "speed"));
    const json_t *met = json_object_get(o, "slo_met");
    if (json_is_boolean(met))
        c.slo_met = json_is_true(met);
    c.client_stalled = json_is_true(json_object_get(o, "client_stalled"));
    c.file = (char *)file;
    c.n_settings = json_object_size(settings);
    c.settings = xcalloc(c.n_settings + 1, sizeof *c.settings);
    size_t k = 0;
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)settings, name, v)
    {
        c.settings[k].name = (char *)name;
        c.settings[k++].value = (char *)(json_string_value(v) ? json_string_value(v) : "");
    }
    sweep_doc_add_cell(d, &c);
    free(c.settings);
    return 0;
}

static int read_root(const json_t *root, const char *path, struct sweep_doc *d, struct err *e)
{
    const char *format = json_string_value(json_object_get(root, "format"));
    if (!format || strcmp(format, SWEEP_FORMAT) != 0)
        return bad(e, path, "not a pgarena sweep file (format is not \"pgarena-sweep\")");
    if (json_integer_value(json_object_get(root, "version")) != SWEEP_VERSION)
        return bad(e, path, "unsupported sweep file version (this pgarena reads version 1)");
    const json_t *setups = json_object_get(root, "setups"), *cells = json_object_get(root, "cells");
    if (!json_is_array(setups) || !json_is_array(cells) || json_array_size(setups) == 0 ||
        read_axes(json_object_get(root, "axes"), d) < 0)
        return bad(e, path, "malformed sweep file (axes, setups or cells)");
    d->command = str_dup(root, "command");
    d->n_setups = json_array_size(setups);
    d->setups = xcalloc(d->n_setups, sizeof *d->setups);
    for (size_t i = 0; i < d->n_setups; i++) {
        d->setups[i].label = str_dup(json_array_get(setups, i), "label");
        d->setups[i].conn = str_dup(json_array_get(setups, i), "conn");
    }
    for (size_t i = 0; i < json_array_size(cells); i++)
        if (read_cell(json_array_get(cells, i), d) < 0)
            return bad(e, path, "malformed sweep file (a cell)");
    const json_t *m = json_object_get(root, "max_rate");
    if (json_is_object(m)) {
        d->max_rate.have = 1;
        d->max_rate.slo = str_dup(m, "slo");
        d->max_rate.tps = json_number_value(json_object_get(m, "tps"));
        const json_t *lo = json_object_get(m, "ci_low"), *hi = json_object_get(m, "ci_high");
        d->max_rate.ci_low = json_is_number(lo) ? json_number_value(lo) : NAN;
        d->max_rate.ci_high = json_is_number(hi) ? json_number_value(hi) : NAN;
        d->max_rate.failed_at = json_number_value(json_object_get(m, "failed_at"));
    }
    /* The comparisons are figured again from the cells' files whenever they are shown. */
    const char *axis = json_string_value(json_object_get(root, "compare"));
    d->compare_axis = axis ? xstrdup(axis) : NULL;
    d->duet = json_is_true(json_object_get(root, "duet"));
    return 0;
}

int sweep_doc_read(const char *path, struct sweep_doc *d, struct err *e)
{
    memset(d, 0, sizeof *d);
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return err_set(e, ERR_INPUT, "%s: %s", path,
                       os_access(path, R_OK) == 0 ? "not a JSON sweep file" : strerror(errno));
    int rc = read_root(root, path, d, e);
    json_decref(root);
    if (rc < 0)
        sweep_doc_free(d);
    return rc;
}
