// Capítulo 1 en español.
export default {
  intro: `Un modelo de lenguaje no escribe una frase de una vez. Escribe un <em>token</em> tras otro —una palabra, un trozo de palabra o un solo carácter, según el modelo— y cada vez tiene que decidir qué viene después.

Lo que el modelo produce de verdad en cada paso no es un token sino una lista de números: una puntuación para cada token que conoce. Esas puntuaciones se llaman <em>logits</em>. Tras «{example}», un modelo podría dar a «{w0}» una puntuación alta, a «{w1}» una algo más baja y a «{w2}» otra más baja todavía, y a miles de tokens más puntuaciones tan bajas que apenas cuentan.`,
  softmax: `Los logits todavía no son probabilidades: pueden ser negativos y no suman nada en particular. La <em>softmax</em> los convierte en probabilidades en dos pasos: eleva el número e (unos 2,72) a cada puntuación y luego divide cada resultado entre la suma de todos. Cada token recibe una parte entre 0 y 1, las partes suman exactamente 1 y una puntuación más alta siempre da una parte mayor.

Toma tres tokens con logits 2, 1 y 0. La softmax les da {p1}, {p2} y {p3}. Un punto más de puntuación multiplica la parte de un token por e: por eso «{w0}» recibe unas 2,7 veces la parte de «{w1}».`,
  try: 'Mueve los controles: cada uno fija el logit de una palabra, y las barras muestran las probabilidades que el motor calcula a partir de ellos. ¿Qué pasa cuando dos logits son iguales? ¿Y cuando uno queda muy por encima de los demás?',
  shift: `Solo importan las <em>diferencias</em> entre logits. Sube los tres controles la misma cantidad y las barras no se mueven en absoluto, porque cada parte se multiplica por el mismo factor antes de la división. Así que un modelo solo puede decir cuánto prefiere un token a otro, nunca lo bueno que es un token por sí solo.`,
  q1: 'Pon los logits en 3, 1 y 0. ¿Qué probabilidad recibe «{w0}»? (dos decimales, p. ej. 0,42)',
  q2: 'Ahora los logits son 12, 11 y 10. ¿Qué probabilidad recibe «{w0}»?',
  points: `- En cada paso el modelo da a cada token de su vocabulario una puntuación, su logit.
- La softmax convierte los logits en probabilidades: todas positivas, que suman 1, en el mismo orden que los logits.
- Solo importan las diferencias entre logits: sumar el mismo número a todos no cambia nada.`,
};
