// The element's attributes: their meaning, clamping and defaults with
// notices, model URLs, what to show, and "Copy embed code" (the element
// for a setup gives the same setup back).
import { describe, expect, it } from 'vitest';

import { defaultState, parseHash } from '../app/hash.js';
import { defaultPanelSpec } from '../app/lab.js';
import { PARAM_SPECS, defaultParams } from '../app/params.js';
import { LANGUAGES } from '../i18n/index.js';
import { ATTRIBUTES, DEFAULT_CONTROLS, DEFAULT_VIEW, embedCode, parseAttributes } from './attrs.js';
import { engineSays, openedLink } from '../../../tests/helpers/engine.js';

const PAGE = 'https://lessons.example/course/temp.html';
/** parses a tag's attributes given as an object */
const parse = (attrs) => {
  const c = parseAttributes((name) => (Object.hasOwn(attrs, name) ? attrs[name] : null), PAGE);
  return { ...c, notices: c.notices.map(String) }; // the notices in English
};

/** the attributes of the element in an embed code */
function attrsOf(code) {
  const tag = code.split('\n')[1];
  const out = {};
  for (const m of tag.matchAll(/ ([a-z-]+)="([^"]*)"/g)) {
    out[m[1]] = m[2].replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  }
  return out;
}

describe('parseAttributes', () => {
  it('no attributes: the bigram, the defaults, text and bars, Step / Play / Reset and no sliders', () => {
    const c = parse({});
    // (a click on a bar does nothing unless the author asks: click="ban" or "force")
    expect(c.state).toEqual({ ...defaultState(), barAction: 'none', source: 'element' });
    expect(c.model).toEqual({ id: 'bigram', key: 'bigram', entry: null });
    expect(c.controls).toEqual(DEFAULT_CONTROLS);
    expect(DEFAULT_CONTROLS).toEqual([]);
    expect(c.transport).toBe(true);
    expect(c.parts).toEqual(DEFAULT_VIEW);
    expect(c.notices).toEqual([]);
  });

  it('reads the sliders, seed, prompt and steps', () => {
    const c = parse({ model: 'transformer', temperature: '0.7', 'top-k': '40', 'top-p': '0.9', 'min-p': '0.05', 'repetition-penalty': '1.3', seed: '7', prompt: 'And God', steps: '20', speed: '30' });
    expect(c.notices).toEqual([]);
    expect(c.state.model).toBe('transformer');
    expect(c.model.key).toBe('transformer');
    expect(c.state.params).toEqual({ ...defaultParams(), temperature: 0.7, top_k: 40, top_p: 0.9, min_p: 0.05, repetition_penalty: 1.3 });
    expect(c.state).toMatchObject({ seed: '7', prompt: 'And God', steps: 20, speed: 30 });
  });

  it('lang chooses the element\'s language (any tag of one the playground has); another is a notice', () => {
    expect(parse({ lang: 'zh' }).state.lang).toBe('zh');
    expect(parse({ lang: 'es-MX' }).state.lang).toBe('es');
    expect(parse({}).state.lang).toBe('');
    const bad = parse({ lang: 'fr' });
    expect(bad.state.lang).toBe('');
    expect(bad.notices).toEqual([`Ignored lang="fr": the language is one of ${LANGUAGES.map((l) => l.code).join(', ')}, en-XA; using the browser's.`]);
    // and "Copy embed code" writes the language chosen on the page
    expect(embedCode({ ...defaultState(), lang: 'de' }, 'https://site.example/playground/embed.js').code).toContain(' lang="de"');
  });

  it('takes a sampler setting in the engine\'s range (past the slider\'s span too); a bad one falls back to its default with a notice naming the range', async () => {
    const read = parse({ temperature: '9', 'top-k': '2.6', 'top-p': '0', 'min-p': 'lots', 'repetition-penalty': '', seed: '-1', steps: '1e9' });
    // the values as the engine takes them (the element's load asks it)
    const c = { ...read, ...(await engineSays(read.state, read.notices)) };
    c.notices = c.notices.map(String);
    expect(c.state.params).toEqual({ ...defaultParams(), temperature: 9 });
    expect(c.state.seed).toBe('42');
    expect(c.state.steps).toBe(0);
    expect(c.notices).toHaveLength(6);
    expect(c.notices).toContain('Ignored top-k="2.6": Top-k must be a whole number; using 0.');
    expect(c.notices).toContain('Ignored top-p="0": Top-p must be in (0, 1]; using 1.');
    expect(c.notices.find((n) => n.startsWith('Ignored min-p="lots"'))).toBe('Ignored min-p="lots": Min-p must be a number; using 0.');
    expect(c.notices.find((n) => n.startsWith('Ignored seed='))).toMatch(/^Ignored seed="-1": the seed must be a whole number/);
    expect(c.notices.join(' ')).not.toContain('link');
  });

  it('an attribute and a link give the same value and the same notice for the same setting (one range)', async () => {
    for (const [key, value] of [['epsilon_cutoff', '0.15'], ['epsilon_cutoff', '1'], ['mirostat', '1.5'], ['top_k', '-2'], ['dry_multiplier', '4'], ['typical_p', '0'], ['temperature', '1e308']]) {
      const name = key.replaceAll('_', '-');
      const read = parse({ [name]: value });
      const attr = await engineSays(read.state, read.notices);
      const link = await openedLink(`#${key}=${value}`);
      expect(attr.state.params[key]).toBe(link.state.params[key]);
      expect(attr.notices.map(String)).toEqual(link.notices.map((n) => String(n).replace(`Ignored ${key}=`, `Ignored ${name}=`).replace(' from the link', '')));
    }
    expect(parse({ 'epsilon-cutoff': '0.15' }).state.params.epsilon_cutoff).toBe(0.15);
  });

  it('a model URL is resolved against the page, with its tokenizer; a bad one falls back to the bigram', () => {
    const c = parse({ model: 'models/stories.bin', tokenizer: '/shared/tok.bin' });
    expect(c.notices).toEqual([]);
    expect(c.model.entry).toEqual({
      id: 'url:https://lessons.example/course/models/stories.bin https://lessons.example/shared/tok.bin',
      name: 'stories.bin', builtin: false,
      url: 'https://lessons.example/course/models/stories.bin', tokenizerUrl: 'https://lessons.example/shared/tok.bin',
    });
    expect(c.state.model).toBe(c.model.id);
    expect(c.model.key).toBe(c.model.id);
    const bad = parse({ model: 'javascript:alert(1)' });
    expect(bad.model.id).toBe('bigram');
    expect(bad.notices[0]).toMatch(/^Ignored model="javascript:alert\(1\)"/);
    expect(parse({ tokenizer: 'tok.bin' }).notices).toEqual(['Ignored tokenizer: it goes with a model given by its URL.']);
  });

  it('controls and view choose what is shown', () => {
    expect(parse({ controls: 'temperature, top-k' })).toMatchObject({ controls: ['temperature', 'top-k'], transport: true });
    expect(parse({ controls: '' })).toMatchObject({ controls: [], transport: false });
    // all: every sampler setting the engine has, and the prompt and the seed
    expect(parse({ controls: 'all' }).controls).toEqual([...PARAM_SPECS.map((s) => s.flag), 'prompt', 'seed']);
    expect(parse({ controls: 'typical-p,xtc-probability' }).controls).toEqual(['typical-p', 'xtc-probability']);
    const odd = parse({ controls: 'temperature,volume' });
    expect(odd.controls).toEqual(['temperature']);
    expect(odd.notices[0]).toMatch(/^Ignored controls "volume"/);
    expect(parse({ view: 'bars' }).parts).toEqual(['bars']);
    expect(parse({ view: 'nucleus,text' }).parts).toEqual(['text', 'nucleus']);
    const cmp = parse({ view: 'compare', panels: 'greedy,chaos' });
    expect(cmp.parts).toEqual(['compare']);
    expect(cmp.controls).toEqual([]);
    expect(cmp.transport).toBe(true);
    expect(cmp.state.view).toBe('compare');
    expect(cmp.state.panels).toEqual([defaultPanelSpec('greedy'), defaultPanelSpec('chaos')]);
    const bad = parse({ view: 'pie' });
    expect(bad.parts).toEqual(DEFAULT_VIEW);
    expect(bad.notices[0]).toBe('Ignored view="pie": the view is a list of text, strip, bars, samples, nucleus, kv, metrics, beams, rounds, or compare; showing text,bars.');
    // the notice says what is shown instead, and it is shown
    const part = parse({ view: 'text,graph' });
    expect(part.parts).toEqual(['text']);
    expect(part.notices).toEqual(['Ignored "graph" in view="text,graph": the view is a list of text, strip, bars, samples, nucleus, kv, metrics, beams, rounds, or compare; showing text.']);
  });

  it('observes every attribute it reads', () => {
    for (const name of ['model', 'tokenizer', 'prompt', 'temperature', 'top-k', 'top-p', 'min-p', 'repetition-penalty', 'seed', 'controls', 'view']) {
      expect(ATTRIBUTES).toContain(name);
    }
  });
});

