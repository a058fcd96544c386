"""The command line's `cosyedge voice convert-cosyvoice`, run (its arguments are the command
line's, cosyedge.cli: the daemon builds that parser and never loads the pack builders)."""

from __future__ import annotations

import argparse
import logging

log = logging.getLogger("cosyedge")


def convert_cosyvoice(args: argparse.Namespace) -> int:
    """Convert as the arguments say and print the pack's description: exit status 0, 1 for a
    refusal (one line in the log), 2 for arguments that do not go together, 128 + the signal
    for a conversion stopped (nothing written)."""
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
