// Kapitel 1 auf Deutsch.
export default {
  intro: `Ein Sprachmodell schreibt einen Satz nicht in einem Zug. Es schreibt ein <em>Token</em> nach dem anderen – ein Wort, ein Stück eines Wortes oder ein einzelnes Zeichen, je nach Modell – und muss jedes Mal entscheiden, was als Nächstes kommt.

Was das Modell bei jedem Schritt tatsächlich liefert, ist kein Token, sondern eine Liste von Zahlen: eine Bewertung für jedes Token, das es kennt. Diese Bewertungen heißen <em>Logits</em>. Nach „{example}“ könnte ein Modell „{w0}“ eine hohe Bewertung geben, „{w1}“ eine etwas niedrigere und „{w2}“ eine noch niedrigere – und Tausenden anderen Tokens so niedrige, dass sie kaum zählen.`,
  softmax: `Logits sind noch keine Wahrscheinlichkeiten: Sie können negativ sein, und ihre Summe ist nichts Bestimmtes. Die <em>Softmax</em> macht in zwei Schritten Wahrscheinlichkeiten daraus: Sie nimmt die Zahl e (etwa 2,72) hoch jede Bewertung und teilt dann jedes Ergebnis durch die Summe aller. Jedes Token bekommt einen Anteil zwischen 0 und 1, die Anteile ergeben zusammen genau 1, und eine höhere Bewertung bedeutet immer einen größeren Anteil.

Nimm drei Tokens mit den Logits 2, 1 und 0. Die Softmax gibt ihnen {p1}, {p2} und {p3}. Ein Punkt mehr Bewertung multipliziert den Anteil eines Tokens mit e: Deshalb bekommt „{w0}“ etwa das 2,7-Fache des Anteils von „{w1}“.`,
  try: 'Zieh an den Schiebereglern: Jeder setzt das Logit eines Wortes, und die Balken zeigen die Wahrscheinlichkeiten, die die Engine daraus berechnet. Was passiert, wenn zwei Logits gleich sind? Wenn eines weit über den anderen liegt?',
  shift: `Nur die <em>Unterschiede</em> zwischen den Logits zählen. Schieb alle drei Regler um denselben Betrag nach oben, und die Balken bewegen sich überhaupt nicht, denn jeder Anteil wird vor der Division mit demselben Faktor multipliziert. Ein Modell kann also nur sagen, wie sehr es ein Token einem anderen vorzieht – nie, wie gut ein Token für sich genommen ist.`,
  q1: 'Setz die Logits auf 3, 1 und 0. Welche Wahrscheinlichkeit bekommt „{w0}“? (zwei Nachkommastellen, z. B. 0,42)',
  q2: 'Jetzt sind die Logits 12, 11 und 10. Welche Wahrscheinlichkeit bekommt „{w0}“?',
  points: `- Bei jedem Schritt gibt das Modell jedem Token seines Vokabulars eine Bewertung, sein Logit.
- Die Softmax macht aus Logits Wahrscheinlichkeiten: alle positiv, zusammen 1, in derselben Reihenfolge wie die Logits.
- Nur die Unterschiede zwischen den Logits zählen: Dieselbe Zahl zu allen zu addieren, ändert nichts.`,
};
