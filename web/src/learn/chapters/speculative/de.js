// Kapitel 13 auf Deutsch.
export default {
  intro: `Ein großes Modell schreibt langsam, und meist nicht wegen der Rechnerei. Um ein Token zu erzeugen, muss der Computer jedes einzelne Gewicht des Modells aus dem Speicher lesen – Milliarden Zahlen –, und der Speicher ist viel langsamer als der Prozessor. Die Gewichte einmal zu lesen und für mehrere Positionen zugleich zu nutzen, kostet kaum mehr, als sie für eine zu nutzen.

<em>Spekulative Dekodierung</em> macht daraus Geschwindigkeit. Ein kleines, schnelles <em>Entwurfsmodell</em> rät die nächsten paar Tokens, eines nach dem anderen. Dann prüft das große Modell alle Vermutungen in einem einzigen Durchlauf, als hätte es sie selbst geschrieben. Jede Vermutung, der es zustimmt, ist ein Token, das ohne eigenen Durchlauf gewonnen wurde.`,
  verify: `## Einen Entwurf prüfen

Für jedes entworfene Token vergleicht der Sampler der Reihe nach zwei Wahrscheinlichkeiten: p, die das große Modell diesem Token gibt, und q, die der Entwurf ihm gab. Ist p mindestens q, bleibt das Token. Ist p kleiner, bleibt es nur mit Wahrscheinlichkeit p / q. Beim ersten abgelehnten Token endet die Runde: Die Entwürfe danach werden verworfen, und das große Modell zieht einen eigenen Ersatz. Werden alle angenommen, fügt das große Modell gratis ein weiteres Token an, denn die nächste Verteilung hat es schon berechnet.

Der entstehende Text ist genau so verteilt, als hätte das große Modell ihn allein, Token für Token, gesampelt. Spekulative Dekodierung ist keine Näherung: Sie ändert die Geschwindigkeit, nie die Chancen des Textes.`,
  pick: 'Das Entwurfsmodell',
  optTiny: 'Bibel-Entwurf (ein Transformer mit 1 Schicht)',
  optBigram: 'Bibel-Bigramm (eine Tabelle von Buchstabenpaaren)',
  trySpec: 'Das kleine Bibelmodell mit einem Entwurf, der vier Tokens pro Runde vorschlägt. Drück <strong>{step}</strong> für jeweils eine Runde. Im Text markiert grüne Unterstreichung die Entwürfe, die das Modell behalten hat, Rot seine Korrekturen und ein gepunkteter Rahmen ein Bonus-Token; darunter steht jede Runde, links die Entwürfe, rechts was blieb. Wechsle dann zum Bigramm-Entwurf und vergleiche die Annahmequote.',
  residual: `## Woher ein Ersatz kommt

Ein Ersatz wird nicht aus dem p des großen Modells selbst gezogen, sondern aus dem <em>Rest</em> max(0, p − q), auf die Summe 1 skaliert: nur die Tokens, die das große Modell <em>lieber</em> mag als der Entwurf. Der Grund ist das Gleichgewicht. Tokens, die der Entwurf zu oft vorschlägt, werden einen Teil der Zeit abgelehnt; Tokens, die er zu selten vorschlägt, bekommen diesen Anteil über den Rest zurück. Zusammen geben die beiden Schritte jedem Token genau seine Wahrscheinlichkeit p. Die Runden oben zeigen den Rest der letzten Ablehnung.`,
  q1: 'Welche Wahrscheinlichkeit p gibt das große Modell nach „And God said“ dem Komma? (zwei Nachkommastellen)',
  q2: 'Und welche Wahrscheinlichkeit q gibt der Bibel-Entwurf demselben Komma? (zwei Nachkommastellen) Schlägt der Entwurf es vor, wird das Komma mit Wahrscheinlichkeit min(1, p / q) angenommen.',
  pays: `## Wann es sich lohnt

Der Trick braucht zweierlei. Der Entwurf muss oft mit dem großen Modell übereinstimmen, sonst enden die meisten Runden beim ersten Token; ein zu schwacher Entwurf wie das Bigramm verschwendet seine Arbeit. Und der Durchlauf des großen Modells muss wirklich durch das Lesen seiner Gewichte begrenzt sein. Das gilt für große Modelle, deren Gewichte nicht in die Caches des Prozessors passen. Der kleine Transformer hier passt hinein, also begrenzt ihn die Rechenarbeit, und die wird durch das Prüfen weiterer Positionen nicht billiger: Vergleiche oben „Tokens pro Durchlauf“ mit dem gemessenen „Tempogewinn“ – es werden viel mehr Durchläufe gespart als Zeit, und auf einem ausgelasteten Rechner kann eine Runde sogar mehr kosten, als sie bringt.`,
  points: `- Ein kleines Entwurfsmodell schlägt ein paar Tokens vor; das große Modell prüft sie alle in einem Durchlauf.
- Ein entworfenes Token wird mit Wahrscheinlichkeit min(1, p / q) angenommen; das erste abgelehnte wird aus dem Rest max(0, p − q) ersetzt.
- Der Text ist genau wie der des großen Modells verteilt: Nur die Geschwindigkeit ändert sich.
- Es lohnt sich, wenn der Entwurf oft richtig liegt und die Gewichte des großen Modells nicht in die Caches des Prozessors passen.`,
};
