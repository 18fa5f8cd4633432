/*
 * spec_round.c — one round of speculative sampling or prompt lookup
 * (speculative.c says how a round goes): the draft, drawn by the draft
 * model or copied from the text, then the target's batched verification,
 * accepting, correcting and adding the bonus token.
 */
#include <stdlib.h>
#include <string.h>

#include "speculative.h"


/* Prompt lookup's draft (see the top), q_i one-hot; returns its length. */
static int lookup_draft(sp_speculator *sp) {
    sp_session *tgt = sp->target;
    const int *t = sp_session_tokens(tgt);
    int len = sp_session_n_tokens(tgt), n = 0;
    sp->round_match = -1;
    sp->round_ngram = 0;
    for (int m = sp->ngram < len - 1 ? sp->ngram : len - 1; m >= 1 && !n; m--)
        for (int i = 0; i + m < len && !n; i++) { /* t[i..i+m), then more */
            if (memcmp(t + i, t + len - m, sizeof(int) * (size_t)m)) continue;
            for (int x; n < sp->n_draft && i + m + n < len; n++) {
                x = t[i + m + n];
                if (sp_session_is_end(tgt, x) ||
                    (sp_session_constraint_after(tgt, sp->round_drafted, n,
                                                 sp->target_ok) >= 0 &&
                     !sp->target_ok[x]))
                    break;
                sp->round_drafted[n] = x;
                float *q = sp->q + (size_t)n * sp->tvocab;
                memset(q, 0, sizeof(float) * (size_t)sp->tvocab);
                q[x] = 1.0f;
            }
            sp->round_match = n ? i + m : -1; /* none usable: the next */
            sp->round_ngram = n ? m : 0;
        }
    return n;
}

/* Brings the draft session to the target's text: restart it and feed the
 * target's tokens, mapped. */
int sp_spec_sync_draft(sp_speculator *sp, const sp_params *p, char *err) {
    if (!sp->draft) return SP_OK; /* prompt lookup: nothing to bring */
    int rc = sp_session_start(sp->draft, "", 0, err);
    if (rc != SP_OK) return rc;
    const int *t = sp_session_tokens(sp->target);
    int n = sp_session_n_tokens(sp->target);
    for (int i = 1; i < n; i++) { /* [0] is BOS / the boundary */
        rc = sp_session_step(sp->draft, p, sp->t2d[t[i]], err);
        if (rc != SP_OK) return rc;
    }
    return SP_OK;
}

/* Draws from probs[vocab] (ascending ids) with uniform u; -1 if all 0. */
static int draw_from(const float *probs, int vocab, double u) {
    double total = 0.0;
    for (int i = 0; i < vocab; i++) total += probs[i];
    if (!(total > 0.0)) return -1;
    double r = u * total, cum = 0.0;
    int last = -1;
    for (int i = 0; i < vocab; i++) {
        if (probs[i] <= 0.0f) continue;
        cum += probs[i];
        last = i;
        if (r < cum) return i;
    }
    return last;
}

static int verify(sp_speculator *sp, const sp_params *p, int n, char *err);

