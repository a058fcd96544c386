"""What is said when the normal path cannot be: phrases rendered ahead and held in memory.

The generic phrases stand in for an alert whose synthesis is refused or fails (memory, a
broken voice); the fault phrases tell the alarm system's own faults, so they are heard even
when synthesis or the disk is what failed. Neither is kept in the phrase cache, which holds
what alerts and templates say.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping

import numpy as np

from cosyedge.speech.ahead import Held, Pcm, rendered_ahead
from cosyedge.speech.cache import cache_key
from cosyedge.speech.kept import SavedDir
from cosyedge.speech.memory import first_line, is_out_of_memory
from cosyedge.speech.render import Rendering
from cosyedge.speech.voices import Voice
from cosyedge.speech.voices.mixed import said_phrase

log = logging.getLogger(__name__)

# Generic phrases that could not be made (memory short at start, a voice failing) are tried
# again at the next alert of their language once this long has passed.
RETRY_S = 60.0

GENERIC_PHRASES = {
    "en": {
        "critical": "Critical alarm. Check the alarm panel.",
        "high": "High priority alarm. Check the alarm panel.",
        "medium": "New alarm. Check the alarm panel.",
        "low": "New notice on the alarm panel.",
    },
    "zh": {
        "critical": "紧急报警。请查看报警面板。",
        "high": "高优先级报警。请查看报警面板。",
        "medium": "新报警。请查看报警面板。",
        "low": "报警面板上有新通知。",
    },
}

# What is said per fault, by language; `cleared` once a fault is over, `other` for the rest.
FAULT_PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "intake": "Alarm system fault: no alerts from the broker.",
        "journal": "Alarm system fault: alerts cannot be saved.",
        "reports": "Alarm system fault: reports cannot be sent.",
        "mqtt": "Alarm system fault: another gateway uses this gateway's broker name.",
        "connection": "Alarm system fault: the broker cannot be reached.",
        "broker": "Alarm system fault: the broker has dropped alerts.",
        "cache": "Alarm system fault: the phrase cache cannot be written.",
        "state": "Alarm system fault: the state directory is full or cannot be written.",
        "voice": "Alarm system fault: a voice has failed. Alerts are given as a short phrase.",
        "voices": "Alarm system fault: a voice cannot be loaded. Alerts are said with the "
        "default voice.",
        "speech": "Alarm system fault: memory is short. Alerts are given as a short phrase.",
        "recorded": "Alarm system fault: a recorded message cannot be played. Its alerts are "
        "spoken instead.",
        "config": "The alarm system configuration was refused; running the previous configuration.",
        "config-defaults": "The alarm system configuration was refused; running the default "
        "configuration.",
        "standby": "Alarm system fault: the primary gateway has failed. The standby gateway "
        "has taken over.",
        "standby-loop": "Alarm system fault: two gateways each stand by for the other.",
        "sparkplug": "Alarm system fault: alarms from a Sparkplug group may not be heard.",
        "opcua": "Alarm system fault: alarms from the OPC UA server are not received.",
        "other": "Alarm system fault: a part of the alarm system has stopped.",
        "cleared": "Alarm system fault cleared.",
    },
    "zh": {
        "intake": "报警系统故障：收不到代理服务器的报警。",
        "journal": "报警系统故障：报警无法保存。",
        "reports": "报警系统故障：报告无法发送。",
        "mqtt": "报警系统故障：另一台网关使用了本网关的名称。",
        "connection": "报警系统故障：无法连接代理服务器。",
        "broker": "报警系统故障：代理服务器丢弃了报警。",
        "cache": "报警系统故障：语音缓存无法写入。",
        "state": "报警系统故障：状态目录已满或无法写入。",
        "voice": "报警系统故障：语音合成失败。报警将以简短提示播报。",
        "voices": "报警系统故障：语音无法加载。报警改用默认语音播报。",
        "speech": "报警系统故障：内存不足。报警将以简短提示播报。",
        "recorded": "报警系统故障：录音无法播放。相关报警改为语音播报。",
        "config": "报警系统配置被拒绝；正在使用上一个配置。",
        "config-defaults": "报警系统配置被拒绝；正在使用默认配置。",
        "standby": "报警系统故障：主网关已失效。备用网关已接管播报。",
        "standby-loop": "报警系统故障：两台网关互为备用。",
        "sparkplug": "报警系统故障：Sparkplug组的报警可能收不到。",
        "opcua": "报警系统故障：收不到OPC UA服务器的报警。",
        "other": "报警系统故障：报警系统的一部分已停止。",
        "cleared": "报警系统故障已排除。",
    },
}


def fault_text(name: str, lang: str) -> str:
    """The phrase of fault `name`; one of a part's several (`opcua:<source>`) by its kind."""
    phrases = FAULT_PHRASES.get(lang, FAULT_PHRASES["en"])
    return phrases.get(name) or phrases.get(name.partition(":")[0], phrases["other"])


def fault_lang(voices: Mapping[str, object]) -> str:
    """The language faults are said in: English where there is a voice for it."""
    return next((lang for lang in FAULT_PHRASES if lang in voices), next(iter(voices)))


