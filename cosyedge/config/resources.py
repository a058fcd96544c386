"""What the daemon may use of the gateway: the phrase cache's directory and bounds (`cache`),
the sound device (`audio`) and the memory ceiling (`memory`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cosyedge.config.fields import default_cache_dir, meta


@dataclass(frozen=True)
class CacheConfig:
    """The phrase cache (`cache`): where it is and how large it may grow."""

    dir: Path = field(
        default_factory=default_cache_dir,
        metadata=meta(
            "the phrase cache; made 0700 (through a symlink too), refused if another user owns it",
            shown="`$CACHE_DIRECTORY` (the service: `/var/cache/cosyedge`), else "
            "`$XDG_CACHE_HOME/cosyedge`, else `~/.cache/cosyedge`",
        ),
    )
    max_mb: float = field(
        default=256.0,
        metadata=meta(
            "size bound in MB; the least recently used unpinned phrases are evicted",
            range=(1, 1_000_000),
        ),
    )
    max_entries: int | None = field(
        default=None,
        metadata=meta("optional bound on the number of phrases", range=(1, 10_000_000)),
    )


@dataclass(frozen=True)
class AudioConfig:
    """The sound device announcements are played on (`audio`)."""

    device: str | None = field(
        default=None,
        metadata=meta(
            "PortAudio output device name (a substring) or index; null: the ALSA default"
        ),
    )
    block_ms: int = field(
        default=100,
        metadata=meta(
            "size of the blocks handed to the device, in milliseconds; a more urgent alert "
            "cuts in between two blocks",
            range=(10, 1000),
        ),
    )


@dataclass(frozen=True)
class MemoryConfig:
    """The resident memory the daemon keeps itself under (`memory`)."""

    ceiling_mb: int = field(
        default=512,
        metadata=meta(
            "resident memory the daemon keeps itself under, in MB; see docs/operations.md, "
            '"Sizing the memory ceiling"',
            range=(128, 65536),
        ),
    )
