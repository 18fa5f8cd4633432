// Capítulo 11 en español.
export default {
  intro: `A veces el texto debe tener una forma: una fecha, un número entre 1 y 10, una de cuatro respuestas, o JSON que leerá otro programa. Pedírselo amablemente al modelo funciona casi siempre. La <em>decodificación restringida</em> hace que funcione siempre, sin cambiar el modelo.

La idea es una máscara. Antes de cada sorteo, el sampler examina cada token: ¿podría el texto acabar todavía con la forma pedida si este token viniera ahora? Cada token que no podría se corta, igual que top-k o top-p cortan tokens, y el sorteo se hace entre los demás. La forma suele escribirse como una <em>expresión regular</em>, un pequeño lenguaje de patrones: <code>[AEIOU]</code> significa una de estas letras, <code>[a-z]+</code> una o más letras minúsculas, <code>(Anna|Emil)</code> una de estas palabras.`,
  tryNames: 'Otra vez el modelo de nombres, con el patrón <code>[AEIOU][a-z][a-z][a-z]</code>: cuatro letras, la primera una vocal mayúscula. Mira las barras: todas las letras menos cinco las corta la «restricción». Pulsa <strong>{step}</strong> para escribir el nombre letra a letra; luego elige otro patrón o escribe el tuyo.',
  pick: 'El patrón que debe cumplir el texto',
  optVowel: 'Cuatro letras, empezando por vocal',
  optList: 'Uno de Anna, Emil, Ida, Otto',
  optShort: 'Dos o tres letras',
  optNone: 'Sin patrón',
  own: 'Tu propio patrón',
  ownApply: 'Usarlo',
  mask: `En cada paso ocurren dos cosas. La máscara quita lo que el patrón prohíbe, y las probabilidades de lo que queda se agrandan para que vuelvan a sumar 1, igual que tras cualquier otro corte. Entre los tokens permitidos siguen decidiendo las preferencias del modelo: la restricción elige la forma y el modelo la rellena.

Cuando el patrón está completo y ya no puede seguir nada, el texto termina. El precio se ve en las barras: si el modelo daba poca probabilidad a los tokens permitidos, el sampler sortea ahora en una parte de la distribución que el propio modelo consideraba improbable.`,
  q1: 'Con el patrón <code>[AEIOU][a-z][a-z][a-z]</code>, ¿cuántas letras pueden ser la primera letra del nombre?',
  q2: 'Antes de la máscara, ¿qué parte de la probabilidad del modelo tenían esas letras juntas? (dos decimales)',
  json: `## JSON

Una expresión regular no puede describir JSON, porque JSON se anida: cada <code>{</code> necesita su <code>}</code>, a cualquier profundidad. Por eso el modo JSON usa en su lugar una <em>gramática</em>, que lleva la cuenta de los corchetes aún abiertos. El principio no cambia: en cada paso se enmascara todo token que rompería el JSON.`,
  tryJson: 'El pequeño modelo de la Biblia, que nunca ha visto JSON, con la gramática «objeto JSON». Pulsa <strong>{step}</strong> unas cuantas veces y mira qué caracteres deja la máscara en cada paso: estricta junto a llaves y comillas, mientras que dentro de una cadena casi cualquier carácter vale.',
  limits: `La restricción garantiza la forma, no el contenido. Un modelo que nunca aprendió JSON escribe JSON válido pero extraño, y una máscara que corta casi toda la probabilidad obliga al modelo a un texto que no habría escrito. En la práctica, el prompt sigue explicando lo que se quiere, y la máscara asegura que la respuesta se pueda leer.`,
  points: `- La decodificación restringida enmascara, en cada paso, los tokens que no podrían llevar a un texto con la forma pedida.
- La forma es una expresión regular, o una gramática para formatos anidados como JSON.
- El modelo sigue eligiendo entre los tokens permitidos; las probabilidades de lo que queda se agrandan hasta sumar 1.
- La forma está garantizada, la calidad no: una máscara que corta casi toda la probabilidad empuja al modelo hacia texto que considera improbable.`,
};
