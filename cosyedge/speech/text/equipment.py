"""An equipment's number before a value (en-10).

A word naming a plant's equipment (EQUIPMENT_NOUNS: `Pump`, `Line`, `Panel`, `Tank`, in any
case) and an integer after it: the integer is that equipment's number, never the day of a
date, the whole of a mixed number or the first group of a grouped thousand after it. A value
that follows after a space is parted from it by a pause (a comma), as the pause after a name
does (pauses.py): `Pump 3 Dec 2` → "Pump three, December second", `Line 12 01/05/2024` →
"Line twelve, May first twenty twenty four", `Pump 3 3/4 open` → "Pump three, three quarters
open", `Pump 3 1 500 kg` → "Pump three, one thousand five hundred kilograms", `Panel 3
12/2026` → "Panel three, December twenty twenty six" (a slash date written whole, `Panel
3/12/2026`, stays a date).

Only the nouns: a capitalised word before a number is as often a quantity's name, whose
number goes on (`Total 1 500 kg`, `Length 3 1/2 in`, `Report 3 Dec 2026`). A size in inches
after the number (`Valve 1 1/2"`) is the equipment's size, a mixed number.

The number may be marked (en-11): `Pump #3 120 kg`, `Kiln # 7 900 °C`, `VALVE NO. 4 403.0 WH`
→ "Pump number three, one hundred twenty kilograms", "Kiln number seven, nine hundred degrees
Celsius", "VALVE number four, four hundred three point zero watt hours"; `Tank No. 1 failed` →
"Tank number one failed".
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import MONTHS

EQUIPMENT_NOUNS = (
    r"tanks?|bays?|lines?|trains?|units?|pumps?|compressors?|motors?|panels?|valves?|"
    r"fans?|feeders?|cells?|banks?|zones?|rooms?|gates?|cabinets?|silos?|vessels?|reactors?|"
    r"boilers?|kilns?|stations?|skids?|stages?|areas?|halls?|doors?|docks?|conveyors?|"
    r"chillers?|blowers?|heaters?|mixers?|filters?|towers?|dryers?|ovens?|furnaces?|"
    r"turbines?|generators?|hoppers?|drums?|presses|press|cranes?|robots?|machines?"
)
_MONTH = "|".join(name[:3] for name in MONTHS)
# `#`, `# ` or `No.` (in any case) between the noun and its number says "number" (en-11).
_MARK = r"(?:(#\s?|(?i:no|nr)\.\s?))?"
_VALUE_AFTER = rf"\s+(?:\.?\d|(?i:{_MONTH})[a-z]*\.?\s+\d)"
_EQUIPMENT_NUMBER = rx.compile(
    rf"(?<![\w.-])((?i:{EQUIPMENT_NOUNS})\s+){_MARK}(\d{{1,4}})(?![\w.,:/-])"
    rf"(?=({_VALUE_AFTER})?)"
    r"(?!\s+\d{1,2}/\d{1,2}\s?(?:\"|\u2033|''|in\b))"
)


def _pause(m: re.Match[str]) -> str:
    """The noun, "number" for a mark, the number, and a comma before a value after it. After
    "number" four digits are an identifier's, one by one (`Unit no. 4711`, en-9)."""
    said = m[1] + ("number " if m[2] else "") + m[3]
    return said + ("," if m[4] else "")


RULES = (Rule("equipment number", _EQUIPMENT_NUMBER, _pause),)
"""Read before the dates, fractions and groupings that would take the number."""
