// The page's messages for the engine's errors come from which error it is
// (its reason and kind, the engine's list: c/engine/sampler.h SP_ERRORS),
// never from its English words: the same words under another error give
// that error's message, and the words stay as the detail.
import { describe, expect, it } from 'vitest';

import { errorMsg } from './errors.js';

/** An error as the Worker's client rebuilds it. */
function failure(message, code, reason, kind) {
  return Object.assign(new Error(message), { code, reason, kind });
}

describe('errorMsg', () => {
  it('says a constraint error by its reason and kind', () => {
    expect(errorMsg('constraint', failure('regex: matches nothing', 10, 'regex', 'arg')).key).toBe('error.regex');
    // the words alone decide nothing
    expect(errorMsg('constraint', failure('regex: matches nothing', 2, 'arg', 'arg')).key).toBe('error.constraint');
    expect(errorMsg('constraint', failure('constraint: no token of this vocabulary', 5, 'unsatisfiable', 'unsatisfiable')).key).toBe('error.unsatisfiable');
  });

  it('tells a prompt too long from one the tokenizer cannot write, and settings from both', () => {
    const long = failure("prompt: 300 tokens leave no room in the model's context of 256", 12, 'prompt_long', 'arg');
    expect(errorMsg('start', long)).toMatchObject({ key: 'error.promptLong', detail: long.message });
    expect(errorMsg('start', failure("prompt: the character '☃' is not in the vocabulary", 11, 'prompt', 'arg')).key).toBe('error.prompt');
    expect(errorMsg('start', failure('prompt: more than 9 tokens', 2, 'arg', 'arg')).key).toBe('error.settings');
    expect(errorMsg('start', failure('session: out of memory', 3, 'nomem', 'nomem')).key).toBe('error.nomem');
  });

  it('a model file by kind, the Worker\'s own reasons first', () => {
    expect(errorMsg('model', failure('bigram: truncated', 1, 'format', 'format'), { file: 'x.bin' }).key).toBe('error.modelFile');
    expect(errorMsg('model', failure('model: this is a llama2.c tokenizer.bin (33 pieces), not a model', 13, 'tokenizer_as_model', 'format'), { file: 'tok.bin' }))
      .toMatchObject({ key: 'error.tokenizerAsModel', vars: { file: 'tok.bin' } });
    expect(errorMsg('model', Object.assign(new Error('no such file'), { reason: 'fetch', vars: {} })).key).toBe('error.fetch');
    expect(errorMsg('engine', failure("context full: 8 tokens, the model's seq_len", 6, 'context_full', 'state')).key).toBe('error.state');
  });
});
