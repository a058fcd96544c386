"""`cosyedge warm` and `cosyedge cache stats | export | import`."""

from __future__ import annotations

import logging
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from cosyedge.config.schema import Config
from cosyedge.intake.templates import declared_phrases
from cosyedge.ops.cache_transfer import ArchiveError, export_cache, import_cache
from cosyedge.ops.owner import as_owner_of
from cosyedge.speech.cache.store import PhraseCache
from cosyedge.speech.cache.warm import Phrase, WarmSummary, warm_one
from cosyedge.speech.premium import PremiumVoice, premium_identities, premium_voices
from cosyedge.speech.premium.upgrade import Candidate, candidates, progress, render_declared
from cosyedge.speech.premium.worker import WorkerFailed

if TYPE_CHECKING:
    from cosyedge.speech.render import Renderer

log = logging.getLogger("cosyedge.speech.cache")


def configured_voices(config: Config) -> dict[str, str]:
    """Identity → name of every voice this configuration speaks with (loads the live ones),
    and of its premium voices (known by their packs' manifests: not loaded, maybe not here)."""
    from cosyedge.speech.voices import load_voices

    voices = load_voices(
        config.voices, config.state_dir / "models", config.pronunciations, config.local_time_zone
    )
    named = {voice.identity: voice.name for voice in voices.values()}
    premiums = premium_voices(config.voices, config.pronunciations)
    return named | {p.identity: f"{p.name} (premium)" for p in premiums.values()}


def live_identities(config: Config) -> dict[str, str]:
    """Each language's live voice identity, from the front ends alone (no model loaded)."""
    from cosyedge.speech.voices import voices_on_demand

    voices = voices_on_demand(
        config.voices, config.state_dir / "models", config.pronunciations, config.local_time_zone
    )
    return {lang: voice.identity for lang, voice in voices.items()}


