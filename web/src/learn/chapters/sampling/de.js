// Kapitel 2 auf Deutsch.
export default {
  intro: `Die Wahrscheinlichkeiten des Modells schreiben noch nichts: Irgendetwas muss ein Token auswählen. Der einfachste Weg ist eine <em>Ziehung</em>. Der Sampler nimmt eine Zufallszahl zwischen 0 und 1 und geht die Tokens der Reihe nach durch, wobei er ihre Wahrscheinlichkeiten aufsummiert, bis die Summe die Zahl übersteigt. Ein Token mit Wahrscheinlichkeit 0,6 besitzt 60 % der Zahlen zwischen 0 und 1, also wird es in 60 % der Fälle gezogen; ein Token mit Wahrscheinlichkeit 0,01 kommt ab und zu dran.

Das gezogene Token wird an den Text angehängt, der längere Text geht zurück ins Modell, und das Modell liefert die nächste Verteilung. Ein Token pro Schritt: So schreibt jeder Chatbot.`,
  tryDraws: 'Drück ein paar Mal auf <strong>{step}</strong>: Jeder Schritt zieht ein Wort aus denselben drei Wahrscheinlichkeiten. Dann drück auf <strong>{draw}</strong>: Die schwarzen Striche zeigen, wie oft jedes Wort bei 1000 Ziehungen herauskam.',
  many: `Bei 1000 Ziehungen landen die Striche nahe an den Spitzen der Balken, aber nicht genau darauf: Der Zufall gleicht sich nie ganz aus. Die Zahl unter den Balken, die <em>KL-Divergenz</em>, misst, wie weit die gezählten Häufigkeiten von den Wahrscheinlichkeiten entfernt sind. Sie ist nur dann 0, wenn beide genau übereinstimmen; je mehr Ziehungen, desto näher kommt sie an 0.`,
  seed: `## Der Seed

Woher kommen die Zufallszahlen? Ein Computer kann nicht würfeln, also benutzt der Sampler einen <em>Pseudozufallsgenerator</em>: eine Formel, die aus einer Startzahl, dem <em>Seed</em>, eine lange Folge zufällig aussehender Zahlen macht. Derselbe Seed ergibt immer dieselbe Folge.

Dasselbe Modell, derselbe Prompt, dieselben Einstellungen und derselbe Seed ergeben also denselben Text – auf jedem Computer, jedes Mal. Das macht einen Text reproduzierbar, und deshalb kann eine Lektion sagen: „Seed 42 ergibt genau das.“ Ändere den Seed, und dasselbe Modell schreibt etwas anderes.`,
  tryNames: 'Dieses Modell hat eine Liste englischer Vornamen gelesen und schreibt neue, Buchstabe für Buchstabe. Ändere den Seed und sieh zu, wie sich die Namen ändern; stell 42 wieder ein, und dieselben Namen kehren zurück. Dann setz die Temperatur auf 0.',
  greedy: `## Gierige Dekodierung

Bei Temperatur 0 (das nächste Kapitel erklärt die Temperatur) hört der Sampler auf zu ziehen: Er nimmt immer das wahrscheinlichste Token. Das nennt man <em>gierige</em> Dekodierung (greedy decoding). Jetzt ergibt jeder Seed denselben Text, denn es wird keine Zufallszahl mehr verwendet.

Gierige Dekodierung ist berechenbar, aber nicht die beste Art zu schreiben: Wer immer das wahrscheinlichste nächste Token nimmt, wiederholt sich leicht, wie Kapitel 7 zeigt.`,
  q1: 'Wie viele der drei Wörter kann der Sampler bei Temperatur 0 noch wählen?',
  q2: 'Und welche Wahrscheinlichkeit bekommt „{w0}“ bei Temperatur 0?',
  points: `- Ziehen wählt ein Token mit einer Zufallszahl: Auf Dauer kommt jedes Token so oft dran, wie seine Wahrscheinlichkeit sagt.
- 1000 Ziehungen kommen den Wahrscheinlichkeiten nahe; die KL-Divergenz misst, wie nahe.
- Der Seed legt die Zufallszahlen fest: Dasselbe Modell, derselbe Prompt, dieselben Einstellungen und derselbe Seed ergeben denselben Text.
- Temperatur 0 ist gierige Dekodierung: immer das wahrscheinlichste Token, egal welcher Seed.`,
};
