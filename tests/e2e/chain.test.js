// The sampler chain on the page: its stages listed in the order they run,
// reordered by dragging a handle (the mouse, and a finger) and by the
// keyboard, the three presets, the stages' switches and cut counts, the
// order in the link (the CLI's --samplers text, byte for byte), compare
// mode's "same settings, two orders", and the note that a step with one
// token left no longer depends on the seed.
import { describe, expect, it } from 'vitest';

import registry from '../../web/src/shared/registry.gen.js';
import { engineText, generated, hashOf, skipWithoutChromium, stepTimes, until, useBrowser } from './harness.js';

const order = (page) => page.getByTestId('chain').first().getAttribute('data-order');
const stage = (page, name) => page.locator(`[data-testid="stage"][data-stage="${name}"]`).first();
const handle = (page, name) => stage(page, name).getByTestId('stage-handle');
const nucleusSize = async (page) => Number(await page.getByTestId('nucleus-size').first().textContent());

/** Drags a stage's handle onto another stage's upper half with the mouse (pointer events). */
async function dragOnto(page, from, to) {
  await stage(page, to).evaluate((el) => el.scrollIntoView({ block: 'start' }));
  // the rows where they stay: a first move fetches the teaching texts, and
  // on a busy machine they may arrive (and the rows grow) mid-drag
  await page.mouse.move(1, 1);
  const boxes = async () => [await handle(page, from).boundingBox(), await stage(page, to).boundingBox()];
  let [a, b] = await boxes();
  await until(async () => {
    await new Promise((r) => setTimeout(r, 150));
    const [a2, b2] = await boxes();
    const same = JSON.stringify([a, b]) === JSON.stringify([a2, b2]);
    [a, b] = [a2, b2];
    return same;
  }, 10000);
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2, b.y + 4, { steps: 6 });
  await page.mouse.move(a.x + a.width / 2, b.y + 2, { steps: 2 });
  await page.mouse.up();
}

// the engine's default order (tests/c/test_chain.c pins its text) and its length
const DEFAULT = registry.presets.default;
const N = DEFAULT.split(',').length;
const LLAMA_CPP = 'bias,penalties,dry,top_n_sigma,top_k,typical_p,top_p,min_p,xtc,temperature';
/** the default order with `name` moved up `by` places */
function movedUp(name, by) {
  const list = DEFAULT.split(',');
  const at = list.indexOf(name);
  list.splice(at, 1);
  list.splice(at - by, 0, name);
  return list.join(',');
}
/** the default order with `name` moved just before `before` */
function movedBefore(name, before) {
  const list = DEFAULT.split(',').filter((s) => s !== name);
  list.splice(list.indexOf(before), 0, name);
  return list.join(',');
}

