// @vitest-environment happy-dom
// <sampler-playground> in happy-dom, over the Worker's host in process: it
// renders into its shadow root (with its stylesheet), shows the parts and
// controls its attributes name, follows attribute changes, shares one
// client per model between elements and lets it go with the last one, and
// says calmly what was wrong with an attribute.  "Copy embed code" too.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { signal } from '@preact/signals';
import { describe, expect, it, vi } from 'vitest';

import { $, ready, useElements } from '../../../tests/helpers/elements.js';
import { parseHash } from '../app/hash.js';
import { EmbedCode } from '../components/EmbedCode.jsx';
import { until } from '../../../tests/helpers/until.js';

const { made, terminated } = useElements(cleanup);

const $$ = (host, sel) => [...host.shadowRoot.querySelectorAll(sel)];

function add(html) {
  document.body.insertAdjacentHTML('beforeend', html);
  return /** @type {HTMLElement} */ (document.body.lastElementChild);
}

describe('<sampler-playground>', () => {
  it('renders into its shadow root with its stylesheet: the parts and sliders it is asked for', async () => {
    const el = add('<sampler-playground temperature="0.5" seed="3" steps="4" controls="temperature,seed" view="text,bars"></sampler-playground>');
    await until(() => ready(el));
    expect(el.shadowRoot).toBeTruthy();
    const css = el.shadowRoot.adoptedStyleSheets?.length ? 'adopted' : $(el, 'style')?.textContent;
    expect(css === 'adopted' || css.includes('.spg-embed')).toBe(true);
    expect($$(el, '[data-testid="output-token"]')).toHaveLength(4);
    expect($$(el, '[data-testid="prob-bar"]')).toHaveLength(54);
    expect($$(el, '.spg-slider').map((s) => s.dataset.param)).toEqual(['temperature']);
    expect($(el, '[data-testid="seed"]').value).toBe('3');
    expect($(el, '[data-testid="nucleus-plot"]')).toBeNull();
    expect($(el, '[data-testid="step"]')).toBeTruthy();
    expect(el.querySelector('*')).toBeNull(); // nothing in the page's own DOM
  });

  it('follows its attributes: sliders re-warp (the text stays), a seed regenerates, controls="" hides the controls', async () => {
    const el = add('<sampler-playground seed="3" steps="4" view="text,nucleus" controls="top-p"></sampler-playground>');
    await until(() => ready(el));
    const text = $(el, '[data-testid="output"]').textContent;
    el.setAttribute('top-p', '0.3');
    await until(() => $(el, '[data-testid="value-top_p"]')?.textContent === '0.30');
    await until(() => Number($(el, '[data-testid="nucleus-size"]').textContent) < 54);
    expect($(el, '[data-testid="output"]').textContent).toBe(text);
    el.setAttribute('seed', '4');
    await until(() => $(el, '[data-testid="output"]').textContent !== text && $$(el, '[data-testid="output-token"]').length === 4);
    el.setAttribute('controls', '');
    await until(() => !$(el, '[data-testid="step"]'));
    expect($$(el, '.spg-slider')).toHaveLength(0);
  });

  it('shares one client per model and lets it go with the last element; bad attributes are a notice', async () => {
    const before = made.length;
    const a = add('<sampler-playground model="bigram" view="bars"></sampler-playground>');
    const b = add('<sampler-playground temperature="hot" top-k="-4" view="pie"></sampler-playground>');
    await until(() => ready(a) && ready(b));
    expect(made.slice(before)).toEqual(['bigram']);
    const notice = $(b, '[data-testid="notice"]').textContent;
    expect(notice).toContain('Ignored temperature="hot": Temperature must be a number; using 1.');
    expect(notice).toContain('Ignored top-k="-4": Top-k must be in [0, 2147483647]; using 0.'); // (the engine's range: the most an int holds)
    expect(notice).toContain('Ignored view="pie"');
    const gone = terminated.length;
    a.remove();
    await new Promise((r) => setTimeout(r, 0));
    expect(terminated.length).toBe(gone);
    b.remove();
    await until(() => terminated.length === gone + 1);
    expect(terminated.at(-1)).toBe('bigram');
  });

  it('compare mode: the panels of its `panels`, one Step for all', async () => {
    const el = add('<sampler-playground view="compare" panels="greedy,custom_k5" seed="2" steps="3"></sampler-playground>');
    await until(() => ready(el));
    const panels = $$(el, '[data-testid="compare-panel"]');
    expect(panels.map((p) => p.dataset.preset)).toEqual(['greedy', 'custom']);
    expect(panels.map((p) => p.querySelectorAll('[data-testid="output-token"]').length)).toEqual([3, 3]);
    expect(panels[1].querySelector('h2').textContent).toContain('top-k 5');
    $(el, '[data-testid="step"]').click();
    await until(() => panels.every((p) => p.querySelectorAll('[data-testid="output-token"]').length === 4));
  });
});

