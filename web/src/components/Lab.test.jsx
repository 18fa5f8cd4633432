// @vitest-environment happy-dom
// The decoding lab's components: metrics and their chart, the KV view,
// beams, the speculative text and rounds, the constraint field and the
// ban list, fed with numbers shaped as the Worker sends them.
import { signal } from '@preact/signals';
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { BeamList, SpecRounds, SpecText } from './Decoders.jsx';
import { BanList, ConstraintField } from './LabControls.jsx';
import { KVView, Metrics, StepChart } from './LabViews.jsx';

afterEach(cleanup);

const metrics = { tokens: 6, bytes: 6, distinct1: 0.5, distinct2: 0.6, distinct3: 0.75, typeTokenRatio: 1, longestRepeat: 2, longestRepeatAt: 0, meanEntropyBits: 1.5, meanEntropyRawBits: 2, meanNucleus: 3, perplexity: 4.25 };
const stats = [1, 2, 3, 4, 5, 6].map((i) => ({ p: 0.5, logpRaw: -1, entropyBits: i / 3, entropyRawBits: 2, nKept: i }));
const cost = (n) => ({ n, flops: 1000 * (n + 1), flopsNoCache: 500 * (n + 1) * (n + 2), tokens: n + 3, kvReused: 10 * n * n, kvWritten: 4 * (n + 3) });

describe('Metrics', () => {
  it('shows the engine\'s numbers, explained, with the repeated text and the chart', () => {
    render(<Metrics lab={{ metrics, stats, costs: [], counted: true }} text="abcabc" vocab={54} uid="t" />);
    expect(screen.getByTestId('metrics').dataset.tokens).toBe('6');
    const ppl = screen.getByTestId('metric-perplexity');
    expect(ppl.textContent).toBe('4.25');
    expect(ppl.dataset.value).toBe('4.25');
    expect(ppl.parentElement.getAttribute('title')).toMatch(/surprised/);
    expect(screen.getByTestId('metric-distinct3').textContent).toBe('0.75');
    expect(screen.getByTestId('metric-repeat').textContent).toBe('ab');
    expect(screen.getByTestId('step-chart').dataset.steps).toBe('6');
    expect(screen.getByText('What these measure')).toBeTruthy();
  });

  it('shows dashes before the first token', () => {
    render(<Metrics lab={null} text="" vocab={54} uid="t" compact />);
    expect(screen.getByTestId('metric-distinct1').textContent).toBe('–');
    expect(screen.queryByText('What these measure')).toBeNull();
    expect(screen.getByTestId('step-chart').dataset.steps).toBe('0');
  });
});

describe('StepChart', () => {
  it('draws a point per step and a bar per step with more than one token kept', () => {
    const { container } = render(<StepChart stats={stats} vocab={64} />);
    expect(container.querySelector('polyline').getAttribute('points').split(' ')).toHaveLength(6);
    expect(container.querySelector('path.spg-chart-bars').getAttribute('d').match(/M/g)).toHaveLength(5);
    expect([...container.querySelectorAll('.spg-chart-yr span')].map((s) => s.textContent)).toEqual(['1', '4', '16', '64']);
  });
});

describe('KVView', () => {
  it('says the bigram has no cache, with its forward calls', () => {
    render(<KVView lab={{ metrics, stats, costs: [{ ...cost(0), flops: 0, flopsNoCache: 0, tokens: 7 }], counted: true }} model={{ kind: 'bigram', vocab: 54 }} strategy="sample" />);
    expect(screen.getByTestId('kv-note').textContent).toMatch(/no attention and no KV cache.*\(7 so far\)/);
  });

  it('shows the counters of the last step and so far, and their ratio', () => {
    const costs = [0, 1, 2, 3].map(cost);
    const { container } = render(<KVView lab={{ metrics, stats, costs, counted: true }} model={{ kind: 'transformer', vocab: 99 }} strategy="sample" />);
    expect(screen.getByTestId('kv-flops').dataset.value).toBe('4000');
    expect(screen.getByTestId('kv-flops-step').dataset.value).toBe('1000');
    expect(screen.getByTestId('kv-nocache').dataset.value).toBe('10000');
    expect(screen.getByTestId('kv-nocache-step').dataset.value).toBe('4000');
    expect(screen.getByTestId('kv-ratio').textContent).toBe('×2.50');
    expect(screen.getByTestId('kv-reused-step').textContent).toBe('50');
    expect(screen.getByTestId('cost-chart').dataset.points).toBe('4');
    expect(container.querySelectorAll('polyline')).toHaveLength(2);
  });

  it('says beam search is not followed', () => {
    render(<KVView lab={null} model={{ kind: 'transformer', vocab: 99 }} strategy="beam" />);
    expect(screen.getByTestId('kv-note').textContent).toMatch(/Beam search/);
  });
});

