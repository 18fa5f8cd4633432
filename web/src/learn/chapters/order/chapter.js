// @ts-check
// Chapter 9: order matters — the chain's stages run one after another, and
// temperature before top-p (Hugging Face's order) keeps other tokens than
// temperature after it (llama.cpp's).  The example: six words, logits 3,
// 2, 1.5, 1, 0.5, 0, at T = 3 and top-p 0.7.
import { playground, points, question, text } from '../../blocks.js';

const SIX = 'logits:{w0}=3,{w1}=2,{w2}=1.5,{w3}=1,{w4}=0.5,{w5}=0';
const HOT = { model: SIX, temperature: 3, 'top-p': 0.7 };

/** @type {import('../../blocks.js').Chapter} */
export default {
  facts: {
    raw1: { model: SIX, ask: 'p1', digits: 2 },
    hot1: { model: SIX, temperature: 3, ask: 'p1', digits: 2 },
    hfKept: { ...HOT, samplers: 'hf', ask: 'nucleus', digits: 0 },
    lcKept: { ...HOT, samplers: 'llama.cpp', ask: 'nucleus', digits: 0 },
  },
  blocks: [
    text('intro'),
    text('presets'),
    text('example'),
    playground('orders', {
      model: SIX, view: 'compare', controls: 'temperature,top-p',
      panels: 'custom_t3_p0.7_ohf,custom_t3_p0.7_ollama.cpp',
    }, { note: 'tryOrders', wide: true }),
    text('why'),
    question('q1', { model: SIX, temperature: 2, 'top-p': 0.8, samplers: 'llama.cpp', ask: 'nucleus' }),
    question('q2', { model: SIX, temperature: 0.5, 'top-p': 0.7, samplers: 'llama.cpp', ask: 'p1', digits: 2 }),
    points('points'),
  ],
};
