"""The phrase cache: content-addressed, verified, bounded, warmed ahead and shareable.

- `entry`: the file format (a WAV that carries its own key, text and checksum).
- `index`: the SQLite index (size, checksum, hits, last use, pinned).
- `store`: `PhraseCache`, checks on read, eviction, recovery.
- `files`: which files are its own, written whole or not at all, in a private directory.
- `warm`: the phrases templates declare, rendered ahead of time.
- `background`: the daemon's low-priority upkeep thread and the announcer's busy flag.
Export and import between gateways, and the `warm` and `cache` commands, are in `ops/`.
"""

from cosyedge.speech.cache.entry import Clip, cache_key, normalize_text
from cosyedge.speech.cache.store import CacheEvent, Limits, PhraseCache

__all__ = ["CacheEvent", "Clip", "Limits", "PhraseCache", "cache_key", "normalize_text"]