describe('beams and speculative rounds', () => {
  it('lists the beams best first, ended ones marked', () => {
    const beam = {
      width: 2, lengthPenalty: 0, live: 1, expansions: 3,
      hypotheses: [
        { text: 'ab\n', length: 3, logprob: -1.5, score: -1.5, finished: false },
        { text: 'a', length: 2, logprob: -2.25, score: -2.25, finished: true },
      ],
    };
    render(<BeamList beam={beam} prompt="" />);
    const rows = screen.getAllByTestId('beam');
    expect(rows.map((r) => [r.dataset.rank, r.dataset.finished, r.dataset.logprob])).toEqual([['1', 'false', '-1.5'], ['2', 'true', '-2.25']]);
    expect(rows[0].textContent).toContain('ab↵');
    expect(rows[0].textContent).toContain('best');
    expect(rows[1].textContent).toContain('ended');
    expect(screen.getByTestId('beam-summary').textContent).toBe('Width 2 · 1 growing · 3 steps');
  });

  const spec = {
    draft: 'bigram', n: 2,
    totals: { drafted: 4, accepted: 2, rounds: 2, targetPositions: 5 },
    // two batched passes: the drafts of round 1 (and nothing before), the bonus and round 2's drafts
    work: { targetPasses: 2, targetFed: 5, matched: true, ms: 4, plainMs: 6 },
    rounds: [
      { round: 1, index: 0, drafted: [{ token: 1, piece: 'a' }, { token: 2, piece: 'b' }], tokens: [{ index: 0, token: 1, piece: 'a', status: 'accepted', end: false }, { index: 1, token: 2, piece: 'b', status: 'accepted', end: false }, { index: 2, token: 3, piece: 'c', status: 'bonus', end: false }], rejected: null, fed: 2, residual: null, ms: 3, plainMs: 3 },
      { round: 2, index: 3, drafted: [{ token: 4, piece: 'd' }, { token: 5, piece: 'e' }], tokens: [{ index: 3, token: 6, piece: 'f', status: 'corrected', end: false }], rejected: { token: 4, piece: 'd' }, fed: 3, ms: 1, plainMs: 3,
        residual: { mass: 0.5, bars: [{ token: 6, piece: 'f', p: 0.6, q: 0.1, r: 1 }, { token: 4, piece: 'd', p: 0.1, q: 0.6, r: 0 }] } },
    ],
  };
  spec.tokens = spec.rounds.flatMap((r) => r.tokens);

  it('marks each token\'s fate; the text holds only the text (a rejected draft is named in its correction\'s tooltip)', () => {
    render(<SpecText prompt="X" spec={spec} live />);
    const out = screen.getByTestId('output');
    expect(out.textContent).toBe('Xabcf');
    const toks = screen.getAllByTestId('spec-token');
    expect(toks.map((t) => t.dataset.status)).toEqual(['accepted', 'accepted', 'bonus', 'corrected']);
    expect(out.children.length).toBe(5); // the prompt and the four tokens: nothing else
    expect(toks[3].dataset.rejected).toBe('d');
    expect(toks[3].title).toContain('the draft was "d"');
  });

  it('shows the totals and the rounds, newest first, with unchecked drafts', () => {
    const { container } = render(<SpecRounds spec={spec} draftName="Bigram names" />);
    expect(screen.getByTestId('spec-rate').textContent).toBe('50.0%');
    expect(screen.getByTestId('spec-positions').textContent).toBe('5');
    const rounds = screen.getAllByTestId('spec-round');
    expect(rounds.map((r) => r.dataset.round)).toEqual(['2', '1']);
    expect([...rounds[0].querySelectorAll('.spg-draft')].map((d) => d.className)).toEqual(['spg-draft is-rejected', 'spg-draft is-unchecked']);
    expect([...rounds[1].querySelectorAll('.spg-draft')].map((d) => d.className)).toEqual(['spg-draft is-accepted', 'spg-draft is-accepted']);
    // 4 tokens in 2 passes of the model
    expect(screen.getByTestId('spec-per-pass').textContent).toBe('2.00');
    // the median of the rounds' ratios, plain time / round time: 1 and 3
    expect(screen.getByTestId('spec-speedup').textContent).toBe('1.00×');
    // the last rejection: the draft d, and the residual it was resampled from
    expect(screen.getByTestId('spec-residual').dataset.round).toBe('2');
    expect(screen.getAllByTestId('residual-bar').map((b) => b.dataset.r)).toEqual(['1', '0']);
    expect(container.textContent).toContain('turned down the draft d');
  });
});

describe('ConstraintField and BanList', () => {
  it('applies a regex on Enter and JSON at once; shows a refusal calmly', async () => {
    const target = { constraint: signal({ kind: 'none', regex: '' }), errors: signal({}), setConstraint: vi.fn(async () => true) };
    render(<ConstraintField target={target} uid="c" />);
    fireEvent.click(screen.getByTestId('constraint-regex'));
    expect(target.setConstraint).not.toHaveBeenCalled(); // no pattern yet
    const input = screen.getByTestId('regex-input');
    fireEvent.input(input, { target: { value: '[a-z]+' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(target.setConstraint).toHaveBeenLastCalledWith({ kind: 'regex', regex: '[a-z]+' });
    fireEvent.click(screen.getByTestId('constraint-json'));
    expect(target.setConstraint).toHaveBeenLastCalledWith({ kind: 'json', regex: '[a-z]+' });
    target.errors.value = { constraint: "regex: missing ')' at offset 5" };
    await new Promise((r) => setTimeout(r, 0));
    expect(screen.getByTestId('constraint-error').getAttribute('role')).toBe('status');
  });

  it('lists the bans with their pieces; a click lifts one', () => {
    const toggleBan = vi.fn();
    const summary = { ids: Int32Array.from([5, 7]), pieces: ['x', ' '] };
    const panel = { session: 'b', bans: signal([5, 7, 9]), errors: signal({}), next: signal(summary), steps: signal([]), toggleBan };
    render(<BanList panel={panel} />);
    const chips = screen.getAllByTestId('ban-chip');
    expect(chips.map((c) => c.textContent)).toEqual(['x ×', '␣ ×', '#9 ×']);
    expect(chips[1].getAttribute('aria-label')).toBe('Lift the ban on space');
    fireEvent.click(chips[0]);
    expect(toggleBan).toHaveBeenCalledWith(5);
  });
});
