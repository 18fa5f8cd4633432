"""The King James Bible as the tiny transformer, its draft and the Bible
bigram learn it: the corpus (printed by Debian's `bible` program), its
normalization, the character vocabulary in llama2.c's tokenizer layout, and
the split by chapter into a train and a validation stream of token ids
(models/MODELS.md, "Preprocessing").
"""

import os
import shutil
import struct
import subprocess
import sys

# ----------------------------------------------------------------------------
# corpus

BIBLE_DATA = "/usr/lib/bible.data"
CORPUS_PACKAGE = "bible-kjv"   # the `bible` program; depends on bible-kjv-text


def read_kjv():
    """The whole KJV as printed by `bible`, one verse per line.

    Returns a list of chapters, each a list of verse strings (no numbers).
    """
    prog = shutil.which("bible") or ("/usr/bin/bible"
                                     if os.path.exists("/usr/bin/bible") else None)
    if prog is None or not os.path.exists(BIBLE_DATA):
        sys.exit(f"corpus missing: apt-get install {CORPUS_PACKAGE} "
                 f"(King James Bible text in {BIBLE_DATA} and the `bible` program)")
    # -l100000: no line wrapping, so every verse is on one line.
    out = subprocess.run([prog, "-l100000", "Gen1:1-Rev22:21"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         check=True, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
                         ).stdout.decode("latin-1")
    chapters = []
    for line in out.split("\n"):
        if not line.strip():
            continue
        if not line.startswith(" "):          # chapter heading, e.g. "Genesis 1"
            chapters.append([])
            continue
        number, _, text = line.strip().partition(" ")
        if not number.isdigit() or not chapters:
            raise SystemExit(f"unexpected line in `bible` output: {line!r}")
        chapters[-1].append(text)
    return chapters


# Printable ASCII (32..126) plus newline: the whole character set.  Every such
# character gets a vocabulary entry, even if the corpus never uses it, so that
# any ASCII prompt encodes to real pieces (run.c's byte fallback, id = byte + 3,
# would otherwise land on an unrelated character of this small vocabulary).
CHARSET = "\n" + "".join(chr(c) for c in range(32, 127))


def normalize(text):
    """Tabs become spaces, CR is dropped, typographic quotes/dashes become
    ASCII, any other character outside printable ASCII + newline is dropped;
    runs of spaces collapse to one and the ends are trimmed."""
    table = {"\t": " ", "\r": None, "\u2018": "'", "\u2019": "'",
             "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
    out = []
    for ch in text:
        ch = table.get(ch, ch)
        if ch is None or ch not in CHARSET:
            continue
        out.append(ch)
    return " ".join("".join(out).split(" ")).strip(" ") if out else ""


# ----------------------------------------------------------------------------
# tokenizer (llama2.c layout: 0 <unk>, 1 <s>, 2 </s>, then one piece per char)

UNK, BOS, EOS = 0, 1, 2
SPECIALS = ["<unk>", "<s>", "</s>"]


def build_vocab():
    pieces = SPECIALS + sorted(CHARSET)
    return pieces, {p: i for i, p in enumerate(pieces)}


def encode_document(text, stoi):
    """What llama2.c run.c's encode(text, bos=1, eos=0) gives for this vocab:
    BOS, the dummy-prefix piece " ", then one piece per character (there are
    no merges: every piece is a single character)."""
    ids = [BOS]
    if text:
        ids.append(stoi[" "])
        ids.extend(stoi[c] for c in text)
    return ids


def write_tokenizer(path, pieces):
    blobs = [p.encode("utf-8") for p in pieces]
    with open(path, "wb") as f:
        f.write(struct.pack("<i", max(len(b) for b in blobs)))
        for b in blobs:
            f.write(struct.pack("<fi", 0.0, len(b)))
            f.write(b)


# ----------------------------------------------------------------------------


# ----------------------------------------------------------------------------
# the streams: one document per verse, split by chapter (every 20th -> val)

def split_streams(chapters, stoi):
    """The train and validation streams of token ids: every verse encoded
    as a document, in canonical order; chapter i goes to validation when
    i % 20 == 19.  Returns train_ids, val_ids, the documents on each side
    [train, val] and the characters of all of them."""
    train_ids, val_ids = [], []
    n_docs = [0, 0]
    n_chars = 0
    for ci, chapter in enumerate(chapters):
        is_val = ci % 20 == 19
        dest = val_ids if is_val else train_ids
        for verse in chapter:
            text = normalize(verse)
            if not text:
                continue
            n_chars += len(text)
            n_docs[is_val] += 1
            dest.extend(encode_document(text, stoi))
    return train_ids, val_ids, n_docs, n_chars
