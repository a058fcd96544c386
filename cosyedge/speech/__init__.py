"""Stage 5, speech: phrase → PCM, from the phrase `cache` or synthesized by `voices`.

`render` picks cache or synthesis and streams clause by clause; `lang` splits mixed
Chinese/English text and `tags` says which voice reads a text; `text` and `zh` are the
per-language front ends; `memory` keeps the daemon under its ceiling, and `upkeep` keeps it
at each tick; `fallback` holds what is said when the normal path cannot be.
"""
