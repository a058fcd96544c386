"""Mandarin readings of labels and values the number rules would misread (zh-front-8).

- A hyphen between a place or equipment word and a number joins a label, never a sign:
  `北区-3` → 北区杠三, `3号机-2号泵` → 三号机杠二号泵 (was 北区负三); between two numbered units a
  range: `3号-5号泵` → 三号到五号泵. A number with a unit after it is still a value (`北区-3℃`).
"""

from __future__ import annotations

from cosyedge.speech.text.spans import Rule, rule
from cosyedge.speech.zh.units import PATTERN as UNIT

# Words that end a place's or a machine's name: 北区, 3号机, 2期, 1号炉, A线.
LABEL_ENDS = "区号机泵期线段楼层室站库厂车柜箱台组列排座栋房池罐塔炉桥门井路阀釜仓架轴"
# A number with a unit or a percent sign after it, or a range of them, is a value: its minus
# is one.
_VALUE_AFTER = (
    r"\d+(?:\.\d+)?\s*(?:[-~～\u2013]\s*-?\d+(?:\.\d+)?\s*)?"
    rf"(?:(?:{UNIT})(?![A-Za-z0-9²³])|[%％‰℃])"
)


RULES: tuple[Rule, ...] = (
    rule("equipment number", r"(?<=\d号)\s*-\s*(?=\d+号)", "到"),
    rule("label", rf"(?<=[{LABEL_ENDS}])\s*-\s*(?=\d)(?!{_VALUE_AFTER})", "杠"),
)
