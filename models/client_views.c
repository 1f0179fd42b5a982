/*
 * client_views.c — client instances' ring views and epochs (see client.c for
 * the rest of the client model).
 *
 * An instance routes with its view: the placement of the epoch it has
 * adopted, minus the nodes it has ejected itself (client-mode health,
 * rehash). It adopts each published epoch at once, after
 * propagation_delay (central mode), or — frozen by a split brain — not
 * until the split ends; a MOVED reply (fencing) also makes it adopt the
 * node's epoch unless it is frozen. It keeps the view it held before its
 * last adoption (prev_view) for the fallback to previous owners, which
 * lasts clients.fallback_window after the adoption. A readmission
 * re-derives the instance's view; so does adopting the epoch that a node's
 * leaving publishes (the instance's ejection of it went with it:
 * health_node_left), except for a frozen instance, whose view keeps the
 * node out until it adopts again. Adopting an epoch also forgets the
 * instance's ejections of nodes that are not members of it (made while
 * frozen, after they left: health_inst_adopted).
 */
#include "models/client.h"

#include "models/health.h"
#include "models/membership.h"

static bool rehash_mode(const struct sim *s)
{
    return s->sc->health.on_eject == EJECT_REHASH;
}

int client_refresh_view(struct sim *s, struct instance *in)
{
    const uint8_t *excl = rehash_mode(s) ? health_inst_excluded(s, in->index) : NULL;
    struct view *v = view_get(s, in->epoch, excl);
    if (!v)
        return -1;
    view_release(s, in->view);
    in->view = v;
    return 0;
}

void client_adopt(struct sim *s, uint32_t inst, uint32_t epoch)
{
    struct instance *in = &s->inst[inst];
    if (epoch <= in->epoch || in->frozen)
        return; /* epochs only move forward; a frozen instance keeps its own */
    struct view *old = in->view;
    old->refs++; /* kept as the previous view */
    membership_drop(s, in->epoch);
    membership_hold(s, epoch);
    in->epoch = epoch;
    in->adopted_ns = s->eng.now_ns;
    health_inst_adopted(s, inst, epoch); /* its ejections of nodes gone from the ring go */
    client_refresh_view(s, in);
    view_release(s, in->prev_view);
    in->prev_view = old;
    if (s->sc->health.mode == HEALTH_CENTRAL && s->sc->health.propagation_delay_ns)
        sim_event(s, "adopt", NULL, "instance %u adopts epoch %u", in->index, epoch);
}

void clients_epoch_published(struct sim *s, uint32_t epoch)
{
    const struct health_cfg *h = &s->sc->health;
    bool delayed = h->mode == HEALTH_CENTRAL && h->propagation_delay_ns;
    for (uint32_t j = 0; j < s->n_inst; j++) {
        if (s->inst[j].frozen)
            continue;
        if (!delayed) {
            client_adopt(s, j, epoch);
        } else {
            /* each instance's delay: propagation_delay × U[0.5, 1.5) */
            double f = 0.5 + rng_uniform(&s->cl->propagation);
            int64_t d = (int64_t)((double)h->propagation_delay_ns * f);
            if (sim_schedule(s, s->eng.now_ns + d, EVK_ADOPT, j, epoch))
                return;
        }
    }
}

void client_freeze(struct sim *s, uint32_t inst, int64_t until_ns)
{
    struct instance *in = &s->inst[inst];
    if (!in->frozen || until_ns > in->frozen_until)
        in->frozen_until = until_ns;
    in->frozen = true;
}

bool client_unfreeze(struct sim *s, uint32_t inst)
{
    struct instance *in = &s->inst[inst];
    if (!in->frozen)
        return true;
    if (in->frozen_until > s->eng.now_ns)
        return false; /* a longer split brain still holds it */
    in->frozen = false;
    client_adopt(s, inst, membership_latest(s)->id);
    return true;
}

void client_readmit(struct sim *s, uint32_t inst, uint32_t b)
{
    if (health_readmit(s, inst, b))
        client_refresh_view(s, &s->inst[inst]);
}
