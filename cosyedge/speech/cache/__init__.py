"""The phrase cache: content-addressed, verified, bounded, warmed ahead and shareable.

- `entry`: the file format (a WAV that carries its own key, text and checksum).
- `index`: the SQLite index (size, checksum, hits, last use, pinned).
- `store`: `PhraseCache`, atomic writes, checks on read, eviction, recovery.
- `values`: a template's declared field values (config validation and expansion).
- `warm`: the phrases templates declare, rendered ahead of time.
- `background`: the daemon's low-priority upkeep thread and the announcer's busy flag.
- `transfer`: export and import between gateways.
- `commands`: `cosyedge warm` and `cosyedge cache stats | export | import`.
"""

from cosyedge.speech.cache.entry import cache_key, normalize_text
from cosyedge.speech.cache.store import CacheEvent, Clip, Limits, PhraseCache

__all__ = ["CacheEvent", "Clip", "Limits", "PhraseCache", "cache_key", "normalize_text"]
