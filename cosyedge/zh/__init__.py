"""Mandarin text front end: alert text → normalized Chinese → tone-numbered pinyin."""
