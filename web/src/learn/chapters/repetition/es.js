// Capítulo 7 en español.
export default {
  intro: `Deja que un modelo elija siempre su token más probable y, tarde o temprano, empezará a repetirse. Cuando una frase ha aparecido dos veces, el modelo acaba de ver que vuelve, así que la frase se vuelve aún más probable, y el texto da vueltas en un bucle. Las temperaturas bajas y los núcleos pequeños hacen más probables los bucles; los modelos grandes también caen en ellos.

El modelo de abajo ha leído la Biblia del rey Jacobo (en inglés), carácter a carácter. Escribe de forma voraz (temperatura 0) a partir de «the» y pronto dice lo mismo una y otra vez. Bajo el texto, <em>Repetición más larga</em> mide el bucle, y <em>Distinct-3</em> (la parte de secuencias distintas de tres tokens) baja cuando el texto se repite.`,
  tryLoop: 'Cada ajuste de abajo vuelve a escribir el texto desde el principio. Sube uno cada vez (cada uno rompe el bucle a su manera), devuélvelo a donde estaba y prueba el siguiente. Fíjate en Repetición más larga y Distinct-3.',
  penalties: `## Tres penalizaciones

Las tres bajan las puntuaciones (logits) de los tokens que el texto ya contiene, antes de la softmax:

- La <em>penalización por repetición</em> divide el logit de cada token ya visto entre un número mayor que 1 (y lo multiplica si el logit es negativo, para que siempre baje).
- La <em>penalización por frecuencia</em> resta un número multiplicado por las veces que se vio el token: cuanto más se usó, más cae.
- La <em>penalización por presencia</em> resta un número una sola vez si el token apareció, da igual cuántas veces.

Toma otra vez los logits 2, 1 y 0: por sí sola, «{w0}» recibe {plain}. Supón que el texto hasta ahora es «{w0} {w0}». Una penalización por repetición de 2 reduce su logit a la mitad, a 1, y recibe {rep}. Una penalización por frecuencia de 0,5, dos veces, también lo lleva a 1: {freq}. Una penalización por presencia de 0,5, una vez, lo lleva a 1,5: {pres}.`,
  tryBars: 'Este modelo hecho a mano da las mismas puntuaciones en cada paso, así que solo las penalizaciones cambian sus barras. Pulsa <strong>{step}</strong> unas cuantas veces y mira cómo encoge la barra de cada palabra escrita. Después mueve los tres controles.',
  ngrams: `## Prohibir la repetición misma

Las penalizaciones castigan tokens sueltos, aunque usarlos esté bien («the» tiene que volver). Otros dos samplers miran secuencias.

- <em>No-repeat n-gram</em> prohíbe sin más cualquier token que completaría una secuencia de n tokens que ya está en el texto. Duro y sencillo: en un modelo que escribe letras, una n pequeña prohíbe la ortografía normal, como muestra el texto de arriba con 3 o 4.
- <em>DRY</em> («don't repeat yourself», no te repitas) busca el tramo más largo del final del texto que ya apareció antes y penaliza el token que lo continuaría. Las repeticiones cortas salen gratis; la penalización crece deprisa con la longitud de la repetición, así que un bucle se detiene y las frases normales quedan intactas.`,
  q1: 'El texto hasta ahora es «{w0} {w0} {w0}». Con una penalización por frecuencia de 0,5, ¿qué probabilidad recibe «{w0}»? (tres decimales)',
  q2: 'El texto hasta ahora es «{w0} {w1}». Con una penalización por repetición de 4, ¿qué probabilidad recibe «{w1}»? (tres decimales)',
  q3: 'El texto hasta ahora es «{w0} {w1} {w0}». Con no-repeat n-gram de tamaño 2, ¿cuántas de las tres palabras pueden venir a continuación?',
  points: `- La decodificación voraz y casi voraz cae en bucles: una repetición se hace a sí misma más probable.
- Las penalizaciones por repetición, frecuencia y presencia bajan los tokens ya usados: dividiendo, por cada uso o una sola vez.
- No-repeat n-gram prohíbe sin más una secuencia repetida; DRY penaliza alargar una repetición, más cuanto más larga es.`,
};
