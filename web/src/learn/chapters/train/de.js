// Kapitel 14 auf Deutsch.
export default {
  intro: `Jedes Modell in diesem Kurs hat jemand trainiert: Ein Programm hat viel Text gelesen und in Zahlen verwandelt. Bei einem großen Modell dauert das Wochen und braucht eine Halle voller Computer. Bei der einfachsten Art von Sprachmodell dauert es einen Bruchteil einer Sekunde, und du kannst es hier tun.

Ein <em>Bigramm</em>-Modell sagt das nächste Zeichen aus dem vorigen voraus, und aus sonst nichts. Es zu trainieren heißt zählen: den Text durchgehen und für jedes Zeichen notieren, welches Zeichen wie oft darauf folgt.`,
  counting: `## Von Zählungen zu Wahrscheinlichkeiten

Angenommen, in deinem Text folgt auf „q“ neunmal ein „u“ und einmal ein „a“. Dann gibt das Modell nach „q“ dem „u“ neun Chancen von zehn und dem „a“ eine von zehn. Jedes Zeichen hat seine eigene Zeile mit Zählungen, und jede Zeile, geteilt durch ihre Summe, ist eine Verteilung über das nächste Zeichen – dieselben Balken wie in allen Kapiteln zuvor.

Ein Detail ist wichtig: Ein Paar, das im Text nie vorkam, bekäme die Wahrscheinlichkeit 0, und das Modell könnte es nie schreiben. Darum wird vorher zu jeder Zählung ein wenig addiert, 0,1. Das heißt <em>Glättung</em>: Ungesehene Paare werden unwahrscheinlich statt unmöglich. Jede Zeile des Textes ist ein Wort, und ein unsichtbares Grenz-Token markiert, wo ein Wort anfängt und endet; so lernt das Modell auch, wie Wörter beginnen und aufhören.`,
  legend: 'Trainiere ein Bigramm auf deinem eigenen Text',
  label: 'Ein Wort pro Zeile (ersetze sie durch deine eigenen):',
  go: 'Trainieren und verwenden',
  sample: `Ananas
Apfel
Aprikose
Banane
Birne
Brombeere
Erdbeere
Feige
Heidelbeere
Himbeere
Johannisbeere
Kirsche
Kiwi
Limette
Mandarine
Mango
Melone
Orange
Pfirsich
Pflaume
Quitte
Stachelbeere
Traube
Zitrone`,
  tryTrain: 'Ersetze die Wörter durch deine eigenen – Namen, Städte, ausgedachte Wörter – und drück den Knopf: Die Engine zählt die Paare, und der Playground darunter wechselt zu deinem Modell. Drück dann <strong>{play}</strong> und sieh zu, wie es neue Wörter in der Art der deinen erfindet, und schau dir die Balken nach jedem Buchstaben an.',
  names: `Das erste Modell des Playgrounds, das Namens-Bigramm, wurde genau so trainiert, auf einer Liste von Vornamen. Seine Balken nach dem Grenz-Token sagen, wie Namen anfangen; seine Balken nach jedem Buchstaben, was gern darauf folgt.`,
  q1: 'Welche Wahrscheinlichkeit bekommt im Namens-Bigramm der wahrscheinlichste erste Buchstabe eines Namens? (zwei Nachkommastellen)',
  q2: 'Nur sehr wenige Namen beginnen mit „Q“. Welche Wahrscheinlichkeit gibt das Namens-Bigramm nach „Q“ dem „u“? (zwei Nachkommastellen; achte darauf, wie viel die Glättung wegnimmt)',
  bigger: `## Warum größere Modelle besser schreiben

Ein Bigramm sieht ein Zeichen zurück. Seine Wörter wirken Buchstabe für Buchstabe plausibel, aber alles andere vergisst es sofort: Es kann kein Wort zu Ende bringen, das es angefangen hat, geschweige denn einen Satz. Echte Modelle schauen Tausende Tokens zurück und lernen ihre Zahlen, statt zu zählen, indem sie nach und nach Milliarden Gewichte anpassen, bis ihre Vorhersagen auf dem Trainingstext besser werden. Das Ergebnis hat aber dieselbe Form: für das nächste Token eine Verteilung – und alles, was dieser Kurs über das Sampeln daraus gezeigt hat, gilt unverändert.`,
  points: `- Ein Bigramm sagt das nächste Zeichen aus dem vorigen voraus; es zu trainieren heißt, Zeichenpaare zu zählen.
- Jede Zeile von Zählungen, geteilt durch ihre Summe, ist die Verteilung über das nächste Zeichen.
- Glättung addiert zu jeder Zählung ein wenig, damit ungesehene Paare unwahrscheinlich, aber nicht unmöglich sind.
- Größere Modelle schauen viel weiter zurück und lernen ihre Zahlen, statt zu zählen, geben dem Sampler aber ebenfalls eine Verteilung.`,
};
