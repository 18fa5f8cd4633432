// Capítulo 12 en español.
export default {
  intro: `Hasta ahora el modelo era una caja que convierte un texto en una distribución. Pero para escribir el siguiente token, un transformer no mira solo el último token: mediante la <em>atención</em> vuelve la vista a todos los anteriores. Para cada token y en cada capa calcula dos listas cortas de números: una <em>clave</em> (key), que dice qué ofrece el token, y un <em>valor</em> (value), que es lo que transmite. El token más reciente compara su pregunta con todas las claves y toma una mezcla de los valores de los tokens que mejor encajan.

Así que la forma obvia de escribir el token 100 es pasar el modelo otra vez por los 100 tokens, y luego por los 101 para el siguiente. Casi todo ese trabajo repite lo que ya se hizo un paso antes.`,
  cache: `## Guardar lo que no cambia

En un modelo que escribe de izquierda a derecha, un token solo mira los tokens anteriores. Por eso su clave y su valor nunca cambian una vez calculados: un token posterior no puede alterarlos. Así que se calculan una vez y se guardan en memoria, una fila de claves y una de valores por posición y por capa. Esa memoria es la <em>caché KV</em>.

Con ella, cada paso nuevo pasa el modelo por un solo token: calcula la clave y el valor de ese token, los añade a la caché y lee todas las filas anteriores en lugar de volver a calcularlas.`,
  tryKv: 'El pequeño modelo de la Biblia con su caché dibujada: una fila K y una fila V por posición, la nueva resaltada. Pulsa <strong>{step}</strong> (o ▶ en el dibujo) y mira cómo llega una fila por token, y cómo se suma debajo el trabajo con y sin caché.',
  growth: `Con la caché, el trabajo por token crece muy poco a medida que el texto se alarga: el token nuevo sigue leyendo todas las filas anteriores, lo que cuesta algo más en cada paso, pero el grueso del trabajo, pasar un token por los pesos de todas las capas, sigue igual. Sin caché, cada paso rehace todo el texto hasta ese momento, así que el trabajo total crece con el <em>cuadrado</em> de la longitud. La razón entre ambos no deja de crecer: para el pequeño transformer es {r32} tras 32 tokens y {r256} tras 256.`,
  q1: 'Para un texto de 64 tokens (contando los del prompt), ¿cuántas veces más trabajo hace el pequeño transformer sin su caché KV que con ella? (un decimal)',
  q2: '¿Y para un texto de 128 tokens? (un decimal)',
  memory: `## El precio: memoria

La caché no sale gratis. Guarda dos filas de números por token y por capa, tan anchas como el modelo. Para el modelo pequeño no es nada; para un modelo grande con un contexto largo son gigabytes, a veces más que los propios pesos. Por eso una ventana de contexto más larga necesita más memoria, por eso los servidores limitan cuántas conversaciones atienden a la vez, y por eso se invierte tanto esfuerzo en encoger la caché (compartir claves entre cabezas de atención, guardarla con menos bits).`,
  points: `- La atención permite que cada token nuevo mire todos los anteriores, a través de sus claves y valores.
- Las claves y los valores de los tokens anteriores nunca cambian, así que la caché KV los calcula una vez y los guarda.
- Con la caché el trabajo crece más o menos en proporción a la longitud; sin ella, con su cuadrado.
- El precio es la memoria: dos filas por token y capa, que en modelos grandes pueden llegar a gigabytes.`,
};
