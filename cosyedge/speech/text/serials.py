"""Serial and batch numbers of letters and digits (en-9).

- After a word that names an identifier (SN, S/N, serial, part no., order, PO, batch, lot,
  asset, tag, WO, ticket, ...; fields.ID_WORDS), a token of letters and digits with a digit
  and a letter in it, perhaps in hyphenated groups: character by character, a letter its
  capital, a digit its word, "dash" for a hyphen (silent after letters, as a tag's): `S/N:
  A1B2C3D4` → "S N: eh one B two C three D four", `batch b-20261202-03` → "batch B two zero
  two six one two zero two dash zero three", `batch 2611-A` → "batch two six one one dash
  eh"; never an amount, a range or a word the voice guesses. A device tag after the word
  (`Tag: PT-101`) stays the tag rule's, and a number with its unit (`batch 500kg`) an
  amount.
- Alone, capitals and digits in turn, two runs of each at least, the first a capital
  (`A1B2C3D4`, `AB12CD34`, `L1L2L3`, `H2SO4`), perhaps with hyphenated groups after: the same,
  character by character. One run of each is a device tag (`PT101A`, english.py).
"""

from __future__ import annotations

import itertools
import re

from cosyedge.speech import rx
from cosyedge.speech.text import units
from cosyedge.speech.text.fields import ID_WORDS, id_word
from cosyedge.speech.text.hexforms import spelled
from cosyedge.speech.text.spans import Rule

# A token's end: not inside a word, a longer token or a path (a sentence's mark may follow).
_END = r"(?![\w-]|[.,:/]\w)"
# A device tag after the word (`Tag: PT-101`) is the tag rule's: "one oh one".
_TAG = r"[A-Z]{1,4}-?\d{1,6}[A-Z]{0,2}(?:-\d{1,6})*"
CUED_CODE = rx.compile(
    rf"(?<![\w./-])(?<!\d,)((?i:{ID_WORDS}))(\s*[:#]\s*|\s+)"
    rf"(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])(?!{_TAG}{_END})"
    r"([A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)" + _END
)
# A number with a unit of two characters or more written on (`500kg`): an amount, not an
# identifier; a lone letter after digits (`order 12A`) is the identifier's.
_QUANTITY = rx.compile(rf"\d+(?=\D{{2}})(?:{units.GRAMMAR.pattern()})")
INTERLEAVED = rx.compile(r"(?<![\w.-])([A-Z]+\d+[A-Z]+\d[A-Z0-9]*(?:-[A-Z0-9]+)*)" + _END)


def say_cue(word: str, between: str) -> str:
    """An identifier's word as said, then what parts it from the identifier: `S/N`, `: ` →
    "S N: ", `WO`, `#` → "W O number "."""
    return id_word(word) + (" number " if "#" in between else between.rstrip() + " ")


def say_groups(written: str) -> str:
    """`B-20261202-03` → "B two zero two six one two zero two dash zero three": each group
    character by character, "dash" between groups, but the hyphen after a group of letters
    alone silent, as a device tag's is."""
    groups = written.split("-")
    said = spelled(groups[0])
    for before, group in itertools.pairwise(groups):
        silent = before.isalpha() and group[0].isdigit()
        said += (" " if silent else " dash ") + spelled(group)
    return said


def _cued_code(m: re.Match[str]) -> str:
    """The word, then the identifier's groups; a quantity after the word (`batch 500kg`) is
    left for the unit rules."""
    if _QUANTITY.fullmatch(m[3]):
        return m.group(0)
    return say_cue(m[1], m[2]) + say_groups(m[3])


RULES = (
    Rule("identifier", CUED_CODE, _cued_code),
    Rule("identifier", INTERLEAVED, lambda m: say_groups(m[1])),
)
"""Read after the order numbers and dated identifiers, before the device tags and ranges."""
