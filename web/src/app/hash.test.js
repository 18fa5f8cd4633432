// The URL hash: parsing, validation with notices, and the round trip.
import { describe, expect, it } from 'vitest';

import { defaultState, parseHash as parse, serializeHash } from './hash.js';
import { openedLink } from '../../../tests/helpers/engine.js';

/** parseHash, with its notices in English */
const parseHash = (/** @type {string} */ hash) => {
  const r = parse(hash);
  return { ...r, notices: r.notices.map(String) };
};
/** a link as the page opens it: parsed, then its settings asked of the engine; the notices in English */
const opened = async (/** @type {string} */ hash) => {
  const r = await openedLink(hash);
  return { ...r, notices: r.notices.map(String) };
};
import { PARAM_SPECS, SPEC, clampParam, defaultParams } from './params.js';

describe('parseHash', () => {
  it('reads the example link of the issue', () => {
    const { state, notices } = parseHash('#model=transformer&temperature=0.7&top_k=40&top_p=0.9&seed=42&prompt=Once');
    expect(notices).toEqual([]);
    expect(state.model).toBe('transformer');
    expect(state.params).toEqual({ ...defaultParams(), temperature: 0.7, top_k: 40, top_p: 0.9 });
    expect(state.seed).toBe('42');
    expect(state.prompt).toBe('Once');
    expect(state.steps).toBe(0);
  });

  it('gives the defaults for an empty hash, without notices', () => {
    expect(parseHash('')).toEqual({ state: defaultState(), notices: [], present: new Set() });
    expect(parseHash('#').state).toEqual(defaultState());
  });

  it('falls back to the default for each bad value and says why (a setting\'s range: the engine\'s)', async () => {
    const { state, notices } = await opened('#temperature=hot&top_k=2.5&top_p=0&min_p=-1&repetition_penalty=0&seed=-3&model=gpt5&steps=x&forced=1-2');
    expect(state.params.temperature).toBe(1);
    expect(state.params.top_k).toBe(0);
    expect(state.params.min_p).toBe(0);
    expect(state.params.repetition_penalty).toBe(1);
    expect(state.params.top_p).toBe(1);
    // the later value wins: the earlier is no setting of the link's
    expect(await opened('#top_p=0&top_p=0.5')).toMatchObject({ state: { params: { top_p: 0.5 } }, notices: [] });
    expect(state.seed).toBe('42');
    expect(state.model).toBe('bigram');
    expect(state.steps).toBe(0);
    expect(state.forced).toEqual([]);
    expect(notices).toHaveLength(9);
    expect(notices[0]).toBe('Ignored temperature="hot" from the link: Temperature must be a number; using 1.');
    expect(notices.find((n) => n.includes('top_k='))).toMatch(/Top-k must be a whole number/);
    expect(notices.find((n) => n.includes('top_p='))).toBe('Ignored top_p="0" from the link: Top-p must be in (0, 1]; using 1.');
    expect(notices.find((n) => n.includes('repetition_penalty='))).toBe('Ignored repetition_penalty="0" from the link: Repetition penalty must be in (0, ∞); using 1.');
    expect(notices.find((n) => n.includes('seed='))).toMatch(/must be a whole number/);
    expect(notices.find((n) => n.includes('model='))).toMatch(/one of bigram, transformer/);
  });

  it('takes a whole number for every int parameter of the registry: mirostat=1.5 is refused with a notice, not passed on', async () => {
    const ints = PARAM_SPECS.filter((p) => p.type === 'int');
    expect(ints.map((p) => p.key)).toEqual(expect.arrayContaining(['top_k', 'mirostat', 'penalty_last_n', 'no_repeat_ngram_size']));
    for (const p of ints) {
      const { state, notices } = await opened(`#${p.key}=1.5`);
      expect(state.params[p.key]).toBe(p.def);
      expect(notices).toEqual([`Ignored ${p.key}="1.5" from the link: ${p.label} must be a whole number; using ${p.def}.`]);
    }
    expect(parseHash('#mirostat=2').state.params.mirostat).toBe(2);
  });

  it('one range per parameter, the engine\'s: a value outside the slider\'s span but inside the range is taken', async () => {
    // epsilon's range is [0, 1) while its slider spans 0 to 0.1; temperature's is [0, ∞)
    expect((await opened('#epsilon_cutoff=0.15')).state.params.epsilon_cutoff).toBe(0.15);
    expect((await opened('#temperature=5')).state.params.temperature).toBe(5);
    expect((await opened('#dry_multiplier=4')).state.params.dry_multiplier).toBe(4);
    const { state, notices } = await opened('#epsilon_cutoff=1&mirostat=3');
    expect(state.params.epsilon_cutoff).toBe(0);
    expect(state.params.mirostat).toBe(0);
    expect(notices).toEqual([
      'Ignored epsilon_cutoff="1" from the link: Epsilon cutoff must be in [0, 1); using 0.',
      'Ignored mirostat="3" from the link: Mirostat must be in [0, 2]; using 0.',
    ]);
  });

  it('explains that a link cannot carry a model loaded from a file', () => {
    const { state, notices } = parseHash('#model=file&seed=3');
    expect(state.model).toBe('bigram');
    expect(notices).toEqual(['This link was made with a model loaded from a file, which a link cannot carry: load it with "Load a model file…". Using bigram.']);
  });

  it('carries a trained bigram\'s text (train=); without it, says the link cannot carry the model', () => {
    const words = 'apple\npear & plum\n# 50% = "yes", ~1+1';
    const { state, notices } = parseHash(serializeHash({ ...defaultState(), model: 'text', trainText: words, seed: '5' }));
    expect(notices).toEqual([]);
    expect(state.model).toBe('text');
    expect(state.trainText).toBe(words);
    expect(serializeHash({ ...defaultState(), model: 'text', trainText: 'ab' })).toMatch(/^#model=text&train=ab&/);
    const bare = parseHash('#model=text&seed=3');
    expect(bare.state.model).toBe('bigram');
    expect(bare.state.trainText).toBeUndefined();
    expect(bare.notices).toEqual(['This link was made with a model trained on a text of the learner\'s own, which a link cannot carry: paste the text under "Your text". Using bigram.']);
    // a text without model=text is no model of the link's
    expect(parseHash('#model=bigram&train=ab').state).toEqual(parseHash('#model=bigram').state);
  });

  it('names unknown keys', () => {
    const { notices } = parseHash('#temprature=2');
    expect(notices).toEqual(['Ignored the unknown setting "temprature" in the link.']);
  });

  it('takes any 64-bit seed and no more', () => {
    expect(parseHash('#seed=18446744073709551615').state.seed).toBe('18446744073709551615');
    expect(parseHash('#seed=007').state.seed).toBe('7');
    const over = parseHash('#seed=18446744073709551616');
    expect(over.state.seed).toBe('42');
    expect(over.notices[0]).toMatch(/at most 18446744073709551615/);
  });

  it('decodes prompts with spaces, symbols and newlines', () => {
    expect(parseHash('#prompt=Once%20upon+a%20time%2C%0A%26%3D').state.prompt).toBe('Once upon a time,\n&=');
  });

  it('reads forced tokens in order', () => {
    expect(parseHash('#steps=9&forced=7.5,3.12').state.forced).toEqual([[3, 12], [7, 5]]);
  });
});

describe('serializeHash', () => {
  it('round-trips every field', () => {
    const state = {
      ...defaultState(),
      model: 'transformer',
      params: { ...defaultParams(), temperature: 0.35, top_k: 12, top_p: 0.83, min_p: 0.05, repetition_penalty: 1.3 },
      seed: '18446744073709551615',
      prompt: 'And God said, "Let there be light" & #1',
      steps: 25,
      forced: [[2, 40], [10, 3]],
    };
    const hash = serializeHash(state);
    expect(hash.startsWith('#model=transformer&temperature=0.35&top_k=12&top_p=0.83&min_p=0.05&repetition_penalty=1.3&seed=')).toBe(true);
    expect(hash).toContain('forced=2.40,10.3');
    const back = parseHash(hash);
    expect(back.notices).toEqual([]);
    expect(back.state).toEqual(state);
  });

  it('writes the neutral min-p and penalty only when they are on, and no empty prompt', () => {
    const hash = serializeHash(defaultState());
    expect(hash).toBe('#model=bigram&temperature=1&top_k=0&top_p=1&seed=42');
    expect(parseHash(hash).state).toEqual(defaultState());
  });

  it('carries the Chat switch as chat=1 after the prompt, and a link without it is unchanged', () => {
    const hash = serializeHash({ ...defaultState(), model: 'url', modelUrl: 'models/qwen.gguf', prompt: 'Why is the sky blue?', chat: true });
    expect(hash).toBe('#model=url&model_url=models%2Fqwen.gguf&temperature=1&top_k=0&top_p=1&seed=42&prompt=Why+is+the+sky+blue%3F&chat=1');
    expect(parseHash(hash).state.chat).toBe(true);
    expect(parseHash(hash).notices).toEqual([]);
    // off: no key at all (every link written before the switch reads as it did)
    expect(serializeHash({ ...defaultState(), prompt: 'Hi', chat: false })).toBe('#model=bigram&temperature=1&top_k=0&top_p=1&seed=42&prompt=Hi');
    expect(parseHash('#chat=0').state.chat).toBe(false);
    expect(parseHash('#prompt=Hi').state.chat).toBeUndefined();
    const bad = parseHash('#chat=yes');
    expect(bad.state.chat).toBeUndefined();
    expect(bad.notices.map(String).join(' ')).toMatch(/chat="yes".*0, 1/);
  });

  it('drops forced tokens past the generated text', () => {
    expect(serializeHash({ ...defaultState(), steps: 3, forced: [[1, 2], [5, 6]] }).endsWith('forced=1.2')).toBe(true);
  });
});

describe('clampParam', () => {
  it('clamps into the range and onto the grid', () => {
    expect(clampParam(SPEC.temperature, 7)).toBe(3);
    expect(clampParam(SPEC.temperature, -1)).toBe(0);
    expect(clampParam(SPEC.temperature, 0.7000000000000001)).toBe(0.7);
    expect(clampParam(SPEC.temperature, 0.72)).toBe(0.7);
    expect(clampParam(SPEC.top_p, 0)).toBe(0.01);
    expect(clampParam(SPEC.top_p, 0.899999)).toBe(0.9);
    expect(clampParam(SPEC.top_k, 80, 54)).toBe(54);
    expect(clampParam(SPEC.top_k, 3.4, 54)).toBe(3);
    expect(clampParam(SPEC.repetition_penalty, 0.5)).toBe(1);
    expect(clampParam(SPEC.min_p, NaN)).toBe(0);
  });

  it('has a label and a neutral default for every slider: the engine\'s registry, all of it', () => {
    expect(PARAM_SPECS.slice(0, 6).map((s) => s.label)).toEqual(['Temperature', 'Top-k', 'Top-p', 'Min-p', 'Typical-p', 'Repetition penalty']);
    expect(PARAM_SPECS.length).toBeGreaterThanOrEqual(25);
    expect(defaultParams()).toMatchObject({ temperature: 1, top_k: 0, top_p: 1, min_p: 0, repetition_penalty: 1, typical_p: 1, xtc_threshold: 0.1, dry_base: 1.75, mirostat: 0 });
    for (const s of PARAM_SPECS) expect(s.hint.length, s.key).toBeGreaterThan(10);
  });
});

describe('the decoding lab in the hash', () => {
  it('round-trips the strategy, the constraint and the bans of the single view', () => {
    const beam = { ...defaultState(), strategy: 'beam', beam: { width: 3, lengthPenalty: 0.6 }, constraint: { kind: 'regex', regex: '[A-Z][a-z]{2,5}(-[A-Z][a-z]+)?' }, bans: [0, 27], steps: 12 };
    const hash = serializeHash(beam);
    expect(hash).toBe('#model=bigram&temperature=1&top_k=0&top_p=1&seed=42&steps=12&strategy=beam&beams=3&length_penalty=0.6&regex=%5BA-Z%5D%5Ba-z%5D%7B2,5%7D%28-%5BA-Z%5D%5Ba-z%5D%2B%29%3F&ban=0,27');
    expect(parseHash(hash)).toMatchObject({ state: beam, notices: [] });
    const spec = { ...defaultState(), strategy: 'speculative', spec: { draft: 'transformer', n: 6 }, constraint: { kind: 'json', regex: '' } };
    expect(serializeHash(spec)).toBe('#model=bigram&temperature=1&top_k=0&top_p=1&seed=42&strategy=speculative&draft=transformer&speculate=6&grammar=json');
    expect(parseHash(serializeHash(spec)).state).toEqual(spec);
  });

  it('round-trips finite logit biases (logit_bias=ID=VALUE, as the CLI\'s --logit-bias) beside the bans', () => {
    const state = { ...defaultState(), bans: [3], biases: /** @type {Array<[number, number]>} */ ([[5, 2.5], [12, -1]]), steps: 4 };
    const hash = serializeHash(state);
    expect(hash).toBe('#model=bigram&temperature=1&top_k=0&top_p=1&seed=42&steps=4&ban=3&logit_bias=5=2.5,12=-1');
    expect(parseHash(hash)).toMatchObject({ state, notices: [] });
    // -inf in logit_bias is a ban; the last entry for a token wins
    expect(parseHash('#logit_bias=7=-inf,5=1,5=0.5&ban=2').state).toMatchObject({ bans: [2, 7], biases: [[5, 0.5]] });
    const bad = parseHash('#logit_bias=5=two');
    expect(bad.state.biases).toEqual([]);
    expect(bad.notices).toEqual(['Ignored logit_bias="5=two" from the link: logit_bias must be a list of id=value pairs like 5=2.5,12=-inf; using none.']);
    // a bias set during the text: the steps before it are replayed without it
    const later = { ...state, changes: [{ from: 0, params: state.params, bans: [3], biases: [], dryBreakers: [], samplers: '' }, { from: 2, params: state.params, bans: [3], biases: state.biases, dryBreakers: [], samplers: '' }] };
    const h2 = serializeHash(later);
    expect(h2).toContain('changes=0_lb,2');
    expect(parseHash(h2).state.changes).toEqual(later.changes);
    // a compare panel's compact field
    const cmp = '#view=compare&model=bigram&seed=7&panels=greedy,custom_lb5=2.5~12=-1';
    const c = parseHash(cmp);
    expect(c.notices).toEqual([]);
    expect(c.state.panels[1].biases).toEqual([[5, 2.5], [12, -1]]);
    expect(serializeHash(c.state)).toBe(cmp);
  });

  it('round-trips classifier-free guidance\'s negative prompt (negative_prompt=…) and leaves it out when empty', () => {
    const state = { ...defaultState(), negativePrompt: 'And the king & co' };
    const text = serializeHash(state);
    expect(new URLSearchParams(text.slice(1)).get('negative_prompt')).toBe('And the king & co');
    expect(parseHash(text).state.negativePrompt).toBe('And the king & co');
    expect(serializeHash({ ...state, negativePrompt: '' })).not.toContain('negative_prompt');
  });

  it('round-trips bad words and sequence biases (bad_words=["the"], sequence_bias=[["them",3]]), in changes and compare panels too', () => {
    const state = { ...defaultState(), steps: 4, badWords: ['the', ' and'], seqBias: /** @type {Array<[string, number]>} */ ([['them', 3], ['x=y', -1.5]]) };
    const hash = serializeHash(state);
    expect(hash).toBe('#model=bigram&temperature=1&top_k=0&top_p=1&seed=42&steps=4'
      + '&bad_words=%5B%22the%22%2C%22+and%22%5D&sequence_bias=%5B%5B%22them%22%2C3%5D%2C%5B%22x%3Dy%22%2C-1.5%5D%5D'.replaceAll('%2C', ',').replaceAll('%3D', '='));
    expect(parseHash(hash)).toMatchObject({ state, notices: [] });
    // without them, a link is what it was
    expect(serializeHash({ ...state, badWords: [], seqBias: [] })).toBe('#model=bigram&temperature=1&top_k=0&top_p=1&seed=42&steps=4');
    const bad = parseHash('#bad_words=the&sequence_bias=[["a","x"]]');
    expect(bad.state.badWords).toBeUndefined();
    expect(bad.state.seqBias).toBeUndefined();
    expect(bad.notices).toEqual([
      'Ignored bad_words="the" from the link: bad words must be a JSON list of at most 32 texts; using none.',
      'Ignored sequence_bias="[[\\"a\\",\\"x\\"]]" from the link: sequence biases must be a JSON list of at most 32 [text, number] pairs; using none.',
    ]);
    // words set during the text: the steps before them run without
    const later = { ...state, badWords: [], seqBias: [], changes: [{ from: 2, params: state.params, bans: [], biases: [], dryBreakers: [], samplers: '', badWords: ['the'], seqBias: /** @type {Array<[string, number]>} */ ([['them', 3]]) }] };
    const h2 = serializeHash(later);
    expect(h2).toContain('changes=2_bw%255B%2522the%2522%255D_sq%255B%255B%2522them%2522%252C3%255D%255D');
    expect(parseHash(h2).state.changes).toEqual(later.changes);
    // a compare panel's compact fields
    const cmp = '#view=compare&model=bigram&seed=7&panels=greedy,custom_bw%255B%2522the%2522%255D_sq%255B%255B%2522them%2522%252C3%255D%255D';
    const c = parseHash(cmp);
    expect(c.notices).toEqual([]);
    expect(c.state.panels[1].badWords).toEqual(['the']);
    expect(c.state.panels[1].seqBias).toEqual([['them', 3]]);
    expect(serializeHash(c.state)).toBe(cmp);
  });

  it('writes forced tokens only when sampling', () => {
    const state = { ...defaultState(), steps: 5, forced: [[0, 12]], strategy: 'beam' };
    expect(serializeHash(state)).not.toContain('forced');
    expect(serializeHash({ ...state, strategy: 'sample' })).toContain('forced=0.12');
  });

  it('says what is wrong with bad lab values', () => {
    const { state, notices } = parseHash('#strategy=greedy&beams=9&length_penalty=x&speculate=0&draft=gpt&grammar=yaml&ban=a,b&view=grid');
    expect(state.strategy).toBe('sample');
    expect(state.beam).toEqual({ width: 4, lengthPenalty: 1 }); // a bad penalty given: the default
    expect(state.spec).toEqual({ draft: 'bigram', n: 4 });
    expect(state.constraint.kind).toBe('none');
    expect(state.bans).toEqual([]);
    expect(state.view).toBe('single');
    expect(notices).toHaveLength(8);
    expect(notices[1]).toBe('Ignored beams="9" from the link: the beam width must be a whole number from 1 to 8; using 4.');
  });

  it('round-trips compare mode with its panels in the compact format', () => {
    const hash = '#view=compare&model=bigram&seed=7&prompt=Ma&steps=30&panels=greedy,balanced_k40,chaos_beam4_lp0.5,custom_t0.5_spec3_ban0.27';
    const { state, notices } = parseHash(hash);
    expect(notices).toEqual([]);
    expect(state.view).toBe('compare');
    expect(state.panels).toHaveLength(4);
    expect(state.panels[0].params).toEqual({ ...defaultParams(), temperature: 0 });
    expect(state.panels[1].params).toEqual({ ...defaultParams(), temperature: 0.7, top_p: 0.9, top_k: 40 });
    expect(state.panels[2]).toMatchObject({ strategy: 'beam', beam: { width: 4, lengthPenalty: 0.5 }, params: { temperature: 2 } });
    expect(state.panels[3]).toMatchObject({ strategy: 'speculative', spec: { draft: 'bigram', n: 3 }, bans: [0, 27], params: { temperature: 0.5 } });
    expect(serializeHash(state)).toBe(hash);
  });

  it('keeps compare mode between 2 and 4 panels, with notices', async () => {
    const few = parseHash('#view=compare&panels=factual');
    expect(few.state.panels).toHaveLength(2);
    expect(few.notices).toEqual(['Compare mode needs at least 2 panels; added a balanced panel.']);
    const many = parseHash('#view=compare&panels=greedy,greedy,greedy,greedy,chaos');
    expect(many.state.panels).toHaveLength(4);
    expect(many.notices[0]).toMatch(/5 panels; compare mode shows at most 4/);
    const bad = await opened('#view=compare&panels=greedy_q1,wild_t-1');
    expect(bad.notices).toEqual([
      'Panel 1 of the link: unknown field "q1".',
      'Panel 2 of the link: unknown preset "wild" (one of greedy, factual, balanced, creative, chaos, custom); using custom.',
      'Panel 2 of the link: "t-1": Temperature must be in [0, ∞).',
    ]);
  });

  it('opens compare mode with Greedy, Balanced and Chaos', () => {
    const state = { ...defaultState(), view: 'compare' };
    expect(serializeHash(state)).toBe('#view=compare&model=bigram&seed=42&panels=greedy,balanced,chaos');
  });
});

describe('model_url', () => {
  it('reads a model file\'s URL and writes it back with model=url', () => {
    const { state, notices } = parseHash('#model=url&model_url=models%2Fsmol.gguf&seed=3');
    expect(notices).toEqual([]);
    expect(state.modelUrl).toBe('models/smol.gguf');
    expect(state.model).toBe('bigram');
    const link = serializeHash(state);
    expect(link).toMatch(/^#model=url&model_url=models%2Fsmol\.gguf&/);
    expect(parseHash(link).state.modelUrl).toBe('models/smol.gguf');
    expect(serializeHash(parseHash('#seed=3').state)).not.toContain('model_url');
  });
});
