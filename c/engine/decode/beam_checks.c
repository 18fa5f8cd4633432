/*
 * beam_checks.c — the checks of beam search's settings (beam.c), which a
 * front-end makes before it has a model: the width, the length penalty,
 * the groups of diverse beam search and their diversity penalty.
 */
#include "internal.h"

int sp_beam_check_width(int width, char *err) {
    if (width < 1 || width > SP_BEAM_MAX_WIDTH)
        return sp_fail(err, SP_ERR_ARG, "beams must be in 1..%d (got %d)",
                       SP_BEAM_MAX_WIDTH, width);
    return SP_OK;
}

int sp_beam_check_groups(int width, int groups, char *err) {
    if (groups < 1 || groups > SP_BEAM_MAX_WIDTH)
        return sp_fail(err, SP_ERR_ARG, "num-beam-groups must be in 1..%d "
                       "(got %d)", SP_BEAM_MAX_WIDTH, groups);
    if (width % groups != 0)
        return sp_fail(err, SP_ERR_ARG, "num-beam-groups: %d beams do not "
                       "split into %d groups of the same size (beams must "
                       "be a multiple of num-beam-groups)", width, groups);
    return SP_OK;
}

int sp_beam_check_diversity(double penalty, char *err) {
    if (!(penalty >= 0.0 && penalty <= SP_BEAM_MAX_DIVERSITY))
        return sp_fail(err, SP_ERR_ARG, "diversity-penalty must be in [0, %d] "
                       "(got %g)", SP_BEAM_MAX_DIVERSITY, penalty);
    return SP_OK;
}

int sp_beam_check_length_penalty(double alpha, char *err) {
    if (!(alpha >= 0.0 && alpha <= SP_BEAM_MAX_LENGTH_PENALTY))
        return sp_fail(err, SP_ERR_ARG, "length-penalty must be in [0, %d] "
                       "(got %g)", SP_BEAM_MAX_LENGTH_PENALTY, alpha);
    return SP_OK;
}