int sp_spec_round(sp_speculator *sp, const sp_params *p, char *err) {
    sp_session *tgt = sp->target, *dft = sp->draft;
    sp->round_n = sp->round_n_drafted = 0;
    /* the acceptance rule needs the draft's and the model's distributions
     * to depend on the text alone: no stage of its own randomness */
    if (p->mirostat)
        return sp_fail(err, SP_ERR_ARG, "speculative decoding: mirostat "
                       "learns from each token drawn; use it when sampling "
                       "one token at a time");
    if (sp_stage_active(p, SP_STAGE_XTC) && p->xtc_probability < 1.0f)
        return sp_fail(err, SP_ERR_ARG, "speculative decoding: XTC with a "
                       "probability below 1 draws at random; use 1, or "
                       "sample one token at a time");
    if (sp_session_finished(tgt))
        return sp_fail(err, SP_ERR_FINISHED, "the text is finished: the model "
                       "emitted its end-of-text token");
    sp->round_rejected = -1;
    sp->round_fed = 0;
    /* 1. draft N tokens; q_i kept over the target's ids */
    int n = 0, constrained = 0;
    if (!dft) n = lookup_draft(sp);
    for (; dft && n < sp->n_draft; n++) {
        /* under a constraint, the draft may propose only what the target's
         * constraint allows after the text and the drafts before */
        int ok = sp_session_constraint_after(tgt, sp->round_drafted, n,
                                             sp->target_ok);
        if (ok >= 0) {
            constrained = 1;
            int any = 0;
            for (int d = 0; d < sp->dvocab; d++) {
                int t = sp->d2t[d];
                sp->draft_mask[d] = (uint8_t)(sp->draft_allowed[d] && t >= 0 &&
                                              sp->target_ok[t]);
                any |= sp->draft_mask[d];
            }
            if (!any) break;
        }
        int rc = sp_session_preview(dft, p, err);
        if (rc == SP_ERR_STATE) break; /* the draft's context is full */
        if (rc != SP_OK) return rc;
        sp_step st = *sp_session_last_step(dft);
        sp_sampler_draw(&st, sp_rng_uniform(&sp->rng));
        float *q = sp->q + (size_t)n * sp->tvocab;
        memset(q, 0, sizeof(float) * (size_t)sp->tvocab);
        for (int j = 0; j < st.n_kept; j++) {
            int d = st.kept[j];
            if (sp->d2t[d] >= 0) q[sp->d2t[d]] = st.probs[d];
        }
        sp->round_drafted[n] = sp->d2t[st.token];
        rc = sp_session_commit(dft, p, st.token, err);
        if (rc != SP_OK && rc != SP_ERR_STATE) return rc;
    }
    sp->round_n_drafted = n;
    sp->drafted += n;
    sp->rounds++;
    if (constrained) /* the draft's own steps below are forced */
        memcpy(sp->draft_mask, sp->draft_allowed, (size_t)sp->dvocab);
    /* 2. one batched pass of the target over the token the last round
     * ended with and the drafts: the logits of every position to verify */
    int rc = sp_session_feed_ahead(tgt, sp->round_drafted, n, &sp->round_fed,
                                   err);
    if (rc != SP_OK) {
        sp_session_feed_ahead_end(tgt);
        return rc;
    }
    if (sp->round_fed > 0) {
        sp->target_passes++;
        sp->target_fed += sp->round_fed;
    }
    rc = verify(sp, p, n, err);
    sp_session_feed_ahead_end(tgt);
    return rc;
}

/* 3. Accepts or corrects the n drafts one by one (the target's logits for
 * each are ready), then brings the draft back to the accepted text. */
static int verify(sp_speculator *sp, const sp_params *p, int n, char *err) {
    sp_session *tgt = sp->target, *dft = sp->draft;
    int appended = 0;
    for (int i = 0; i <= n; i++) {
        int rc = sp_session_preview(tgt, p, err);
        if (rc != SP_OK) {
            if (appended > 0 && rc == SP_ERR_STATE) break; /* context full */
            return rc;
        }
        sp->target_positions++;
        sp_step st = *sp_session_last_step(tgt);
        int token, status;
        if (i == n) { /* 3. every draft accepted: a bonus token from p */
            sp_sampler_draw(&st, sp_rng_uniform(&sp->rng));
            token = st.token;
            status = SP_SPEC_BONUS;
        } else {
            int x = sp->round_drafted[i];
            const float *q = sp->q + (size_t)i * sp->tvocab;
            double ratio = (double)st.probs[x] / (double)q[x];
            if (sp_rng_uniform(&sp->rng) < ratio) {
                token = x;
                status = SP_SPEC_ACCEPTED;
                sp->accepted++;
            } else {
                for (int t = 0; t < sp->tvocab; t++) {
                    float r = st.probs[t] - q[t];
                    sp->residual[t] = r > 0.0f ? r : 0.0f;
                }
                memcpy(sp->rejected_p, st.probs,
                       sizeof(float) * (size_t)sp->tvocab);
                sp->round_rejected = i;
                double u = sp_rng_uniform(&sp->rng);
                token = draw_from(sp->residual, sp->tvocab, u);
                if (token < 0) { /* p == q to rounding: sample p itself */
                    sp_sampler_draw(&st, u);
                    token = st.token;
                }
                status = SP_SPEC_CORRECTED;
            }
        }
        rc = sp_session_commit(tgt, p, token, err);
        if (rc != SP_OK) return rc;
        sp->round_tokens[appended] = token;
        sp->round_status[appended] = status;
        appended++;
        if (status != SP_SPEC_ACCEPTED || sp_session_finished(tgt)) break;
    }
    sp->round_n = appended;
    if (!dft) return SP_OK; /* prompt lookup: no draft model to bring back */
    /* the draft goes back to the accepted text, then takes the last token */
    int keep = sp_session_n_generated(dft) - (sp->round_n_drafted - appended);
    if (appended > 0 && sp->round_status[appended - 1] != SP_SPEC_ACCEPTED)
        keep--; /* the corrected or bonus token replaces a draft token */
    if (keep < 0 || sp_session_rewind(dft, keep, err) != SP_OK ||
        (sp->round_status[appended - 1] != SP_SPEC_ACCEPTED &&
         sp_session_step(dft, p, sp->t2d[sp->round_tokens[appended - 1]],
                         err) != SP_OK))
        return sp_spec_sync_draft(sp, p, err); /* the slow, sure way */
    return SP_OK;
}

