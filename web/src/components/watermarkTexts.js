// @ts-check
/**
 * The watermark view's words in the page's four languages: a chunk of its
 * own with Watermark.jsx, fetched when a learner turns the watermark stage
 * on (the page's first load carries none of it).  {placeholders} as the
 * catalogues'.
 */

/** @type {Record<string, Record<string, string>>} */
const TEXTS = {
  en: {
    heading: 'Watermark',
    intro: 'The previous token and the key pick a green list at each step; the bias makes green tokens likelier. Green tokens are green here, red ones red.',
    score: '{green} of {tokens} tokens green (a text without the key: about {expected}); z = {z}, p = {p}',
    none: 'No token to judge yet: generate a few.',
    verdict: 'z above 4: watermarked, almost surely.',
    verdictNo: 'z below 4: no proof of a watermark.',
    token: 'Token {n}, {colour}: z after it {z}',
    tokenSpike: 'spike entropy of its step {spike}',
    green: 'green',
    red: 'red',
    why: 'Why some steps carry no signal: the bias multiplies a green token\'s odds by e^δ, and that cannot move a token that already has p ≈ 1. Only steps where several tokens are plausible can tilt toward green, so a confident text needs more tokens before its z-score is convincing.',
    step: 'The last step (token {n}): the green list held {mass} of the model\'s probability; spike entropy {spike} (1 = a flat step, lowest when one token is certain).',
    editLabel: 'Edit the text, then detect',
    copy: 'Copy the generated text',
    detect: 'Detect',
    detected: 'Detector with the key: {green} of {tokens} tokens green, z = {z}, p = {p}',
    hint: 'Change words and detect again: every edited token is a fresh coin toss with a chance of γ, and the z-score falls.',
  },
  de: {
    heading: 'Wasserzeichen',
    intro: 'Das vorige Token und der Schlüssel wählen bei jedem Schritt eine grüne Liste; der Bonus macht grüne Tokens wahrscheinlicher. Grüne Tokens sind hier grün, rote rot.',
    score: '{green} von {tokens} Tokens grün (ein Text ohne den Schlüssel: etwa {expected}); z = {z}, p = {p}',
    none: 'Noch kein Token zu beurteilen: erzeuge ein paar.',
    verdict: 'z über 4: fast sicher mit Wasserzeichen.',
    verdictNo: 'z unter 4: kein Beweis für ein Wasserzeichen.',
    token: 'Token {n}, {colour}: z danach {z}',
    tokenSpike: 'Spike-Entropie seines Schritts {spike}',
    green: 'grün',
    red: 'rot',
    why: 'Warum manche Schritte kein Signal tragen: Der Bonus multipliziert die Chancen eines grünen Tokens mit e^δ, und das bewegt kein Token, das schon p ≈ 1 hat. Nur Schritte mit mehreren plausiblen Tokens lassen sich zu Grün neigen; ein sicherer Text braucht daher mehr Tokens, bis sein z-Wert überzeugt.',
    step: 'Der letzte Schritt (Token {n}): Die grüne Liste hielt {mass} der Wahrscheinlichkeit des Modells; Spike-Entropie {spike} (1 = ein flacher Schritt, am kleinsten, wenn ein Token sicher ist).',
    editLabel: 'Bearbeite den Text und prüfe dann',
    copy: 'Den erzeugten Text übernehmen',
    detect: 'Prüfen',
    detected: 'Detektor mit dem Schlüssel: {green} von {tokens} Tokens grün, z = {z}, p = {p}',
    hint: 'Ändere Wörter und prüfe erneut: Jedes geänderte Token ist ein neuer Münzwurf mit der Chance γ, und der z-Wert sinkt.',
  },
  es: {
    heading: 'Marca de agua',
    intro: 'El token anterior y la clave eligen una lista verde en cada paso; el sesgo hace más probables los tokens verdes. Aquí los tokens verdes se ven verdes y los rojos, rojos.',
    score: '{green} de {tokens} tokens verdes (un texto sin la clave: unos {expected}); z = {z}, p = {p}',
    none: 'Aún no hay tokens que juzgar: genera algunos.',
    verdict: 'z por encima de 4: con marca de agua, casi seguro.',
    verdictNo: 'z por debajo de 4: ninguna prueba de una marca de agua.',
    token: 'Token {n}, {colour}: z tras él {z}',
    tokenSpike: 'entropía de pico de su paso {spike}',
    green: 'verde',
    red: 'rojo',
    why: 'Por qué algunos pasos no llevan señal: el sesgo multiplica las probabilidades a favor de un token verde por e^δ, y eso no mueve un token que ya tiene p ≈ 1. Solo los pasos con varios tokens plausibles pueden inclinarse hacia el verde, así que un texto muy seguro necesita más tokens para que su z convenza.',
    step: 'El último paso (token {n}): la lista verde tenía {mass} de la probabilidad del modelo; entropía de pico {spike} (1 = un paso plano, mínima cuando un token es seguro).',
    editLabel: 'Edita el texto y luego detecta',
    copy: 'Copiar el texto generado',
    detect: 'Detectar',
    detected: 'Detector con la clave: {green} de {tokens} tokens verdes, z = {z}, p = {p}',
    hint: 'Cambia palabras y detecta de nuevo: cada token editado es una nueva tirada con probabilidad γ, y el z baja.',
  },
  zh: {
    heading: '水印',
    intro: '每一步由前一个词元和密钥选出一个绿色列表；偏置让绿色词元更可能被选中。这里绿色词元显示为绿色，红色词元显示为红色。',
    score: '{tokens} 个词元中有 {green} 个是绿色（不知道密钥写出的文本：约 {expected} 个）；z = {z}，p = {p}',
    none: '还没有可判断的词元：先生成几个。',
    verdict: 'z 高于 4：几乎可以肯定带有水印。',
    verdictNo: 'z 低于 4：无法证明带有水印。',
    token: '第 {n} 个词元，{colour}：此后 z = {z}',
    tokenSpike: '这一步的尖峰熵 {spike}',
    green: '绿色',
    red: '红色',
    why: '为什么有些步骤不带信号：偏置把绿色词元的几率乘以 e^δ，但这推不动一个 p ≈ 1 的词元。只有几个词元都说得通的步骤才能偏向绿色，所以很有把握的文本需要更多词元，z 值才足以令人信服。',
    step: '最后一步（第 {n} 个词元）：绿色列表占模型概率的 {mass}；尖峰熵 {spike}（1 = 平坦的一步，某个词元确定时最低）。',
    editLabel: '编辑文本，然后检测',
    copy: '复制生成的文本',
    detect: '检测',
    detected: '用密钥检测：{tokens} 个词元中有 {green} 个是绿色，z = {z}，p = {p}',
    hint: '改几个词再检测：每个改动的词元都是一次新的、概率为 γ 的抛硬币，z 值随之下降。',
  },
};

/**
 * A text in a language (English for another), its {placeholders} filled.
 * @param {string} lang @param {string} key @param {Record<string, string | number>} [vars]
 */
export function wt(lang, key, vars = {}) {
  const table = TEXTS[String(lang).split('-')[0]] ?? TEXTS.en;
  const text = table[key] ?? TEXTS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

export const WATERMARK_LANGS = Object.keys(TEXTS);
