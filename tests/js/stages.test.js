// Whether a stage is on is the engine's to say (Engine.activeStages, the
// test its chain runs: sp_stage_active); the page's chain editor shows that
// answer and keeps no rule of its own.  Worked cases, and every switch of
// the registry turning on its own stage and no other.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { PARAM_SPECS } from '../../web/src/app/params.js';
import { MODELS_DIR, engine, runNative } from './helpers.js';

const bigramBytes = () => new Uint8Array(fs.readFileSync(path.join(MODELS_DIR, 'bigram.bin')));

describe.each(['simd', 'scalar'])('the stages settings turn on (%s)', (flavor) => {
  it('none by default', async () => {
    const e = await engine(flavor);
    expect(e.activeStages({})).toEqual([]);
  });

  it('XTC at probability 0.5 and threshold 0.55 is off (two tokens cannot both be at 0.55 or more), and cuts nothing', async () => {
    const e = await engine(flavor);
    expect(e.activeStages({ xtc_probability: 0.5, xtc_threshold: 0.55 })).toEqual([]);
    expect(e.activeStages({ xtc_probability: 0.5, xtc_threshold: 0.5 })).toEqual(['xtc']);
    expect(e.activeStages({ xtc_probability: 0.5 })).toEqual(['xtc']); // threshold 0.1
    // the chain agrees: at 0.55 no token is cut whatever the uniform
    const s = e.createSampler(4);
    const logits = [2, 1.9, -3, -4];
    const off = s.warp(logits, [], { xtc_probability: 1, xtc_threshold: 0.55 });
    expect(off.nKept).toBe(4);
    const on = s.warp(logits, [], { xtc_probability: 1, xtc_threshold: 0.3 });
    expect(on.cuts).toEqual([{ stage: 'xtc', cut: 1, mass: on.probsRaw[0] }]); // the top token goes, the second stays
    s.free();
  });

  it('temperature: T = 1 with a dynamic range is on; mirostat after the chain; a logit bias', async () => {
    const e = await engine(flavor);
    expect(e.activeStages({ temperature: 1, dynatemp_range: 0.5 })).toEqual(['temperature']);
    expect(e.activeStages({ mirostat: 2, top_k: 5 })).toEqual(['top_k', 'mirostat']);
    expect(e.activeStages({ logit_bias: [[3, -Infinity]] }, { vocab: 10 })).toEqual(['bias']);
    expect(() => e.activeStages({ logit_bias: [[30, 1]] }, { vocab: 10 })).toThrow(RangeError);
    expect(() => e.activeStages({ xtc_threshold: 1.5 })).toThrow(/xtc-threshold/);
  });

  it('each switch of the registry, at its "on" value, turns on its own stage and no other', async () => {
    const e = await engine(flavor);
    const switches = PARAM_SPECS.filter((s) => s.isSwitch);
    expect(switches.length).toBeGreaterThanOrEqual(15);
    const wrong = switches.map((s) => [s.key, e.activeStages({ [s.key]: s.on })]).filter(([, on]) => on.length !== 1);
    expect(wrong).toEqual([]);
    for (const s of switches) expect(e.activeStages({ [s.key]: s.on }), s.key).toEqual([s.stage]);
  });
});

// Words, not ids: bad words (HF NoBadWordsLogitsProcessor) and sequence
// biases (HF SequenceBiasLogitsProcessor), as token ids on chosen logits
// (the worked numbers of docs/samplers.md) and as texts the model's
// tokenizer makes tokens, the same as the CLI's --bad-words / --sequence-bias.
describe.each(['simd', 'scalar'])('words, not ids (%s)', (flavor) => {
  it('on chosen logits: a bad word [1, 2] after the tokens 0, 1 cuts 2; sequence biases [1, 2] +2.5 and [3] +1', async () => {
    const e = await engine(flavor);
    expect(e.activeStages({ bad_words_ids: [[1, 2]] })).toEqual(['bad_words']);
    expect(e.activeStages({ sequence_bias_ids: [[[1, 2], 2.5]] })).toEqual(['sequence_bias']);
    const s = e.createSampler(4);
    const x = [2, 1, 0, -1];
    const bad = s.warp(x, [0, 1], { bad_words_ids: [[1, 2], [0, 3]] });
    expect(bad.cuts.map(({ stage, cut }) => ({ stage, cut }))).toEqual([{ stage: 'bad_words', cut: 1 }]);
    expect(Array.from(bad.probs).map((p) => +p.toFixed(6))).toEqual([0.705385, 0.259496, 0, 0.035119]);
    const biased = s.warp(x, [0, 1], { sequence_bias_ids: [[[1, 2], 2.5], [[3], 1]] });
    expect(Array.from(biased.probs).map((p) => +p.toFixed(6))).toEqual([0.317265, 0.116715, 0.523082, 0.042937]);
    // the text does not end with [0]: [0, 2] changes nothing
    expect(Array.from(s.warp(x, [0, 1], { sequence_bias_ids: [[[0, 2], 5]] }).probs)).toEqual(Array.from(s.warp(x, [0, 1], {}).probs));
    expect(() => s.warp(x, [], { bad_words_ids: [[1, 9]] })).toThrow(/bad-words token 9 is outside the vocabulary/);
    expect(() => s.warp(x, [], { sequence_bias_ids: [[[1], Infinity]] })).toThrow(/the value must be a finite number/);
    expect(() => s.warp(x, [], { bad_words: ['the'] })).toThrow(/no tokenizer/);
    expect(() => s.warp(x, [], { bad_words_ids: [[1]], samplers: 'llama.cpp' })).toThrow(/bad-words is set but the samplers' order leaves out bad_words/);
    s.free();
  });

  it('as texts: the model\'s tokens for them, the same text as the CLI\'s --bad-words and --sequence-bias', async () => {
    const e = await engine(flavor);
    const m = e.loadModel(bigramBytes());
    const text = (/** @type {Record<string, any>} */ params) => {
      const s = e.createSession(m);
      s.start('', 3);
      let out = '';
      for (let i = 0; i < 200; i++) out += s.step(params).piece;
      s.free();
      return out;
    };
    const plain = text({});
    const words = text({ bad_words: ['an'], sequence_bias: [['ar', 2]] });
    const ids = (/** @type {string} */ t) => Array.from(m.tokenizer.encode(t));
    expect(words).toBe(text({ bad_words_ids: [ids('an')], sequence_bias_ids: [[ids('ar'), 2]] }));
    expect(plain).toContain('an');
    expect(words).not.toContain('an');
    const cli = runNative(['generate', '--model', 'bigram', '--seed', '3', '--steps', '200', '--bad-words', 'an', '--sequence-bias', 'ar=2']);
    expect(cli.stdout.toString()).toBe(`${words}\n`);
    const s = e.createSession(m);
    s.start('', 1);
    expect(() => s.step({ bad_words: [''] })).toThrow(new RangeError('bad-words: "" is no token'));
    expect(() => s.step({ sequence_bias: [['a b', 1]] })).toThrow(/sequence-bias: "a b": /);
    s.free();
    m.free();
  });
});
