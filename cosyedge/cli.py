"""Command line: `cosyedge run | say | check | quantize`."""

from __future__ import annotations

import argparse
import logging
import sys
import wave
from pathlib import Path

import numpy as np

from cosyedge import __version__
from cosyedge.config import Config, ConfigError, load_config
from cosyedge.logsetup import setup_logging

log = logging.getLogger("cosyedge")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cosyedge", description=__doc__)
    parser.add_argument("--version", action="version", version=f"cosyedge {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def with_config(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument(
            "--config", "-c", type=Path, help="YAML config file (default: embedded defaults)"
        )
        return p

    with_config(sub.add_parser("run", help="run the daemon"))
    say = with_config(sub.add_parser("say", help="speak one phrase through the same path"))
    say.add_argument("text")
    say.add_argument("--out", type=Path, help="write a WAV file instead of playing")
    say.add_argument("--lang", default="en", help="language whose voice speaks (default: en)")
    quantize = sub.add_parser(
        "quantize", help="make an int8 copy of a Piper voice, if it still sounds right"
    )
    quantize.add_argument("model", type=Path, help="a Piper .onnx with its .onnx.json beside it")
    quantize.add_argument("--out", type=Path, help="default: MODEL-NAME.int8.onnx here")
    quantize.add_argument(
        "--force", action="store_true", help="write it even if the distortion check fails"
    )
    with_config(sub.add_parser("check", help="validate a config file and exit"))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "quantize":
        from cosyedge.voices.quantize import run_quantize

        setup_logging("info")
        return run_quantize(args.model, args.out, args.force)
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    setup_logging(config.log_level)
    if args.command == "check":
        print(f"{args.config or '<embedded defaults>'}: OK ({len(config.templates)} templates)")
        return 0
    if args.command == "say":
        return _say(config, args.text, args.out, args.lang)
    from cosyedge.daemon import Daemon

    try:
        return Daemon(config).run()
    except RuntimeError as exc:
        log.error("%s", exc)
        return 1


def _say(config: Config, text: str, out: Path | None, lang: str) -> int:
    from cosyedge.audio import Player
    from cosyedge.cache import PhraseCache
    from cosyedge.render import Renderer
    from cosyedge.voices import load_voice

    if lang not in config.voices:
        known = ", ".join(config.voices)
        print(f"no voice configured for {lang!r} (voices: {known})", file=sys.stderr)
        return 2
    voice = load_voice(lang, config.voices[lang], config.state_dir / "models")
    renderer = Renderer({lang: voice}, PhraseCache(config.cache.dir))
    rendering = renderer.render(text, lang)
    if out is None:
        playback = Player(config.audio.device, config.audio.block_ms).play(
            rendering.sample_rate, rendering.chunks
        )
        return 0 if playback.played else 1
    pcm = np.concatenate(list(rendering.chunks))
    with wave.open(str(out), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rendering.sample_rate)
        w.writeframes(pcm.astype("<i2").tobytes())
    log.info("wrote %s (%.2f s, %s)", out, len(pcm) / rendering.sample_rate, rendering.source)
    return 0
