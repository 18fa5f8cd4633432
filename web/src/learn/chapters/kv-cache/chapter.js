// @ts-check
// Chapter 12: the KV cache — each token's keys and values computed once and
// kept; the work with and without the cache, and their ratio (the engine's
// FLOP counts of the tiny transformer) as the questions.
import { playground, points, question, text } from '../../blocks.js';

/** @type {import('../../blocks.js').Chapter} */
export default {
  facts: {
    r32: { model: 'transformer', ask: 'kv-ratio', length: 32, digits: 1 },
    r256: { model: 'transformer', ask: 'kv-ratio', length: 256, digits: 1 },
  },
  blocks: [
    text('intro'),
    text('cache'),
    playground('kv', { model: 'transformer', prompt: 'And God said', seed: 1, temperature: 0.8, view: 'text,kv' }, { note: 'tryKv' }),
    text('growth'),
    question('q1', { model: 'transformer', ask: 'kv-ratio', length: 64, digits: 1 }),
    question('q2', { model: 'transformer', ask: 'kv-ratio', length: 128, digits: 1 }),
    text('memory'),
    points('points'),
  ],
};
