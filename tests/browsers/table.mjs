// The browser table: engine x (exact text, scalar fallback, journeys,
// offline), made from what the last run of tests/browsers/ found
// (build/browsers/ENGINE.json).
//   node tests/browsers/table.mjs            prints it
//   node tests/browsers/table.mjs --readme   also puts it in README.md
//                                            (between the browser-table marks)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RESULTS = path.join(ROOT, 'build', 'browsers');
const ENGINES = ['chromium', 'firefox', 'webkit'];
const JOURNEYS = {
  firstLoad: 'first load',
  stepPlay: 'Step/Play',
  sliderDuringPlay: 'slider during Play',
  hashRestore: 'hash restore',
  embed: 'embed from a sub-path',
};
const BEGIN = '<!-- browser-table:begin (node tests/browsers/table.mjs --readme) -->';
const END = '<!-- browser-table:end -->';

const cellOf = (r, pass) => {
  if (!r) return 'not run';
  if (r.status === 'pass') return pass(r);
  if (r.status === 'n/a') return `n/a: ${r.reason}`;
  return `**fails**: ${String(r.error).split('\n')[0].replace(/\|/g, '\\|')}`;
};

export function table() {
  const rows = ['| engine | exact text (SIMD) | scalar fallback (`?wasm=scalar`) | journeys | offline |', '| --- | --- | --- | --- | --- |'];
  for (const name of ENGINES) {
    const file = path.join(RESULTS, `${name}.json`);
    if (!fs.existsSync(file)) {
      rows.push(`| ${name} | not run | | | |`);
      continue;
    }
    const r = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (r.unavailable) {
      rows.push(`| ${name} | cannot run here: ${r.unavailable} | | | |`);
      continue;
    }
    const exact = cellOf(r.exact.simd, (x) => `yes: ${x.cases} cases, ${x.lines} lines = native CLI`);
    const scalarMatrix = cellOf(r.exact.scalar, (x) => `yes: ${x.cases} cases = native CLI`);
    const scalarPage = cellOf(r.scalarPage, (x) => `page: ${x.links} pinned links`);
    const done = Object.keys(JOURNEYS).filter((k) => r.journeys[k]?.status === 'pass');
    const other = Object.keys(JOURNEYS).filter((k) => r.journeys[k]?.status !== 'pass')
      .map((k) => `${JOURNEYS[k]}: ${cellOf(r.journeys[k], () => '')}`);
    const journeys = `${done.length}/${Object.keys(JOURNEYS).length}${other.length ? ` (${other.join('; ')})` : ''}`;
    const offline = cellOf(r.offline, () => 'yes: reload with the server gone');
    rows.push(`| ${r.version} | ${exact} | ${scalarMatrix}; ${scalarPage} | ${journeys} | ${offline} |`);
  }
  return `${rows.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const t = table();
  process.stdout.write(t);
  if (process.argv.includes('--readme')) {
    const readme = path.join(ROOT, 'README.md');
    const text = fs.readFileSync(readme, 'utf8');
    const a = text.indexOf(BEGIN), b = text.indexOf(END);
    if (a < 0 || b < a) throw new Error(`README.md has no ${BEGIN} ... ${END}`);
    fs.writeFileSync(readme, `${text.slice(0, a + BEGIN.length)}\n${t}${text.slice(b)}`);
  }
}
