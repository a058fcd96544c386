"""Mandarin text front end: alert text → normalized Chinese → tone-numbered pinyin."""

# Part of every Mandarin voice's identity: bump it whenever a reading changes (pre-pass rules,
# overrides, sandhi), so audio cached under an old reading is never served again.
FRONT_END_VERSION = "zh-front-12"

# The longest clause the Mandarin voices synthesize in one step (30 syllables, no pause), for
# measuring what one step costs in memory.
REFERENCE_TEXT = "锅炉房二号主蒸汽管道压力正在上升已经超过报警上限请立即检查现"
