// Kapitel 11 auf Deutsch.
export default {
  intro: `Manchmal muss der Text eine Form haben: ein Datum, eine Zahl zwischen 1 und 10, eine von vier Antworten oder JSON, das ein anderes Programm liest. Das Modell freundlich darum zu bitten, klappt meistens. <em>Eingeschränkte Dekodierung</em> sorgt dafür, dass es immer klappt, ohne das Modell zu ändern.

Die Idee ist eine Maske. Vor jeder Ziehung prüft der Sampler jedes Token: Könnte der Text noch die verlangte Form bekommen, wenn dieses Token als Nächstes käme? Jedes Token, bei dem das nicht geht, wird abgeschnitten, genau wie Top-k oder Top-p Tokens abschneiden, und gezogen wird unter den übrigen. Die Form wird meist als <em>regulärer Ausdruck</em> geschrieben, eine kleine Mustersprache: <code>[AEIOU]</code> heißt einer dieser Buchstaben, <code>[a-z]+</code> ein oder mehrere Kleinbuchstaben, <code>(Anna|Emil)</code> eines dieser Wörter.`,
  tryNames: 'Wieder das Namensmodell, diesmal mit dem Muster <code>[AEIOU][a-z][a-z][a-z]</code>: vier Buchstaben, der erste ein großer Vokal. Sieh dir die Balken an: Alle Buchstaben bis auf fünf schneidet die „Vorgabe“ ab. Drück <strong>{step}</strong>, um den Namen Buchstabe für Buchstabe zu schreiben; wähle dann ein anderes Muster oder tippe dein eigenes.',
  pick: 'Das Muster, dem der Text folgen muss',
  optVowel: 'Vier Buchstaben, mit Vokal am Anfang',
  optList: 'Einer von Anna, Emil, Ida, Otto',
  optShort: 'Zwei oder drei Buchstaben',
  optNone: 'Kein Muster',
  own: 'Dein eigenes Muster',
  ownApply: 'Verwenden',
  mask: `Bei jedem Schritt passieren zwei Dinge. Die Maske entfernt, was das Muster verbietet, und die Wahrscheinlichkeiten des Rests werden hochskaliert, bis sie wieder 1 ergeben, wie nach jedem anderen Schnitt. Unter den erlaubten Tokens entscheiden weiter die Vorlieben des Modells: Die Einschränkung wählt die Form, das Modell füllt sie.

Ist das Muster vollständig und kann nichts mehr folgen, endet der Text. Den Preis sieht man an den Balken: Gab das Modell den erlaubten Tokens wenig Wahrscheinlichkeit, zieht der Sampler jetzt aus einem Teil der Verteilung, den das Modell selbst für unwahrscheinlich hielt.`,
  q1: 'Wie viele Buchstaben kommen beim Muster <code>[AEIOU][a-z][a-z][a-z]</code> als erster Buchstabe des Namens in Frage?',
  q2: 'Welchen Anteil der Wahrscheinlichkeit des Modells hatten diese Buchstaben vor der Maske zusammen? (zwei Nachkommastellen)',
  json: `## JSON

Ein regulärer Ausdruck kann JSON nicht beschreiben, weil JSON verschachtelt ist: Jede <code>{</code> braucht ihre <code>}</code>, egal wie tief. Darum nutzt der JSON-Modus stattdessen eine <em>Grammatik</em>, die sich merkt, welche Klammern noch offen sind. Das Prinzip bleibt gleich: Bei jedem Schritt wird jedes Token maskiert, das das JSON kaputt machen würde.`,
  tryJson: 'Das kleine Bibelmodell, das nie JSON gesehen hat, mit der Grammatik „JSON-Objekt“. Drück ein paarmal <strong>{step}</strong> und beobachte, welche Zeichen die Maske bei jedem Schritt übrig lässt: streng bei Klammern und Anführungszeichen, während innerhalb einer Zeichenkette fast jedes Zeichen erlaubt ist.',
  limits: `Die Einschränkung garantiert die Form, nicht den Inhalt. Ein Modell, das nie JSON gelernt hat, schreibt gültiges, aber seltsames JSON, und eine Maske, die fast die ganze Wahrscheinlichkeit abschneidet, zwingt das Modell zu Text, den es so nicht geschrieben hätte. In der Praxis erklärt der Prompt weiterhin, was gewünscht ist, und die Maske sorgt dafür, dass sich die Antwort einlesen lässt.`,
  points: `- Eingeschränkte Dekodierung maskiert bei jedem Schritt die Tokens, die nicht zu Text der verlangten Form führen könnten.
- Die Form ist ein regulärer Ausdruck oder, für verschachtelte Formate wie JSON, eine Grammatik.
- Das Modell wählt weiter unter den erlaubten Tokens; die Wahrscheinlichkeiten des Rests werden auf die Summe 1 hochskaliert.
- Die Form ist garantiert, die Qualität nicht: Eine Maske, die den Großteil der Wahrscheinlichkeit abschneidet, drängt das Modell zu Text, den es für unwahrscheinlich hält.`,
};
