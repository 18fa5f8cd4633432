// train-worker.js — bench/train-learner.mjs's Worker in Chromium: what a
// learner gets from the training engine in a time budget, as the page's
// training Worker would run it (web/src/engine/trainer.js, the engine from
// build/engine-train-*.wasm).  Served from the repository's root.
//
// Message in: {textUrl, preset, settings, seconds, checkpoints, seed,
// prompts, samples, evalWindows}.  The steps of the schedule are
// settings.steps, or set from the speed of a first, short trainer (5
// steps: so that the cosine ends near the budget); the trainer runs in
// slices of one step; at each checkpoint (seconds of training: the clock
// stops for the checkpoint's own work) the held-out loss, the bigram's,
// and samples from the model so far (temperature 0.8, top-p 0.9).  Message out: {ok, result} or {ok: false,
// error}.
import { loadTrainEngineBrowser } from '../web/src/engine/train-browser.js';
import { createTrainer } from '../web/src/engine/trainer.js';

/** samples of the model so far: one text per seed and prompt */
function samples(engine, trainer, prompts, seeds) {
  const { model, tokenizer } = trainer.snapshot();
  const out = [];
  try {
    for (const prompt of prompts) {
      for (const seed of seeds) {
        const s = engine.createSession(model, tokenizer);
        s.start(prompt, seed);
        const params = { temperature: 0.8, top_p: 0.9 };
        let text = prompt;
        for (let i = 0; i < 120 && !s.finished; i++) {
          try {
            const r = s.step(params);
            if (r.end) break;
            text += r.piece;
          } catch {
            break; /* the context is full */
          }
        }
        s.free();
        out.push(text);
      }
    }
  } finally {
    model.free();
    tokenizer.free();
  }
  return out;
}

self.onmessage = async ({ data: job }) => {
  try {
    const engine = await loadTrainEngineBrowser('simd');
    const text = new Uint8Array(await (await fetch(job.textUrl)).arrayBuffer());
    const options = { preset: job.preset, seed: job.seed };
    // the steps: given, or the budget at the speed of a first trainer
    // (2 steps to warm up, 5 timed)
    let t0, rate = null, steps = job.settings.steps;
    if (!steps) {
      const probe = createTrainer(engine, text, { ...options, settings: { ...job.settings, steps: 1000 } });
      probe.run({ steps: 2 });
      t0 = performance.now();
      probe.run({ steps: 5 });
      rate = (5 * probe.plan.tokensPerStep) / ((performance.now() - t0) / 1000);
      steps = Math.max(10, Math.floor((job.seconds * rate) / probe.plan.tokensPerStep));
      probe.free();
    }
    const trainer = createTrainer(engine, text, { ...options, settings: { ...job.settings, steps } });
    const result = { rate_probe: rate && Math.round(rate), steps_planned: steps, plan: trainer.plan, settings: trainer.settings, checkpoints: [] };
    let trained = 0; // seconds of training
    const marks = [...job.checkpoints];
    const take = (at) => {
      const c0 = performance.now();
      const { loss, bigram } = trainer.evaluate({ windows: job.evalWindows });
      const texts = samples(engine, trainer, job.prompts, job.samples);
      const losses = trainer.losses();
      result.checkpoints.push({
        seconds: Math.round(at * 10) / 10, steps: trainer.stepsDone,
        train_loss: losses.length ? losses[losses.length - 1] : null,
        heldout_loss: loss, bigram_heldout_loss: bigram, samples: texts,
        checkpoint_ms: Math.round(performance.now() - c0),
      });
    };
    take(0);
    while (marks.length && !trainer.finished) {
      t0 = performance.now();
      trainer.run({ steps: 1 });
      trained += (performance.now() - t0) / 1000;
      if (trained >= marks[0]) take(marks.shift());
    }
    if (marks.length) take(trained); // the schedule ended first
    result.trained_seconds = Math.round(trained * 10) / 10;
    result.tokens_per_s = Math.round((trainer.stepsDone * trainer.plan.tokensPerStep) / trained);
    result.first_loss = trainer.losses()[0];
    trainer.free();
    self.postMessage({ ok: true, result });
  } catch (err) {
    self.postMessage({ ok: false, error: String(err?.stack ?? err) });
  }
};
