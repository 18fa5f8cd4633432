// Capítulo 4 en español.
export default {
  intro: `La temperatura cambia la forma de la distribución, pero nunca quita un token: incluso con una temperatura baja, cada token conserva una pequeña oportunidad. Un modelo real conoce decenas de miles de tokens, y la mayoría no tiene sentido en un punto dado. Uno a uno son improbables, pero juntos, esta <em>larga cola</em> puede reunir una buena parte de la probabilidad; de vez en cuando el sampler elige de ella y el texto descarrila.

<em>Top-k</em> es el remedio más tosco: conservar los <em>k</em> tokens más probables, dar probabilidad 0 a todos los demás y repartir de nuevo la probabilidad entre los conservados, para que sume 1.`,
  example: `Toma seis palabras con las probabilidades 0,50, 0,20, 0,15, 0,08, 0,05 y 0,02. Con k = 3 se descartan las tres últimas. Las tres conservadas reúnen {kept3} de la probabilidad, así que cada una se divide entre {kept3}: pasan a {k3p1}, {k3p2} y {k3p3}. Las palabras conservadas mantienen su orden y sus proporciones; las descartadas ya no pueden salir nunca.`,
  tryBars: 'Mueve el control <strong>Top-k</strong>. Mira cómo desaparecen las barras más allá de la k-ésima y crecen las conservadas. Pon k en 1, y luego en 6 (o en 0, que desactiva top-k).',
  greedy: `Con k = 1 solo queda el token más probable, y recibe probabilidad 1: top-k con k = 1 es decodificación voraz, lo mismo que temperatura 0. Con una k tan grande como el vocabulario no se descarta nada y top-k no hace nada.`,
  tryNames: 'El modelo de nombres, letra a letra. Pulsa <strong>{play}</strong> y cambia k mientras escribe. Con k = 1 escribe el mismo nombre una y otra vez; con una k pequeña los nombres parecen normales; con top-k desactivado (0) se cuelan parejas de letras extrañas.',
  blunt: `## Por qué una sola k no sirve para cada paso

El problema de top-k es que k es la misma en cada paso, mientras que la seguridad del modelo no lo es. Después de «q», en un nombre en español casi siempre viene «u»: k = 3 conserva aun así dos letras que casi siempre son erróneas. Después de «El gato se sentó en la», decenas de palabras valen: k = 3 tira la mayoría. Un corte que siga la forma de la distribución lo haría mejor; eso es top-p, el capítulo siguiente.`,
  q1: 'Con k = 2, ¿qué probabilidad recibe «{w0}»? (tres decimales)',
  q2: 'Con k = 4, ¿qué parte de la probabilidad del modelo reúnen juntas las palabras conservadas? (dos decimales)',
  points: `- Top-k conserva los k tokens más probables, pone los demás a 0 y reescala los conservados para que sumen 1.
- k = 1 es decodificación voraz; una k tan grande como el vocabulario no cambia nada.
- La misma k en cada paso es demasiado cuando el modelo está seguro y demasiado poco cuando encajan muchos tokens.`,
};
