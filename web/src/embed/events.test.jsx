// @vitest-environment happy-dom
// What a <sampler-playground> tells its page (events.js), and the engine for
// a lesson's script (session.js), over the Worker's host in process: token
// events carry the engine's text and step records, settings events come
// with a slider or a seed and not with a token; a script's session gives
// the engine's own text, re-warps without drawing, refuses bad input
// calmly and shares the model's client with the elements.
import { describe, expect, it } from 'vitest';

import { $, ready, useElements } from '../../../tests/helpers/elements.js';
import { engineText } from '../../../tests/helpers/engine.js';
import { defaultParams } from '../app/params.js';
import { SETTINGS_EVENT, TOKEN_EVENT } from './events.js';
import { createSession } from './session.js';
import { until } from '../../../tests/helpers/until.js';

const { made, terminated } = useElements();

/** an element, and every event it sends, heard on the document (they bubble) */
function add(html) {
  const heard = [];
  const listen = (e) => heard.push({ type: e.type, detail: e.detail, target: e.target });
  document.addEventListener(TOKEN_EVENT, listen);
  document.addEventListener(SETTINGS_EVENT, listen);
  document.body.insertAdjacentHTML('beforeend', html);
  const el = /** @type {HTMLElement} */ (document.body.lastElementChild);
  return { el, heard, tokens: () => heard.filter((e) => e.type === TOKEN_EVENT), settings: () => heard.filter((e) => e.type === SETTINGS_EVENT) };
}

describe('the element\'s events', () => {
  it('sampler-token: one per token, at load and with Step, with the engine\'s text and step record', async () => {
    const { el, tokens, settings } = add('<sampler-playground prompt="Ma" seed="7" temperature="0.8" steps="5"></sampler-playground>');
    await until(() => ready(el));
    const want = await engineText({ prompt: 'Ma', seed: 7, params: { temperature: 0.8 }, steps: 6 });
    expect(tokens().map((e) => e.detail.index)).toEqual([0, 1, 2, 3, 4]);
    expect(tokens().every((e) => e.target === el && e.detail.panel === 0)).toBe(true);
    expect(tokens().map((e) => e.detail.piece).join('')).toBe(want.slice(0, 5));
    expect(tokens().at(-1).detail.text).toBe(want.slice(0, 5));
    $(el, '[data-testid="step"]').click();
    await until(() => tokens().length === 6);
    const d = tokens()[5].detail;
    expect([d.index, d.text, d.forced]).toEqual([5, want, false]);
    // the detail is the step record's: the token drawn, its probability among the ranked tokens
    expect(d.step.kind).toBe('step');
    expect(d.step.token).toBe(d.token);
    expect(d.p).toBe(d.step.p);
    expect(d.step.final[Array.from(d.step.ids).indexOf(d.token)]).toBeCloseTo(d.p, 6);
    expect(settings()).toEqual([]); // nothing changed
  });

  it('sampler-settings: a slider re-warps (no token), a new seed regenerates (tokens again)', async () => {
    const { el, tokens, settings } = add('<sampler-playground seed="3" steps="2" controls="top-p"></sampler-playground>');
    await until(() => ready(el));
    expect(tokens()).toHaveLength(2);
    el.setAttribute('top-p', '0.5');
    await until(() => settings().length === 1);
    expect(settings()[0].detail).toMatchObject({ panel: 0, model: 'bigram', prompt: '', seed: '3', strategy: 'sample' });
    expect(settings()[0].detail.params).toEqual({ ...defaultParams(), top_p: 0.5 });
    expect(tokens()).toHaveLength(2);
    el.setAttribute('seed', '4');
    await until(() => settings().length === 2 && tokens().length === 4);
    expect(settings()[1].detail.seed).toBe('4');
    expect(tokens().slice(2).map((e) => e.detail.piece).join('')).toBe(await engineText({ prompt: '', seed: 4, params: { top_p: 0.5 }, steps: 2 }));
  });

  it('compare mode: each panel\'s tokens, by panel', async () => {
    const { el, tokens } = add('<sampler-playground view="compare" panels="greedy,custom_k5" seed="2" steps="3"></sampler-playground>');
    await until(() => ready(el));
    await until(() => tokens().length === 6);
    expect(tokens().map((e) => `${e.detail.panel}:${e.detail.index}`).sort()).toEqual(['0:0', '0:1', '0:2', '1:0', '1:1', '1:2']);
    const greedy = tokens().filter((e) => e.detail.panel === 0).at(-1).detail.text;
    expect(greedy).toBe(await engineText({ prompt: '', seed: 2, params: { temperature: 0 }, steps: 3 }));
  });
});

