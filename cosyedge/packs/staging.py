"""A directory written whole or not at all: what the voice pack converters write into."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def staged_dir(out: Path) -> Iterator[Path]:
    """A work directory beside `out` that becomes `out` (replacing what was there) when the
    block ends, and is removed when it raises: `out` is never left half-written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".convert-", dir=out.parent))
    try:
        yield work
        if out.exists():
            shutil.rmtree(out)
        work.rename(out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
