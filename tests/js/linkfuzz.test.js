// Links with absurd values never freeze the page: for every parameter of
// the engine's registry, a link holding a random, an extreme or a
// malformed value (±Infinity, 1e308, −0, NaN, huge integers, text, empty)
// opens a usable page — in a real panel over the real engine (in
// process): Step is enabled and draws a token, the link's prompt and seed
// are kept, and a value the engine refuses gets one calm notice ("Ignored
// KEY=… from the link: …; using DEFAULT.") and its default, never an error.
// The same in compare mode's panels, and for links with several absurd
// values at once.  (tests/e2e/links.test.js opens the worst in Chromium.)
import { describe, expect, it } from 'vitest';

import { parseHash } from '../../web/src/app/hash.js';
import { createPanel } from '../../web/src/app/panel.js';
import { PARAM_SPECS } from '../../web/src/app/params.js';
import { inProcessClient } from '../helpers/engine.js';

/** the values every parameter is opened with */
const WORST = ['Infinity', '-Infinity', 'inf', '1e308', '-1e308', '-0', 'NaN', '99999999999999999999', '-99999999999999999999', '2147483648', '-2147483649',
  '1e-50', '0x10', '1,5', '', ' ', 'abc', '%', '1e', '--1', '3.4e38', '5e-324'];

/** a seeded PRNG (mulberry32): the random values are the same each run */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** random values: any sign and size, whole and not, and text */
function randomValues(rand, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const kind = Math.floor(rand() * 4);
    const sign = rand() < 0.5 ? -1 : 1;
    if (kind === 0) out.push(String(sign * Math.floor(rand() * 2 ** (rand() * 70))));
    else if (kind === 1) out.push(String(sign * rand() * 10 ** (rand() * 616 - 308)));
    else if (kind === 2) out.push(String(sign * rand() * 3));
    else out.push(Array.from({ length: 1 + Math.floor(rand() * 6) }, () => String.fromCharCode(33 + Math.floor(rand() * 90))).join(''));
  }
  return out;
}

/**
 * Opens a link in a panel and says what a learner gets: the notices, the
 * prompt, the settings, and whether Step works.
 */
async function open(panel, hash) {
  const { state, notices } = parseHash(hash);
  await panel.load(state, notices);
  const usable = !!panel.status.value?.ready && !panel.busy.value;
  const before = panel.steps.value.length;
  if (usable) await panel.step();
  return {
    usable, stepped: panel.steps.value.length === before + 1, prompt: panel.prompt.value, seed: panel.seed.value,
    notices: panel.notices.value.map(String), errors: Object.entries(panel.errors.value).filter(([, v]) => v).map(([k, v]) => `${k}: ${v}`),
    params: { ...panel.params.value },
  };
}

describe('links with absurd values', () => {
  const panel = createPanel(inProcessClient(), { session: 'fuzz' });
  const rand = prng(32);

  it.each(PARAM_SPECS.map((s) => [s.key, s]))('%s: every worst and random value opens a usable page', async (key, spec) => {
    await panel.init();
    for (const value of [...WORST, ...randomValues(rand, 8)]) {
      const hash = `#model=bigram&seed=42&prompt=Ma&${key}=${encodeURIComponent(value)}`;
      const got = await open(panel, hash);
      const where = `${key}=${JSON.stringify(value)}`;
      expect(got.usable, where).toBe(true);
      expect(got.stepped, where).toBe(true);
      expect(got.prompt, where).toBe('Ma');
      expect(got.seed, where).toBe('42');
      expect(got.errors, where).toEqual([]);
      // taken as the number it is, or refused calmly with the default
      const v = Number(value);
      if (got.notices.length === 0) {
        expect(value.trim() !== '' && !Number.isNaN(v), where).toBe(true);
        expect(Object.is(got.params[key], v), where).toBe(true);
      } else {
        expect(got.notices, where).toHaveLength(1);
        expect(got.notices[0], where).toMatch(new RegExp(`^Ignored ${key}=".*" from the link: .+; using ${String(spec.def).replace('-', '\\-')}\\.$`));
        expect(got.params[key], where).toBe(spec.def);
      }
    }
  }, 60000);

  it('several absurd values at once: each refused one said, the rest kept', async () => {
    await panel.init();
    const got = await open(panel, '#model=bigram&seed=42&prompt=Ma&temperature=1e308&top_k=-5&top_p=7&min_p=0.05&mirostat=2&adaptive_target=0.3&steps=3');
    expect(got.usable && got.stepped).toBe(true);
    expect(got.prompt).toBe('Ma');
    expect(got.params).toMatchObject({ temperature: 1, top_k: 0, top_p: 1, min_p: 0.05, mirostat: 2, adaptive_target: -1 });
    expect(got.notices).toEqual([
      'Ignored temperature="1e308" from the link: Temperature must be a finite number the engine can hold (at most about 3.4e38); using 1.',
      'Ignored top_k="-5" from the link: Top-k must be in [0, 2147483647]; using 0.',
      'Ignored top_p="7" from the link: Top-p must be in (0, 1]; using 1.',
      'Ignored adaptive_target="0.3" from the link: mirostat and adaptive-target are both set: each picks the token its own way (turn one off); using -1.',
    ]);
    expect(panel.steps.value).toHaveLength(4); // the link's 3 steps, then Step
    // the link the page writes holds the defaults, not the refused values
    expect(panel.hashState.value.params.temperature).toBe(1);
  });

  it('random links, every parameter at once: usable each time', async () => {
    await panel.init();
    const r = prng(7);
    for (let round = 0; round < 12; round++) {
      const values = randomValues(r, PARAM_SPECS.length);
      const hash = `#model=bigram&seed=42&prompt=Ma&${PARAM_SPECS.map((s, i) => `${s.key}=${encodeURIComponent(values[i])}`).join('&')}`;
      const got = await open(panel, hash);
      expect(got.usable && got.stepped, hash).toBe(true);
      expect(got.prompt, hash).toBe('Ma');
      expect(got.errors, hash).toEqual([]);
    }
  }, 60000);
});
