"""`cosyedge read`: how a phrase will be said, without saying it.

Each configured voice's front end is loaded (the site lexicon, the reading rules, grapheme to
phoneme), not its acoustic models, and the phrase is described from them
(speech/reading.py): the phrase after the site's `say` entries, the runs by language, the
lexicon entries that applied in each, the words after the rules, what each model would be
given, and the phrase's cache key.
"""

from __future__ import annotations

import json
from typing import Any

from cosyedge.config.schema import Config
from cosyedge.speech.reading import describe
from cosyedge.speech.voices import FrontEnd, lexicon_for, load_front_end


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
    return describe(config, front_ends(config), text, lang, explain)


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
