"""Mandarin text front end: alert text → normalized Chinese → tone-numbered pinyin."""

# Part of every Mandarin voice's identity: bump it whenever a reading changes (pre-pass rules,
# overrides, sandhi), so audio cached under an old reading is never served again.
FRONT_END_VERSION = "zh-front-1"
