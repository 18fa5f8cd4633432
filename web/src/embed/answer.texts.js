// @ts-check
/**
 * The words of a question's kind of answer (answer.js's ANSWER_KIND), in
 * the four languages: the field's hint ("a whole number", "a decimal, 3
 * digits", "a token") and what an answer of another kind is told.
 */
const TEXTS = /** @type {Record<string, Record<string, string>>} */ ({
  en: {
    whole: 'a whole number',
    decimal: 'a decimal, {digits} digits',
    decimal1: 'a decimal, 1 digit',
    decimal0: 'a whole number',
    token: 'a token',
    notWhole: 'This question asks how many: answer with a whole number (e.g. 3).',
    notNumber: 'This question asks how many: type a whole number (e.g. 3).',
    notToken: 'Type a token, as the bars show it (e.g. e).',
  },
  de: {
    whole: 'eine ganze Zahl',
    decimal: 'Dezimalzahl, {digits} Stellen',
    decimal1: 'Dezimalzahl, 1 Stelle',
    decimal0: 'eine ganze Zahl',
    token: 'ein Token',
    notWhole: 'Diese Frage fragt nach einer Anzahl: Antworte mit einer ganzen Zahl (z. B. 3).',
    notNumber: 'Diese Frage fragt nach einer Anzahl: Gib eine ganze Zahl ein (z. B. 3).',
    notToken: 'Gib ein Token ein, wie die Balken es zeigen (z. B. e).',
  },
  es: {
    whole: 'un número entero',
    decimal: 'un decimal, {digits} cifras',
    decimal1: 'un decimal, 1 cifra',
    decimal0: 'un número entero',
    token: 'un token',
    notWhole: 'Esta pregunta pide cuántos: responde con un número entero (p. ej., 3).',
    notNumber: 'Esta pregunta pide cuántos: escribe un número entero (p. ej., 3).',
    notToken: 'Escribe un token, como lo muestran las barras (p. ej., e).',
  },
  zh: {
    whole: '整数',
    decimal: '小数，{digits} 位',
    decimal1: '小数，1 位',
    decimal0: '整数',
    token: '一个词元',
    notWhole: '这道题问的是“多少个”：请用整数回答（例如 3）。',
    notNumber: '这道题问的是“多少个”：请输入一个整数（例如 3）。',
    notToken: '请输入一个词元，写法与概率条上的一样（例如 e）。',
  },
});

/** @param {string} lang @param {string} key @param {Record<string, string | number>} [values] */
function say(lang, key, values = {}) {
  const table = TEXTS[String(lang).split('-')[0]] ?? TEXTS.en;
  return (table[key] ?? TEXTS.en[key]).replace(/\{(\w+)\}/g, (_, k) => String(values[k] ?? ''));
}

/**
 * The field's hint: the kind of answer the question takes.
 * @param {string} lang @param {import('./answer.js').AnswerKind} kind
 */
export function kindHint(lang, kind) {
  if (kind.kind !== 'decimal') return say(lang, kind.kind);
  return kind.digits <= 1 ? say(lang, `decimal${kind.digits}`) : say(lang, 'decimal', { digits: kind.digits });
}

/**
 * What an answer that is not of the question's kind is told.
 * @param {string} lang @param {'notNumber' | 'notWhole' | 'notToken'} why
 */
export function kindSays(lang, why) {
  return say(lang, why);
}

export const ANSWER_TEXTS = TEXTS;
