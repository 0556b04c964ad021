"""Write hindsight_core/safety/confusables.txt: the characters that look like a Latin letter, and that letter.

    python scripts/confusables.py PATH/TO/confusables.json

The source is Unicode's confusables data (UTS #39, https://www.unicode.org/Public/security/) as packaged in
JSON by the `confusable-homoglyphs` package (MIT; `pip download --no-deps confusable-homoglyphs`, the file is
`confusable_homoglyphs/confusables.json` inside the wheel). Kept: one character, not ASCII, not CJK or full-width,
that NFKC leaves as it is (the normaliser applies NFKC first), confusable with one ASCII letter. Added: the Latin small capitals and other Latin
letters whose Unicode name says which letter they are ("LATIN LETTER SMALL CAPITAL S" is an s), which the
confusables data leaves out. The audit's normaliser (`safety/normalise.py`) reads the table.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "hindsight_core" / "safety" / "confusables.txt"
_NAMED = re.compile(r"^LATIN LETTER (?:SMALL CAPITAL|INVERTED SMALL CAPITAL|REVERSED SMALL CAPITAL) ([A-Z])$")


def skipped(char: str) -> bool:
    code = ord(char)
    return char.isascii() or 0x2E80 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0xFF00 <= code <= 0xFFEF \
        or 0x3000 <= code <= 0x303F


def main(source: Path) -> None:
    data = json.loads(source.read_text(encoding="utf-8"))
    table: dict[str, str] = {}
    for char, group in data.items():
        if len(char) != 1 or skipped(char):
            continue
        letters = [g["c"].lower() for g in group if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalpha()]
        if letters and unicodedata.normalize("NFKC", char) == char:  # what NFKC changes never reaches the table
            table[char] = letters[0]
    for code in range(0x80, 0x20000):
        char = chr(code)
        named = _NAMED.match(unicodedata.name(char, ""))
        if named and char not in table and not skipped(char):
            table[char] = named.group(1).lower()
    lines = [f"{ord(c):04X}\t{t}\t# {unicodedata.name(c, '?')}" for c, t in sorted(table.items())]
    header = ("# Characters that look like a Latin letter, and that letter (written by scripts/confusables.py from\n"
              "# Unicode's confusables data, UTS #39; Unicode License v3, https://www.unicode.org/license.txt).\n")
    OUT.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} characters to {OUT}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
