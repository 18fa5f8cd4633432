/*
 * bench.h — the benchmark's workloads (bench_core.c), compiled into the
 * native harness (bench_native.c) and into the bench WASM modules (driven by
 * bench.mjs).  Every function runs a whole batch inside the engine, so that
 * the caller's clock brackets real work and not call overhead; the returned
 * values are checksums, so that nothing can be optimized away and the
 * builds can be compared bit for bit.
 */
#ifndef SP_BENCH_H
#define SP_BENCH_H

#include <stddef.h>
#include <stdint.h>

#if defined(__wasm__)
#define BENCH_API(name) __attribute__((export_name(name)))
#else
#define BENCH_API(name)
#endif

/* The model the forward benchmarks use: the shape of a small real model
 * (stories15M's, with a 512-token vocabulary), random weights. */
#define BENCH_DIM 288
#define BENCH_HIDDEN 768
#define BENCH_LAYERS 6
#define BENCH_HEADS 6
#define BENCH_KV_HEADS 6
#define BENCH_VOCAB 512
#define BENCH_SEQ_LEN 256

/* ---- sampler ----------------------------------------------------------- */

/* Zipf-shaped logits over vocab tokens (a few variants, cycled), a 64-token
 * history each, the benchmark's settings (repetition penalty 1.1 over the
 * last 64 tokens, T 0.8, top-k 50, top-p 0.9, min-p 0.05).  0 = ok. */
BENCH_API("bench_sampler_init") int bench_sampler_init(int vocab);
/* n steps of the engine's pipeline: sp_sampler_warp + sp_sampler_draw, with
 * the raw/tempered reporting on or off; returns the sum of the tokens. */
BENCH_API("bench_sampler_steps") double bench_sampler_steps(int n, int report);
/* n steps of the textbook reference (full sort of the vocabulary). */
BENCH_API("bench_ref_steps") double bench_ref_steps(int n);
/* Compares the pipeline and the reference on every variant: the number of
 * variants whose kept sets differ (0 = agree); *n_kept gets the kept-set
 * size of the first, *max_dp the largest |p_fast - p_ref|. */
BENCH_API("bench_sampler_check")
int bench_sampler_check(int *n_kept, double *max_dp);
/* A hash of the pipeline's output bits on every variant (kept ids, final
 * probabilities, entropies, drawn token): equal in every build. */
BENCH_API("bench_sampler_digest") double bench_sampler_digest(void);

/* ---- forward pass -------------------------------------------------------- */

/* The model file image (malloc'd), deterministic. */
uint8_t *bench_model_bytes(size_t *size);
/* Loads a model image (ownership taken); 0 = ok. */
BENCH_API("bench_model_load") int bench_model_load(uint8_t *data, double size);
/* A generation of n tokens with the KV cache: sp_forward at positions
 * 0..n-1 on the benchmark's own state.  Returns a hash of the last logits. */
BENCH_API("bench_forward_run") double bench_forward_run(int n);
/* Recomputation without a cache, steps t in [t0, t1): for each, a fresh
 * state and sp_forward at positions 0..t.  Returns a hash of the logits. */
BENCH_API("bench_recompute") double bench_recompute(int t0, int t1);
/* The counters of the benchmark's state (after bench_forward_run, which
 * resets them first), and the summed counters of the fresh states of the
 * last bench_recompute calls since bench_counters_reset_recompute:
 * out[0..5) = flops, flops_no_cache, tokens, kv_reused, kv_written,
 * out[5..10) = the same for the recomputation. */
BENCH_API("bench_counters") void bench_counters(double *out);
BENCH_API("bench_counters_reset_recompute")
void bench_counters_reset_recompute(void);

/* ---- batched forward pass, speculative decoding (bench_spec.c) --------- */

/* Model slots: 0 the forward benchmark's model, 1 the shipped transformer,
 * 2 and 3 its drafts (bible_tiny.bin, bible_bigram.bin).  Loads an image
 * (ownership taken) into a slot with a fresh state; 0 = ok. */
BENCH_API("bench_spec_model_load")
int bench_spec_model_load(int slot, uint8_t *data, double size);
/* The shipped transformer's tokenizer (after slot 1; data freed); 0 = ok. */
BENCH_API("bench_spec_tokenizer_load")
int bench_spec_tokenizer_load(uint8_t *data, double size);
/* Positions 0..n_positions-1 of slot's model in passes of `batch`
 * positions (sp_forward_batch, every row's logits); a hash of the last
 * logits (the same for every batch size). */
BENCH_API("bench_batch_run")
double bench_batch_run(int slot, int batch, int n_positions);
/* A prompt of n tokens: batched (passes of SP_BATCH_MAX, the last logits
 * only) or one sp_forward per token; a hash of the last logits. */
BENCH_API("bench_prefill") double bench_prefill(int slot, int n, int batched);
/* A generation of the shipped transformer from "And God said", at most
 * max_tokens tokens (or to the end of the text or the context): plain
 * (draft 0) or speculative with draft 1 (bible_tiny) or 2 (bible_bigram)
 * drafting k tokens a round.  Returns a hash of the generated tokens;
 * out[7] = generated, drafted, accepted, rounds, the target's forward
 * passes and the positions they fed (the prompt's prefill included), and
 * the prompt's tokens. */
BENCH_API("bench_generate")
double bench_generate(int draft, int k, double temperature, double seed,
                      int max_tokens, double *out);

#endif /* SP_BENCH_H */
