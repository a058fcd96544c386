"""The last good configuration, and what a start runs when the site file cannot be run.

Every configuration the daemon has run with (at a start on the site file, and after each
reload it applied) is saved whole as `state_dir/last-good.json`: the configuration's data,
the path of the file it came from, its sha256 and the time. Secrets stay where they are: the
configuration holds only the paths of the password and token files, never what is in them.

A start tries, in this order, the site file, the last good configuration (unless it is the
very configuration that just failed) and the safe core: the embedded defaults, which take the
say topic from the broker and speak it with the default voices on the default device. The
safe core keeps of the configuration it stands in for where the gateway keeps its files and
how it reaches its broker (`KEPT`: `state_dir`, `mqtt`, `cache`): the file's, where the schema
takes them (each section alone, when the file as a whole is refused), else the last good
configuration's, else the embedded defaults', saying which and why. So it hears the site
broker, under the gateway's client id (its queued alerts), and writes only where the file
said, not in the defaults' places of another user or of a local broker.
Whatever is run instead of the file is the fault `config`, with the file's reason.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cosyedge.config.loader import (
    ConfigError,
    build_config,
    config_text,
    load_config,
    readable_sections,
)
from cosyedge.config.schema import Config
from cosyedge.faults import Faults
from cosyedge.observe import Observer
from cosyedge.regular import SITE_RECORD_MAX, load_record

log = logging.getLogger(__name__)

LAST_GOOD_FILE = "last-good.json"
KEPT_AS = "the last good configuration"  # as the fault `state` names it
FILE = "file"  # the origins of what a start runs
LAST_GOOD = "last good"
SAFE_CORE = "safe core"
# What the safe core keeps of the configuration it stands in for: where the gateway keeps its
# files, and how it reaches its broker (state_dir first: it is where the plan looked).
KEPT = ("state_dir", "mqtt", "cache")
# How long a start waits for voices before judging their load (service/loadwait.py): a first
# start takes up to ~20 s on a quiet 2-core gateway, over a minute on a loaded one. From then
# on a load that works (CPU or reading, on its thread) gets VOICES_WINDOW_S more at a time, up
# to VOICES_LIMIT_S, with systemd's start timeout extended to match; one that does not (hung
# storage, a file that never ends) is given up on. The file's and the last good
# configuration's share the first wait; the safe core then has its own, so that READY=1 comes
# within systemd's TimeoutStartSec (120 s) when every load hangs.
VOICES_WAIT_S = 60.0
SAFE_CORE_WAIT_S = 40.0
VOICES_WINDOW_S = 10.0
VOICES_LIMIT_S = 600.0


@dataclass(frozen=True)
class Saved:
    """A configuration the daemon ran with: `sha256` is that of its canonical JSON data."""

    config: Config
    source: str | None  # the file it came from; None: the embedded defaults
    sha256: str
    saved_at: float  # wall clock

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.saved_at))
        return f"the last good configuration (from {self.source or 'embedded defaults'}, {when})"


def config_data(config: Config) -> dict[str, Any]:
    """`config` as JSON data that `build_config` turns back into an equal configuration."""
    return _plain(dataclasses.asdict(config))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def _digest(data: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def save(
    config: Config,
    source: Path | None,
    observer: Observer | None = None,
    faults: Faults | None = None,
) -> None:
    """Keep `config` as the last good one in its `state_dir`, replacing the file whole (a
    crash or a full disk leaves the old one or the new one, and no temporary file). A failure
    is logged and told to `observer` as not kept, never raised: the daemon runs either way
    (`faults`: site `state.write`)."""
    data = config_data(config)
    record = {"source": str(source) if source else None, "sha256": _digest(data)}
    record |= {"saved_at": time.time(), "config": data}
    path = config.state_dir / LAST_GOOD_FILE
    temp = path.with_name(f".{path.name}.tmp")
    told = observer or Observer()
    try:
        (faults or Faults()).check("state.write", str(path))
        _write_synced(temp, json.dumps(record, indent=1))
        os.replace(temp, path)
        _sync_dir(path.parent)
    except OSError as exc:
        log.error("cannot keep the last good configuration in %s: %s", path, exc)
        with contextlib.suppress(OSError):
            temp.unlink()
        told.unkept(KEPT_AS, exc.strerror or str(exc))
    else:
        told.unkept(KEPT_AS, None)


def _write_synced(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(fd, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def _sync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def load(state_dir: Path) -> Saved:
    """The last good configuration kept in `state_dir`, checked again as a file is (the
    machine may have changed since: a package removed, a file gone). Raises ConfigError
    with the reason when there is none or it cannot be run; FileNotFoundError when none was
    ever kept."""
    path = state_dir / LAST_GOOD_FILE
    name = str(path)
    try:
        record = load_record(path, SITE_RECORD_MAX)
        data, source = record["config"], record["source"]
        digest, saved_at = record["sha256"], float(record["saved_at"])
    except FileNotFoundError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError([f"{name}: unreadable: {exc}"]) from None
    if not isinstance(data, dict) or _digest(data) != digest:
        raise ConfigError([f"{name}: damaged: its data does not match its sha256"])
    if source is not None and (not isinstance(source, str) or not source.isprintable()):
        source = repr(source)  # outside the sha256: shown, never a line of its own
    return Saved(build_config(data, name), source, digest, saved_at)


@dataclass(frozen=True)
class Choice:
    """One configuration a start may run: the file's, the last good one or the safe core."""

    config: Config
    origin: str  # FILE, LAST_GOOD or SAFE_CORE
    what: str  # how the fault and `check` name it


