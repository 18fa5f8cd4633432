// Capítulo 14 en español.
export default {
  intro: `Todos los modelos de este curso los entrenó alguien: un programa leyó mucho texto y lo convirtió en números. Para un modelo grande eso lleva semanas y una sala llena de ordenadores. Para el tipo más sencillo de modelo de lenguaje lleva una fracción de segundo, y puedes hacerlo aquí.

Un modelo de <em>bigramas</em> predice el siguiente carácter a partir del anterior, y de nada más. Entrenarlo es contar: recorrer el texto y anotar, para cada carácter, qué carácter viene después y cuántas veces.`,
  counting: `## De cuentas a probabilidades

Supón que en tu texto a la «q» la sigue una «u» nueve veces y una «a» una vez. Entonces, después de «q», el modelo da a la «u» nueve oportunidades de diez y a la «a» una de diez. Cada carácter tiene su propia fila de cuentas, y cada fila, dividida por su total, es una distribución sobre el siguiente carácter: las mismas barras que en todos los capítulos anteriores.

Un detalle importa: un par que nunca apareció en el texto tendría probabilidad 0, y el modelo nunca podría escribirlo. Por eso antes se suma una pequeña cantidad, 0,1, a cada cuenta. Esto se llama <em>suavizado</em>: los pares no vistos pasan a ser improbables en lugar de imposibles. Cada línea del texto es una palabra, y un token de frontera invisible marca dónde empieza y termina cada palabra, así que el modelo también aprende cómo empiezan y acaban las palabras.`,
  legend: 'Entrena un bigrama con tu propio texto',
  label: 'Una palabra por línea (cámbialas por las tuyas):',
  go: 'Entrenar y usarlo',
  sample: `aguacate
albaricoque
arándano
cereza
ciruela
frambuesa
fresa
granada
higo
kiwi
lima
limón
mandarina
mango
manzana
melocotón
melón
naranja
pera
piña
plátano
sandía
uva`,
  tryTrain: 'Cambia las palabras por las tuyas —nombres, ciudades, palabras inventadas— y pulsa el botón: el motor cuenta los pares y el playground de abajo pasa a usar tu modelo. Después pulsa <strong>{play}</strong> y mira cómo inventa palabras nuevas al estilo de las tuyas, y observa las barras tras cada letra.',
  names: `El primer modelo del playground, el bigrama de nombres, se entrenó exactamente así, con una lista de nombres de pila. Sus barras tras el token de frontera dicen cómo empiezan los nombres; sus barras tras cada letra, qué suele seguirla.`,
  q1: 'En el bigrama de nombres, ¿qué probabilidad recibe la primera letra más probable de un nombre? (dos decimales)',
  q2: 'Muy pocos nombres empiezan por «Q». Después de «Q», ¿qué probabilidad da el bigrama de nombres a la «u»? (dos decimales; fíjate en cuánto se lleva el suavizado)',
  bigger: `## Por qué los modelos grandes escriben mejor

Un bigrama ve un carácter hacia atrás. Sus palabras parecen plausibles letra a letra, pero olvida todo lo demás al instante: no puede terminar una palabra que empezó, y menos una frase. Los modelos reales miran miles de tokens hacia atrás y, en lugar de una tabla de cuentas, aprenden sus números ajustando poco a poco miles de millones de pesos hasta que sus predicciones sobre el texto de entrenamiento mejoran. Pero el resultado tiene la misma forma: para el siguiente token, una distribución; y todo lo que este curso mostró sobre cómo muestrear de ella sigue valiendo igual.`,
  points: `- Un bigrama predice el siguiente carácter a partir del anterior; entrenarlo consiste en contar pares de caracteres.
- Cada fila de cuentas, dividida por su total, es la distribución del siguiente carácter.
- El suavizado suma un poco a cada cuenta, para que los pares no vistos sean improbables pero no imposibles.
- Los modelos más grandes miran mucho más atrás y aprenden sus números en lugar de contar, pero también entregan una distribución al sampler.`,
};
