// Capítulo 2 en español.
export default {
  intro: `Las probabilidades del modelo todavía no escriben nada: algo tiene que elegir un token. La forma más sencilla es un <em>sorteo</em>. El sampler toma un número al azar entre 0 y 1 y recorre los tokens sumando sus probabilidades hasta que la suma supera ese número. Un token con probabilidad 0,6 es dueño del 60 % de los números entre 0 y 1, así que sale el 60 % de las veces; un token con probabilidad 0,01 sale de vez en cuando.

El token elegido se añade al texto, el texto más largo vuelve a entrar en el modelo y el modelo da la siguiente distribución. Un token por paso: así escribe cualquier chatbot.`,
  tryDraws: 'Pulsa <strong>{step}</strong> unas cuantas veces: cada paso saca una palabra de las mismas tres probabilidades. Luego pulsa <strong>{draw}</strong>: las marcas negras muestran cuántas veces salió cada palabra en 1000 sorteos.',
  many: `Con 1000 sorteos las marcas quedan cerca de la punta de las barras, pero no exactamente encima: el azar nunca se compensa del todo. El número bajo las barras, la <em>divergencia KL</em>, mide lo lejos que están las frecuencias contadas de las probabilidades. Solo vale 0 cuando coinciden exactamente; cuantos más sorteos, más se acerca a 0.`,
  seed: `## La semilla

¿De dónde salen los números al azar? Un ordenador no puede tirar dados, así que el sampler usa un generador <em>pseudoaleatorio</em>: una fórmula que convierte un número inicial, la <em>semilla</em>, en una larga secuencia de números que parecen aleatorios. La misma semilla da siempre la misma secuencia.

Así que el mismo modelo, el mismo prompt, los mismos ajustes y la misma semilla dan el mismo texto, en cualquier ordenador y cada vez. Eso hace que un texto sea reproducible, y por eso una lección puede decir «la semilla 42 da esto». Cambia la semilla y el mismo modelo escribe otra cosa.`,
  tryNames: 'Este modelo ha leído una lista de nombres de pila en inglés y escribe nombres nuevos, letra a letra. Cambia la semilla y mira cómo cambian los nombres; vuelve a poner 42 y vuelven los mismos nombres. Después pon la temperatura a 0.',
  greedy: `## La decodificación voraz

A temperatura 0 (el capítulo siguiente explica la temperatura) el sampler deja de sortear: siempre toma el token más probable. Es la decodificación <em>voraz</em> (greedy). Ahora cualquier semilla da el mismo texto, porque ya no se usa ningún número al azar.

La decodificación voraz es predecible, pero no es la mejor manera de escribir: tomar siempre el siguiente token más probable tiende a hacer que el texto se repita, como muestra el capítulo 7.`,
  q1: 'A temperatura 0, ¿cuántas de las tres palabras puede elegir todavía el sampler?',
  q2: '¿Y qué probabilidad recibe «{w0}» a temperatura 0?',
  points: `- Muestrear es sortear un token con un número al azar: a la larga, cada token sale tanto como dice su probabilidad.
- 1000 sorteos se acercan a las probabilidades; la divergencia KL mide cuánto.
- La semilla fija los números al azar: el mismo modelo, prompt, ajustes y semilla dan el mismo texto.
- La temperatura 0 es la decodificación voraz: siempre el token más probable, sea cual sea la semilla.`,
};
