// Kapitel 10 auf Deutsch.
export default {
  intro: `Gierige Dekodierung nimmt bei jedem Schritt das wahrscheinlichste Token. Das klingt nach dem Weg zum wahrscheinlichsten Text, ist es aber nicht: Ein Schritt, der für sich am besten aussieht, kann in einen Satz führen, dessen spätere Schritte alle unwahrscheinlich sind, während ein etwas schlechterer erster Schritt einen viel besseren Satz hätte eröffnen können. Gierige Dekodierung schaut nie zurück.

Die <em>Strahlsuche</em> (Beam Search) behält statt eines Textes mehrere zugleich. Diese angefangenen Texte heißen <em>Beams</em> (oder Hypothesen), und ihre Anzahl ist die <em>Breite</em> des Strahls.`,
  how: `## Ein Schritt der Strahlsuche

Bei jedem Schritt wird jeder Beam um jedes mögliche nächste Token verlängert; das ergibt viele Kandidaten. Jeder Kandidat bekommt eine Bewertung: die Summe der Logarithmen der Wahrscheinlichkeiten seiner Tokens, ln p. Logarithmen zu addieren ist dasselbe, wie die Wahrscheinlichkeiten zu multiplizieren; das misst also, wie wahrscheinlich das Modell den ganzen Text findet. Dann werden nur die besten Kandidaten, so viele wie die Breite, als neue Beams behalten. Es sind keine Zufallszahlen im Spiel: Derselbe Prompt ergibt immer dieselben Beams.

Mit Breite 1 ist das genau die gierige Dekodierung. Je breiter der Strahl, desto mehr mögliche Texte betrachtet er und desto mehr Arbeit kostet er: einen Modelllauf pro Beam und Schritt.`,
  tryBeams: 'Das kleine Bibelmodell setzt „And God said“ mit vier Beams fort. Jede Zeile unter dem Text ist ein Beam mit seinem ln p und seiner Bewertung; der beste steht oben. Drück <strong>{step}</strong>, um sie Token für Token zu verlängern. Probiere dann Breite 1 (gierig) und Breite 8, und setze die Längenstrafe auf 0.',
  length: `## Die Längenstrafe

Das ln p jedes Tokens ist negativ, also fällt die Summe eines Beams nur, während er wächst. Ein Beam, der seinen Text früh beendet, verliert keine Punkte mehr und gewinnt oft: Die Strahlsuche bevorzugt kurze Antworten. Bei Längenstrafe 0 sieht man es: Der siegreiche Text endet gleich nach „And God said,“.

Damit lange und kurze Texte vergleichbar werden, teilt die Bewertung die Summe durch die Länge hoch einer Zahl, der <em>Längenstrafe</em>. Bei 1 (dem üblichen Wert) ist die Bewertung das mittlere ln p pro Token; über 1 werden lange Texte noch stärker bevorzugt.`,
  repeat: `## Warum sich Beams wiederholen

Schau dir die Beams nach ein paar Dutzend Schritten an: Sie sind fast derselbe Text und unterscheiden sich nur in ihren letzten Tokens. Kandidaten mit einem gemeinsamen guten Anfang schneiden alle gut ab, also geht die Breite für kleine Abwandlungen einer Idee drauf statt für verschiedene Ideen.

Und der Text selbst neigt zu Schleifen. Die Strahlsuche sucht den Text, den das Modell am wahrscheinlichsten findet, und wenn eine Wendung einmal vorkam, ist ihre Wiederholung oft die wahrscheinlichste Fortsetzung. Darum sampeln Chatmodelle, und die Strahlsuche bleibt Aufgaben mit einer richtigen Antwort vorbehalten, etwa der Übersetzung, meist mit einer Strafe gegen wiederholte N-Gramme.`,
  q1: 'Welche Wahrscheinlichkeit gibt das Modell nach „And God said“ seinem wahrscheinlichsten nächsten Zeichen, dem, das die gierige Dekodierung nimmt? (zwei Nachkommastellen)',
  q2: 'Und dem zweitwahrscheinlichsten, das ein Strahl der Breite 2 oder mehr auch behält? (zwei Nachkommastellen)',
  points: `- Die Strahlsuche behält bei jedem Schritt die besten angefangenen Texte (Beams), geordnet nach der Summe des ln p ihrer Tokens.
- Breite 1 ist gierige Dekodierung; breitere Strahlen betrachten mehr Texte und kosten einen Modelllauf pro Beam.
- Die Längenstrafe teilt die Bewertung durch die Länge hoch dieser Zahl; bei 0 gewinnen kurze Texte.
- Beams sind oft fast Kopien voneinander, und der wahrscheinlichste Text wiederholt sich häufig.`,
};
