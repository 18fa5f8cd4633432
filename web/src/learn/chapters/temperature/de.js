// Kapitel 3 auf Deutsch.
export default {
  intro: `Die Temperatur ist die bekannteste Einstellung eines Samplers und die einfachste. Vor der Softmax wird jedes Logit durch eine Zahl geteilt, <em>T</em>, die Temperatur. Mehr tut sie nicht.

Teilt man durch eine Zahl unter 1, werden die Logits größer und die Abstände zwischen ihnen weiter: Die wahrscheinlichen Tokens werden noch wahrscheinlicher, die unwahrscheinlichen verblassen – die Verteilung wird <em>schärfer</em>. Teilt man durch eine Zahl über 1, schrumpfen die Abstände: Die Verteilung wird <em>flacher</em>, und unwahrscheinliche Tokens bekommen mehr Chancen. Bei T = 1 ändert sich nichts.`,
  example: `Nimm wieder die Logits 2, 1 und 0. Bei T = 1 bekommt das erste Wort {one1}. Bei T = 0,5 werden die Logits zu 4, 2 und 0, und die Softmax ergibt {half1}, {half2} und {half3}: Das oberste Wort hat sich den Großteil des Rests genommen. Bei T = 2 werden sie zu 1, 0,5 und 0, und die Softmax ergibt {two1}, {two2} und {two3}: viel ausgeglichener.`,
  tryBars: 'Zieh den Temperaturregler von einem Ende zum anderen und beobachte die drei Balken. Bei 0 ist der Sampler gierig: Ein Balken bekommt alles.',
  order: `Achte darauf, was nie passiert: Die Balken tauschen nie die Plätze. Bei jeder Temperatur über 0 bleibt das wahrscheinlichste Token das wahrscheinlichste, das zweite bleibt zweites, und so weiter. Die Temperatur ändert, <em>wie viel</em> wahrscheinlicher ein Token als ein anderes ist, nie, welches vorne liegt. Nahe 0 bekommt das oberste Token alles (gierige Dekodierung); je größer T, desto näher rücken alle Tokens an denselben Anteil.`,
  tryNames: 'Wieder das Namensmodell, Buchstabe für Buchstabe. Drück auf <strong>{play}</strong> und bewege dann die Temperatur, während es schreibt: Niedrige Temperaturen ergeben gewöhnliche Namen, die sich wiederholen, hohe ergeben Buchstabensalat.',
  use: `In der Praxis sind Temperaturen zwischen etwa 0,2 und 1 üblich. Niedrige Werte passen zu Aufgaben mit einer richtigen Antwort (Code, Fakten), Werte nahe 1 zu Geschichten und Ideensammlungen. Über 1 verliert der Text bald den Faden, weil der lange Schwanz unwahrscheinlicher Tokens zu viele Chancen bekommt – und genau darum geht es in den nächsten Kapiteln.`,
  q1: 'Welche Wahrscheinlichkeit bekommt „{w0}“ bei T = 0,25? (drei Nachkommastellen)',
  q2: 'Welche Wahrscheinlichkeit bekommt „{w2}“, das unwahrscheinlichste Wort, bei T = 3? (zwei Nachkommastellen)',
  points: `- Die Temperatur teilt jedes Logit vor der Softmax durch T.
- T unter 1 schärft die Verteilung, T über 1 macht sie flacher, T = 1 lässt sie, wie sie ist, T = 0 bedeutet gierig.
- Die Temperatur ändert nie die Reihenfolge der Tokens: Das wahrscheinlichste bleibt das wahrscheinlichste.`,
};