describe('<sampler-playground>: the lessons\' parts and models', () => {
  it('another hand-made model in `model` is loaded (the bars follow the new logits)', async () => {
    const el = add('<sampler-playground model="logits:a=2,b=1,c=0" view="bars"></sampler-playground>');
    await until(() => ready(el));
    const probs = () => $$(el, '[data-testid="prob-bar"]').map((b) => Number(b.dataset.prob).toFixed(3));
    expect(probs()).toEqual(['0.665', '0.245', '0.090']);
    el.setAttribute('model', 'logits:a=3,b=1,c=0');
    await until(() => probs()[0] === '0.844');
    expect(probs()).toEqual(['0.844', '0.114', '0.042']);
    expect($$(el, '[data-testid="prob-bar"]').map((b) => b.querySelector('.spg-bar-tok')?.textContent)).toEqual(['a', 'b', 'c']);
  });

  it('rewrite(): a slider attribute changed, the text is written again with it (its steps tokens, the same seed)', async () => {
    const el = add('<sampler-playground seed="5" steps="12" view="text"></sampler-playground>');
    await until(() => ready(el));
    const text = () => $(el, '[data-testid="output"]').textContent;
    const first = text();
    el.setAttribute('temperature', '0');
    await new Promise((r) => setTimeout(r, 50));
    expect(text()).toBe(first); // a slider only re-warps the next token
    await el.rewrite();
    await until(() => $$(el, '[data-testid="output-token"]').length === 12 && text() !== first);
    const greedy = text();
    el.setAttribute('seed', '6'); // another seed: the same greedy text
    await until(() => $$(el, '[data-testid="output-token"]').length === 12);
    await new Promise((r) => setTimeout(r, 50));
    expect(text()).toBe(greedy);
  });

  it('view="bars,samples": "Draw 1000 samples" puts the engine\'s ticks and KL under the bars', async () => {
    const el = add('<sampler-playground model="logits:2,1,0" view="bars,samples"></sampler-playground>');
    await until(() => ready(el));
    expect($(el, '[data-testid="kl"]')).toBeNull();
    $(el, '[data-testid="draw-samples"]').click();
    await until(() => $(el, '[data-testid="kl"]'));
    const kl = Number($(el, '[data-testid="kl"]').dataset.value);
    expect(kl).toBeGreaterThan(0);
    expect(kl).toBeLessThan(0.01); // 1000 draws of three tokens
    const freq = $$(el, '[data-testid="sample-tick"]').map((t) => Number(t.dataset.freq));
    expect(freq).toHaveLength(3);
    expect(freq.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
  });

  it('view="text,beams" lists the hypotheses; view="text,rounds" the speculative rounds; view="metrics" the measures', async () => {
    const beam = add('<sampler-playground strategy="beam" beams="3" steps="4" view="text,beams"></sampler-playground>');
    const spec = add('<sampler-playground strategy="speculative" draft="bigram" speculate="2" steps="3" view="text,rounds"></sampler-playground>');
    const metrics = add('<sampler-playground steps="6" view="text,metrics"></sampler-playground>');
    await until(() => ready(beam) && ready(spec) && ready(metrics));
    await until(() => $$(beam, '[data-testid="beam"]').length === 3);
    expect($(beam, '[data-testid="beam-summary"]').textContent).toContain('3');
    expect($$(beam, '[data-testid="prob-bar"]')).toHaveLength(0);
    expect($$(spec, '[data-testid="spec-round"]')).toHaveLength(3);
    expect($(spec, '[data-testid="spec-rate"]')).toBeTruthy();
    expect($(metrics, '[data-testid="metrics"]').dataset.tokens).toBe('6');
    expect($(metrics, '[data-testid="step-chart"]').dataset.steps).toBe('6');
  });
});

describe('EmbedCode', () => {
  it('shows the element for the setup (the clipboard may be refused) and the iframe', async () => {
    const state = parseHash('#model=bigram&temperature=0.7&seed=5&prompt=A%22b&steps=3').state;
    const app = { hashState: signal(state) };
    Object.defineProperty(navigator, 'clipboard', { value: { writeText: vi.fn(async () => { throw new Error('denied'); }) }, configurable: true });
    render(<EmbedCode app={app} base="https://site.example/play/index.html" />);
    fireEvent.click(screen.getByTestId('copy-embed'));
    await until(() => screen.queryByTestId('embed-copied')?.textContent);
    // paths on the site, never this computer's address; the page's controls
    expect(screen.getByTestId('embed-code').value).toBe('<script type="module" src="/play/embed.js"></script>\n'
      + '<sampler-playground model="bigram" temperature="0.7" top-k="0" top-p="1" seed="5" prompt="A&quot;b" steps="3" controls="temperature,top-k,top-p,prompt,seed"></sampler-playground>');
    expect(screen.getByTestId('embed-copied').textContent).toMatch(/^Select the code/);
    expect(screen.getByTestId('embed-iframe').value).toContain('src="/play/index.html?embed=1#model=bigram&amp;temperature=0.7');
  });
});