@dataclass
class StartPlan:
    """What a start runs, in order of preference, and why the preferred ones were not run.

    `choices` yields the site file's configuration when it loads, then the last good one,
    then the safe core; the caller runs the first it can and reports each failure with
    `failed`. `refusal(choice)` is the fault `config`'s reason for running `choice`: the
    file's problems (each `file: key.path: reason`) and what runs instead; None for the file.
    """

    path: Path | None
    config: Config | None  # the file's; None when it is refused
    state_dir: Path  # where the last good configuration is looked for
    problems: list[str] = field(default_factory=list)
    _voices_by: float | None = None  # the shared wait's end, once asked (`voices_by`)

    @classmethod
    def read(cls, path: Path | None) -> StartPlan:
        """The plan for a start on the file at `path` (None: the embedded defaults)."""
        try:
            config = load_config(path)
        except ConfigError as exc:
            return cls(path, None, salvaged_state_dir(path), list(exc.problems))
        return cls(path, config, config.state_dir)

    def choices(self) -> Iterator[Choice]:
        if self.config is not None:
            yield Choice(self.config, FILE, str(self.path or "the embedded defaults"))
        saved = self._last_good()
        if saved is not None and saved.config != self.config:
            yield Choice(saved.config, LAST_GOOD, saved.describe())
        yield self.safe_core(saved)

    def safe_core(self, saved: Saved | None = None) -> Choice:
        """The embedded defaults with the `KEPT` sections this plan can keep: the file's,
        else those of `saved` (the last good configuration), else the defaults'; its `what`
        names where it keeps its files and its broker, and why a section is not the file's."""
        mine, why = self._file_sections()
        sections: dict[str, Any] = {"state_dir": self.state_dir}
        instead: dict[tuple[str, str], list[str]] = {}  # (whose, why) -> the sections
        for name in KEPT[1:]:
            if name in mine:
                sections[name] = mine[name]
                continue
            whose = "of the last good configuration" if saved else "of the embedded defaults"
            sections[name] = getattr(saved.config if saved else Config(), name)
            instead.setdefault((whose, why[name]), []).append(name)
        config = dataclasses.replace(Config(), **sections)
        return Choice(config, SAFE_CORE, _safe_core_what(config, instead))

    def _file_sections(self) -> tuple[dict[str, Any], dict[str, str]]:
        """The `KEPT` sections (but state_dir, found already) the file gives, and why each of
        the others cannot be taken from it."""
        names = KEPT[1:]
        if self.config is not None:  # the file loaded; running it is what failed
            return {n: getattr(self.config, n) for n in names}, {}
        whole = self.problems[0] if self.problems else "refused"
        try:
            read = readable_sections(config_text(self.path)) if self.path else None
        except ConfigError as exc:
            return {}, dict.fromkeys(names, exc.problems[0])
        if read is None:  # not YAML, or not a mapping: nothing can be kept
            return {}, dict.fromkeys(names, whole)
        data, refused = read
        mine, why = {}, {n: f"{self.path}: {refused[n]}" for n in names if n in refused}
        for name in (n for n in names if n not in refused):
            try:
                mine[name] = getattr(build_config({name: data.get(name, {})}, str(self.path)), name)
            except ConfigError as exc:
                why[name] = exc.problems[0]
        return mine, why

    def voices_by(self, choice: Choice) -> float:
        """The monotonic time `choice`'s voices must be loaded by, asked as it is run: the
        file's and the last good configuration's share VOICES_WAIT_S from the first asking
        on; the safe core, whose built-in voice is another, has SAFE_CORE_WAIT_S of its own."""
        now = time.monotonic()
        if choice.origin == SAFE_CORE:
            return now + SAFE_CORE_WAIT_S
        if self._voices_by is None:
            self._voices_by = now + VOICES_WAIT_S
        return self._voices_by

    def failed(self, choice: Choice, reason: str) -> None:
        """Running `choice` failed for `reason`, which names the key when it can."""
        where = f"{self.path}: " if choice.origin == FILE and self.path else ""
        self.problems.append(f"{where}{reason}" if choice.origin == FILE else reason)

    def refusal(self, choice: Choice) -> str | None:
        if choice.origin == FILE:
            return None
        first = self.problems[0] if self.problems else "refused"
        more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
        return f"{first}{more}; running {choice.what}"

    def _last_good(self) -> Saved | None:
        try:
            return load(self.state_dir)
        except FileNotFoundError:
            return None
        except ConfigError as exc:  # kept, but this machine cannot run it now
            self.problems += [f"last good configuration: {p}" for p in exc.problems]
            return None