describe('embedCode', () => {
  const SRC = 'https://site.example/playground/embed.js';

  it('the script tag and the element for a setup', () => {
    const state = parseHash('#model=bigram&temperature=0.7&top_k=40&top_p=0.9&seed=42&prompt=Ma&steps=30').state;
    const { code, notes } = embedCode(state, SRC);
    expect(notes).toEqual([]);
    expect(code).toBe(`<script type="module" src="${SRC}"></script>\n`
      + '<sampler-playground model="bigram" temperature="0.7" top-k="40" top-p="0.9" seed="42" prompt="Ma" steps="30" controls="temperature,top-k,top-p,prompt,seed"></sampler-playground>');
  });

  it('round-trips every setting through the element\'s attributes', () => {
    const links = [
      '#model=transformer&temperature=0.5&top_k=7&top_p=0.8&min_p=0.1&repetition_penalty=1.5&seed=123&prompt=%22a%22%20%3C%26%3E&steps=9&forced=1.4&ban=3,5&regex=[a-z]%2B&speed=20&click=force',
      '#model=bigram&seed=1&strategy=beam&beams=3&length_penalty=0.5&grammar=json&steps=4',
      '#model=bigram&seed=1&strategy=speculative&draft=transformer&speculate=2',
      '#view=compare&model=bigram&seed=7&prompt=Ma&steps=30&panels=greedy,balanced_k40,chaos_beam3&speed=12',
    ];
    for (const link of links) {
      const { state } = parseHash(link);
      const { code } = embedCode(state, SRC);
      const back = parse(attrsOf(code));
      expect(back.notices, link).toEqual([]);
      // the page's clicks ban by default; an element's do nothing unless its code says force
      expect(back.state, link).toEqual({ ...state, barAction: state.barAction === 'force' ? 'force' : 'none', source: 'element' });
    }
  });

  it('click: ban, force or none; none without the attribute, and for a value it does not know (with a notice)', () => {
    expect(parse({ click: 'ban' }).state.barAction).toBe('ban');
    expect(parse({ click: 'force' }).state.barAction).toBe('force');
    expect(parse({ click: 'none' }).state.barAction).toBe('none');
    expect(parse({}).state.barAction).toBe('none');
    const odd = parse({ click: 'zap' });
    expect(odd.state.barAction).toBe('none');
    expect(odd.notices.map(String)).toEqual(['Ignored click="zap": a click on a bar can ban, force or do nothing (none); using none.']);
    // a link's: ban by default, none when asked (never written back: a link opens the page)
    expect(parseHash('#click=none').state.barAction).toBe('none');
    expect(parseHash('#seed=2').state.barAction).toBe('ban');
  });

  it('a model from a file cannot be embedded: the code says so and uses the bigram', () => {
    const { code, notes: said } = embedCode({ ...defaultState(), model: 'file' }, SRC);
    const notes = said.map(String);
    expect(code).toContain('model="bigram"');
    expect(notes[0]).toMatch(/cannot go into the code/);
  });
});
