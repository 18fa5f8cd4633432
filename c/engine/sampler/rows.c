/*
 * rows.c — what the stages' rows (sampler.h, SP_STAGE_ROWS and the
 * terminal rows, mirostat and adaptive-p) give the rest of the engine: each stage's name,
 * label, doc, cut code and activity test, who cut what in a step, and the
 * chain's order (its presets, a --samplers list, its text).  The
 * parameters' table: params.c.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The stages' names, labels, docs and cut codes: their rows (sampler.h,
 * SP_STAGE_ROWS and the terminal ones, mirostat and adaptive-p). */
#define ROW_TEXTS(id, name, cut, label, doc, ...) {name, label, doc},
static const char *const STAGE_TEXTS[SP_STAGE_ALL][3] = {
    SP_STAGE_ALL_ROWS(ROW_TEXTS)};
#undef ROW_TEXTS

const char *sp_stage_name(int stage) {
    return stage >= 0 && stage < SP_STAGE_ALL ? STAGE_TEXTS[stage][0] : NULL;
}

const char *sp_stage_label(int stage) {
    return stage >= 0 && stage < SP_STAGE_ALL ? STAGE_TEXTS[stage][1] : NULL;
}

const char *sp_stage_doc(int stage) {
    return stage >= 0 && stage < SP_STAGE_ALL ? STAGE_TEXTS[stage][2] : NULL;
}

/* The stage an order names (the chain's stages only: mirostat ends the
 * chain wherever an order puts the others), or -1. */
int sp_stage_find(const char *name) {
    for (int i = 0; i < SP_STAGE_COUNT; i++)
        if (!strcmp(STAGE_TEXTS[i][0], name)) return i;
    return -1;
}

/* A stage's activity test: its row's expression of the settings p. */
#define ROW_ACTIVE(id, name, cut, label, doc, fn, active)                   \
    case SP_STAGE_##id: return (active);
int sp_stage_active(const sp_params *p, int stage) {
    switch (stage) {
    SP_STAGE_ALL_ROWS(ROW_ACTIVE)
    default: return 0;
    }
}
#undef ROW_ACTIVE

int sp_stage_cut(int stage) {
#define ROW_CUT(id, name, cut, ...) SP_CUT_##cut,
    static const uint8_t CUTS[SP_STAGE_ALL] = {SP_STAGE_ALL_ROWS(ROW_CUT)};
#undef ROW_CUT
    return stage >= 0 && stage < SP_STAGE_ALL ? CUTS[stage] : SP_CUT_NONE;
}

int sp_step_cuts(const sp_step *st, const sp_params *p, const char **names,
                 int *counts, double *masses) {
    int by_cut[SP_CUT_COUNT] = {0};
    double mass[SP_CUT_COUNT] = {0};
    for (int i = 0; i < st->vocab; i++) by_cut[st->cut[i]]++;
    /* the model's probability each one removed (summed in token order, so
     * every build adds the same numbers in the same order) */
    if (masses && st->probs_raw)
        for (int i = 0; i < st->vocab; i++) mass[st->cut[i]] += st->probs_raw[i];
    int n = 0;
    /* what comes before the chain, the chain, what ends it */
    int seq[SP_STAGE_COUNT + 3], ns = 0;
    seq[ns++] = SP_CUT_MASK;
    seq[ns++] = SP_CUT_CONSTRAINT;
    int stages = p->n_order ? p->n_order : SP_STAGE_COUNT;
    for (int i = 0; i < stages; i++) {
        int cut = sp_stage_cut(p->n_order ? p->order[i] : i);
        if (cut != SP_CUT_NONE) seq[ns++] = cut;
    }
    seq[ns++] = sp_stage_cut(SP_STAGE_MIROSTAT);
    for (int i = 0; i < ns; i++) {
        if (!by_cut[seq[i]]) continue;
        names[n] = sp_cut_name(seq[i]);
        if (masses) masses[n] = st->probs_raw ? mass[seq[i]] : NAN;
        counts[n++] = by_cut[seq[i]];
    }
    return n;
}

/* ---------------------------------------------------------------- order */

/* Hugging Face generate's logits processors, in the order it applies
 * them, and llama.cpp's default chain (after the logit bias). */
