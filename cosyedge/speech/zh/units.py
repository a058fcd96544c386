"""Units after a number, said in Mandarin: `15.1A` → 十五点一安, `5kvar·h` → 五千乏时,
`1.5L/min` → 一点五升每分钟, `2m/s²` → 二米每二次方秒.

A unit is read from its parts (text/symbols.py): the prefix's character before the base's
(千 + 瓦); 平方 and 立方 before a length, 二次方 and 三次方 before other units; the terms of a
product one after another, an hour in a product 时 (千瓦时, 安时) and a minute 分; below a
quotient sign, 每 and the unit (升每分钟, 立方米每小时).
"""

from __future__ import annotations

from cosyedge.speech.text.symbols import Grammar, Term, Unit

PREFIX_WORDS = {
    "p": "皮",
    "n": "纳",
    "µ": "微",
    "μ": "微",
    "u": "微",
    "m": "毫",
    "c": "厘",
    "h": "百",
}
PREFIX_WORDS |= {"k": "千", "M": "兆", "G": "吉", "T": "太"}
WORDS = {
    "m": "米",
    "ft": "英尺",
    "g": "克",
    "t": "吨",
    "s": "秒",
    "min": "分钟",
    "h": "小时",
    "A": "安",
    "V": "伏",
    "W": "瓦",
    "Wh": "瓦时",
    "VA": "伏安",
    "var": "乏",
    "varh": "乏时",
    "Ah": "安时",
    "Pa": "帕",
    "bar": "巴",
    "Hz": "赫兹",
    "Ω": "欧",
    "J": "焦",
    "N": "牛",
    "Nm": "牛米",
    "Nm3": "标准立方米",
    # Gauge and absolute pressure, as plants mark them: 表压, 绝压.
    "barg": "巴表压",
    "bar(g)": "巴表压",
    "bara": "巴绝压",
    "bar(a)": "巴绝压",
    "l": "升",
    "L": "升",
    "lb": "磅",
    "lbf": "磅力",
    "°C": "摄氏度",
    "°F": "华氏度",
    "°": "度",
    "dB": "分贝",
    # Said as shares before the number (百万分之五, alertforms.py); spelled where no number is.
    "ppm": "P P M",
    "ppb": "P P B",
    "psi": "磅每平方英寸",
    "rpm": "转每分",
    # Siemens, for conductivity (µS/cm, μS/cm) (zh-front-9).
    "S": "西门子",
    "r/min": "转每分",
    # Farads, only with a prefix (a capacitor's µF, nF, pF): 3F alone is the third floor.
    "F": "法",
    # Decibel-milliwatts, a radio signal's strength.
    "dBm": "分贝毫瓦",
}
# An hour and a minute inside a product are 时 and 分: 千瓦时, not 千瓦小时.
_IN_PRODUCT = {"h": "时", "min": "分"}
GRAMMAR = Grammar.of(WORDS)
# An S alone (5S: a method) is no unit; with a prefix or a quotient (µS/cm, mS) siemens. An F
# alone is a floor (3F), a letter or Fahrenheit's, never farads.
PATTERN = rf"(?![SF](?![A-Za-z0-9/·⋅*^]))(?:{GRAMMAR.pattern()})"


def term_words(term: Term, in_product: bool) -> str:
    """`km²` → 平方千米, `s²` → 二次方秒, `h` in a product → 时."""
    word = (_IN_PRODUCT.get(term.base) if in_product else None) or WORDS[term.base]
    word = PREFIX_WORDS.get(term.prefix, "") + word
    if term.power == 1:
        return word
    if term.is_length:
        return ("平方" if term.power == 2 else "立方") + word
    return ("二次方" if term.power == 2 else "三次方") + word


def unit_words(unit: Unit) -> str:
    above = "".join(term_words(t, len(unit.above) > 1) for t in unit.above)
    below = "".join(term_words(t, len(unit.below) > 1) for t in unit.below)
    return above + ("每" + below if below else "")


def say_unit(written: str) -> str:
    """The Mandarin words of a unit `PATTERN` matched (empty for none: no unit is said)."""
    unit = GRAMMAR.parse(written) if written else None
    return unit_words(unit) if unit is not None else ""


def is_unit(written: str) -> bool:
    return GRAMMAR.parse(written) is not None
