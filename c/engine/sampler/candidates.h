/*
 * candidates.h — what the sampler's files share: the sampler's scratch
 * memory (sampler.c), the candidates a stage sees and the few operations
 * every stage uses on them (candidates.c), and what the chain (chain.c)
 * calls in intake.c, stages.c, topk.c and heap.c.
 *
 * Every stage has one shape, void stage(sp_candidates *c, const sp_params
 * *p): it edits the working logits (masking with -INFINITY and noting in
 * c->cut which stage removed a token) and never normalizes.  A stage that
 * needs probabilities takes the softmax over the tokens still alive
 * (sp_cands_exp): the chain's earlier stages shape what it sees.
 */
#ifndef SP_CANDIDATES_H
#define SP_CANDIDATES_H

#include "internal.h"

typedef struct {
    double mass; /* unnormalized probability (exp of the shifted logit) */
    float key;   /* ascending key of the stage's order */
    int id;      /* token id: breaks ties of key */
} sp_sel_item;

struct sp_sampler {
    int vocab;
    int want_raw;     /* compute probs_raw and its entropy */
    int reference;    /* no shortcuts (sp_sampler_set_reference) */
    const uint8_t *allowed; /* constraint mask, NULL = none */
    float *logits;    /* copy of the model's logits */
    float *probs_raw;
    int raw_valid;    /* probs_raw, raw_log_z and entropy_raw_bits are those
                       * of the logits in `logits` (the last warp's) */
    double raw_log_z, entropy_raw_bits;
    float *probs_tempered; /* softmax before the first cutoff stage */
    int snap_waits;   /* probs_tempered holds exps waiting for the division
                       * by snap_z (done with the raw softmax's exps) */
    float snap_z;
    float *work;      /* working logits, edited by the stages */
    float *probs;     /* final distribution */
    int *probs_ids;   /* the tokens where probs is nonzero: the last kept */
    int n_probs;
    uint8_t *cut;
    int *ids;         /* candidate list */
    float *cand_logit; /* compact logits of the candidate list */
    const float *cand_x; /* the list's logits side by side (sp_cands_exp):
                          * cand_logit, or the working logits themselves
                          * when the list is the whole vocabulary */
    float *cand_exp;   /* compact exps (both: top-k's scratch too) */
    float *heap;       /* top-k min-heap */
    /* The working logits' maxima by groups of gmax_size tokens (the last
     * group runs on to the end), as the intake pass found them: the raw
     * argmax's first group, and top-k's groups (dense_kth) when nothing but
     * the penalties has changed the logits since (they keep the maxima up:
     * gmax_moved; a group whose maximum went down is recomputed first). */
    float *gmax;
    uint8_t *gmax_stale;
    int gmax_size, gmax_groups;
    float *listed_logits; /* top-k's: the listed logits side by side */
    int *counts;       /* zero between uses */
    int *penalized;    /* [vocab] the tokens a penalty changed this warp */
    int n_penalized;
    uint8_t *pen_mark; /* [vocab] 1 where penalized holds it */
    /* the step record's view of the repeat stages (zero between warps but
     * where penalized holds the token): each token's count in the penalty
     * window and its DRY repeat length; how many of each, the longest */
    int *pen_count, *dry_len;
    int penalties_n, dry_n, dry_longest;
    int *repeat;       /* DRY's repeat lengths, [repeat_cap] */
    int repeat_cap;
    sp_sel_item *sel;
    sp_sampler_state state; /* what a stage draws on besides the logits */
    float *adaptive_in; /* [vocab] adaptive-p's input distribution (0 where
                         * cut) */
    int *adaptive_ids;  /* where adaptive_in is nonzero: the last run's
                         * tokens (cleared one by one, not the vocabulary) */
    int n_adaptive;
    int adaptive_on;    /* the last warp ran adaptive-p */
    float mirostat_mu, adaptive_average, adaptive_aim; /* the last warp's */
    float mirostat_goal, adaptive_goal;                /*   (NaN: off) */
    /* the watermark's green list (watermark.c): wm_green[vocab] marks it,
     * wm_perm[0 .. wm_n) holds its ids, drawn for wm_prev and wm_key
     * (wm_valid: drawn at all); wm_exp[vocab] scratch; what the last warp
     * found (wm_on: the stage ran) */
    uint8_t *wm_green;
    int *wm_perm;
    float *wm_exp;
    int wm_n, wm_prev, wm_key, wm_valid, wm_on;
    double wm_green_mass, wm_spike;
    /* classifier-free guidance (cfg.c): the unconditional distribution and
     * the mix, [vocab] each (allocated at its first use); cfg_on: the last
     * warp ran it */
    float *cfg_uncond_p, *cfg_mix_p, *cfg_scratch;
    int cfg_on;
};

