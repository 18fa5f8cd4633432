// Kapitel 4 auf Deutsch.
export default {
  intro: `Die Temperatur formt die Verteilung um, nimmt aber nie ein Token weg: Selbst bei niedriger Temperatur behält jedes Token eine winzige Chance. Ein echtes Modell kennt Zehntausende Tokens, und die meisten ergeben an einer bestimmten Stelle keinen Sinn. Einzeln sind sie unwahrscheinlich, zusammen kann dieser <em>lange Schwanz</em> aber einen guten Teil der Wahrscheinlichkeit halten – und ab und zu zieht der Sampler daraus, und der Text entgleist.

<em>Top-k</em> ist die gröbste Abhilfe: Behalte die <em>k</em> wahrscheinlichsten Tokens, gib allen anderen die Wahrscheinlichkeit 0 und verteile die Wahrscheinlichkeit neu auf die behaltenen, sodass sie wieder 1 ergibt.`,
  example: `Nimm sechs Wörter mit den Wahrscheinlichkeiten 0,50, 0,20, 0,15, 0,08, 0,05 und 0,02. Mit k = 3 fallen die letzten drei weg. Die drei behaltenen halten zusammen {kept3} der Wahrscheinlichkeit, also wird jedes durch {kept3} geteilt: Sie werden zu {k3p1}, {k3p2} und {k3p3}. Die behaltenen Wörter bleiben in derselben Reihenfolge und im selben Verhältnis zueinander; die weggefallenen können überhaupt nicht mehr gezogen werden.`,
  tryBars: 'Bewege den Regler <strong>Top-k</strong>. Sieh zu, wie die Balken nach dem k-ten verschwinden und die behaltenen wachsen. Stell k auf 1, dann auf 6 (oder 0, das schaltet Top-k aus).',
  greedy: `Bei k = 1 bleibt nur das wahrscheinlichste Token übrig, und es bekommt die Wahrscheinlichkeit 1: Top-k mit k = 1 ist gierige Dekodierung, dasselbe wie Temperatur 0. Ist k so groß wie das Vokabular, fällt nichts weg, und Top-k tut nichts.`,
  tryNames: 'Das Namensmodell, Buchstabe für Buchstabe. Drück auf <strong>{play}</strong> und ändere k, während es schreibt. Mit k = 1 schreibt es immer wieder denselben Namen; mit kleinem k sehen die Namen gewöhnlich aus; mit ausgeschaltetem Top-k (0) schleichen sich seltsame Buchstabenpaare ein.',
  blunt: `## Warum ein k nicht zu jedem Schritt passt

Das Problem von Top-k: k ist bei jedem Schritt gleich, die Sicherheit des Modells aber nicht. Nach „Q“ in einem deutschen Namen folgt fast immer „u“: k = 3 behält trotzdem zwei Buchstaben, die fast immer falsch sind. Nach „Die Katze saß auf dem“ passen Dutzende Wörter: k = 3 wirft die meisten weg. Ein Schnitt, der der Form der Verteilung folgt, wäre besser – das ist Top-p, das nächste Kapitel.`,
  q1: 'Welche Wahrscheinlichkeit bekommt „{w0}“ bei k = 2? (drei Nachkommastellen)',
  q2: 'Welchen Anteil der Wahrscheinlichkeit des Modells halten die behaltenen Wörter bei k = 4 zusammen? (zwei Nachkommastellen)',
  points: `- Top-k behält die k wahrscheinlichsten Tokens, setzt die anderen auf 0 und skaliert die behaltenen, bis sie 1 ergeben.
- k = 1 ist gierige Dekodierung; ein k so groß wie das Vokabular ändert nichts.
- Dasselbe k bei jedem Schritt ist zu viel, wenn das Modell sicher ist, und zu wenig, wenn viele Tokens passen.`,
};