def warm(config: Config, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # the stdout in force at the call, not at import
    from cosyedge.speech.render import Renderer
    from cosyedge.speech.voices import load_voices

    phrases = declared_phrases(config.templates)
    if not phrases:
        print("nothing to warm: no template has fixed text or declares values", file=out)
        return 0
    voices = load_voices(
        config.voices, config.state_dir / "models", config.pronunciations, config.local_time_zone
    )
    with as_owner_of(config.cache.dir):
        cache = PhraseCache.from_config(config.cache)
        return _warm(phrases, Renderer(voices, cache, premium_identities(config)), out)


def warm_premium(config: Config, out: TextIO | None = None) -> int:
    """Render every declared phrase of each language with a premium voice into the cache."""
    out = out or sys.stdout  # the stdout in force at the call, not at import
    premiums = premium_voices(config.voices, config.pronunciations)
    if not premiums:
        print("no language names a premium voice (voices: LANG: premium:)", file=sys.stderr)
        return 2
    phrases = [p for p in declared_phrases(config.templates) if p.lang in premiums]
    if not phrases:
        print("nothing to warm: no template of a premium language declares its phrases", file=out)
        return 0
    live = live_identities(config)
    with as_owner_of(config.cache.dir):
        cache = PhraseCache.from_config(config.cache)
        try:
            return _warm_premium(cache, premiums, live, phrases, config.state_dir / "models", out)
        finally:
            cache.close()


def _warm_premium(
    cache: PhraseCache,
    premiums: Mapping[str, PremiumVoice],
    live: Mapping[str, str],
    phrases: list[Phrase],
    saved_dir: Path,
    out: TextIO,
) -> int:
    todo = candidates(cache, premiums, live, phrases, frequent=False)
    cache.set_pins([c.premium_key for c in todo] + [c.live_key for c in todo])
    summary = WarmSummary(len(todo))
    progress = Progress(len(todo), out)

    def each(candidate: Candidate, outcome: str) -> None:
        summary.add(outcome)
        progress.show(summary, outcome, candidate.text)

    for lang, premium in premiums.items():
        why = premium.cannot_run()
        mine = [c for c in todo if c.lang == lang]
        if why is not None:
            print(f"premium voice {premium.name}: cannot render here: {why}", file=sys.stderr)
            for candidate in mine:
                each(candidate, "failed")
            continue
        before = summary.done
        try:
            render_declared(cache, premium, mine, saved_dir, each)
        except WorkerFailed as exc:
            print(f"premium voice {premium.name}: {exc}", file=sys.stderr)
            for candidate in mine[summary.done - before :]:
                each(candidate, "failed")
    progress.finish()
    cache.evict()
    print(f"warm --premium: {summary.line()}", file=out)
    return 1 if summary.failed else 0


def _warm(phrases: list[Phrase], renderer: Renderer, out: TextIO) -> int:
    cache = renderer.cache
    cache.set_pins(key for p in phrases for key in renderer.keys(p.text, p.lang))
    summary = WarmSummary(len(phrases))
    progress = Progress(len(phrases), out)
    for phrase in phrases:
        try:
            outcome = warm_one(renderer, phrase)
        except Exception as exc:
            log.error("cannot warm %r: %s", phrase.text, exc)
            outcome = "failed"
        summary.add(outcome)
        progress.show(summary, outcome, phrase.text)
        if cache.upkeep_wanted.is_set():
            cache.evict()
    progress.finish()
    cache.evict()
    renderer.stop(timeout=30)
    cache.close()
    print(f"warm: {summary.line()}", file=out)
    return 1 if summary.failed else 0


def stats(config: Config, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # the stdout in force at the call, not at import
    with as_owner_of(config.cache.dir):
        return _stats(config, out)


def _stats(config: Config, out: TextIO) -> int:
    cache = PhraseCache.from_config(config.cache)
    totals = cache.stats()
    if totals is None:
        print(f"cache {config.cache.dir}: unavailable (see the log above)", file=out)
        return 1
    limit = f"{config.cache.max_mb:g} MB" + (
        f", {config.cache.max_entries} entries" if config.cache.max_entries else ""
    )
    rate = "n/a" if totals.hit_rate is None else f"{100 * totals.hit_rate:.1f}%"
    print(f"cache      {config.cache.dir}", file=out)
    print(f"entries    {totals.entries} ({totals.pinned} pinned)", file=out)
    print(f"size       {totals.bytes / 1e6:.1f} MB (limit {limit})", file=out)
    print(f"hit rate   {rate} ({totals.hits} hits of {totals.lookups} lookups)", file=out)
    print(f"voices     {len(cache.voices())}", file=out)
    premiums = premium_voices(config.voices, config.pronunciations)
    if premiums:
        phrases = declared_phrases(config.templates)
        todo = candidates(cache, premiums, live_identities(config), phrases)
        done = progress(cache, premiums, todo)
        print(
            f"premium    {done.premium} phrases premium, {done.pending} pending, "
            f"{done.failed} failed",
            file=out,
        )
    cache.close()
    return 0


def export(config: Config, dest: Path, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # the stdout in force at the call, not at import
    with as_owner_of(config.cache.dir):  # opened as its owner; read, and `dest` written, as us
        cache = PhraseCache.from_config(config.cache)
    try:
        done = export_cache(cache, dest)
    except OSError as exc:
        print(f"{dest}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 1
    finally:
        cache.close()
    voices = ", ".join(f"{v[:12]} ({n})" for v, n in done.voices.items()) or "none"
    print(
        f"exported {done.entries} entries, {done.bytes / 1e6:.1f} MB, to {dest}; voices: {voices}",
        file=out,
    )
    return 0


def import_(config: Config, src: Path, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # the stdout in force at the call, not at import
    voices = configured_voices(config)
    try:
        archive = src.open("rb")  # by whoever runs the command, before acting as the owner
    except OSError as exc:
        print(f"{src}: cannot read it ({exc.strerror or exc})", file=sys.stderr)
        return 2
    with archive, as_owner_of(config.cache.dir):
        cache = PhraseCache.from_config(config.cache)
        try:
            done = import_cache(cache, src, voices, archive)
        except ArchiveError as exc:
            print(exc, file=sys.stderr)
            return 2
        except OSError as exc:
            print(f"{config.cache.dir}: cannot write the cache: {exc}", file=sys.stderr)
            return 1
        finally:
            cache.close()
    print(f"imported {done.imported} entries, {done.already} already cached", file=out)
    ours = ", ".join(f"{name} {identity[:12]}" for identity, name in voices.items())
    for voice, count in done.refused.items():
        print(
            f"{src}: refused {count} entries made with voice {voice[:12]}: this gateway "
            f"speaks with {ours}; audio from another voice model or settings would be wrong",
            file=sys.stderr,
        )
    for problem in done.damaged:
        print(f"{src}: skipped damaged entry {problem}", file=sys.stderr)
    return 1 if done.refused or done.damaged else 0


class Progress:
    """A bar redrawn in place on a terminal; one plain line per phrase anywhere else."""

    def __init__(self, total: int, out: TextIO) -> None:
        self.total = total
        self.out = out
        self.tty = out.isatty()

    def show(self, summary: WarmSummary, outcome: str, text: str) -> None:
        done = summary.done
        if not self.tty:
            print(f"[{done}/{self.total}] {outcome}: {text}", file=self.out, flush=True)
            return
        width = shutil.get_terminal_size().columns
        filled = 30 * done // self.total
        bar = f"[{'#' * filled}{'.' * (30 - filled)}] {done}/{self.total} "
        counts = f"new {summary.new} cached {summary.cached} failed {summary.failed} "
        line = (bar + counts + text)[: width - 1]
        self.out.write(f"\r{line:<{width - 1}}")
        self.out.flush()

    def finish(self) -> None:
        if self.tty:
            self.out.write("\n")