/* What a stage sees: the working logits and the candidates among them. */
typedef struct {
    int vocab;
    const uint8_t *allowed; /* the constraint's mask, NULL = none */
    float *logits;  /* [vocab], -INFINITY = masked */
    uint8_t *cut;   /* [vocab], sp_cut */
    int *ids;       /* candidates in ascending id order, once listed */
    int n;          /* their count, once listed */
    int listed;     /* 0: not built yet; the candidates are the finite logits
                     * (the dense stages work before any list is built) */
    const int *history; /* the penalties' window */
    int n_history;
    const int *all;     /* the whole history (DRY, no-repeat-ngram) */
    int n_all;
    sp_sampler *s;  /* scratch */
    int read_later; /* a stage after this one reads working logits token by
                     * token (the temperature, the penalties, DRY): a cut
                     * must leave -inf in them.  When none does, top-k's cut
                     * leaves whole cut blocks' logits as they were: nothing
                     * reads them again (the cut marks and the list say what
                     * is alive; the next warp writes them anew). */
    int sign_later; /* a stage after this one reads a logit's sign (the
                     * repetition penalty: x > 0 ? x / r : x * r): the
                     * temperature must leave x / T, not (x - max) / T */
} sp_candidates;

typedef void (*sp_stage_fn)(sp_candidates *c, const sp_params *p);

/* Builds the candidate list (finite working logits, ascending ids). */
void sp_cands_list(sp_candidates *c);
/* Removes from the list the tokens a stage has cut (order kept). */
void sp_cands_compact(sp_candidates *c);
/* Masks token id, noting the stage. */
void sp_cands_cut(sp_candidates *c, int id, sp_cut stage);
/* The list's logits side by side into cand_x and exp(logit - max) into
 * cand_exp; returns max, *z the sum of the exps in list order. */
float sp_cands_exp(sp_candidates *c, double *z);
/* Keeps the candidates whose logit is >= threshold (ties with it too) and
 * cuts the others with stage; the list stays compact (on the dense logits:
 * builds it, of the finite logits, as sp_cands_list, then a compact after
 * the cuts would). */
void sp_cands_keep_at_least(sp_candidates *c, float threshold, sp_cut stage);
/* Notes that a penalty changed token id's logit (once per token). */
void sp_cands_penalized(sp_candidates *c, int id);
/* Clamps a shifted logit into the finite floats. */
float sp_clamp_finite(float x);

/* Keeps it[0..m), m the fewest items by (key, id) whose masses reach
 * target (>= 1; n when the total falls short), reordering it: expected
 * O(n), sorting only a few items at the boundary.  Returns m. */
int sp_select_mass_prefix(sp_sel_item *it, int n, double target);
/* Cuts every candidate but the first m of s->sel (sp_select_mass_prefix's
 * order) with stage. */
void sp_cands_keep_selected(sp_candidates *c, int m, sp_cut stage);

/* intake.c: the warp's first pass over the logits (copies, check, max and
 * the groups' maxima); returns the first NaN or +inf token, or -1. */
int sp_intake(sp_sampler *s, const float *logits, int v, float *max);
/* top-k's group size for k of v (0: no groups) */
int sp_top_k_group_size(int v, int k);
/* the intake's groups for this warp (top-k's when top-k is on) */
void sp_gmax_layout(sp_sampler *s, int v, int k);
/* a stage moved token id's working logit from old to new_ */
void sp_gmax_moved(sp_sampler *s, int id, float old, float new_);

/* stages.c: the constraint's mask (before the chain), and the temperature
 * the chain may run itself: its value (0: nothing to do) and its work
 * (with the snapshot into snap, when not NULL: returns 1 if it took it) */
void sp_cands_constrain(sp_candidates *c, const sp_params *p);
int sp_temperature_value(sp_candidates *c, const sp_params *p, float *t);
int sp_apply_temperature(sp_candidates *c, float t, float *snap);

/* topk.c: the temperature and the top-k after it as one step; 0 (nothing
 * changed) where they must run as two */
int sp_temperature_top_k(sp_candidates *c, int k, float t, int intake_groups);

/* heap.c: the k-th largest of the values != -inf among vals[0..n) (at
 * least k of them), heap[k] its scratch; the same over the whole of x,
 * skipping the blocks that cannot enter (0 when fewer than k are finite;
 * *max the largest); and the indices of the m best items of val[0..n) by
 * (val desc, tie asc; tie NULL: the index), best first, into out[m]. */
float sp_heap_kth(float *heap, const float *vals, int n, int k);
int sp_scan_kth(float *heap, const float *x, int v, int k, float *kth,
                float *max);
int sp_top_ranked(const float *val, const int *tie, int n, int m, int *out);

/* Every stage's function, as its row names it (sampler.h: SP_STAGE_ROWS);
 * stages.c, topk.c, repeats.c and cutoffs.c define them. */
#define SP_STAGE_DECLARE_(id, name, cut, label, doc, fn, active)            \
    void fn(sp_candidates *c, const sp_params *p);
SP_STAGE_ALL_ROWS(SP_STAGE_DECLARE_)
#undef SP_STAGE_DECLARE_

#endif /* SP_CANDIDATES_H */
