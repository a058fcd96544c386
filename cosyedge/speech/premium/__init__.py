"""The premium tier: the phrase cache upgrades itself to a natural but slow voice.

A live alert is always said at once by its language's live voice. In the background,
`upgrade.PremiumUpkeep` renders the phrases that matter again with the language's premium
voice (a CosyVoice pack) and puts each in the cache under the premium voice's own identity;
the renderer looks a phrase up under that identity first. The premium voice runs in its own
process (`worker`), stopped the moment an alert is rendered or played.

- `PremiumVoice`: what the daemon knows of a premium voice without running it (its identity
  comes from the pack's manifest, so a gateway may hold premium phrases rendered elsewhere).
- `worker`: the premium voice's process and the daemon's side of it.
- `upgrade`: what is upgraded, in which order, the swap in the cache, the progress counts.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from cosyedge.config.pronunciation import PronunciationConfig
from cosyedge.config.schema import Config
from cosyedge.config.voices import PremiumConfig, VoiceConfig
from cosyedge.speech.cache import cache_key
from cosyedge.speech.voices import lexicon_for

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PremiumVoice:
    """A language's premium voice as its pack's manifest describes it, without running it."""

    lang: str
    config: PremiumConfig
    name: str
    identity: str  # the cache's name for its audio: pack hashes, settings, site lexicon
    sample_rate: int
    pronunciations: tuple[PronunciationConfig, ...]

    def key(self, text: str) -> str:
        return cache_key(text, self.identity, self.lang)

    def has_graphs(self) -> bool:
        """Whether its pack holds any graph: one without is a manifest alone, on purpose."""
        return any(self.config.pack.glob("*.onnx"))

    def cannot_run(self) -> str | None:
        """Why this machine cannot render with the pack (its files are not all here: a
        gateway that only imports premium phrases), None when they are. The files are not
        hashed here: the worker checks them as it loads them."""
        from cosyedge.speech.voices.cosypack import CosyPack, PackError

        try:
            CosyPack.open(self.config.pack, verify=False)
        except PackError as exc:
            return str(exc)
        return None


def premium_voices(
    configs: Mapping[str, VoiceConfig],
    pronunciations: Mapping[str, tuple[PronunciationConfig, ...]] | None = None,
) -> dict[str, PremiumVoice]:
    """The premium voice of each language that names one, known from its pack's manifest
    alone. A manifest that cannot be read is logged and that language has no premium tier:
    its phrases stay with the live voice."""
    found = {}
    for lang, config in configs.items():
        if config.premium is None:
            continue
        entries = (pronunciations or {}).get(lang, ())
        try:
            found[lang] = _describe(lang, config.premium, entries)
        except Exception as exc:  # any fault of the manifest: the live voice goes on alone
            log.error("premium voice for %s unusable, the live one says all: %s", lang, exc)
    return found


def identities(premiums: Mapping[str, PremiumVoice]) -> dict[str, str]:
    """Language → identity of its premium voice: what a renderer looks up first."""
    return {lang: premium.identity for lang, premium in premiums.items()}


def premium_identities(config: Config) -> dict[str, str]:
    """`identities` of the premium voices `config` names."""
    return identities(premium_voices(config.voices, config.pronunciations))


def _describe(
    lang: str, config: PremiumConfig, entries: tuple[PronunciationConfig, ...]
) -> PremiumVoice:
    from cosyedge.speech.voices import cosyvoice

    front = cosyvoice.front_end(lang, config.pack, lexicon_for({lang: entries}, lang))
    return PremiumVoice(lang, config, front.name, front.identity, front.sample_rate, entries)
