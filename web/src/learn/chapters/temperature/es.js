// Capítulo 3 en español.
export default {
  intro: `La temperatura es el ajuste más conocido de un sampler, y el más sencillo. Antes de la softmax, cada logit se divide entre un número, <em>T</em>, la temperatura. Eso es todo lo que hace.

Dividir entre un número menor que 1 agranda los logits y las distancias entre ellos: los tokens probables se vuelven más probables y los improbables se desvanecen; la distribución se vuelve más <em>nítida</em>. Dividir entre un número mayor que 1 achica las distancias: la distribución se vuelve más <em>plana</em> y los tokens improbables tienen más oportunidades. Con T = 1 no cambia nada.`,
  example: `Toma otra vez los logits 2, 1 y 0. Con T = 1 la primera palabra recibe {one1}. Con T = 0,5 los logits pasan a ser 4, 2 y 0, y la softmax da {half1}, {half2} y {half3}: la palabra de arriba se ha quedado con casi todo lo demás. Con T = 2 pasan a ser 1, 0,5 y 0, y la softmax da {two1}, {two2} y {two3}: mucho más parejo.`,
  tryBars: 'Arrastra el control de temperatura de un extremo al otro y observa las tres barras. En 0 el sampler es voraz: una barra se lo lleva todo.',
  order: `Fíjate en lo que nunca pasa: las barras nunca cambian de sitio. Con cualquier temperatura por encima de 0, el token más probable sigue siendo el más probable, el segundo sigue segundo, y así. La temperatura cambia <em>cuánto</em> más probable es un token que otro, nunca cuál va delante. Cerca de 0 el token de arriba se lo lleva todo (decodificación voraz); a medida que T crece, todos los tokens se acercan a la misma parte.`,
  tryNames: 'Otra vez el modelo de nombres, letra a letra. Pulsa <strong>{play}</strong> y mueve la temperatura mientras escribe: las temperaturas bajas dan nombres corrientes que se repiten; las altas, sopa de letras.',
  use: `En la práctica son habituales las temperaturas entre 0,2 y 1, más o menos. Los valores bajos van bien para tareas con una respuesta correcta (código, datos); los cercanos a 1, para cuentos y lluvias de ideas. Por encima de 1 el texto pronto pierde el hilo, porque la larga cola de tokens improbables recibe demasiadas oportunidades; de eso tratan los capítulos siguientes.`,
  q1: 'Con T = 0,25, ¿qué probabilidad recibe «{w0}»? (tres decimales)',
  q2: 'Con T = 3, ¿qué probabilidad recibe «{w2}», la palabra menos probable? (dos decimales)',
  points: `- La temperatura divide cada logit entre T antes de la softmax.
- T menor que 1 afila la distribución, T mayor que 1 la aplana, T = 1 la deja igual y T = 0 significa voraz.
- La temperatura nunca cambia el orden de los tokens: el más probable sigue siendo el más probable.`,
};
