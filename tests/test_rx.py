"""The reading rules' compiled programs kept between processes (`speech/rx.py`): a pattern
made from a kept program is the one `re` compiles, and a kept file that is not whole, or
not this interpreter's, is never trusted."""

from __future__ import annotations

import hashlib
import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

# The reading front ends, imported here, compile every pattern of the rules through rx.
import cosyedge.speech.lang
import cosyedge.speech.text.english
import cosyedge.speech.zh.normalize  # noqa: F401
from cosyedge.speech import rx

PHRASES = [
    "Pump P-101 tripped at 14:05, pressure 5.5 bar, level 80 % in tank T-3.",
    'Motor M3: 400 V 50 Hz 11 kW, 1450 r/min, DN100/PN16, 3/4" valve at 10^3 Pa.',
    "二号泵压力过高：设定值/实际值 50/52℃，请于14:30前检查。",
    "IP 192.168.1.10, MAC 00:1B:44:11:3A:B7, 2026-12-02T14:05:00Z, 0x1F, SN-4711.",
    "Level 1.2 m (45 %) > 67 Hz; -5.5e3 kg/m³ ± 0.2 mm/s²; Ω 4.7 kΩ; 24V DC.",
]


def used_patterns() -> list[tuple[str, int]]:
    """Every pattern and flags the rules compiled in this process, through rx."""
    return sorted(rx._programs()._used)


def behaves_alike(made: re.Pattern[str], theirs: re.Pattern[str]) -> None:
    assert (made.pattern, made.flags, made.groups) == (theirs.pattern, theirs.flags, theirs.groups)
    assert made.groupindex == theirs.groupindex
    for text in PHRASES:
        ours = [(m.span(), m.groups()) for m in made.finditer(text)]
        assert ours == [(m.span(), m.groups()) for m in theirs.finditer(text)], made.pattern


def test_the_rules_compile_hundreds_of_patterns_through_it():
    assert len(used_patterns()) > 300


def test_every_rule_made_from_its_kept_program_is_the_one_re_compiles(tmp_path: Path):
    path = tmp_path / "rx.bin"
    first = rx.Programs(path)
    for pattern, flags in used_patterns():
        behaves_alike(first.compile(pattern, flags), re.compile(pattern, flags))
    first.write(always=True)
    again = rx.Programs(path)
    for pattern, flags in used_patterns():
        behaves_alike(again.compile(pattern, flags), re.compile(pattern, flags))
    assert len(again) == len(used_patterns()) and not again._new  # each from the file


def kept_file(tmp_path: Path) -> Path:
    path = tmp_path / "rx.bin"
    programs = rx.Programs(path)
    for pattern, flags in used_patterns()[:20]:
        programs.compile(pattern, flags)
    programs.write(always=True)
    return path


def rewritten(path: Path, change) -> None:
    """The kept programs changed by `change`, written with a matching digest: what the file
    says is wrong, not how it was stored."""
    data = path.read_bytes()
    body = marshal.loads(data[len(rx.FORMAT) + 65 :])
    body = marshal.dumps(change(body))
    path.write_bytes(rx.FORMAT + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)


def flipped(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x55
    path.write_bytes(data)


def garbage_code(kept: dict) -> dict:
    """Each program's code replaced by words `_sre` refuses."""
    return {key: (p[0], [99999] * len(p[1]), *p[2:]) for key, p in kept.items()}


@pytest.mark.parametrize(
    "damage",
    [
        flipped,
        lambda p: p.write_bytes(p.read_bytes()[:1000]),
        lambda p: p.write_bytes(b"cosyedge-rx 0\n" + p.read_bytes()[len(rx.FORMAT) :]),
        lambda p: p.write_bytes(b""),
        lambda p: rewritten(p, garbage_code),
        lambda p: rewritten(p, lambda kept: {k: "no program" for k in kept}),
        lambda p: rewritten(p, lambda kept: {k: v[:3] for k, v in kept.items()}),
        lambda p: rewritten(p, lambda kept: [1, 2, 3]),
    ],
)
def test_a_kept_file_that_is_not_whole_is_compiled_anew_and_written_again(tmp_path, damage):
    path = kept_file(tmp_path)
    damage(path)
    programs = rx.Programs(path)
    for pattern, flags in used_patterns()[:20]:
        behaves_alike(programs.compile(pattern, flags), re.compile(pattern, flags))
    assert programs._new
    programs.write(always=True)
    whole = rx.Programs(path)
    for pattern, flags in used_patterns()[:20]:
        whole.compile(pattern, flags)
    assert len(whole) == 20 and not whole._new


def test_a_directory_that_cannot_be_written_keeps_nothing_and_compiles_as_re(tmp_path: Path):
    if os.geteuid() == 0:
        directory = tmp_path / "not-a-directory"
        directory.write_text("a file where the directory would be")
    else:
        directory = tmp_path / "read-only"
        directory.mkdir(mode=0o500)
    programs = rx.Programs(directory / "rx.bin")
    pattern, flags = used_patterns()[0]
    behaves_alike(programs.compile(pattern, flags), re.compile(pattern, flags))
    programs.write(always=True)  # said nowhere, as for bytecode that cannot be written
    assert not list(tmp_path.glob("**/.tmp-*"))


def test_another_interpreters_file_is_never_read(tmp_path: Path):
    name = rx.kept_path(tmp_path).name
    assert f"-{'.'.join(map(str, sys.version_info[:3]))}-" in name
    assert sys.byteorder in name and sys.implementation.cache_tag in name


def test_a_second_process_compiles_none_of_the_rules_again():
    """The package's own file, made by a process that reads text and used by the next."""
    script = (
        "import cosyedge.speech.text.english, cosyedge.speech.zh.normalize\n"
        "from cosyedge.speech import rx\n"
        "p = rx._programs()\n"
        "print(len(p._used), p._new)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    again = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    used, new = again.stdout.split()
    assert int(used) > 300 and new == "False", (first.stdout, again.stdout)