def salvaged_state_dir(path: Path | None) -> Path:
    """The `state_dir` a refused file names, where its last good configuration is: read as
    YAML, or from a top-level `state_dir:` line when the YAML itself is broken; else the
    embedded default's."""
    try:
        text = config_text(path) if path else ""
    except ConfigError:
        text = ""
    named = _yaml_state_dir(text) or _line_state_dir(text)
    try:
        return Path(named).expanduser() if named and "\0" not in named else Config().state_dir
    except RuntimeError:  # ~user with no such user
        return Config().state_dir


def _yaml_state_dir(text: str) -> str | None:
    read = readable_sections(text)
    named = read[0].get("state_dir") if read is not None else None
    return named if isinstance(named, str) else None


def _safe_core_what(config: Config, instead: dict[tuple[str, str], list[str]]) -> str:
    """`the embedded defaults' safe core (state_dir DIR, MQTT HOST:PORT; mqtt of the last good
    configuration, not the file's: WHY)`: how the fault and `check` name a safe core."""
    mqtt = config.mqtt
    local = ", a local broker" if mqtt.local_broker else ""
    where = f"state_dir {config.state_dir}, MQTT {mqtt.host}:{mqtt.port}{local}"
    for (whose, why), names in instead.items():
        where += f"; {' and '.join(names)} {whose}, not the file's: {why}"
    return f"the embedded defaults' safe core ({where})"


def _line_state_dir(text: str) -> str | None:
    found = _STATE_DIR_LINE.search(text)
    return found.group(1) if found else None


_STATE_DIR_LINE = re.compile(r"""^state_dir:[ \t]*["']?([^"'#\s]+)""", re.MULTILINE)
