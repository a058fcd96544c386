"""A source's phrase for an event: the template of the event's language, its fields filled in.

The placeholders were checked when the configuration was read (plain field names the source
knows, `{name:.Nf}` for a number), so filling in cannot fail: a field the event left empty
says nothing, rather than losing the alarm.
"""

from __future__ import annotations

from collections.abc import Mapping

from cosyedge.config.syntax import parse_text
from cosyedge.intake.alert import clean_text

MAX_CHARS = 1000  # as a template's `max_chars` bounds what arrives


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


def _value(value: object, decimals: int | None) -> str:
    if value is None:
        return ""
    if decimals is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.{decimals}f}"
    return clean_text(str(value))
