// Capítulo 5 en español.
export default {
  intro: `Top-k conserva un <em>número</em> fijo de tokens. <em>Top-p</em> conserva en cambio una <em>parte fija de la probabilidad</em>. Ordena los tokens del más probable al menos probable y ve sumando sus probabilidades; detente en cuanto la suma alcance p. Los tokens contados hasta ahí se conservan —se les llama el <em>núcleo</em>, por eso top-p también se llama muestreo de núcleo— y todo lo que viene después se descarta. Como en top-k, los tokens conservados se reparten de nuevo la probabilidad.`,
  example: `Las seis palabras del capítulo anterior tienen las probabilidades 0,50, 0,20, 0,15, 0,08, 0,05 y 0,02. Con p = 0,9: la primera palabra sola reúne 0,50, no basta; con la segunda la suma es {sum2}; con la tercera, {sum3}; con la cuarta, {sum4}, que pasa de 0,9. Así que el núcleo son {kept9} palabras y las dos últimas se descartan.`,
  tryNucleus: 'La curva que sube es la suma acumulada; la línea horizontal es p. Arrastra la línea (o usa el control <strong>Top-p</strong>) y mira qué barras se quedan: las que están a la izquierda de donde la curva cruza la línea.',
  shapes: `## La misma p en dos pasos distintos

Aquí es donde top-p supera a top-k. Abajo hay dos pasos de un mismo modelo: las mismas seis palabras y después diez símbolos que ninguna frase quiere en este punto, la cola. En el paso <em>seguro</em>, el modelo está seguro de su primera palabra. En el paso <em>plano</em>, las seis palabras son más o menos igual de probables, y la cola junta reúne una buena parte.`,
  tryShapes: 'Primero viene el paso <strong>seguro</strong>, y debajo el <strong>plano</strong>. Un solo control fija p en los dos pasos. Cuenta las barras conservadas en cada uno mientras lo mueves.',
  flatNote: 'El paso <strong>plano</strong>: las seis palabras más o menos igual de probables, y los símbolos de la cola muy cerca.',
  both: 'Top-p en los dos pasos',
  adapts: `Con p = 0,9 el paso seguro conserva {confident9} tokens y el plano conserva {flat9}. Top-p se adapta: pocos tokens cuando el modelo está seguro, muchos cuando no lo está; algo que ninguna k fija puede hacer. Son habituales valores de p entre 0,9 y 0,95.

Pero fíjate en lo que ha conservado en el paso plano: para llegar a 0,9 tuvo que pasar de las seis palabras y tomar también símbolos de la cola. La cola es justo lo que queríamos cortar. El capítulo siguiente trata de cortes que lo hacen mejor ahí.`,
  q1: 'Con p = 0,75, ¿cuántas de las seis palabras están en el núcleo?',
  q2: 'Con p = 0,9, ¿qué probabilidad recibe «{w0}» cuando el núcleo se reparte la probabilidad? (tres decimales)',
  q3: 'En el paso plano, ¿cuántos tokens conserva top-p con p = 0,95?',
  points: `- Top-p conserva el menor número de tokens más probables cuyas probabilidades suman al menos p: el núcleo.
- Se adapta al paso: un núcleo pequeño cuando el modelo está seguro, uno grande cuando no lo está.
- En un paso plano con una cola larga, llegar a p puede obligar a conservar tokens de la cola.`,
};
