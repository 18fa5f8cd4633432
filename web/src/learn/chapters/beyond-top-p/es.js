// Capítulo 6 en español.
export default {
  intro: `Top-p terminó el capítulo anterior con un problema. En el paso plano, p = 0,9 conservó {flatP} tokens: las seis palabras y símbolos de la cola que ningún texto quiere. Top-p solo pregunta cuánta probabilidad se conserva; no distingue una palabra un poco menos probable de una que no pinta nada. Varios samplers miran en cambio la <em>forma</em> de la distribución, cada uno a su manera.`,
  minP: `## Min-p: comparado con el favorito

<em>Min-p</em> conserva cada token que alcance al menos una fracción de la probabilidad del token más probable: con min-p = 0,1, al menos una décima parte de lo probable que es el favorito. Cuando el modelo está seguro, el favorito es muy probable, el listón está alto y pasan pocos tokens: el paso seguro conserva {confidentMin}. Cuando no lo está, el favorito no es mucho más probable que los demás, el listón está bajo y pasa toda palabra razonable, pero la cola, muy por debajo, no: el paso plano conserva {flatMin}, justo las seis palabras.`,
  tryMethods: 'Elige un método y mueve su control. Compara cuántas barras conserva cada uno en el paso seguro (arriba) y en el plano (abajo). ¿Qué métodos conservan las seis palabras del paso plano sin los símbolos?',
  flatNote: 'El paso <strong>plano</strong>: las seis palabras más o menos igual de probables, y los símbolos de la cola muy cerca.',
  both: 'Un corte en los dos pasos',
  others: `## Los demás

- <em>Typical-p</em> conserva los tokens cuya sorpresa está más cerca de la sorpresa media del paso (su entropía), hasta reunir una parte p. Prefiere tokens tan sorprendentes como lo sería uno típico aquí; en un paso seguro, ese es el favorito.
- <em>Top-nσ</em> trabaja con las puntuaciones (logits) antes de la softmax: conserva los tokens cuya puntuación está a menos de n desviaciones típicas de la mejor. Como mide la dispersión de las puntuaciones, la temperatura no cambia lo que conserva.
- El <em>corte ε (épsilon)</em> descarta todo token por debajo de una probabilidad fija ε. Sencillo, pero es un mismo suelo para todos los pasos.
- El <em>corte η (eta)</em> es un suelo que se mueve: baja cuando el paso es plano (entropía alta), así que un paso abierto conserva más.
- <em>Top-a</em> descarta los tokens por debajo de a × (la probabilidad más alta)². El cuadrado lo hace estricto cuando el favorito es fuerte y muy permisivo cuando es débil: en el paso plano lo conserva todo, cola incluida.`,
  choose: `Ninguno sirve para todo modelo y todo texto, y se pueden combinar: una cadena de samplers suele aplicar top-k, luego top-p y luego min-p. Min-p entre 0,05 y 0,1 es hoy una elección popular porque corta la cola en los pasos planos sin cortar palabras buenas. El playground permite poner cualquiera de ellos en cualquier orden.`,
  q1: 'En el paso plano, ¿cuántos tokens conserva top-nσ con n = 1?',
  q2: 'En el paso plano, ¿cuántos tokens conserva top-a con a = 0,2?',
  q3: 'En el paso seguro, ¿cuántos tokens conserva min-p con min-p = 0,05?',
  points: `- Top-p conserva una parte de la probabilidad y no distingue una palabra algo menos probable de una que no pinta nada.
- Min-p conserva los tokens al menos una fracción tan probables como el favorito: estricto cuando el modelo está seguro, permisivo cuando no.
- Typical-p, top-nσ, ε, η y top-a miden cada uno a su manera la forma del paso; se pueden encadenar.`,
};
