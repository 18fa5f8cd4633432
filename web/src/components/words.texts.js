// @ts-check
/**
 * The words of the bad words and sequence bias field (Words.jsx), in the
 * four languages: they come with its lazy chunk, not with the page's
 * catalogues, which every visit loads.
 */
export const WORDS = /** @type {Record<string, Record<string, string>>} */ ({
  en: {
    bad: 'Words to ban, one a line',
    badHint: 'The model\'s tokenizer makes each word tokens; the token that would complete it is removed (the word can still be spelt with other tokens).',
    bias: 'Words to push up or down: word=bias, one a line',
    biasHint: 'The token that would complete the word gets the bias added to its logit (e.g. them=3; -3 pushes it down).',
    apply: 'Apply',
    line: 'line {n}: "{text}" is not word=number',
    refused: 'Left out:',
  },
  de: {
    bad: 'Verbotene Wörter, eines pro Zeile',
    badHint: 'Der Tokenizer des Modells macht jedes Wort zu Tokens; das Token, das es vollenden würde, wird entfernt (mit anderen Tokens lässt sich das Wort noch schreiben).',
    bias: 'Wörter, die nach oben oder unten geschoben werden: Wort=Bias, eines pro Zeile',
    biasHint: 'Zum Logit des Tokens, das das Wort vollenden würde, kommt der Bias hinzu (z. B. them=3; -3 schiebt es nach unten).',
    apply: 'Übernehmen',
    line: 'Zeile {n}: „{text}“ ist nicht Wort=Zahl',
    refused: 'Weggelassen:',
  },
  es: {
    bad: 'Palabras prohibidas, una por línea',
    badHint: 'El tokenizador del modelo convierte cada palabra en tokens; se quita el token que la completaría (la palabra aún puede escribirse con otros tokens).',
    bias: 'Palabras que subir o bajar: palabra=sesgo, una por línea',
    biasHint: 'Al logit del token que completaría la palabra se le suma el sesgo (p. ej. them=3; -3 la baja).',
    apply: 'Aplicar',
    line: 'línea {n}: «{text}» no es palabra=número',
    refused: 'Se dejan fuera:',
  },
  zh: {
    bad: '要禁止的词，每行一个',
    badHint: '模型的分词器把每个词变成词元；会补全该词的那个词元被去掉（这个词仍可用别的词元拼出）。',
    bias: '要推高或压低的词：词=偏置，每行一个',
    biasHint: '会补全该词的那个词元的 logit 加上偏置（例如 them=3；-3 则压低）。',
    apply: '应用',
    line: '第 {n} 行：“{text}” 不是 词=数字',
    refused: '已略去：',
  },
});
