"""`cosyedge read`: how a phrase will be said, without saying it.

Each configured voice's front end is loaded (the site lexicon, the reading rules, grapheme to
phoneme), not its acoustic models: the phrase after the site's `say` entries, the runs by
language, the lexicon entries that applied in each, the words after the rules, what each
model would be given, and the phrase's cache key.
"""

from __future__ import annotations

import json
from typing import Any

from cosyedge.config.schema import Config
from cosyedge.speech.cache import cache_key
from cosyedge.speech.lang import Run, split_runs, why_unsaid
from cosyedge.speech.lexicon import Applied, say_phrase
from cosyedge.speech.text import sayable
from cosyedge.speech.text.localtime import in_local_time
from cosyedge.speech.text.spans import Explained
from cosyedge.speech.voices import FrontEnd, lexicon_for, load_front_end
from cosyedge.speech.voices.mixed import lexicons_of, mixed_identity

# What each engine's model reads, one per model call; the Mandarin engines read pinyin and
# cosyvoice reads normalized text, a clause at a time, through its own tokenizer.
_UNITS = {"hibari": "phonemes", "piper": "phonemes", "cosyvoice": "clauses"}


def front_ends(config: Config) -> dict[str, FrontEnd]:
    """Every configured voice's front end, with its language's lexicon."""
    models = config.state_dir / "models"
    return {
        lang: load_front_end(lang, voice, models, lexicon_for(config.pronunciations, lang))
        for lang, voice in config.voices.items()
    }


def read(config: Config, text: str, lang: str, explain: bool = False) -> dict[str, Any]:
    """The phrase as the daemon would say it in `lang` (a configured voice language); with
    `explain`, each run also tells which reading class read each stretch of it."""
    text = sayable(text)  # an argument's bytes that are not UTF-8 are not said
    fronts = front_ends(config)
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


def _entry(lang: str, applied: Applied) -> dict[str, str]:
    entry = {"entry": f"pronunciations.{lang}[{applied.index}]", "written": applied.written}
    return entry | {applied.form: applied.spoken}


def _run(
    config: Config,
    fronts: dict[str, FrontEnd],
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


def as_text(reading: dict[str, Any]) -> str:
    """For people: one block per run, indented under the phrase and its cache key."""
    lines = [f"{reading['lang']} ({reading['voice']}): {reading['text']}"]
    lines.append(f"cache key: {reading['cache_key']}")
    if reading["said"] != reading["text"]:
        lines.append(f"said: {reading['said']}")
    for run in reading["runs"]:
        lines.append(_run_heading(run))
        if not run["said"]:
            continue
        for applied in run["lexicon"]:
            form = next(k for k in ("say", "phonemes", "pinyin") if k in applied)
            spoken = json.dumps(applied[form], ensure_ascii=False)
            lines.append(f"  {applied['entry']}: {applied['written']} -> {form} {spoken}")
        lines += [f"  {_class_line(item)}" for item in run.get("classes", ())]
        lines.append(f"  words: {run['words']}")
        units = next(k for k in ("phonemes", "clauses", "pinyin") if k in run)
        lines += [f"  {units}: {unit}" for unit in run[units]]
    return "\n".join(lines)


def _class_line(item: dict[str, str | None]) -> str:
    written = json.dumps(item["written"], ensure_ascii=False)
    if item["class"] is None:
        return f"{written}: no class (read as written)"
    return f"{written}: {item['class']} -> {json.dumps(item['said'], ensure_ascii=False)}"


def _run_heading(run: dict[str, Any]) -> str:
    if not run["said"]:
        return f"- {run['lang'] or '?'} not said ({run['why']}): {run['text']}"
    return f"- {run['lang']} ({run['voice']}): {run['text']}"