describe.skipIf(skipWithoutChromium)('the sampler chain', () => {
  const { open } = useBrowser();

  it('lists every stage in the default order; a drag puts top-p before temperature: fewer tokens kept, the CLI\'s text', async () => {
    const page = await open({ hash: '#seed=42&temperature=2.5&top_p=0.5', height: 1300 });
    expect(await order(page)).toBe(DEFAULT);
    expect(await page.locator('[data-testid="stage"]').count()).toBe(N + 2); // the chain's, and the terminal ones after it (mirostat, adaptive-p)
    await until(async () => (await nucleusSize(page)) > 0);
    const before = await nucleusSize(page);
    // top-p cuts at this step, and its row says by how much (the engine's count)
    const cut = Number(await stage(page, 'top_p').getByTestId('stage-cut').getAttribute('data-cut'));
    expect(cut).toBe(54 - before);

    await dragOnto(page, 'top_p', 'temperature');
    await until(async () => (await order(page)) === movedBefore('top_p', 'temperature'));
    const dragged = movedBefore('top_p', 'temperature');
    await until(async () => (await hashOf(page)).includes(`samplers=${dragged.slice(0, dragged.indexOf(',temperature'))},temperature`));
    // top-p now sees the raw distribution: the nucleus is smaller
    await until(async () => (await nucleusSize(page)) < before);
    expect(await page.getByTestId('order-own').isVisible()).toBe(true);

    // Step draws with that order: the text is the engine's for --samplers with that list
    await stepTimes(page, 12);
    const samplers = (await order(page));
    expect(await generated(page)).toBe(await engineText({ seed: 42, steps: 12, params: { temperature: 2.5, top_p: 0.5, samplers } }));
  });

  it('words, not ids: a link\'s bad words and sequence biases reach the engine; the stage\'s field changes them, and the link says so', async () => {
    const page = await open({ hash: `#seed=5&bad_words=${encodeURIComponent('["an"]')}&sequence_bias=${encodeURIComponent('[["ar",2]]')}`, height: 1300 });
    await until(async () => (await stage(page, 'bad_words').getAttribute('data-on')) === 'true');
    expect(await stage(page, 'sequence_bias').getAttribute('data-on')).toBe('true');
    await stepTimes(page, 30);
    const text = await generated(page);
    expect(text).toBe(await engineText({ seed: 5, steps: 30, params: { bad_words: ['an'], sequence_bias: [['ar', 2]] } }));
    expect(text).not.toContain('an');
    // the bad words stage is open (on): its field lists the word; another is added
    const field = stage(page, 'bad_words').getByTestId('words-bad-text');
    await until(() => field.isVisible());
    expect(await field.inputValue()).toBe('an');
    await field.fill('an\nel');
    await stage(page, 'bad_words').getByTestId('words-bad-apply').click();
    await until(async () => decodeURIComponent(await hashOf(page)).includes('bad_words=["an","el"]'));
    // a word the bigram cannot write (a space) is refused with the engine's message, the others kept
    await field.fill('an\na b');
    await stage(page, 'bad_words').getByTestId('words-bad-apply').click();
    await until(() => stage(page, 'bad_words').getByTestId('words-bad-error').isVisible());
    expect(await stage(page, 'bad_words').getByTestId('words-bad-error').textContent()).toContain('bad-words: "a b"');
    await until(async () => decodeURIComponent(await hashOf(page)).includes('bad_words=["an"]'));
  });

  it('a finger drags a stage too (touch: pointer events, no scrolling)', async () => {
    const page = await open({ hash: '#seed=3', width: 390, height: 844, touch: true });
    await stage(page, 'bias').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    // the seventh stage (a screen below the first on a phone)
    const seventh = DEFAULT.split(',')[6];
    const a = await handle(page, seventh).boundingBox();
    const b = await stage(page, 'bias').boundingBox();
    // a touch drag, as the browser turns it into pointer events
    const cdp = await page.context().newCDPSession(page);
    const at = (x, y) => [{ x, y, id: 1 }];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(a.x + a.width / 2, a.y + a.height / 2) });
    for (let i = 1; i <= 6; i++) {
      const y = a.y + a.height / 2 + ((b.y + 3) - (a.y + a.height / 2)) * (i / 6);
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(a.x + a.width / 2, y) });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await until(async () => (await order(page)) === movedBefore(seventh, 'bias'));
  });

  it('the keyboard moves a stage (↑ ↓ Home End on its handle), keeps the focus there and says where it went', async () => {
    const page = await open({ hash: '#seed=5&top_k=10' });
    await handle(page, 'top_k').focus();
    await page.keyboard.press('ArrowUp');
    await until(async () => (await order(page)) === movedUp('top_k', 1));
    await page.keyboard.press('ArrowUp');
    await until(async () => (await order(page)) === movedUp('top_k', 2));
    // the focus stayed on the moved stage's handle
    expect(await page.evaluate(() => document.activeElement?.closest('[data-testid="stage"]')?.getAttribute('data-stage'))).toBe('top_k');
    expect(await page.locator('.spg-chain [role="status"]').textContent()).toBe(`Top-k: stage ${DEFAULT.split(',').indexOf('top_k') - 1} of ${N}.`);
    await page.keyboard.press('Home');
    await until(async () => (await order(page)).startsWith(`top_k,${DEFAULT.split(',')[0]},`));
    await page.keyboard.press('End');
    await until(async () => (await order(page)).endsWith(',xtc,top_k'));
    expect(await handle(page, 'top_k').getAttribute('aria-label')).toBe(`Move Top-k: stage ${N} of ${N}. The arrow keys move it up or down.`);
  });

  it('the presets: llama.cpp\'s order in one click, in the link, and the link gives the CLI\'s text for it', async () => {
    const page = await open({ hash: '#seed=11&temperature=1.5&top_k=20&min_p=0.05' });
    await page.getByTestId('order-llama.cpp').click();
    await until(async () => (await order(page)) === LLAMA_CPP);
    expect(await page.getByTestId('order-llama.cpp').getAttribute('aria-pressed')).toBe('true');
    await until(async () => (await hashOf(page)).includes('samplers=llama.cpp'));
    // stages the preset leaves out are offered to add back
    // (the default order's stages that llama.cpp's leaves out, in the default order)
    expect(await page.getByTestId('stage-add').evaluateAll((els) => els.map((e) => e.dataset.stage)))
      .toEqual(DEFAULT.split(',').filter((s) => !LLAMA_CPP.split(',').includes(s)));

    const link = await open({ hash: '#seed=11&temperature=1.5&top_k=20&min_p=0.05&samplers=llama.cpp&steps=25' });
    expect(await order(link)).toBe(LLAMA_CPP);
    await until(async () => [...(await generated(link))].length >= 20);
    expect(await generated(link)).toBe(await engineText({ seed: 11, steps: 25, params: { temperature: 1.5, top_k: 20, min_p: 0.05, samplers: 'llama.cpp' } }));

    await page.getByTestId('order-default').click();
    await until(async () => (await order(page)) === DEFAULT);
    await until(async () => !(await hashOf(page)).includes('samplers='));
  });

  it('a stage\'s switch turns it on (a typical setting) and off (neutral); its cut is counted; one token left says the seed no longer matters', async () => {
    const page = await open({ hash: '#seed=9' });
    expect(await stage(page, 'top_k').getAttribute('data-on')).toBe('false');
    await page.getByTestId('stage-on-top_k').check();
    await until(async () => (await hashOf(page)).includes('top_k=10'));
    expect(await stage(page, 'top_k').getAttribute('data-on')).toBe('true');
    // its count is the engine's: the bars it greyed out (tokens tied with the 10th stay)
    const cutByTopK = () => page.locator('[data-testid="prob-bar"][data-cut="top_k"]').count();
    await until(async () => (await cutByTopK()) > 0);
    expect(Number(await stage(page, 'top_k').getByTestId('stage-cut').getAttribute('data-cut'))).toBe(await cutByTopK());
    await page.getByTestId('stage-on-top_k').uncheck();
    await until(async () => (await hashOf(page)).includes('top_k=0'));

    // a closed stage opens to show its settings; DRY's are several
    await stage(page, 'dry').getByTestId('stage-more').click();
    expect(await stage(page, 'dry').getByRole('slider').count()).toBe(4);

    expect(await page.getByTestId('seed-free').count()).toBe(0);
    const greedy = await open({ hash: '#seed=9&top_k=1' });
    await until(async () => (await greedy.getByTestId('seed-free').count()) === 1);
    expect(await greedy.getByTestId('seed-free').textContent()).toContain('no longer depends on the seed');
  });

  it('a stage is on when the engine says so: XTC set with a threshold over 0.5 is off (it cuts nothing); its switch turns it on with a threshold that works', async () => {
    const page = await open({ hash: '#seed=9&top_k=20&xtc_probability=0.5&xtc_threshold=0.55' });
    // the engine has answered for these settings: top-k is on
    await until(async () => (await stage(page, 'top_k').getAttribute('data-on')) === 'true');
    expect(await stage(page, 'xtc').getAttribute('data-on')).toBe('false');
    expect(await page.getByTestId('stage-on-xtc').isChecked()).toBe(false);
    await until(async () => (await page.locator('[data-testid="prob-bar"]').count()) > 0);
    expect(await page.locator('[data-testid="prob-bar"][data-cut="xtc"]').count()).toBe(0);
    // on: the engine still calls it off at 0.55, so the threshold takes its typical value
    await page.getByTestId('stage-on-xtc').check();
    await until(async () => (await stage(page, 'xtc').getAttribute('data-on')) === 'true');
    await until(async () => !(await hashOf(page)).includes('xtc_threshold=0.55'));
    expect(await page.getByTestId('stage-on-xtc').isChecked()).toBe(true);
    expect(await stage(page, 'xtc').getByTestId('value-xtc_threshold').textContent()).toBe('0.10');
    // off again: every switch neutral, and the engine agrees
    await page.getByTestId('stage-on-xtc').uncheck();
    await until(async () => !(await hashOf(page)).includes('xtc_probability'));
    expect(await stage(page, 'xtc').getAttribute('data-on')).toBe('false');
  });

  it('logit bias: a token gets a finite bias from the menu and its slider; the link carries it (logit_bias=ID=VALUE) and gives the CLI\'s text', async () => {
    const page = await open({ hash: '#seed=13' });
    await stage(page, 'bias').getByTestId('stage-more').click();
    // the menu offers the step's tokens, most likely first
    const first = await page.getByTestId('bias-pick').inputValue();
    const top = await page.locator('[data-testid="prob-bar"]').first().getAttribute('data-token');
    expect(first).toBe(top);
    await page.getByTestId('bias-pick').selectOption({ index: 2 });
    const id = Number(await page.getByTestId('bias-pick').inputValue());
    await page.getByTestId('bias-add').click();
    await until(async () => (await hashOf(page)).includes(`logit_bias=${id}=2`));
    const slider = page.getByTestId('bias-slider');
    await slider.focus();
    await page.keyboard.press('ArrowRight'); // +2.5
    await until(async () => (await hashOf(page)).includes(`logit_bias=${id}=2.5`));
    expect(await stage(page, 'bias').getAttribute('data-on')).toBe('true');
    // the bar of that token grew: its final probability beats its model probability
    const bar = page.locator(`[data-testid="prob-bar"][data-token="${id}"]`);
    await until(async () => Number(await bar.getAttribute('data-prob')) > Number(await bar.getAttribute('data-raw')));
    await stepTimes(page, 15);
    const text = await generated(page);
    expect(text).toBe(await engineText({ seed: 13, steps: 15, params: { logit_bias: [[id, 2.5]] } }));
    await until(async () => (await hashOf(page)).includes('steps=15')); // the link is written a moment after the step
    const link = await open({ hash: await hashOf(page) });
    await until(async () => (await generated(link)) === text);
  });

  it('DRY: its switch and its sequence breakers (llama.cpp\'s in one click, one typed); a text the engine refuses is said; the link gives the engine\'s text', async () => {
    const page = await open({ hash: '#seed=21&prompt=Ma' });
    await page.getByTestId('stage-on-dry').check();
    await until(async () => (await hashOf(page)).includes('dry_multiplier=0.8'));
    // llama.cpp's: the names bigram writes a newline, but no : " or * (the engine says so)
    await page.getByTestId('dry-breakers-llama').click();
    await until(async () => (await page.getByTestId('dry-breaker').count()) === 1);
    await until(async () => (await page.getByTestId('dry-error').count()) === 1);
    expect(await page.getByTestId('dry-error').textContent()).toContain('dry-sequence-breaker: ":": the character \':\' (byte offset 0) is not in the model\'s vocabulary');
    await page.getByTestId('dry-breaker-text').fill('abcdefghijk');
    await page.getByTestId('dry-breaker-add').click();
    await until(async () => (await page.getByTestId('dry-error').textContent()).includes('more than 8 tokens'));
    await page.getByTestId('dry-breaker-text').fill('a');
    await page.keyboard.press('Enter');
    await until(async () => (await page.getByTestId('dry-breaker').count()) === 2);
    expect(await page.getByTestId('dry-error').count()).toBe(0);
    const breakers = ['\n', 'a'];
    await until(async () => decodeURIComponent(await hashOf(page)).includes(`dry_sequence_breakers=${JSON.stringify(breakers)}`));
    await stepTimes(page, 20);
    const text = await generated(page);
    expect(text).toBe(await engineText({ prompt: 'Ma', seed: 21, steps: 20, params: { dry_multiplier: 0.8, dry_sequence_breakers: breakers } }));
    await until(async () => (await hashOf(page)).includes('steps=20')); // the link is written a moment after the step
    const link = await open({ hash: await hashOf(page) });
    await until(async () => (await generated(link)) === text);
  });

  it('compare mode: the same settings in two orders, side by side, keep different nuclei and write different texts', async () => {
    const page = await open({ hash: '#view=compare&model=bigram&seed=7&prompt=Ma&steps=0&panels=greedy,balanced' });
    await page.getByTestId('show-orders').click();
    await until(async () => (await page.getByTestId('compare-panel').count()) === 2);
    const panels = page.getByTestId('compare-panel');
    await until(async () => (await panels.nth(1).getByTestId('panel-settings').textContent()).includes('order llama.cpp'));
    expect(await panels.nth(0).getByTestId('panel-settings').textContent()).toBe('Custom: T 2.5 · top-p 0.5');
    await stepTimes(page, 10);
    // the next token's bars: more kept with top-p after the temperature
    const kept = (i) => panels.nth(i).locator('[data-testid="prob-bar"][data-kept="true"]').count();
    await until(async () => (await kept(0)) > (await kept(1)));
    const texts = await panels.evaluateAll((els) => els.map((e) => e.querySelector('[data-testid="output"]').textContent));
    expect(texts[0]).not.toBe(texts[1]);
    expect(texts[0].slice(2)).toBe(await engineText({ prompt: 'Ma', seed: 7, steps: 10, params: { temperature: 2.5, top_p: 0.5 } }));
    expect(texts[1].slice(2)).toBe(await engineText({ prompt: 'Ma', seed: 7, steps: 10, params: { temperature: 2.5, top_p: 0.5, samplers: 'llama.cpp' } }));
  });
});
