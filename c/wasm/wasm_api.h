/*
 * wasm_api.h — what the files of the engine's WASM exports share (c/wasm:
 * wasm_api.c, wasm_params.c, wasm_session.c, wasm_step.c, wasm_decode.c):
 * the export attribute and the last error's message.
 */
#ifndef WASM_API_H
#define WASM_API_H

#include "sampler.h"

#define API(name) __attribute__((export_name(name)))

/* The last failed call's message (api_last_error) and a count a call
 * returns beside its pointer (api_last_len); wasm_api.c holds them. */
extern char last_error[SP_ERR_LEN];
extern int last_len;

#endif /* WASM_API_H */
