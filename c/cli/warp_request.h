/*
 * warp_request.h — the one JSON document the CLI reads: the `warp`
 * command's request (warp_request.c).
 */
#ifndef SP_CLI_WARP_REQUEST_H
#define SP_CLI_WARP_REQUEST_H

#include <stddef.h>

#include "sampler.h"

/* Parses {"logits": [...], "history": [...], "dry_breakers": [...]}; the
 * arrays are malloc'd, the breakers added to params.  Returns SP_OK, or an
 * sp error code with a message in err. */
int sp_parse_warp_request(const char *text, size_t len, float **logits,
                          int *n_logits, int **history, int *n_history,
                          sp_params *params, char *err);
/* The same, with classifier-free guidance's "uncond_logits" (as many as
 * "logits"; *uncond NULL when the request has none), malloc'd. */
int sp_parse_warp_request_cfg(const char *text, size_t len, float **logits,
                              int *n_logits, int **history, int *n_history,
                              float **uncond, sp_params *params, char *err);

#endif /* SP_CLI_WARP_REQUEST_H */
