// Kapitel 9 auf Deutsch.
export default {
  intro: `Bisher hat jedes Kapitel eine Einstellung für sich betrachtet. Ein echter Sampler wendet mehrere nacheinander an, in einer <em>Kette</em>: Die Bewertungen des Modells gehen in die erste Stufe, jede Stufe ändert einige Bewertungen oder entfernt einige Tokens und reicht den Rest an die nächste weiter. Erst am Ende macht die Softmax aus den Übriggebliebenen Wahrscheinlichkeiten, und die Ziehung wählt eines.

Jede Stufe sieht nur, was die Stufen davor übrig gelassen haben. Dieselben Einstellungen können in anderer Reihenfolge also andere Tokens stehen lassen. Auch die Reihenfolge ist eine Einstellung, obwohl die meisten Programme sie nie zeigen.`,
  presets: `## Zwei verbreitete Reihenfolgen

<strong>Hugging Face</strong> (die Python-Bibliothek, die fast aller Forschungscode nutzt) wendet die Strafen an, dann die Temperatur, dann die Schnitte: Top-k, Top-p, Min-p und die übrigen. Die Schnitte sehen Bewertungen, die die Temperatur schon geschärft oder abgeflacht hat.

<strong>llama.cpp</strong> (die Engine unter Ollama, LM Studio und vielen Handy-Apps) wendet zuerst die Strafen und die Schnitte an und die Temperatur <em>zuletzt</em>. Die Schnitte sehen die eigenen Wahrscheinlichkeiten des Modells; die Temperatur verteilt nur noch die Masse unter den Tokens, die übrig geblieben sind.

Der Ketteneditor des Playgrounds hat beide Reihenfolgen einen Klick entfernt, und du kannst jede Stufe an eine andere Stelle ziehen.`,
  example: `Nimm sechs Wörter mit den Logits 3, 2, 1,5, 1, 0,5 und 0, eine Temperatur von 3 und Top-p 0,7. Für sich gibt das Modell dem ersten Wort {raw1}. Bei T = 3 ist die Verteilung viel flacher: Das erste Wort hat nur noch {hot1}. In der Reihenfolge von Hugging Face kommt Top-p nach dieser Abflachung und braucht {hfKept} Wörter, um 0,7 zu sammeln. In der Reihenfolge von llama.cpp sieht Top-p die steileren Wahrscheinlichkeiten des Modells selbst, und {lcKept} Wörter reichen; danach verteilt die Temperatur die Masse auf diese wenigen.`,
  tryOrders: 'Dasselbe Modell und dieselben zwei Einstellungen in zwei Reihenfolgen: Panel A nutzt die von Hugging Face, Panel B die von llama.cpp. Zähle unter „Nächstes Token“, wie viele Wörter jedes behält. Dann bewege die Temperatur jedes Panels: In B ändern sich die übrigen Wörter nie, nur ihre Anteile.',
  why: `Keine der beiden Reihenfolgen ist falsch; sie beantworten verschiedene Fragen. Kommt die Temperatur zuerst, bringt eine hohe Temperatur wirklich mehr Wörter ins Spiel. Kommt sie zuletzt, entscheidet allein das Modell über die Schnitte, und die Temperatur kann kein Wort zurückholen, das sie entfernt haben – das macht hohe Temperaturen viel sicherer.

Darum kann sich eine Einstellung, die aus einem Programm übernommen wurde, in einem anderen anders verhalten: „T = 1,5, Top-p 0,9“ bedeutet zwei verschiedene Sampler. Wer Einstellungen aufschreibt, sollte die Reihenfolge mit aufschreiben.`,
  q1: 'Temperatur 2 und Top-p 0,8 in der Reihenfolge von llama.cpp: Wie viele der sechs Wörter können noch gewählt werden?',
  q2: 'Temperatur 0,5 und Top-p 0,7 in der Reihenfolge von llama.cpp: Welche Wahrscheinlichkeit hat „{w0}“ am Ende? (zwei Nachkommastellen)',
  points: `- Die Stufen eines Samplers laufen nacheinander; jede sieht nur, was die vorigen übrig gelassen haben.
- Hugging Face wendet die Temperatur vor den Schnitten an, llama.cpp zuletzt.
- Temperatur zuerst: Eine hohe Temperatur lässt mehr Tokens durch die Schnitte. Temperatur zuletzt: Die Schnitte gehören dem Modell, und die Temperatur verteilt nur unter den Übriggebliebenen.
- Einstellungen sind erst mit ihrer Reihenfolge vollständig.`,
};
