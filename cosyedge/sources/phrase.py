"""A source's phrase for an event: the template of the event's language, its fields filled in.

The placeholders were checked when the configuration was read (plain field names the source
knows, `{name:.Nf}` for a number), so filling in cannot fail: a field the event left empty
says nothing, rather than losing the alarm. A text field is said as plain text: markup (tags,
entities) and control characters are taken out, and one with no word or number left is empty.
A phrase that still says nothing (every field it names was wordless) is never the end of an
alarm: `worded` takes the first of the fallbacks the voices can say.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Mapping

from cosyedge.config.syntax import parse_text
from cosyedge.intake.alert import clean_text

MAX_CHARS = 1000  # as a template's `max_chars` bounds what arrives
_TAG = re.compile(r"<[^<>]*>")  # an HMI's markup: <b>, <br/>, <font color=red>
# What a template puts between fields (`{SourceName}: {Message}`), left at the start when the
# field before it was empty.
_LEADING = re.compile("^[\\s:;,|/\u2013\u2014-]+")


def phrase(
    templates: Mapping[str, str], fields: Mapping[str, object], locale: str
) -> tuple[str, str]:
    """(language, text): the template of the locale's language (`de-DE` is `de`) where one
    is given, else the first."""
    lang = locale.split("-")[0].lower() if locale else ""
    if lang not in templates:
        lang = next(iter(templates))
    out = []
    for part in parse_text(templates[lang]):
        out.append(part.literal)
        if part.name is not None:
            out.append(_value(fields.get(part.name), part.decimals))
    return lang, clean_text("".join(out))[:MAX_CHARS].strip()


def plain(text: str) -> str:
    """A text field as it may be said: entities decoded, tags and control characters taken
    out; empty when no word or number is left (`<b></b>`, `---`, `\\x07`)."""
    cleaned = clean_text(_TAG.sub(" ", html.unescape(text)))
    return cleaned if has_words(cleaned) else ""


def has_words(text: str) -> bool:
    """Whether a text holds a letter or a digit of any script, not only marks and symbols."""
    return any(c.isalnum() for c in text)


def worded(
    said: tuple[str, str], fallbacks: Iterable[str], sayable: Callable[[str, str], bool]
) -> tuple[str, str]:
    """The phrase `said` (language, text) if the voices can say it (`sayable(text, lang)`),
    else the first fallback they can, in the same language; the last fallback is taken
    whatever `sayable` says of it (an alarm is never dropped for want of words)."""
    lang, text = said
    last = text
    for candidate in (text, *fallbacks):
        last = _LEADING.sub("", clean_text(candidate))[:MAX_CHARS].strip()
        if has_words(last) and sayable(last, lang):
            return lang, last
    return lang, last


def _value(value: object, decimals: int | None) -> str:
    if value is None:
        return ""
    if decimals is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.{decimals}f}"
    return clean_text(str(value))
