"""How a phrase will be said, without saying it, from the voices' front ends: the phrase
after the site's `say` entries, the runs by language, the lexicon entries that applied in
each, which reading class read each stretch, the words after the rules, what each model would
be given, and the phrase's cache key. `cosyedge read` (ops/read.py) loads the front ends for
it; the operator page (http/page.py) reads with the daemon's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from cosyedge.config.schema import Config
from cosyedge.speech.cache import cache_key
from cosyedge.speech.lang import Run, split_runs, why_unsaid
from cosyedge.speech.lexicon import Applied, say_phrase
from cosyedge.speech.text import sayable
from cosyedge.speech.text.localtime import in_local_time
from cosyedge.speech.text.spans import Explained
from cosyedge.speech.voices import FrontEnd
from cosyedge.speech.voices.mixed import lexicons_of, mixed_identity

# What each engine's model reads, one per model call; the Mandarin engines read pinyin and
# cosyvoice reads normalized text, a clause at a time, through its own tokenizer.
_UNITS = {"hibari": "phonemes", "piper": "phonemes", "cosyvoice": "clauses"}
PIECE = 240  # characters read at a time on the synthesis thread by describe_in_pieces
# Split after a sentence's end, keeping it: ASCII's, and the ideographic full stop and the
# full-width exclamation, question mark and semicolon.
_SENTENCE = re.compile(r"(?<=[.!?;\n\u3002\uff01\uff1f\uff1b])")


def describe(
    config: Config, fronts: Mapping[str, FrontEnd], text: str, lang: str, explain: bool = False
) -> dict[str, Any]:
    """The phrase as the daemon would say it in `lang` (a configured voice language), read
    by `fronts` (each configured voice's, with its language's lexicon); with `explain`, each
    run also tells which reading class read each stretch of it."""
    text = sayable(text)  # bytes that are not UTF-8 are not said
    identities = {other: front.identity for other, front in fronts.items()}
    zone = config.local_time_zone
    identity = mixed_identity(lang, fronts[lang].sample_rate, identities, zone)
    local = in_local_time(text, zone)
    said_text, said = say_phrase(local, lang, lexicons_of(fronts), fronts)
    runs, at = [], 0
    for run in split_runs(said_text, lang, fronts):
        start = said_text.find(run.text, at)
        at = start + len(run.text)
        says = [_entry(s.lang, s.applied) for s in said if start <= s.start < at]
        runs.append(_run(config, fronts, run, says, explain))
    return {
        "text": text,
        "lang": lang,
        "voice": fronts[lang].name,
        "cache_key": cache_key(text, identity, lang),
        "said": said_text,
        "runs": runs,
    }


def describe_in_pieces(
    config: Config,
    fronts: Mapping[str, FrontEnd],
    text: str,
    lang: str,
    each: Callable[[Callable[[], dict[str, Any]]], dict[str, Any]],
) -> dict[str, Any]:
    """`describe(..., explain=True)` of a text of several sentences, sentence by sentence
    (pieces of at most PIECE characters), each piece's reading run by `each` (the daemon's:
    on the synthesis thread between phrases, so an alert waits for one piece at most, never
    for the whole text); the pieces' runs in order. A text of one piece is read whole."""
    pieces = _pieces(text)
    if len(pieces) == 1:
        return each(lambda: describe(config, fronts, text, lang, explain=True))
    read = [each(lambda p=p: describe(config, fronts, p, lang, explain=True)) for p in pieces]
    identities = {other: front.identity for other, front in fronts.items()}
    zone = config.local_time_zone
    identity = mixed_identity(lang, fronts[lang].sample_rate, identities, zone)
    return {
        **read[0],
        "text": sayable(text),
        "cache_key": cache_key(sayable(text), identity, lang),
        "said": " ".join(r["said"] for r in read),
        "runs": [run for r in read for run in r["runs"]],
    }


def _pieces(text: str) -> list[str]:
    """The text cut after its sentences' ends (or, in a sentence longer than PIECE, at a
    space or anywhere) into pieces of at most PIECE characters; none empty."""
    pieces: list[str] = []
    for sentence in _SENTENCE.split(text):
        while len(sentence) > PIECE:
            cut = sentence.rfind(" ", 0, PIECE) + 1 or PIECE
            pieces.append(sentence[:cut])
            sentence = sentence[cut:]
        if pieces and len(pieces[-1]) + len(sentence) <= PIECE:
            pieces[-1] += sentence
        else:
            pieces.append(sentence)
    return [p for p in pieces if p.strip()] or [text]


def _entry(lang: str, applied: Applied) -> dict[str, str]:
    entry = {"entry": f"pronunciations.{lang}[{applied.index}]", "written": applied.written}
    return entry | {applied.form: applied.spoken}


def _run(
    config: Config,
    fronts: Mapping[str, FrontEnd],
    run: Run,
    says: list[dict[str, str]],
    explain: bool,
) -> dict[str, Any]:
    """One run: its voice, the entries that applied in it (`say` ones first, as they applied
    first), which class read each stretch (with `explain`), its words and what its model is
    given."""
    front = fronts.get(run.lang)
    if front is None or not run.said:
        return {"lang": run.lang, "text": run.text, "said": False, "why": why_unsaid(run)}
    reading = front.read(run.text)
    units = _UNITS.get(config.voices[run.lang].engine, "pinyin")
    lexicon = says + [_entry(run.lang, a) for a in reading.applied]
    described = {"lang": run.lang, "text": run.text, "said": True, "voice": reading.voice}
    described["lexicon"] = lexicon
    if explain:
        described["classes"] = classes(front.explain(run.text))
    return described | {"words": reading.words, units: list(reading.units)}


def classes(explained: Explained) -> list[dict[str, str | None]]:
    """Each stretch of the written text in order: the class that read it and what it said at
    that step, or `class: null` where no class read it (a word the voice reads as it is).
    Where a class left a part for another (a range its numbers), both are listed."""
    found = [
        (s.start, s.end, {"class": s.reading, "written": s.written, "said": s.said.strip()})
        for s in explained.spans
    ]
    found += [
        (a, b, {"class": None, "written": explained.written[a:b]}) for a, b in explained.unread()
    ]
    return [item for _, _, item in sorted(found, key=lambda f: (f[0], -f[1]))]
