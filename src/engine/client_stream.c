#include "engine/client_int.h"
#include "engine/client_script.h"

#include <stdlib.h>

#include "base/mem.h"

/* An analytic stream's driver (engine_config's stream_clients, CH-benCHmark's): a script
 * client that runs the last stream_scripts scripts of the set one after another, a pass at a
 * time, closed loop (never paced by -R), its transactions counted in their scripts' figures
 * only. Its states are the script client's (client_script.h): what differs is which script
 * comes next, and how it counts, set up here. */

struct client_stream {
    struct client_script sc; /* first: the script client's driver works on it */
    int *order;              /* this pass's order of the stream's scripts (from the first) */
    int pos;                 /* the next one to run */
};

/* The next script: the next of its pass, a new pass (a fresh permutation, or the set's order)
 * once one is done. */
static const struct script *next_in_stream(struct client *c)
{
    struct client_stream *s = c->kind;
    const struct engine_config *cfg = c->w->run->cfg;
    int n = cfg->stream_scripts;
    if (s->pos >= n) {
        for (int i = 0; i < n; i++)
            s->order[i] = i;
        for (int i = n - 1; i > 0 && !cfg->stream_in_order; i--) {
            int j = (int)rng_range(&s->sc.rng, 0, i);
            int t = s->order[i];
            s->order[i] = s->order[j];
            s->order[j] = t;
        }
        s->pos = 0;
    }
    int first = cfg->scripts->n_scripts - n;
    return &cfg->scripts->scripts[first + s->order[s->pos++]];
}

static void stream_init(struct client *c)
{
    int n = c->w->run->cfg->stream_scripts;
    struct client_stream *s = xcalloc(1, sizeof *s);
    client_script_init(c, &s->sc);
    s->sc.next_script = next_in_stream;
    s->sc.unpaced = 1;
    s->order = xcalloc((size_t)n, sizeof *s->order);
    s->pos = n; /* a new pass at the first transaction */
    c->counts_apart = 1;
}

static void stream_free(struct client *c)
{
    struct client_stream *s = c->kind;
    client_script_free(c);
    free(s->order);
    free(s);
}

const struct client_driver client_stream_driver = {
    .init = stream_init,
    CLIENT_SCRIPT_OPS,
    .free = stream_free,
};
