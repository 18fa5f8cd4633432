// Capítulo 8 en español.
export default {
  xtc: `Todos los samplers vistos hasta ahora quitaban los tokens <em>improbables</em>. <em>XTC</em> («exclude top choices», excluir las opciones principales) hace lo contrario, a propósito. En un paso en el que actúa, mira todos los tokens cuya probabilidad alcanza un umbral y los quita todos salvo el menos probable. Siempre queda una opción razonable, pero las más previsibles desaparecen y el texto toma un giro que rara vez tomaría. Quienes escriben relatos lo usan contra la prosa sosa y previsible. Si menos de dos tokens alcanzan el umbral, no hace nada. Un segundo número, su probabilidad, dice con qué frecuencia actúa: con 0,5, en más o menos la mitad de los pasos.

Otra vez las seis palabras, con umbral 0,1: tres de ellas (0,50, 0,20 y 0,15) lo alcanzan, así que XTC quita las dos primeras y conserva «{w2}», la menos probable de las tres. Quedan {xtcKept} palabras, y «{w2}» es ahora la favorita con {xtcP}.`,
  tryXtc: 'Mueve el <strong>umbral de XTC</strong>: cuanto más alto, menos tokens lo alcanzan. Por encima de 0,2 solo lo alcanza una palabra y no se quita nada. Con la <strong>probabilidad de XTC</strong> por debajo de 1, un número aleatorio decide si XTC actúa en este paso.',
  surprise: `## La sorpresa

¿Cuánto sorprende un token? La teoría de la información lo mide en <em>bits</em>: un token con probabilidad p lleva −log₂ p bits de sorpresa. Un token con probabilidad 0,5 lleva 1 bit; con 0,25, 2 bits; con 0,125, 3 bits. Un texto cuyos tokens son todos probables es aburrido; uno lleno de sorpresas cuesta seguirlo. La sorpresa media de un texto mide dónde queda entre los dos.`,
  mirostat: `## Mirostat: un objetivo para la sorpresa

<em>Mirostat</em> no fija ningún corte. Le das una sorpresa objetivo τ (tau) y él va corrigiendo el rumbo. Lleva un presupuesto μ (mu), que empieza en 2τ. En cada paso descarta todo token cuya sorpresa supere μ y sortea entre los demás. Después del sorteo compara la sorpresa del token elegido con el objetivo: si sorprendió más que τ, μ baja (el paso siguiente es más estricto); si menos, μ sube. El corte se mueve de un paso a otro para que, de media, la sorpresa del texto se mantenga cerca de τ. Esa es la versión 2; la versión 1 llega a lo mismo estimando lo deprisa que caen las probabilidades.`,
  tryMirostat: 'El modelo de nombres con Mirostat 2. Cambia el objetivo y la semilla; cada cambio vuelve a escribir el texto. La gráfica bajo el texto muestra, paso a paso, cuántos tokens conservó Mirostat (las barras): es su presupuesto μ moviéndose. Compara <em>Núcleo medio</em> y <em>Perplejidad</em> con objetivos bajos y altos.',
  watch: `Con un objetivo bajo, el presupuesto se mantiene ajustado: Mirostat conserva solo unas pocas letras en la mayoría de los pasos, y los nombres salen simples y repetitivos. Con un objetivo más alto conserva muchas más. La perplejidad, 2 elevado a la sorpresa media del texto según el modelo, sube con τ. Pero Mirostat solo puede quitar tokens, nunca añadir sorpresa: en cuanto τ supera la sorpresa media propia del modelo, apenas corta nada, y subir más τ cambia poco.`,
  q1: 'XTC con probabilidad 1 y umbral 0,18: ¿qué probabilidad recibe el token más probable que queda? (dos decimales)',
  q2: 'XTC con probabilidad 1 y umbral 0,3: ¿cuántas de las seis palabras quedan?',
  q3: 'Mirostat 2 con objetivo τ = 1,5 empieza con el presupuesto μ = 2τ = 3 bits. ¿Cuántas de las seis palabras conserva en su primer paso?',
  points: `- XTC quita los tokens que alcanzan un umbral, todos menos el menos probable de ellos, en una parte de los pasos: se saltan a propósito las opciones previsibles.
- La sorpresa de un token es −log₂ p bits; la sorpresa media de un texto mide lo previsible que es.
- Mirostat lleva un presupuesto μ y descarta los tokens más sorprendentes que él, moviendo μ tras cada token para que la sorpresa se quede cerca del objetivo τ.`,
};
