// Kapitel 12 auf Deutsch.
export default {
  intro: `Bisher war das Modell eine Kiste, die aus einem Text eine Verteilung macht. Um das nächste Token zu schreiben, schaut ein Transformer aber nicht nur auf das letzte Token: Über die <em>Attention</em> blickt er auf alle früheren zurück. Für jedes Token und in jeder Schicht berechnet er zwei kurze Zahlenlisten: einen <em>Schlüssel</em> (Key), der sagt, was das Token zu bieten hat, und einen <em>Wert</em> (Value), den es weitergibt. Das neueste Token vergleicht seine Frage mit allen Schlüsseln und nimmt eine Mischung der Werte der Tokens, die am besten passen.

Der naheliegende Weg, Token 100 zu schreiben, ist also, das Modell noch einmal über alle 100 Tokens laufen zu lassen, und für das nächste über alle 101. Fast die ganze Arbeit wiederholt, was einen Schritt zuvor schon getan wurde.`,
  cache: `## Behalten, was sich nicht ändert

In einem Modell, das von links nach rechts schreibt, schaut ein Token immer nur auf die Tokens davor. Sein Schlüssel und sein Wert ändern sich deshalb nie mehr, sobald sie berechnet sind: Ein späteres Token kann sie nicht verändern. Also werden sie einmal berechnet und im Speicher behalten, eine Zeile Schlüssel und eine Zeile Werte pro Position und Schicht. Dieser Speicher ist der <em>KV-Cache</em>.

Damit lässt jeder neue Schritt das Modell nur über ein einziges Token laufen: Es berechnet dessen Schlüssel und Wert, legt sie in den Cache und liest alle früheren Zeilen zurück, statt sie neu zu berechnen.`,
  tryKv: 'Das kleine Bibelmodell mit seinem Cache als Bild: eine K-Zeile und eine V-Zeile pro Position, die neue hervorgehoben. Drück <strong>{step}</strong> (oder ▶ im Bild) und sieh zu, wie pro Token eine Zeile dazukommt und sich darunter die Arbeit mit und ohne Cache aufsummiert.',
  growth: `Mit dem Cache wächst die Arbeit pro Token kaum, wenn der Text länger wird: Das neue Token liest zwar alle früheren Zeilen, was bei jedem Schritt etwas mehr kostet, aber der Großteil der Arbeit, ein Token durch die Gewichte aller Schichten zu schicken, bleibt gleich. Ohne Cache wiederholt jeder Schritt den ganzen bisherigen Text, die Gesamtarbeit wächst also mit dem <em>Quadrat</em> der Länge. Das Verhältnis der beiden wächst immer weiter: Beim kleinen Transformer ist es {r32} nach 32 Tokens und {r256} nach 256.`,
  q1: 'Wie viel Mal mehr Arbeit leistet der kleine Transformer bei einem Text von 64 Tokens (die des Prompts mitgezählt) ohne KV-Cache als mit ihm? (eine Nachkommastelle)',
  q2: 'Und bei einem Text von 128 Tokens? (eine Nachkommastelle)',
  memory: `## Der Preis: Speicher

Der Cache ist nicht umsonst. Er hält pro Token und Schicht zwei Zeilen Zahlen, so breit wie das Modell. Beim kleinen Modell ist das nichts; bei einem großen Modell mit langem Kontext sind es Gigabytes, manchmal mehr als die Gewichte selbst. Darum braucht ein längeres Kontextfenster mehr Speicher, darum begrenzen Server, wie viele Gespräche gleichzeitig laufen, und darum steckt viel Ingenieursarbeit darin, den Cache zu verkleinern (Schlüssel zwischen Attention-Köpfen teilen, ihn mit weniger Bits speichern).`,
  points: `- Attention lässt jedes neue Token über ihre Schlüssel und Werte auf alle früheren schauen.
- Schlüssel und Werte früherer Tokens ändern sich nie, also berechnet der KV-Cache sie einmal und behält sie.
- Mit Cache wächst die Arbeit etwa proportional zur Länge, ohne ihn mit ihrem Quadrat.
- Der Preis ist Speicher: zwei Zeilen pro Token und Schicht, bei großen Modellen bis zu Gigabytes.`,
};
