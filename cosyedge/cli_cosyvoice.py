"""The command line's `cosyedge voice convert-cosyvoice`: its arguments and its run (the
conversion itself is imported only when it runs: it needs the CosyVoice conversion venv)."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("cosyedge")


def cosyvoice_parser(voice_sub: argparse._SubParsersAction, with_config: Callable) -> None:
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


def convert_cosyvoice(args: argparse.Namespace) -> int:
    from cosyedge.packs.convert_cosyvoice import ConversionError, SpeakerChoice, convert
    from cosyedge.packs.staging import Stopped

    if args.prompt_wav is not None and not args.prompt_text:
        log.error("--prompt-wav needs --prompt-text, the words said in it")
        return 2
    choice = SpeakerChoice(args.speaker, args.prompt_wav, args.prompt_text)
    try:
        pack = convert(
            args.model_dir, args.out, choice, args.force, args.int8, args.flow_steps, args.guidance
        )
    except ConversionError as exc:
        log.error("%s", exc)
        return 1
    except Stopped as exc:
        log.error("conversion %s; nothing was written", exc)
        return 128 + exc.signum
    print("\n".join(pack.describe()))
    print(
        f"\nTo use it (Mandarin; the same under `en:` for English):\nvoices:\n  zh:\n"
        f"    engine: cosyvoice\n    pack: {args.out}"
    )
    return 0
