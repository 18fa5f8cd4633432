// @ts-check
/**
 * The text of a PDF that Chromium printed (page.pdf: Skia's PDF writer),
 * for tests that check what a printout shows — no PDF library is
 * installed, and this one writer's files need little: its objects, their
 * Flate streams, each font's ToUnicode map (bfchar and bfrange), and the
 * strings its content streams show with Tj / TJ.  Its fonts are named
 * /F<object number>, two-byte glyph codes in a Type0 font, one byte
 * otherwise.  Text objects are joined with spaces; TJ's kerning is
 * dropped, so a word may come out with spaces inside it: compare texts
 * with their whitespace removed (squeeze).
 */
import zlib from 'node:zlib';

/**
 * @param {Uint8Array} pdf
 * @returns {string}
 */
export function pdfText(pdf) {
  const buf = Buffer.from(pdf);
  const s = buf.toString('latin1');
  /** @type {Record<string, {dict: string, data: Buffer | null}>} */
  const objs = {};
  for (const m of s.matchAll(/(\d+) 0 obj\s*([\s\S]*?)endobj/g)) {
    const body = m[2];
    const at = body.indexOf('stream');
    if (at < 0) {
      objs[m[1]] = { dict: body, data: null };
      continue;
    }
    const dict = body.slice(0, at);
    let start = /** @type {number} */ (m.index) + m[0].indexOf('stream') + 'stream'.length;
    if (s[start] === '\r') start++;
    if (s[start] === '\n') start++;
    let data = buf.subarray(start, s.indexOf('endstream', start));
    if (/FlateDecode/.test(dict)) data = zlib.inflateSync(data);
    objs[m[1]] = { dict, data };
  }
  /** @type {Record<string, {map: Map<number, string>, digits: number}>} */
  const fonts = {};
  const fontOf = (/** @type {string} */ n) => {
    if (fonts[n]) return fonts[n];
    const dict = objs[n]?.dict ?? '';
    const map = new Map();
    const ref = /\/ToUnicode (\d+) 0 R/.exec(dict);
    const cmap = ref ? objs[ref[1]]?.data?.toString('latin1') ?? '' : '';
    const chars = (/** @type {string} */ hex) => String.fromCodePoint(...(hex.match(/.{4}/g) ?? []).map((x) => parseInt(x, 16)));
    for (const b of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
      for (const [, code, u] of b[1].matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) map.set(parseInt(code, 16), chars(u));
    }
    for (const b of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
      for (const [, from, to, u] of b[1].matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) {
        for (let c = parseInt(from, 16), v = parseInt(u, 16); c <= parseInt(to, 16); c++, v++) map.set(c, String.fromCodePoint(v));
      }
    }
    return (fonts[n] = { map, digits: /Type0/.test(dict) ? 4 : 2 });
  };
  let out = '';
  for (const { data } of Object.values(objs)) {
    const content = data?.toString('latin1') ?? '';
    if (!/\bTf\b/.test(content)) continue;
    let font = null;
    for (const t of content.matchAll(/\/F(\d+) [\d.]+ Tf|<([0-9A-Fa-f]*)>|\bET\b/g)) {
      if (t[1]) font = fontOf(t[1]);
      else if (t[2] !== undefined && font) {
        const f = font;
        out += (t[2].match(new RegExp(`.{${f.digits}}`, 'g')) ?? []).map((h) => f.map.get(parseInt(h, 16)) ?? '\uFFFD').join('');
      } else out += ' ';
    }
    out += '\n';
  }
  return out;
}

/** a text with its whitespace removed, to compare with pdfText's @param {string} text */
export const squeeze = (text) => text.replace(/\s+/g, '');