class FaultPhrases:
    """The fault phrases of one language, rendered once at start and held in memory.

    They are synthesized through `render` on the renderer's synthesis thread, kept out of
    the phrase cache (which holds what alerts say): no thread but the synthesis thread runs
    inference, as onnxruntime's per-thread state set up on another is memory an alert may
    need later near a memory limit."""

    def __init__(
        self,
        render: Callable[[str, str], Rendering],
        lang: str,
        key: Callable[[str, str], str],
        saved: SavedDir | None = None,
        also: tuple[str, ...] = (),
    ) -> None:
        """`key` is the phrase cache's key of a text and language (what names its audio);
        `saved`, where the renderings are kept between starts (`ahead.py`); `also`, phrases
        of the site's said as faults (a standby's `takeover_phrase`)."""
        self.lang = lang
        ours = FAULT_PHRASES.get(lang, FAULT_PHRASES["en"]).values()
        texts = list(dict.fromkeys((*ours, *(text for text in also if text))))

        def made(i: int) -> Pcm | None:
            try:
                rendering = render(texts[i], lang)
                return rendering.sample_rate, np.concatenate(list(rendering.chunks))
            except Exception as exc:  # said by synthesis at the time instead
                log.error("cannot render the fault phrase %r ahead: %s", texts[i], exc)
                return None

        keys = [key(text, lang) for text in texts]
        found = rendered_ahead(saved, f"faults-{lang}", keys, made)
        self._held = {text: Held.of(pcm) for text, pcm in zip(texts, found, strict=True) if pcm}

    def rendering(self, text: str) -> Rendering | None:
        held = self._held.get(text)
        if held is None:
            return None
        return Rendering(held.sample_rate, "ahead", iter([held.samples()]))


class FallbackPhrases:
    """The generic phrases, held in memory (about 0.4 MB a language), so they can be said when
    synthesis is refused or fails, whatever state memory or disk are in. They stay out of the
    phrase cache, which holds what alerts and templates say.

    English is rendered at start. Another language is rendered once its voice has spoken an
    alert: its text front end is loaded by then anyway (pypinyin's dictionaries cost Mandarin
    56 MB), so a site that never says Chinese never pays for Chinese generic phrases. A
    phrase the voice fails twice is left out (`unmade` says why, for the fault `voice`): a
    voice that fails now and then still runs, said as another priority's phrase. One that
    can make none raises its error: it cannot speak (its configuration is refused)."""

    def __init__(self, voices: Mapping[str, Voice], saved: SavedDir | None = None) -> None:
        """`saved`: where the renderings are kept between starts (`ahead.py`)."""
        self._voices = dict(voices)
        self._saved = saved
        self._held: dict[tuple[str, str], Held] = {}
        self._tried: dict[str, float] = {}  # lang -> when its phrases were last rendered
        self.unmade: dict[str, Exception] = {}  # lang -> why a phrase of it was not made
        self._render("en" if "en" in voices else next(iter(voices)))

    def prepare(self, lang: str) -> None:
        """Render `lang`'s phrases if that has not been done yet, or again what could not be
        made (memory short, the voice failing) once RETRY_S have passed; never raises."""
        last = self._tried.get(lang)
        due = last is None or (self.missing(lang) and time.monotonic() - last >= RETRY_S)
        if not due or lang not in self._voices:
            return
        try:
            self._render(lang)
        except Exception as exc:
            log.error("cannot render the generic phrases for %r: %s", lang, first_line(exc))

    def missing(self, lang: str) -> list[str]:
        """The priorities of `lang` whose phrases are to be made and are not held."""
        return [p for p in self._phrases(lang) if (lang, p) not in self._held]

    def _phrases(self, lang: str) -> dict[str, str]:
        """What `lang` says, by priority: its own phrases, else English's where nothing is
        held yet (the only voice), else none (another language's are said)."""
        return GENERIC_PHRASES.get(lang) or (GENERIC_PHRASES["en"] if not self._held else {})

    def _render(self, lang: str) -> None:
        self._tried[lang] = time.monotonic()
        voice = self._voices[lang]
        phrases = self._phrases(lang)
        # The site's `say` entries, as for any phrase (the voice applies the rest).
        said = {p: said_phrase(text, lang, {lang: voice}) for p, text in phrases.items()}
        priorities = list(said)

        def made(i: int) -> Pcm | None:
            text = said[priorities[i]]
            try:
                return _twice(voice, text)
            except Exception as exc:  # another priority's phrase is said instead
                log.error("cannot render the phrase %r: %s", text, first_line(exc))
                if not is_out_of_memory(exc):
                    self.unmade[lang] = exc
                return None

        keys = [cache_key(text, voice.identity, lang) for text in said.values()]
        found = rendered_ahead(self._saved, f"generic-{lang}", keys, made)
        if lang in self.unmade and not any(found) and not self._held:  # it cannot speak
            raise self.unmade[lang]
        for priority, pcm in zip(priorities, found, strict=True):
            if pcm is not None:
                self._held[lang, priority] = Held.of(pcm)

    def rendering(self, priority: str, lang: str = "en") -> Rendering:
        """The phrase in the alert's language, else in English, else in any language we have;
        where none of its priority could be made, another priority's, in that order."""
        found = self._found(priority, lang)
        for other in GENERIC_PHRASES["en"]:
            if found is None and (found := self._found(other, lang)) is not None:
                log.warning("no generic phrase for %s alerts: saying the %s one", priority, other)
        if found is None:
            raise RuntimeError(f"no generic phrase for {priority} alerts could be rendered")
        return Rendering(found.sample_rate, "generic", iter([found.samples()]))

    def _found(self, priority: str, lang: str) -> Held | None:
        found = self._held.get((lang, priority)) or self._held.get(("en", priority))
        return found or next((v for (_, p), v in self._held.items() if p == priority), None)


def _twice(voice: Voice, text: str) -> Pcm:
    """`text` as `voice` says it, tried once more if it fails for another reason than memory
    (a model that fails one phrase in many)."""
    try:
        return voice.sample_rate, np.concatenate(list(voice.synthesize(text)))
    except Exception as exc:
        if is_out_of_memory(exc):
            raise
        log.warning("rendering the phrase %r failed, trying again: %s", text, first_line(exc))
    return voice.sample_rate, np.concatenate(list(voice.synthesize(text)))
