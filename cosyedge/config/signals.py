"""What a zone plays besides speech: a standard signal tone (`ToneConfig`) and a recorded
message (`RecordedConfig`). Sections of their own, built where a zone names them; the tones
are made by audio/tones.py, the messages read and checked by audio/recorded.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cosyedge.config.fields import meta

# audio/tones.py's tones, by name (tests/test_tones.py checks that the two agree).
TONE_NAMES = ("temporal-three", "slow-whoop", "continuous")
FIXED_FREQUENCIES = ("slow-whoop",)  # its definition gives its frequencies


@dataclass(frozen=True)
class ToneConfig:
    """A standard signal tone (docs/zones.md, "Signal tones and recorded messages")."""

    name: str = field(
        metadata=meta(
            "`temporal-three` (ISO 8201's evacuation signal), `slow-whoop` (500 to 1200 Hz in "
            "3.75 s, then 0.25 s off) or `continuous`",
            choices=TONE_NAMES,
        )
    )
    repeats: int = field(
        default=3,
        metadata=meta(
            "cycles played: 4 s each for temporal-three and slow-whoop, 1 s for continuous",
            range=(1, 100),
        ),
    )
    level_dbfs: float = field(
        default=-12.0,
        metadata=meta("peak level in dBFS (0: full scale)", range=(-40, 0)),
    )
    hz: float | None = field(
        default=None,
        metadata=meta(
            "the tone's frequency; null: 520 Hz for temporal-three (NFPA 72's low-frequency "
            "signal), 970 Hz for continuous; slow-whoop has none to set",
            range=(200, 3000),
        ),
    )
    waveform: str | None = field(
        default=None,
        metadata=meta(
            "null: a square wave for temporal-three, a sine for continuous; slow-whoop has none "
            "to set",
            choices=("sine", "square"),
        ),
    )

    def __post_init__(self) -> None:
        if self.name in FIXED_FREQUENCIES:
            for key in ("hz", "waveform"):
                if getattr(self, key) is not None:
                    raise ValueError(f"{key}: {self.name} sweeps 500 to 1200 Hz as a sine by "
                                     "its definition; leave it out")  # fmt: skip


@dataclass(frozen=True)
class RecordedConfig:
    """A recorded message, a WAV file read and checked once, when the configuration is
    loaded (docs/zones.md, "Signal tones and recorded messages")."""

    file: Path = field(
        metadata=meta(
            "a WAV file: mono, 16- or 24-bit PCM or 32-bit float, 8000-48000 Hz; resampled "
            "to the output's rate when played"
        )
    )
    instead_of_text: bool = field(
        default=False,
        metadata=meta(
            "the message is said in place of the template's phrase, whose text still names "
            "the alert in its reports; false: the phrase follows the message"
        ),
    )
    max_s: float = field(
        default=120.0,
        metadata=meta("a longer message is refused, in seconds", range=(1, 600)),
    )
    min_rms_dbfs: float = field(
        default=-45.0,
        metadata=meta(
            "a message quieter than this, its RMS level over the whole file in dBFS (a full-"
            "scale sine: -3 dBFS), is refused as near-silent",
            range=(-80, -10),
        ),
    )
    max_clipped_percent: float = field(
        default=0.1,
        metadata=meta(
            "a message with more of its samples at full scale, in percent, is refused as clipped",
            range=(0, 100),
        ),
    )
