// models/manifest.json is the one list of the shipped models: the CLI (c/cli/manifest.c),
// the Worker, the page, links and drafts read it, and no other list of their names remains.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { BUILTIN_MODELS, MODEL_NAMES } from '../../web/src/app/models.js';
import { DRAFT_MODELS, defaultDraft } from '../../web/src/app/lab.js';
import { HASH_MODELS } from '../../web/src/app/hash.js';
import { fileKey, SHIPPED } from '../../web/src/shared/manifest.js';
import { ROOT, runNative, runWasm } from './helpers.js';

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'models/manifest.json'), 'utf8'));

describe('models/manifest.json: the shipped models', () => {
  it('lists each model once, with its files in models/', () => {
    const names = manifest.models.map((m) => m.name);
    expect(names).toEqual(['bigram', 'transformer', 'bible-tiny', 'bible-bigram']);
    expect(new Set(names).size).toBe(names.length);
    for (const m of manifest.models) {
      expect(m.file).toMatch(/\.bin$/);
      expect(['bigram', 'llama2c']).toContain(m.kind);
      if (m.draft) expect(names).toContain(m.draft);
      if (m.draft_of) expect(names).toContain(m.draft_of);
      // a draft speaks its model's vocabulary: the same tokenizer
      if (m.draft_of) expect(m.tokenizer).toBe(manifest.models.find((x) => x.name === m.draft_of).tokenizer);
    }
    expect(fs.existsSync(path.join(ROOT, 'models', manifest.models[0].file))).toBe(true);
  });

  it('the page, links and drafts read it', () => {
    expect(SHIPPED).toEqual(manifest.models);
    expect(BUILTIN_MODELS.map((m) => [m.id, m.name, Boolean(m.draftOnly)])).toEqual([
      ['bigram', 'Bigram names', false], ['transformer', 'Tiny transformer', false],
      ['bible-tiny', 'Bible draft (1-layer transformer)', true], ['bible-bigram', 'Bible bigram', true],
    ]);
    expect(MODEL_NAMES['bible-tiny']).toBe('model.bibleTiny');
    expect(DRAFT_MODELS).toEqual(['bigram', 'transformer', 'bible-tiny', 'bible-bigram']);
    expect(HASH_MODELS).toEqual(['bigram', 'transformer']);
    expect(defaultDraft('transformer')).toBe('bible-tiny');
    expect(defaultDraft('bigram')).toBe('bigram');
    expect(defaultDraft('some-file.bin')).toBe('bigram');
    // the Worker's files by key (the npm package's fragment says the same keys)
    expect(manifest.models.flatMap((m) => [m.file, m.tokenizer]).filter(Boolean).map(fileKey))
      .toEqual(['bigram', 'transformer', 'transformerTokenizer', 'bibleTiny', 'transformerTokenizer', 'bibleBigram', 'transformerTokenizer']);
  });

  it('the CLI (native and WASM) resolves every name from it, and its usage lists them', async () => {
    for (const m of manifest.models) {
      const r = runNative(['logits', '--model', m.name, '--tokens', '1']);
      expect(r.status, `${m.name}: ${r.stderr}`).toBe(0);
    }
    const w = await runWasm('simd', ['logits', '--model', 'bible-bigram', '--tokens', '1']);
    expect(w.stdout.equals(runNative(['logits', '--model', 'bible-bigram', '--tokens', '1']).stdout)).toBe(true);
    const help = runNative(['--help']).stdout.toString();
    expect(help).toContain('--model PATH|bigram|transformer|bible-bigram|bible-tiny\n');
    expect(help).toContain('bible-bigram and bible-tiny are the default');
    expect(help).toContain('Models: `bigram` and `transformer` name');
  });

  it('no other list of the shipped model names remains in the sources', () => {
    const words = [...new Set(manifest.models.flatMap((m) => [m.name, m.file, m.tokenizer]).filter(Boolean))];
    const quoted = new RegExp(`(['"\`])(${words.map((w) => w.replace(/\./g, '\\.')).join('|')})\\1`, 'g');
    // a line that names two shipped models (or their files) in quotes is a list;
    // an engine's model kinds ('bigram' | 'transformer' | 'handmade') are not names
    const kinds = /'handmade'|kind(Bigram|Transformer)/;
    /** @param {string} dir @returns {string[]} */
    const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    const lists = [];
    for (const dir of ['c', 'web/src', 'package/src']) {
      for (const file of walk(path.join(ROOT, dir))) {
        if (!/\.(c|h|js|jsx|mjs)$/.test(file) || /\.test\.jsx?$/.test(file)) continue;
        // (a course chapter is a lesson: it names its models as a lesson page's attributes do)
        if (file.includes(path.join('learn', 'chapters'))) continue;
        fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
          const found = new Set([...line.matchAll(quoted)].map((x) => x[2]));
          const comment = /^\s*(\*|\/\/|\/\*)/.test(line);
          if (found.size >= 2 && !kinds.test(line) && !comment) lists.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    expect(lists).toEqual([]);
    // the old places that kept a list of their own
    for (const f of fs.readdirSync(path.join(ROOT, 'c/cli')).filter((x) => /\.[ch]$/.test(x))) {
      expect(fs.readFileSync(path.join(ROOT, 'c/cli', f), 'utf8'), f).not.toMatch(/name\[6\]|bible|transformer_tokenizer/);
    }
  });
});
