// Kapitel 6 auf Deutsch.
export default {
  intro: `Top-p hat das letzte Kapitel mit einem Problem beendet. Beim flachen Schritt behielt p = 0,9 {flatP} Tokens: die sechs Wörter und Symbole aus dem Schwanz, die kein Text haben will. Top-p fragt nur, wie viel Wahrscheinlichkeit behalten wird; es kann ein etwas weniger wahrscheinliches Wort nicht von einem unterscheiden, das nicht hierher gehört. Mehrere Sampler schauen stattdessen auf die <em>Form</em> der Verteilung, jeder auf seine Weise.`,
  minP: `## Min-p: am Favoriten gemessen

<em>Min-p</em> behält jedes Token, das mindestens einen Bruchteil der Wahrscheinlichkeit des besten Tokens erreicht: Mit Min-p = 0,1 muss es mindestens ein Zehntel so wahrscheinlich sein wie der Favorit. Ist das Modell sicher, ist der Favorit sehr wahrscheinlich, die Latte liegt hoch, und wenige Tokens kommen durch: Der sichere Schritt behält {confidentMin}. Ist es unsicher, ist der Favorit kaum wahrscheinlicher als der Rest, die Latte liegt tief, und jedes vernünftige Wort kommt durch – der Schwanz weit darunter aber nicht: Der flache Schritt behält {flatMin}, genau die sechs Wörter.`,
  tryMethods: 'Wähle ein Verfahren und bewege seinen Regler. Vergleiche, wie viele Balken jedes beim sicheren Schritt (oben) und beim flachen (unten) behält. Welche Verfahren behalten beim flachen Schritt die sechs Wörter ohne die Symbole?',
  flatNote: 'Der <strong>flache</strong> Schritt: die sechs Wörter etwa gleich wahrscheinlich, die Symbole des Schwanzes dicht dahinter.',
  both: 'Eine Grenze für beide Schritte',
  others: `## Die anderen

- <em>Typical-p</em> behält die Tokens, deren Überraschung der durchschnittlichen Überraschung des Schritts (seiner Entropie) am nächsten liegt, bis sie einen Anteil p halten. Es bevorzugt Tokens, die so überraschend sind wie ein typisches Token an dieser Stelle – beim sicheren Schritt ist das der Favorit.
- <em>Top-nσ</em> arbeitet mit den Bewertungen (Logits) vor der Softmax: Es behält die Tokens, deren Bewertung höchstens n Standardabweichungen unter der besten liegt. Weil es die Streuung der Bewertungen misst, ändert die Temperatur nicht, was es behält.
- Die <em>ε-Grenze (Epsilon)</em> verwirft jedes Token unter einer festen Wahrscheinlichkeit ε. Einfach, aber eine Untergrenze für alle Schritte.
- Die <em>η-Grenze (Eta)</em> ist eine Untergrenze, die sich bewegt: Sie sinkt, wenn der Schritt flach ist (hohe Entropie), sodass ein offener Schritt mehr behält.
- <em>Top-a</em> verwirft die Tokens unter a × (höchste Wahrscheinlichkeit)². Das Quadrat macht es streng, wenn der Favorit stark ist, und sehr nachsichtig, wenn er schwach ist: Beim flachen Schritt behält es alles, samt Schwanz.`,
  choose: `Keines davon passt für jedes Modell und jeden Text, und man kann sie kombinieren: Eine Sampler-Kette wendet oft erst Top-k, dann Top-p, dann Min-p an. Min-p mit 0,05–0,1 ist heute beliebt, weil es bei flachen Schritten den Schwanz abschneidet, ohne gute Wörter zu treffen. Im Playground kannst du jedes davon in jede Reihenfolge setzen.`,
  q1: 'Wie viele Tokens behält Top-nσ beim flachen Schritt mit n = 1?',
  q2: 'Wie viele Tokens behält Top-a beim flachen Schritt mit a = 0,2?',
  q3: 'Wie viele Tokens behält Min-p beim sicheren Schritt mit Min-p = 0,05?',
  points: `- Top-p behält einen Anteil der Wahrscheinlichkeit und kann ein etwas weniger wahrscheinliches Wort nicht von einem unpassenden unterscheiden.
- Min-p behält die Tokens, die mindestens einen Bruchteil so wahrscheinlich sind wie der Favorit: streng, wenn das Modell sicher ist, nachsichtig, wenn nicht.
- Typical-p, Top-nσ, ε, η und Top-a messen die Form des Schritts jeweils auf ihre Weise; man kann sie hintereinanderschalten.`,
};
