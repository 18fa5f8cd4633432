// Kapitel 7 auf Deutsch.
export default {
  intro: `Lass ein Modell immer sein wahrscheinlichstes Token nehmen, und früher oder später wiederholt es sich. Ist eine Wendung zweimal vorgekommen, hat das Modell gerade gesehen, dass sie wiederkehrt – also wird sie noch wahrscheinlicher, und der Text dreht sich im Kreis. Niedrige Temperaturen und kleine Nuklei machen solche Schleifen wahrscheinlicher; auch große Modelle geraten hinein.

Das Modell unten hat die King-James-Bibel (auf Englisch) gelesen, Zeichen für Zeichen. Es schreibt gierig (Temperatur 0) ab „the“ und sagt bald immer wieder dasselbe. Unter dem Text misst <em>Längste Wiederholung</em> die Schleife, und <em>Distinct-3</em> (der Anteil verschiedener Dreierfolgen von Tokens) sinkt, wenn sich der Text wiederholt.`,
  tryLoop: 'Jede Einstellung unten schreibt den Text von vorn neu. Erhöhe jeweils eine – jede bricht die Schleife auf ihre Weise –, stell sie dann zurück und probier die nächste. Achte auf Längste Wiederholung und Distinct-3.',
  penalties: `## Drei Strafen

Alle drei drücken die Bewertungen (Logits) von Tokens, die schon im Text stehen, vor der Softmax nach unten:

- Die <em>Wiederholungsstrafe</em> teilt das Logit jedes schon gesehenen Tokens durch eine Zahl über 1 (und multipliziert es, wenn das Logit negativ ist, damit es immer sinkt).
- Die <em>Häufigkeitsstrafe</em> zieht eine Zahl mal die Anzahl der Vorkommen ab: Je öfter das Token benutzt wurde, desto tiefer fällt es.
- Die <em>Präsenzstrafe</em> zieht eine Zahl einmal ab, wenn das Token überhaupt vorkam, egal wie oft.

Nimm wieder die Logits 2, 1 und 0: Für sich bekommt „{w0}“ {plain}. Angenommen, der Text ist bisher „{w0} {w0}“. Eine Wiederholungsstrafe von 2 halbiert sein Logit auf 1, und es bekommt {rep}. Eine Häufigkeitsstrafe von 0,5, zweimal abgezogen, bringt es ebenfalls auf 1: {freq}. Eine Präsenzstrafe von 0,5, einmal abgezogen, bringt es auf 1,5: {pres}.`,
  tryBars: 'Dieses selbstgebaute Modell gibt bei jedem Schritt dieselben Bewertungen, also ändern nur die Strafen seine Balken. Drück ein paarmal auf <strong>{step}</strong> und sieh, wie der Balken jedes geschriebenen Wortes schrumpft. Beweg dann die drei Regler.',
  ngrams: `## Die Wiederholung selbst verbieten

Strafen treffen einzelne Tokens, auch wenn ihr Einsatz in Ordnung ist („the“ muss wiederkommen). Zwei andere Sampler schauen stattdessen auf Folgen.

- <em>No-repeat n-gram</em> verbietet glatt jedes Token, das eine schon im Text vorhandene Folge von n Tokens vervollständigen würde. Hart und einfach – bei einem Modell, das Buchstaben schreibt, verbietet ein kleines n die normale Rechtschreibung, wie der Text oben mit 3 oder 4 zeigt.
- <em>DRY</em> („don't repeat yourself“, wiederhole dich nicht) sucht das längste Stück am Ende des Textes, das schon früher vorkam, und bestraft das Token, das es fortsetzen würde. Kurze Wiederholungen bleiben straffrei; die Strafe wächst schnell mit der Länge der Wiederholung, sodass eine Schleife gestoppt wird und normale Wendungen unberührt bleiben.`,
  q1: 'Der Text ist bisher „{w0} {w0} {w0}“. Welche Wahrscheinlichkeit bekommt „{w0}“ bei einer Häufigkeitsstrafe von 0,5? (drei Nachkommastellen)',
  q2: 'Der Text ist bisher „{w0} {w1}“. Welche Wahrscheinlichkeit bekommt „{w1}“ bei einer Wiederholungsstrafe von 4? (drei Nachkommastellen)',
  q3: 'Der Text ist bisher „{w0} {w1} {w0}“. Wie viele der drei Wörter können mit No-repeat n-gram der Größe 2 als Nächstes kommen?',
  points: `- Gierige und fast gierige Dekodierung gerät in Schleifen: Eine Wiederholung macht sich selbst wahrscheinlicher.
- Wiederholungs-, Häufigkeits- und Präsenzstrafe drücken schon benutzte Tokens: durch Teilen, je Vorkommen oder einmal.
- No-repeat n-gram verbietet eine wiederholte Folge glatt; DRY bestraft das Verlängern einer Wiederholung, umso mehr, je länger sie ist.`,
};
