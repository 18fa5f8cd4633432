// @vitest-environment happy-dom
// The npm package's texts cannot drift from the code: the attribute table
// (docs/lessons.md's) must name exactly the element's attributes, and the
// types (package/sampler-playground.d.ts) must describe what the module
// exports, the step records and events' details it really sends, and the
// session's members.  (tests/e2e/package.test.js installs and runs it.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';

import { ATTRIBUTES } from '../../web/src/embed/attrs.js';
import { inProcessClient } from '../helpers/engine.js';
import { GUIDE, ROOT, TYPES, attributeTable, packageTexts } from '../../package/build.js';

const guide = fs.readFileSync(GUIDE, 'utf8');
const types = packageTexts(['sampler-playground.js'])[TYPES];

/** the property names an interface (or class) of the types declares */
function members(name) {
  const m = types.match(new RegExp(`(?:interface|class) ${name}\\b[^{]*\\{\\n([\\s\\S]*?)\\n\\}`));
  if (!m) throw new Error(`the types have no ${name}`);
  return [...m[1].matchAll(/^ {2}(?:readonly |static readonly )?'?([\w-]+)'?\??[:(]/gm)].map((x) => x[1])
    .filter((n, i, all) => all.indexOf(n) === i);
}

describe('the attribute table', () => {
  it('is docs/lessons.md\'s, one row or more per attribute, every attribute of the element and no other', () => {
    const { rows } = attributeTable(guide);
    expect(rows.flatMap((r) => r.names).sort()).toEqual([...ATTRIBUTES].sort());
    const readme = packageTexts(['sampler-playground.js'])['README.md'];
    for (const r of rows) expect(readme).toContain(r.line);
  });

  it('stops the build when the guide and the element differ', () => {
    const withoutSpeed = guide.replace(/^\| `speed` \|.*\n/m, '');
    expect(() => attributeTable(withoutSpeed)).toThrow('not in the table: speed;');
    const extra = guide.replace(/^(\| `seed` \|.*\n)/m, '$1| `colour` | any | red |\n');
    expect(() => attributeTable(extra)).toThrow('not attributes of the element: colour;');
  });

  it('gives the types an interface with every attribute', () => {
    expect(members('SamplerPlaygroundAttributes')).toEqual(ATTRIBUTES);
    expect(types).toContain("/** 0 or more (0 = greedy; the slider spans 0 to 3). Default: 1. */\n  'temperature'?: string;");
  });
});

describe('the types', () => {
  let api;
  const terminated = [];
  beforeAll(async () => {
    api = await import('../../package/src/sampler-playground.js');
    // after the package's own factory: the Worker's host in process
    const { setClientFactory } = await import('../../web/src/embed/registry.js');
    setClientFactory((key) => {
      const client = inProcessClient();
      return { request: (op, args) => client.request(op, args), terminate: () => terminated.push(key) };
    });
  });
  afterAll(() => {
    document.body.innerHTML = '';
  });

  it('declare what the module exports, and it defines the element', () => {
    const declared = [...types.matchAll(/^export (?:const|class|function) (\w+)/gm)].map((m) => m[1]).sort();
    expect(Object.keys(api).sort()).toEqual(declared);
    expect(customElements.get('sampler-playground')).toBe(api.SamplerPlayground);
    expect([api.TOKEN_EVENT, api.SETTINGS_EVENT]).toEqual(['sampler-token', 'sampler-settings']);
    expect(members('SamplerPlaygroundEventMap')).toEqual([api.TOKEN_EVENT, api.SETTINGS_EVENT]);
    expect(types).toContain("'sampler-playground': SamplerPlayground;");
  });

  it('describe the session, its model, status and step records as they are', async () => {
    const s = await api.createSession({ prompt: 'Ma', seed: 7 });
    const record = await s.step();
    const own = new Set([...Object.keys(s), ...Object.getOwnPropertyNames(api.Session.prototype)]);
    const declared = members('Session').filter((n) => n !== 'constructor');
    expect(declared.filter((n) => !own.has(n))).toEqual([]);
    const proto = api.Session.prototype;
    const methods = Object.getOwnPropertyNames(proto).filter((n) => typeof Object.getOwnPropertyDescriptor(proto, n).value === 'function'
      && !['constructor', 'ask', 'apply'].includes(n));
    expect(methods.filter((n) => !declared.includes(n))).toEqual([]);
    expect(Object.keys(record).sort()).toEqual(members('StepRecord').sort());
    expect(Object.keys(s.next).sort()).toEqual(members('StepRecord').sort());
    expect(Object.keys(s.model).sort()).toEqual(members('ModelInfo').sort());
    expect(Object.keys(s.status).sort()).toEqual(members('SessionStatus').sort());
    s.close();
  });

  it('describe the events\' details as they are sent', async () => {
    const heard = {};
    const listen = (e) => { heard[e.type] = e.detail; };
    document.addEventListener('sampler-token', listen);
    document.addEventListener('sampler-settings', listen);
    document.body.innerHTML = '<sampler-playground steps="1" controls="temperature"></sampler-playground>';
    const el = document.querySelector('sampler-playground');
    const until = async (fn) => {
      for (let t = 0; !fn(); t++) {
        if (t > 1000) throw new Error('timed out');
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await until(() => heard['sampler-token']);
    el.setAttribute('temperature', '0.5');
    await until(() => heard['sampler-settings']);
    expect(Object.keys(heard['sampler-token']).sort()).toEqual(members('SamplerTokenDetail').sort());
    expect(Object.keys(heard['sampler-settings']).sort()).toEqual(members('SamplerSettingsDetail').sort());
  });
});

it('the package template has no files or version of its own: the build gives them', () => {
  const template = JSON.parse(fs.readFileSync(path.join(ROOT, 'package/package.template.json'), 'utf8'));
  expect(template.files).toBeUndefined();
  expect(template.version).toBeUndefined();
  expect(template.dependencies).toBeUndefined();
});
