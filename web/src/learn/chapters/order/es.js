// Capítulo 9 en español.
export default {
  intro: `Hasta ahora cada capítulo ha mirado un ajuste por separado. Un sampler real aplica varios seguidos, en una <em>cadena</em>: las puntuaciones del modelo entran en la primera etapa, cada etapa cambia algunas puntuaciones o quita algunos tokens y pasa lo que queda a la siguiente. Solo al final la softmax convierte a los supervivientes en probabilidades y el sorteo elige uno.

Cada etapa ve únicamente lo que dejaron las anteriores. Así que los mismos ajustes, aplicados en otro orden, pueden dejar en pie otros tokens. El orden también es un ajuste, aunque la mayoría de los programas nunca lo muestre.`,
  presets: `## Dos órdenes muy extendidos

<strong>Hugging Face</strong> (la biblioteca de Python que usa casi todo el código de investigación) aplica las penalizaciones, luego la temperatura y después los cortes: top-k, top-p, min-p y los demás. Los cortes ven puntuaciones que la temperatura ya ha afilado o aplanado.

<strong>llama.cpp</strong> (el motor que hay debajo de Ollama, LM Studio y muchas apps de móvil) aplica primero las penalizaciones y los cortes, y la temperatura <em>al final</em>. Los cortes ven las probabilidades propias del modelo; la temperatura solo reparte la masa entre los tokens que sobrevivieron.

El editor de la cadena del playground tiene ambos órdenes a un clic, y puedes arrastrar cualquier etapa a otro sitio.`,
  example: `Toma seis palabras con los logits 3, 2, 1,5, 1, 0,5 y 0, una temperatura de 3 y top-p 0,7. Por sí solo, el modelo da a la primera palabra {raw1}. Con T = 3 la distribución es mucho más plana: la primera palabra tiene solo {hot1}. En el orden de Hugging Face, top-p llega después de ese aplanamiento y necesita {hfKept} palabras para reunir 0,7. En el orden de llama.cpp, top-p ve las probabilidades propias del modelo, más empinadas, y le bastan {lcKept} palabras; después la temperatura reparte la masa entre esas pocas.`,
  tryOrders: 'El mismo modelo y los mismos dos ajustes, en dos órdenes: el panel A usa el de Hugging Face; el B, el de llama.cpp. Cuenta las palabras que conserva cada uno bajo «Siguiente token». Luego mueve la temperatura de cada panel: en B las palabras que quedan nunca cambian, solo sus partes.',
  why: `Ningún orden está mal; responden a preguntas distintas. Con la temperatura primero, un ajuste caliente de verdad pone más palabras en juego. Con la temperatura al final, los cortes los decide solo el modelo, y la temperatura no puede revivir una palabra que ellos quitaron, lo que hace mucho más seguras las temperaturas altas.

Por eso también un ajuste copiado de un programa puede comportarse distinto en otro: «T = 1,5, top-p 0,9» significa dos samplers diferentes. Cuando anotes unos ajustes, anota también el orden.`,
  q1: 'Temperatura 2 y top-p 0,8, en el orden de llama.cpp: ¿cuántas de las seis palabras pueden salir todavía?',
  q2: 'Temperatura 0,5 y top-p 0,7, en el orden de llama.cpp: ¿con qué probabilidad se queda «{w0}»? (dos decimales)',
  points: `- Las etapas de un sampler se aplican una tras otra; cada una ve solo lo que dejaron las anteriores.
- Hugging Face aplica la temperatura antes de los cortes; llama.cpp, al final.
- Temperatura primero: una temperatura alta deja pasar más tokens por los cortes. Temperatura al final: los cortes son del modelo y la temperatura solo reparte entre los supervivientes.
- Unos ajustes solo están completos con su orden.`,
};
