"""Makes the tables the Debian package ships (`cosyedge/speech/kept.py`), when it is built:
`python -m devtools.tables OUT_DIR`.

They are pure data, the same on every machine and architecture, made from hibari's and
pypinyin's files: hibari's G2P tables of the dialect the package's own voice reads (hibari's
packaged model is US English; a British model's tables are made at its first start) and
pypinyin's reading tables, each under the name and with the record beside it (`made_from`, the
file's sha256) that a start looks for. scripts/package runs this with the development venv,
whose hibari and pypinyin are the package's versions (both come from locks/); a start that
finds them made from other files says so and makes its own.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from cosyedge.speech.kept import KeptFile, SavedDir, record_of
from cosyedge.speech.voices.hibari_tables import SavedTables
from cosyedge.speech.zh import readings


def shipped(out: Path) -> list[KeptFile]:
    """The tables the package ships, as a start would keep them in `out`."""
    saved = SavedDir(out)
    return [SavedTables(saved).kept(british=False), readings.kept(saved)]


def make(kept: KeptFile) -> Path:
    """`kept`'s file made in its directory, its record beside it; its path."""
    path = kept.path
    kept.make(path)
    KeptFile.sidecar(path).write_bytes(record_of(kept.made_from, path))
    return path


def main(args: list[str]) -> None:
    if len(args) != 1:
        raise SystemExit("usage: python -m devtools.tables OUT_DIR")
    out = Path(args[0])
    out.mkdir(parents=True, exist_ok=True)
    for kept in shipped(out):
        started = time.monotonic()
        path = make(kept)
        took = time.monotonic() - started
        print(f"{path.name}: {kept.what} ({kept.detail}) made in {took:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
