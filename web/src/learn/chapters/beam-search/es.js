// Capítulo 10 en español.
export default {
  intro: `La decodificación voraz toma el token más probable en cada paso. Parece el camino hacia el texto más probable, pero no lo es: un paso que parece el mejor por sí solo puede llevar a una frase cuyos pasos siguientes son todos improbables, mientras que un primer paso algo peor podría haber abierto una frase mucho mejor. La decodificación voraz nunca mira atrás.

La <em>búsqueda en haz</em> (beam search) guarda varios textos a la vez en lugar de uno. Esos textos a medio hacer se llaman <em>haces</em> (o hipótesis), y su número es la <em>anchura</em> del haz.`,
  how: `## Un paso de la búsqueda en haz

En cada paso, cada haz se alarga con cada token posible, lo que da muchos textos candidatos. Cada candidato recibe una puntuación: la suma de los logaritmos de las probabilidades de sus tokens, ln p. Sumar logaritmos es lo mismo que multiplicar las probabilidades, así que esto mide lo probable que el modelo considera el texto entero. Después solo se guardan los mejores candidatos, tantos como la anchura, como nuevos haces. No interviene ningún número aleatorio: el mismo prompt da siempre los mismos haces.

Con anchura 1 es exactamente la decodificación voraz. Cuanto más ancho el haz, más textos posibles examina y más trabajo cuesta: una pasada del modelo por haz y por paso.`,
  tryBeams: 'El pequeño modelo de la Biblia continúa «And God said» con cuatro haces. Cada línea bajo el texto es un haz con su ln p y su puntuación; el mejor va arriba. Pulsa <strong>{step}</strong> para alargarlos token a token. Luego prueba anchura 1 (voraz) y anchura 8, y pon la penalización por longitud en 0.',
  length: `## La penalización por longitud

El ln p de cada token es negativo, así que el total de un haz solo baja a medida que crece. Un haz que termina pronto su texto deja de perder puntos y suele ganar: la búsqueda en haz prefiere respuestas cortas. Con penalización 0 se ve: el texto ganador se detiene justo después de «And God said,».

Para que textos largos y cortos sean comparables, la puntuación divide el total por la longitud elevada a una potencia, la <em>penalización por longitud</em>. Con 1 (el valor habitual) la puntuación es el ln p medio por token; por encima de 1 se favorecen aún más los textos largos.`,
  repeat: `## Por qué los haces se repiten

Mira los haces tras unas decenas de pasos: son casi el mismo texto y solo se diferencian en sus últimos tokens. Los candidatos que comparten un buen comienzo puntúan todos bien, así que la anchura se gasta en pequeñas variaciones de una sola idea en lugar de en ideas distintas.

Y el propio texto tiende a dar vueltas. La búsqueda en haz busca el texto que el modelo considera más probable, y una vez que una frase ha aparecido, repetirla suele ser la continuación más probable. Por eso los modelos de chat muestrean, y la búsqueda en haz se reserva para tareas con una respuesta correcta, como la traducción, casi siempre con una penalización contra los n-gramas repetidos.`,
  q1: 'Después de «And God said», ¿qué probabilidad da el modelo a su siguiente carácter más probable, el que toma la decodificación voraz? (dos decimales)',
  q2: '¿Y al segundo más probable, que un haz de anchura 2 o más también guarda? (dos decimales)',
  points: `- La búsqueda en haz guarda en cada paso los mejores textos a medio hacer (haces), ordenados por la suma del ln p de sus tokens.
- Anchura 1 es la decodificación voraz; haces más anchos examinan más textos y cuestan una pasada del modelo por haz.
- La penalización por longitud divide la puntuación por la longitud elevada a esa potencia; con 0 ganan los textos cortos.
- Los haces suelen ser casi copias unos de otros, y el texto más probable a menudo se repite.`,
};