static const uint8_t ORDER_HF[] = {
    SP_STAGE_CFG, /* HF: before every other processor */
    SP_STAGE_BIAS,  SP_STAGE_SEQUENCE_BIAS, SP_STAGE_PENALTIES,
    SP_STAGE_NO_REPEAT_NGRAM, SP_STAGE_BAD_WORDS,
    SP_STAGE_TEMPERATURE, SP_STAGE_TOP_H, SP_STAGE_TOP_K, SP_STAGE_TOP_P,
    SP_STAGE_MIN_P, SP_STAGE_TYPICAL_P, SP_STAGE_EPSILON, SP_STAGE_ETA,
    SP_STAGE_WATERMARK}; /* HF: "after all logits processing" (#34630) */
static const uint8_t ORDER_LLAMA_CPP[] = {
    SP_STAGE_BIAS,  SP_STAGE_PENALTIES, SP_STAGE_DRY, SP_STAGE_TOP_N_SIGMA,
    SP_STAGE_TOP_K, SP_STAGE_TYPICAL_P, SP_STAGE_TOP_P, SP_STAGE_MIN_P,
    SP_STAGE_XTC,   SP_STAGE_TEMPERATURE};

/* The presets by name ("default": n_order 0, every stage in sp_stage's
 * order). */
static const struct {
    const char *name;
    const uint8_t *order;
    int n;
} PRESETS[] = {
    {"default", NULL, 0},
    {"hf", ORDER_HF, (int)sizeof ORDER_HF},
    {"llama.cpp", ORDER_LLAMA_CPP, (int)sizeof ORDER_LLAMA_CPP},
};
#define N_PRESETS ((int)(sizeof PRESETS / sizeof PRESETS[0]))

const char *sp_order_preset(int i) {
    return i >= 0 && i < N_PRESETS ? PRESETS[i].name : NULL;
}

static void set_order(sp_params *p, const uint8_t *order, int n) {
    p->n_order = n;
    if (n) memcpy(p->order, order, (size_t)n);
}

/* "(the stages: bias, ..., xtc; or default, hf, llama.cpp)": what an
 * order may name, for its error messages. */
static void order_names(char *out, size_t size) {
    size_t used = 0;
    int w = snprintf(out, size, "(the stages: ");
    for (int i = 0; w >= 0 && (size_t)w < size - used && i < SP_STAGE_COUNT;
         i++) {
        used += (size_t)w;
        w = snprintf(out + used, size - used, "%s%s", i ? ", " : "",
                     sp_stage_name(i));
    }
    for (int i = 0; w >= 0 && (size_t)w < size - used && i < N_PRESETS; i++) {
        used += (size_t)w;
        w = snprintf(out + used, size - used, "%s%s", i ? ", " : "; or ",
                     PRESETS[i].name);
    }
    if (w >= 0 && (size_t)w < size - used)
        snprintf(out + used + (size_t)w, size - used - (size_t)w, ")");
}

int sp_params_set_order(sp_params *p, const char *list, char *err) {
    while (*list == ' ') list++;
    if (!*list) list = "default";
    for (int i = 0; i < N_PRESETS; i++)
        if (!strcmp(list, PRESETS[i].name)) {
            set_order(p, PRESETS[i].order, PRESETS[i].n);
            return SP_OK;
        }
    char names[256];
    order_names(names, sizeof names);
    uint8_t order[SP_STAGE_COUNT];
    int n = 0;
    const char *at = list;
    while (*at) {
        size_t len = strcspn(at, ",;");
        const char *end = at + len;
        while (len && (at[0] == ' ')) at++, len--;
        while (len && at[len - 1] == ' ') len--;
        char name[32];
        if (len == 0 || len >= sizeof name)
            return sp_fail(err, SP_ERR_ARG, "samplers: '%.*s' is not a stage "
                           "%s", (int)(len < 31 ? len : 31), at, names);
        memcpy(name, at, len);
        name[len] = '\0';
        int s = sp_stage_find(name);
        if (s < 0)
            return sp_fail(err, SP_ERR_ARG, "samplers: '%s' is not a stage "
                           "%s", name, names);
        for (int i = 0; i < n; i++)
            if (order[i] == s)
                return sp_fail(err, SP_ERR_ARG, "samplers: %s is listed "
                               "twice", name);
        order[n++] = (uint8_t)s;
        at = *end ? end + 1 : end;
    }
    set_order(p, order, n);
    return SP_OK;
}

void sp_params_order_text(const sp_params *p, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    int n = p->n_order ? p->n_order : SP_STAGE_COUNT;
    for (int i = 0; i < n; i++) {
        int s = p->n_order ? p->order[i] : i;
        int w = snprintf(out + used, size - used, "%s%s", i ? "," : "",
                         sp_stage_name(s));
        if (w < 0 || (size_t)w >= size - used) break;
        used += (size_t)w;
    }
}