describe('createSession: the engine for a lesson\'s script', () => {
  it('gives the engine\'s text for a prompt, seed and settings, and its step records', async () => {
    const s = await createSession({ prompt: 'Ma', seed: 7, params: { temperature: 0.8 } });
    expect(s.model).toMatchObject({ model: 'bigram', kind: 'bigram', vocab: 54 });
    expect(s.next.kind).toBe('preview');
    expect(s.next.index).toBe(0);
    const first = await s.step();
    expect(first.kind).toBe('step');
    const rest = await s.generate(29);
    expect(rest).toHaveLength(29);
    expect(s.records).toHaveLength(30);
    expect(s.text).toBe(await engineText({ prompt: 'Ma', seed: 7, params: { temperature: 0.8 }, steps: 30 }));
    expect(s.next.index).toBe(30);
    s.close();
  });

  it('setParams re-warps the next token without drawing; a refused setting keeps the old ones', async () => {
    const s = await createSession({ seed: 1 });
    const before = s.next;
    const kept = await s.setParams({ top_k: 3 });
    expect(kept.nKept).toBe(3);
    expect(before.nKept).toBe(54);
    expect(s.records).toHaveLength(0);
    expect(s.params).toEqual({ top_k: 3 });
    await expect(s.setParams({ top_p: 2 })).rejects.toThrow(/top.p/);
    expect(s.params).toEqual({ top_k: 3 });
    await s.generate(10);
    expect(s.text).toBe(await engineText({ prompt: '', seed: 1, params: { top_k: 3 }, steps: 10 }));
    // a new text with another seed: the settings stay
    await s.start({ seed: 2 });
    expect(s.records).toHaveLength(0);
    await s.generate(10);
    expect(s.text).toBe(await engineText({ prompt: '', seed: 2, params: { top_k: 3 }, steps: 10 }));
    s.close();
    await expect(s.step()).rejects.toThrow('this session is closed');
  });

  it('refuses a bad model, tokenizer, seed or count with a clear message', async () => {
    await expect(createSession({ model: 'file:///models/gpt.bin' })).rejects.toThrow('createSession: model "file:///models/gpt.bin" is not bigram, transformer or the URL of a llama2.c .bin file');
    await expect(createSession({ model: 'bigram', tokenizer: 'tok.bin' })).rejects.toThrow('createSession: a tokenizer goes with a model given by its URL');
    await expect(createSession({ seed: -1 })).rejects.toThrow(/seed must be an integer/);
    const s = await createSession();
    await expect(s.generate(0)).rejects.toThrow('generate: n must be an integer in 1..2000 (got 0)');
    s.close();
  });

  it('shares the model\'s client with the elements, and lets it go with the last user', async () => {
    const before = made.length;
    const { el } = add('<sampler-playground></sampler-playground>');
    await until(() => ready(el));
    const s = await createSession();
    expect(made.slice(before)).toEqual(['bigram']);
    const gone = terminated.length;
    el.remove();
    await new Promise((r) => setTimeout(r, 10));
    expect(terminated.length).toBe(gone);
    s.close();
    await until(() => terminated.length === gone + 1);
  });
});
