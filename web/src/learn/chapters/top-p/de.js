// Kapitel 5 auf Deutsch.
export default {
  intro: `Top-k behält eine feste <em>Anzahl</em> von Tokens. <em>Top-p</em> behält stattdessen einen festen <em>Anteil der Wahrscheinlichkeit</em>. Reihe die Tokens vom wahrscheinlichsten zum unwahrscheinlichsten auf und zähle ihre Wahrscheinlichkeiten dabei zusammen; hör auf, sobald die Summe p erreicht. Die bis dahin gezählten Tokens bleiben – man nennt sie den <em>Nukleus</em>, deshalb heißt Top-p auch Nukleus-Sampling –, alles danach fällt weg. Wie bei Top-k teilen die behaltenen Tokens die Wahrscheinlichkeit dann neu unter sich auf.`,
  example: `Die sechs Wörter aus dem letzten Kapitel haben die Wahrscheinlichkeiten 0,50, 0,20, 0,15, 0,08, 0,05 und 0,02. Mit p = 0,9: Das erste Wort allein hält 0,50, das reicht nicht; mit dem zweiten ist die Summe {sum2}; mit dem dritten {sum3}; mit dem vierten {sum4}, und das überschreitet 0,9. Der Nukleus umfasst also {kept9} Wörter, die letzten beiden fallen weg.`,
  tryNucleus: 'Die steigende Kurve ist die laufende Summe, die waagrechte Linie ist p. Zieh die Linie (oder nimm den Regler <strong>Top-p</strong>) und sieh, welche Balken bleiben: die links von der Stelle, an der die Kurve die Linie kreuzt.',
  shapes: `## Dasselbe p bei zwei verschiedenen Schritten

Hier schlägt Top-p Top-k. Unten stehen zwei Schritte desselben Modells: dieselben sechs Wörter, dann zehn Symbole, die an dieser Stelle kein Satz haben will – der Schwanz. Beim <em>sicheren</em> Schritt ist sich das Modell seines ersten Wortes sicher. Beim <em>flachen</em> Schritt sind die sechs Wörter etwa gleich wahrscheinlich, und der Schwanz hält zusammen einen guten Teil.`,
  tryShapes: 'Zuerst kommt der <strong>sichere</strong> Schritt, darunter der <strong>flache</strong>. Ein Regler setzt p für beide Schritte. Zähl beim Bewegen die behaltenen Balken auf jeder Seite.',
  flatNote: 'Der <strong>flache</strong> Schritt: die sechs Wörter etwa gleich wahrscheinlich, die Symbole des Schwanzes dicht dahinter.',
  both: 'Top-p für beide Schritte',
  adapts: `Bei p = 0,9 behält der sichere Schritt {confident9} Tokens und der flache {flat9}. Top-p passt sich an: wenige Tokens, wenn das Modell sicher ist, viele, wenn nicht – das kann kein festes k. Üblich sind Werte von p zwischen 0,9 und 0,95.

Aber sieh dir an, was es beim flachen Schritt behalten hat: Um 0,9 zu erreichen, musste es über die sechs Wörter hinaus auch Symbole aus dem Schwanz nehmen. Genau den wollten wir abschneiden. Im nächsten Kapitel geht es um Grenzen, die das besser machen.`,
  q1: 'Wie viele der sechs Wörter liegen bei p = 0,75 im Nukleus?',
  q2: 'Welche Wahrscheinlichkeit bekommt „{w0}“ bei p = 0,9, nachdem der Nukleus die Wahrscheinlichkeit neu verteilt hat? (drei Nachkommastellen)',
  q3: 'Wie viele Tokens behält Top-p beim flachen Schritt mit p = 0,95?',
  points: `- Top-p behält die wenigsten wahrscheinlichsten Tokens, deren Wahrscheinlichkeiten zusammen mindestens p ergeben: den Nukleus.
- Es passt sich dem Schritt an: ein kleiner Nukleus, wenn das Modell sicher ist, ein großer, wenn nicht.
- Bei einem flachen Schritt mit langem Schwanz kann das Erreichen von p bedeuten, Tokens aus dem Schwanz zu behalten.`,
};
