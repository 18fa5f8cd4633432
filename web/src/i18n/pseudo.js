// @ts-check
/**
 * The pseudo-locale (en-XA): English made strange on purpose, so a layout
 * is tested against what translations do to it — every letter accented
 * (the text stays readable and no untranslated string hides), every text
 * about 40 % longer and in brackets (a clipped end shows), and the page
 * right to left (the catalogue's direction, index.js).  Placeholders
 * ({count}) and tags (<em>) stay as they are.
 */

const ACCENTED = /** @type {Record<string, string>} */ (Object.fromEntries([
  ...'abcdefghijklmnopqrstuvwxyz'.split('').map((c, i) => [c, 'áƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýž'[i]]),
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('').map((c, i) => [c, 'ÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ'[i]]),
]));

/** words that lengthen a text (accented already) */
const FILLER = 'ļöŕéɱ îþšûɱ ðöļöŕ šîţ áɱéţ çöñšéçţéţûŕ áðîþîšçîñĝ éļîţ šéð ðö éîûšɱöð ţéɱþöŕ';

/**
 * One text of the pseudo-locale.
 * @param {string} text
 */
export function pseudoText(text) {
  let letters = 0;
  // placeholders and tags as they are; the rest accented
  const out = text.replace(/(\{\w+\}|<\/?\w+>)|([^{<]+|[{<])/g, (all, keep, plain) => {
    if (keep) return keep;
    letters += plain.length;
    return plain.replace(/[A-Za-z]/g, (/** @type {string} */ c) => ACCENTED[c] ?? c);
  });
  const extra = Math.ceil(letters * 0.4);
  return extra > 0 ? `[${out} ${FILLER.repeat(Math.ceil(extra / FILLER.length)).slice(0, extra).trim()}]` : out;
}

/**
 * The pseudo-locale's catalogue, from English.
 * @param {import('./index.js').Catalogue} english
 * @returns {import('./index.js').Catalogue}
 */
export function pseudoCatalogue(english) {
  /** @type {import('./index.js').Catalogue} */
  const out = {};
  for (const [key, entry] of Object.entries(english)) {
    // (a setting, not a text: the same as English's)
    if (key === 'lang.namesInLowerCase') out[key] = entry;
    else out[key] = typeof entry === 'string' ? pseudoText(entry)
      : Object.fromEntries(Object.entries(entry).map(([form, text]) => [form, pseudoText(text)]));
  }
  return out;
}
