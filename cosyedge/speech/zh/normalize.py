"""Alert text → normalized Mandarin: the alert pre-pass, then wetext for what is left.

The result holds Chinese characters, Chinese punctuation and single capital letters
separated by spaces (letters of device tags and acronyms, spelled one by one).

wetext's Chinese text normalization changes nothing in a text without a digit (its graphs only
run where one is; otherwise it strips the ends, which the pre-pass has done), and the
pre-pass reads every digit: it is given a text only where a digit is left, which none of the
pre-pass's rules leaves today. Importing wetext loads the graphs of every language and
direction it has (about 38 MB), so this keeps them out of the daemon.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from typing import TYPE_CHECKING

from cosyedge.speech import rx
from cosyedge.speech.text.notations import fold_degrees
from cosyedge.speech.text.spans import Explained, explain, read, rule
from cosyedge.speech.zh.alertforms import RULES
from cosyedge.speech.zh.marks import fold_dashes
from cosyedge.speech.zh.notation import fold_grouping

if TYPE_CHECKING:
    from wetext import Normalizer

_LOOSE_SPACE = rx.compile(
    r"(?<=[\u4e00-\u9fff])\s+(?=[\d\u4e00-\u9fff])|(?<=\d)\s+(?=[\u4e00-\u9fff])"
)
_LATIN = rx.compile(r"[A-Za-z]+")
_PUNCT = str.maketrans(
    {",": "，", ";": "；", ":": "：", "!": "！", "?": "？", "(": "（", ")": "）"}
)
# Signs said as words wherever the rules before left them, longer ones first (!= before =).
# Each is said: the voice has no sound for a sign it is given (≠0 was heard as 零, its
# opposite).
_SYMBOLS = (
    ("°C", "摄氏度"),
    ("°", "度"),
    ("!=", "不等于"),
    ("≠", "不等于"),
    ("≥", "大于等于"),
    ("≧", "大于等于"),
    ("≤", "小于等于"),
    ("≦", "小于等于"),
    ("÷", "除以"),
    # The micro sign (NFKC makes it the Greek mu) before what no unit rule read (μF alone).
    ("μ", "微"),
    # A difference (ΔT, Δp) as engineers say the Greek letter; the voice has no sound for it.
    ("Δ", "德尔塔"),
    ("\u2206", "德尔塔"),
    (">", "大于"),
    ("<", "小于"),
    ("±", "正负"),
    ("~", "到"),
    ("\u2013", "到"),
    ("～", "到"),
    ("×", "乘"),
    ("+", "加"),
    ("=", "等于"),
)
# A text wetext's Chinese normalization acts on (`wetext.utils.should_normalize`): a digit.
_LEFT_DIGIT = rx.compile(r"(?s)\A.*\d.*\Z")


# A vulgar fraction character written onto a whole number (1½): NFKC makes it the digits and
# the fraction slash U+2044, which a space keeps apart from the whole (not eleven halves).
_VULGAR_AFTER_DIGIT = rx.compile(r"(?<=\d)(?=[\u00bc-\u00be\u2150-\u215e])")


# Superscript digits after a number are its power (10⁻⁶, 5²): written with a caret before NFKC
# makes them plain digits and loses the difference (10⁻⁶ would be 10−6). After a letter they
# stay the power of a unit (m², s⁻¹), which NFKC folds into the digits the unit rules know.
_SUPERSCRIPT_DIGITS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
_SUPERSCRIPTS = str.maketrans(_SUPERSCRIPT_DIGITS + "\u207a\u207b", "0123456789+-")
_POWER_AFTER_DIGIT = rx.compile(rf"(?<=\d)[\u207a\u207b]?[{_SUPERSCRIPT_DIGITS}]+")
# Hyphens that are no en dash (‐ ‑ ‒) are the hyphen: a tag's joint, a minus where no
# alphanumeric comes before.
# The ratio sign and the vertical two-dot colon (14∶05, 14︰05) are colons: NFKC would make the
# latter two dots (a range, 十四到零五) and leave the former a sign the voice does not say.
_HYPHENS = str.maketrans(
    {"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2236": ":", "\ufe30": ":"}
)
# Roman numeral characters (Ⅲ号泵, Ⅱ类) are numbers: NFKC would make them Latin letters (III),
# which the voice would spell. A run of them is one numeral (ⅰⅴ is four, not one and five).
_ROMAN_RUN = rx.compile("[\u2160-\u217f]+")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
# A superscript power after a unit's letter (m⁻¹, kg·m⁻³) with a caret, so its minus is no
# hyphen once NFKC has made it ASCII; a positive one NFKC makes the digits units know (m²).
_NEGATIVE_AFTER_LETTER = rx.compile(rf"(?<=[A-Za-zµμΩ])\u207b([{_SUPERSCRIPT_DIGITS}])")


# Chinese numerals written digit by digit with 〇 for zero (二〇二六年, 三〇号泵, 一〇〇%) are a
# number in positions, as Arabic digits are: written so, the rules read it as they read those
# (a year digit by digit, an amount as a cardinal). Without 〇 a run is a number said in words
# (三十, 一百), left as it is; 〇 alone the voice would not say at all.
_POSITIONAL_DIGITS = "〇零一二三四五六七八九"
_POSITIONAL_RUN = rx.compile(f"[{_POSITIONAL_DIGITS}]*〇[{_POSITIONAL_DIGITS}]*")
_AS_DIGITS = str.maketrans(_POSITIONAL_DIGITS, "0" + "0123456789")


def _roman(m: re.Match[str]) -> str:
    """A run of Roman numeral characters as its number: the letters NFKC makes of them read
    as a Roman numeral (small one, small five: IV, 4); a run written no standard way (five,
    five: VV) each character's number, apart; numerals of several letters after one no larger
    (ⅠⅡ) a list."""
    letters = unicodedata.normalize("NFKC", m.group(0)).upper()
    each = [unicodedata.normalize("NFKC", c).upper() for c in m.group(0)]
    values = [_roman_value(c) for c in each]
    # A character of several letters after one no larger (ⅠⅡ段: sections I and II) starts
    # another numeral: no numeral is written that way (Ⅲ is three). A list, 、 between.
    if any(a <= b and len(c) > 1 for a, b, c in zip(values, values[1:], each[1:], strict=False)):
        return "、".join(str(v) for v in values)
    if _to_roman(_roman_value(letters)) == letters:
        return str(_roman_value(letters))
    return " ".join(str(_roman_value(unicodedata.normalize("NFKC", c).upper())) for c in m[0])


def _roman_value(letters: str) -> int:
    """IV → 4, XII → 12: a letter before a larger one is taken away."""
    values = [_ROMAN_VALUES[c] for c in letters]
    return sum(-v if v < w else v for v, w in zip(values, [*values[1:], 0], strict=True))


def _to_roman(n: int) -> str:
    """The standard way to write `n` (1 to 3999) in Roman numerals."""
    said = ""
    for value, letters in zip(
        (1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1),
        ("M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"),
        strict=True,
    ):
        count, n = divmod(n, value)
        said += letters * count
    return said


# A terminal's escape sequence (ANSI colours `\x1b[31m`, a window title), then any other
# control or format character (BEL, a zero-width space, a byte order mark) and any lone
# UTF-16 surrogate (what `json.loads` makes of an escaped half pair): none is text a voice can
# say, and a surrogate cannot be encoded (pypinyin, espeak, a cache key). A line break or a
# tab is a space.
_ESCAPE = rx.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_UNSAID = rx.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_BLANKS = rx.compile(r"[\t\n\r\v\f]")


def printable(text: str) -> str:
    """`text` without escape sequences, control or format characters or lone surrogates."""
    text = _UNSAID.sub("", _ESCAPE.sub("", text))
    text = _BLANKS.sub(" ", text)
    if text.isascii():
        return text
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def _folded(text: str) -> str:
    text = printable(text)
    # NFKC folds full-width digits and letters (１２.５Ａ) into the forms the rules know.
    text = _VULGAR_AFTER_DIGIT.sub(" ", text)
    # A degree sign's look-alikes before C or F (5⁰C, 5ºC): the superscript zero would
    # otherwise be a power (五的零次方).
    text = fold_degrees(text)
    text = _POWER_AFTER_DIGIT.sub(lambda m: "^" + m.group(0).translate(_SUPERSCRIPTS), text)
    text = _NEGATIVE_AFTER_LETTER.sub(lambda m: "^-" + m.group(1).translate(_SUPERSCRIPTS), text)
    text = fold_dashes(fold_grouping(text.translate(_HYPHENS)))
    text = _ROMAN_RUN.sub(_roman, text)
    text = _POSITIONAL_RUN.sub(lambda m: m[0].translate(_AS_DIGITS), text)
    return unicodedata.normalize("NFKC", text).replace("\u00a0", " ")


def _tidy(text: str) -> str:
    text = text.translate(_PUNCT)
    text = re.sub(r"\s*([，。！？；：、（）])\s*", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


_SYMBOL = rx.compile("|".join(re.escape(symbol) for symbol, _ in _SYMBOLS))
_SYMBOL_WORDS = dict(_SYMBOLS)
# Spaces between Chinese and digits carry nothing (压力 1.2 MPa); tags get their own.
_BEFORE = (rule("spacing", _LOOSE_SPACE, ""),)
_AFTER = (
    # A hyphen no rule read joins two parts of one name (v2.1.0-rc1): 杠, as in a tag. Every
    # minus sign has been read by then, with its number.
    rule("hyphen", r"(?<=\S)\s*-\s*(?=[A-Za-z\u4e00-\u9fff])", "杠"),
    # A price per unit after money (0.65元/度, 300美元/吨): 每, as a quotient unit says it.
    rule("money", r"(?<=[元镑])/(?=[\u4e00-\u9fff])", "每"),
    rule("sign", _SYMBOL, lambda m: _SYMBOL_WORDS[m.group(0)]),
    rule("letters spelled", _LATIN, lambda m: " " + " ".join(m.group(0).upper()) + " "),
)


class MandarinNormalizer:
    """Holds the wetext graphs (about 40 MB) once it needs them, so one instance serves every
    phrase."""

    def __init__(self) -> None:
        self._wetext: Normalizer | None = None
        # wetext only ever reads a text with a digit left, and then all of it.
        general = rule("general normalizer", _LEFT_DIGIT, lambda m: self._general().normalize(m[0]))
        self._lines = (*_BEFORE, *RULES, rule("spacing", " {2,}", " "), general, *_AFTER)

    def _general(self) -> Normalizer:
        if self._wetext is None:
            from wetext import Normalizer

            self._wetext = Normalizer(lang="zh", operator="tn")
        return self._wetext

    def normalize(self, text: str, keep: Collection[str] = ()) -> str:
        """The normalized Mandarin a voice reads for `text`. No rule respells a word the site
        lexicon gives pinyin for (those are Chinese words), so `keep` changes nothing."""
        return _tidy(read(self._lines, _folded(text)))

    def explain(self, text: str, keep: Collection[str] = ()) -> Explained:
        """What `normalize` says, with the place each reading class read."""
        explained = explain(self._lines, _folded(text))
        return Explained(_tidy(explained.said), explained.written, explained.spans)
