"""Normalized Mandarin → tone-numbered pinyin syllables, clause by clause.

pypinyin picks readings from its phrase dictionary (which the voices read from tables on disk,
`readings.py`); where it picks wrong for plant vocabulary an override table here wins. Tone
sandhi (不, 一 before a unit, third tone before third tone) is applied afterwards, because both
voices read the tone they are given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cosyedge.speech import rx
from cosyedge.speech.zh.readings import Readings, pypinyin_readings

# Readings pypinyin gets wrong in alert vocabulary; the longest matching phrase wins.
OVERRIDES: dict[str, tuple[str, ...]] = {
    "一点": ("yi1", "dian3"),  # a decimal point in a reading, not "a little"
    "转每分": ("zhuan4", "mei3", "fen1"),
    "转每分钟": ("zhuan4", "mei3", "fen1", "zhong1"),
    "转": ("zhuan4",),  # alone in alerts it is a revolution count: 两千转
    "转速": ("zhuan4", "su4"),
    "转动": ("zhuan4", "dong4"),
    "转子": ("zhuan4", "zi3"),
    "转向": ("zhuan3", "xiang4"),
    "转换": ("zhuan3", "huan4"),
    "转移": ("zhuan3", "yi2"),
    "转到": ("zhuan3", "dao4"),
    "差压": ("cha1", "ya1"),
    "压差": ("ya1", "cha1"),
    "温差": ("wen1", "cha1"),
    "偏差": ("pian1", "cha1"),
    "误差": ("wu4", "cha1"),
    "相": ("xiang4",),  # phase: 单相, 三相, 缺相, 相电压
    "相同": ("xiang1", "tong2"),
    "相关": ("xiang1", "guan1"),
    "相对": ("xiang1", "dui4"),
    "互相": ("hu4", "xiang1"),
    "给水": ("ji3", "shui3"),
    "给料": ("ji3", "liao4"),
    "供给": ("gong1", "ji3"),
    "杠": ("gang4",),
    "行车": ("hang2", "che1"),  # the overhead crane of a workshop
    "重启": ("chong2", "qi3"),
    "重新": ("chong2", "xin1"),
    "重量": ("zhong4", "liang4"),
    "称重": ("cheng1", "zhong4"),
    "卸载": ("xie4", "zai4"),
    "载荷": ("zai4", "he4"),
    "负荷": ("fu4", "he4"),
    "调节": ("tiao2", "jie2"),
    "调压": ("tiao2", "ya1"),
    "调速": ("tiao2", "su4"),
    "处理": ("chu3", "li3"),
    "处于": ("chu3", "yu2"),
}
_LONGEST = max(len(k) for k in OVERRIDES)

# Capital letters as a Mandarin speaker spells them in a device tag.
LETTERS: dict[str, tuple[str, ...]] = {
    "A": ("ei1",),
    "B": ("bi4",),
    "C": ("xi1",),
    "D": ("di4",),
    "E": ("yi4",),
    "F": ("ai4", "fu5"),
    "G": ("ji4",),
    "H": ("ai4", "qi1"),
    "I": ("ai4",),
    "J": ("jie4",),
    "K": ("kai1",),
    "L": ("ai4", "le5"),
    "M": ("ai4", "mu5"),
    "N": ("en1",),
    "O": ("ou1",),
    "P": ("pi1",),
    "Q": ("qiu1",),
    "R": ("a4", "er3"),
    "S": ("ai4", "si1"),
    "T": ("ti1",),
    "U": ("you1",),
    "V": ("wei1",),
    "W": ("da2", "bu5", "liu1"),
    "X": ("ai4", "ke4", "si1"),
    "Y": ("wai1",),
    "Z": ("zei4",),
}

# Longer clauses are cut into even pieces: the neural voice's decoder takes at most 2048 mel
# frames (about 25 s), and shorter pieces start playing sooner.
MAX_CLAUSE_SYLLABLES = 30
_CLAUSE_BREAK = rx.compile(r"[，。！？；：、,.!?;:\n]+")
_TOKEN = rx.compile(r"[\u4e00-\u9fff]+|[A-Z]")


@dataclass(frozen=True)
class Clause:
    """One stretch of speech between pauses; `text` is kept for logs and errors."""

    text: str
    syllables: tuple[str, ...]


def _han_syllables(run: str, readings: Readings) -> list[str]:
    said = readings(run)
    if len(said) != len(run):  # a character pypinyin has no reading for
        said = [(readings(ch) or [""])[0] for ch in run]
    i = 0
    while i < len(run):
        for size in range(min(_LONGEST, len(run) - i), 0, -1):
            fixed = OVERRIDES.get(run[i : i + size])
            if fixed:
                said[i : i + size] = fixed
                i += size
                break
        else:
            i += 1
    return [r for r in said if r]


def _tone(syllable: str) -> str:
    return syllable[-1] if syllable[-1:].isdigit() else "5"


def _sandhi(chars: list[str], syllables: list[str]) -> list[str]:
    out = list(syllables)
    for i in range(len(out) - 1):
        following = _tone(out[i + 1])
        if chars[i] == "不" and following == "4":
            out[i] = "bu2"
        elif chars[i] == "一" and chars[i + 1] in "百千万亿个次台" and i + 1 < len(chars):
            out[i] = "yi2" if following == "4" else "yi4"
    # Third tone before third tone is said as second: 每小时 mei2 xiao3 shi2.
    for i in range(len(out) - 2, -1, -1):
        if _tone(out[i]) == "3" and _tone(out[i + 1]) == "3":
            out[i] = out[i][:-1] + "2"
    return out


def clause_syllables(text: str, readings: Readings = pypinyin_readings) -> tuple[str, ...]:
    """The syllables of one stretch of normalized text, its characters read by `readings`."""
    syllables: list[str] = []
    for token in _TOKEN.findall(text):
        if token in LETTERS:
            syllables.extend(LETTERS[token])
            continue
        said = _han_syllables(token, readings)
        if len(said) == len(token):
            said = _sandhi(list(token), said)
        syllables.extend(said)
    return tuple(syllables)


def to_clauses(
    normalized: str, syllables_of: Callable[[str], tuple[str, ...]] = clause_syllables
) -> list[Clause]:
    """Split at punctuation, and long stretches evenly; clauses with nothing to say are
    dropped. `syllables_of` reads one stretch between punctuation (a voice's site lexicon
    wraps `clause_syllables`)."""
    clauses = []
    for piece in _CLAUSE_BREAK.split(normalized):
        syllables = syllables_of(piece)
        parts = -(-len(syllables) // MAX_CLAUSE_SYLLABLES)
        size = -(-len(syllables) // parts) if parts else 0
        for start in range(0, len(syllables), size or 1):
            clauses.append(Clause(piece.strip(), syllables[start : start + size]))
    return clauses
