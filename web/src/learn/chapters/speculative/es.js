// Capítulo 13 en español.
export default {
  intro: `Un modelo grande escribe despacio, y casi nunca por la aritmética. Para producir un token, el ordenador tiene que leer de la memoria cada uno de los pesos del modelo —miles de millones de números—, y la memoria es mucho más lenta que el procesador. Leer los pesos una vez y usarlos para varias posiciones a la vez cuesta apenas más que usarlos para una.

La <em>decodificación especulativa</em> convierte eso en velocidad. Un modelo <em>borrador</em>, pequeño y rápido, adivina los siguientes tokens, uno tras otro. Después el modelo grande comprueba todas las conjeturas en una sola pasada, como si las hubiera escrito él. Cada conjetura con la que está de acuerdo es un token ganado sin una pasada propia.`,
  verify: `## Comprobar un borrador

Para cada token propuesto, en orden, el sampler compara dos probabilidades: p, la que el modelo grande da a ese token, y q, la que le dio el borrador. Si p es al menos q, el token se queda. Si p es menor, se queda solo con probabilidad p / q. En el primer token rechazado, la ronda se detiene: los borradores posteriores se descartan y el modelo grande sortea un sustituto propio. Si se aceptan todos, el modelo grande añade un token más gratis, porque ya ha calculado la siguiente distribución.

El texto que sale está distribuido exactamente como si el modelo grande lo hubiera muestreado solo, token a token. La decodificación especulativa no es una aproximación: cambia la velocidad, nunca las probabilidades del texto.`,
  pick: 'El modelo borrador',
  optTiny: 'Borrador de la Biblia (un transformer de 1 capa)',
  optBigram: 'Bigrama de la Biblia (una tabla de pares de letras)',
  trySpec: 'El pequeño modelo de la Biblia con un borrador que propone cuatro tokens por ronda. Pulsa <strong>{step}</strong> para una ronda cada vez. En el texto, el subrayado verde marca los borradores que el modelo aceptó, el rojo sus correcciones y un recuadro punteado un token extra; abajo se lista cada ronda, con los borradores a la izquierda y lo que se quedó a la derecha. Luego cambia al borrador bigrama y compara la tasa de aceptación.',
  residual: `## De dónde sale un sustituto

Un sustituto no se sortea con la p del propio modelo grande, sino con el <em>residuo</em> max(0, p − q), reescalado para que sume 1: solo los tokens que al modelo grande le gustan <em>más</em> que al borrador. La razón es el equilibrio. Los tokens que el borrador propone demasiado se rechazan una parte de las veces; los que propone demasiado poco recuperan esa parte a través del residuo. Juntos, los dos pasos dan a cada token exactamente su probabilidad p. Las rondas de arriba muestran el residuo del último rechazo.`,
  q1: 'Después de «And God said», ¿qué probabilidad p da el modelo grande a la coma? (dos decimales)',
  q2: '¿Y qué probabilidad q da el borrador de la Biblia a esa misma coma? (dos decimales) Si el borrador la propone, la coma se acepta con probabilidad min(1, p / q).',
  pays: `## Cuándo compensa

El truco necesita dos cosas. El borrador debe coincidir a menudo con el modelo grande, o la mayoría de las rondas terminan en el primer token; un borrador demasiado flojo, como el bigrama, desperdicia su trabajo. Y la pasada del modelo grande debe estar limitada de verdad por la lectura de sus pesos. Eso vale para los modelos grandes, cuyos pesos no caben en las cachés del procesador. El pequeño transformer de aquí sí cabe, así que su pasada está limitada por la aritmética, que no se abarata al comprobar más posiciones: compara arriba «Tokens por pasada» con la «Aceleración» medida; las pasadas ahorradas son muchas más que el tiempo ahorrado, y en una máquina ocupada una ronda puede incluso costar más de lo que gana.`,
  points: `- Un modelo borrador pequeño propone unos cuantos tokens; el modelo grande los comprueba todos en una pasada.
- Un token propuesto se acepta con probabilidad min(1, p / q); el primero rechazado se sustituye a partir del residuo max(0, p − q).
- El texto sale distribuido exactamente como el del propio modelo grande: solo cambia la velocidad.
- Compensa cuando el borrador acierta a menudo y los pesos del modelo grande no caben en las cachés del procesador.`,
};
