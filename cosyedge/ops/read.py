"""`cosyedge read`: how a phrase will be said, without saying it.

Each configured voice's front end is loaded (the site lexicon, the reading rules, grapheme to
phoneme), not its acoustic models, and the phrase is described from them
(speech/reading.py): the phrase after the site's `say` entries, the runs by language, the
lexicon entries that applied in each, the words after the rules, what each model would be
given, and the phrase's cache key.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from cosyedge.config.schema import Config
from cosyedge.config.voices import VoiceConfig, stand_in_voice
from cosyedge.speech.reading import describe
from cosyedge.speech.voices import FrontEnd, lexicon_for, load_front_end
from cosyedge.speech.voices.pack import PackError

log = logging.getLogger(__name__)


def front_ends(config: Config) -> dict[str, FrontEnd]:
    """Every configured voice's front end, with its language's lexicon; for a voice whose
    pack does not verify, its language's default voice's, as a start would speak it (said on
    stderr); PackError where the language has none."""
    models = config.state_dir / "models"
    lexicons = {lang: lexicon_for(config.pronunciations, lang) for lang in config.voices}
    return {
        lang: load_front_end(lang, _as_started(lang, voice), models, lexicons[lang])
        for lang, voice in config.voices.items()
    }


def _as_started(lang: str, voice: VoiceConfig) -> VoiceConfig:
    """`voice`, or the default voice a start speaks `lang` with when its pack does not open
    (files hashed as loading them does: seconds for a full-size CosyVoice pack)."""
    from cosyedge.speech.voices.cosypack import CosyPack
    from cosyedge.speech.voices.zhpack import VoicePack

    if voice.pack is None:
        return voice
    try:
        (CosyPack if voice.engine == "cosyvoice" else VoicePack).open(voice.pack)
    except PackError as exc:
        stand_in = stand_in_voice(lang, voice)
        if stand_in is None:
            raise
        log.warning("voices.%s.pack: %s; read as a start says it: %s", lang, exc, stand_in.engine)
        return stand_in
    return voice


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
