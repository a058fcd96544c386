"""The reading rules' compiled programs kept between processes (`speech/rx.py`): a pattern
made from a kept program is the one `re` compiles, and a kept file that is not whole, or
not this interpreter's, is never trusted."""

from __future__ import annotations

import hashlib
import importlib
import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import in_place_of

from cosyedge.speech import rx

# The reading front ends: importing them compiles every pattern of the rules through rx.
FRONT_ENDS = ["cosyedge.speech.lang", "cosyedge.speech.text.english"]
FRONT_ENDS += ["cosyedge.speech.zh.normalize"]

PHRASES = [
    "Pump P-101 tripped at 14:05, pressure 5.5 bar, level 80 % in tank T-3.",
    'Motor M3: 400 V 50 Hz 11 kW, 1450 r/min, DN100/PN16, 3/4" valve at 10^3 Pa.',
    "二号泵压力过高：设定值/实际值 50/52℃，请于14:30前检查。",
    "IP 192.168.1.10, MAC 00:1B:44:11:3A:B7, 2026-12-02T14:05:00Z, 0x1F, SN-4711.",
    "Level 1.2 m (45 %) > 67 Hz; -5.5e3 kg/m³ ± 0.2 mm/s²; Ω 4.7 kΩ; 24V DC.",
]


def patterns_in(value) -> list[re.Pattern[str]]:
    """The compiled patterns `value` is or holds: a pattern, a rule, a list or tuple of them."""
    if isinstance(value, re.Pattern):
        return [value] if isinstance(value.pattern, str) else []
    if isinstance(getattr(value, "pattern", None), re.Pattern):
        return patterns_in(value.pattern)
    if isinstance(value, list | tuple):
        return [p for item in value for p in patterns_in(item)]
    return []


@pytest.fixture(scope="module")
def rules() -> list[tuple[str, int]]:
    """The rules' patterns, with their flags, as the reading modules hold them."""
    for module in FRONT_ENDS:
        importlib.import_module(module)
    found = {
        (p.pattern, p.flags)
        for name, module in list(sys.modules.items())
        if name.startswith("cosyedge.speech.")
        for value in vars(module).values()
        for p in patterns_in(value)
    }
    return sorted(found)


def behaves_alike(made: re.Pattern[str], theirs: re.Pattern[str]) -> None:
    assert (made.pattern, made.flags, made.groups) == (theirs.pattern, theirs.flags, theirs.groups)
    assert made.groupindex == theirs.groupindex
    for text in PHRASES:
        ours = [(m.span(), m.groups()) for m in made.finditer(text)]
        assert ours == [(m.span(), m.groups()) for m in theirs.finditer(text)], made.pattern


def test_the_rules_compile_hundreds_of_patterns_through_it(rules):
    assert len(rules) > 300


def test_every_rule_made_from_its_kept_program_is_the_one_re_compiles(tmp_path: Path, rules):
    path = tmp_path / "rx.bin"
    first = rx.Programs(path)
    for pattern, flags in rules:
        behaves_alike(first.compile(pattern, flags), re.compile(pattern, flags))
    assert len(first.new) == len(rules)
    first.write(always=True)
    again = rx.Programs(path)
    for pattern, flags in rules:
        behaves_alike(again.compile(pattern, flags), re.compile(pattern, flags))
    assert not again.new  # each made from the file


def kept_file(tmp_path: Path, rules) -> Path:
    path = tmp_path / "rx.bin"
    programs = rx.Programs(path)
    for pattern, flags in rules[:20]:
        programs.compile(pattern, flags)
    programs.write(always=True)
    return path


def index_of(path: Path) -> tuple[dict, int, bytes]:
    data = path.read_bytes()
    head = len(rx.FORMAT) + 64 + 8
    size = int.from_bytes(data[head - 8 : head], "little")
    return marshal.loads(data[head : head + size]), head + size, data


def rewritten(path: Path, change) -> None:
    """The index changed by `change`, written with a matching digest: what the file says is
    wrong, not how it was stored."""
    index, start, data = index_of(path)
    body = marshal.dumps(change(index))
    digest = hashlib.sha256(body).hexdigest().encode()
    path.write_bytes(rx.FORMAT + digest + len(body).to_bytes(8, "little") + body + data[start:])


def flip_at(fraction: float):
    def damage(path: Path) -> None:
        data = bytearray(path.read_bytes())
        data[int(len(data) * fraction)] ^= 0x55
        path.write_bytes(data)

    return damage


def programs_words(path: Path, change) -> None:
    """The programs' words changed by `change` (bytes -> bytes), the index left as it is."""
    _, start, data = index_of(path)
    path.write_bytes(data[:start] + change(data[start:]))


def shifted(kept: dict) -> dict:
    """Each entry pointing one word further: the CRC no longer matches what is read."""
    return {k: (v[0], v[1] + 1, *v[2:]) for k, v in kept.items()}


def garbage_with_crc(path: Path) -> None:
    """Words `_sre` refuses, with CRCs that match them: the last check is `_sre`'s own."""
    import zlib

    index, start, data = index_of(path)
    words = bytes([0xFF, 0xFF, 0x00, 0x00]) * ((len(data) - start) // 4)
    index = {k: (*v[:3], zlib.crc32(words[4 * v[1] : 4 * (v[1] + v[2])]), *v[4:])
             for k, v in index.items()}  # fmt: skip
    body = marshal.dumps(index)
    digest = hashlib.sha256(body).hexdigest().encode()
    path.write_bytes(rx.FORMAT + digest + len(body).to_bytes(8, "little") + body + words)


@pytest.mark.parametrize(
    "damage",
    [
        flip_at(0.001),  # in the index
        flip_at(0.5),  # in a program
        flip_at(0.999),
        lambda p: p.write_bytes(p.read_bytes()[:1000]),
        lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),
        lambda p: p.write_bytes(b"cosyedge-rx 1\n" + p.read_bytes()[len(rx.FORMAT) :]),
        lambda p: p.write_bytes(b""),
        lambda p: programs_words(p, lambda w: w[4:]),
        lambda p: rewritten(p, shifted),
        lambda p: rewritten(p, lambda kept: {k: "no entry" for k in kept}),
        lambda p: rewritten(p, lambda kept: {k: v[:3] for k, v in kept.items()}),
        lambda p: rewritten(p, lambda kept: {k: (*v[:4], "x", {}, ()) for k, v in kept.items()}),
        lambda p: rewritten(p, lambda kept: [1, 2, 3]),
        garbage_with_crc,
    ],
)
def test_a_kept_file_that_is_not_whole_is_compiled_anew_and_written_again(tmp_path, damage, rules):
    path = kept_file(tmp_path, rules)
    damage(path)
    programs = rx.Programs(path)
    for pattern, flags in rules[:20]:
        behaves_alike(programs.compile(pattern, flags), re.compile(pattern, flags))
    assert programs.new
    programs.write(always=True)
    whole = rx.Programs(path)
    for pattern, flags in rules[:20]:
        behaves_alike(whole.compile(pattern, flags), re.compile(pattern, flags))
    assert not whole.new


def test_a_directory_that_cannot_be_written_keeps_nothing_and_compiles_as_re(tmp_path, rules):
    directory = tmp_path / "not-a-directory"
    directory.write_text("a file where the directory would be")
    programs = rx.Programs(directory / "rx.bin")
    pattern, flags = rules[0]
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
        "print(len(p.used), len(p.new))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    again = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    used, new = again.stdout.split()
    assert int(used) > 200 and new == "0", (first.stdout, again.stdout)


@pytest.mark.parametrize("what", ["fifo", "zero", "directory"])
def test_what_is_not_a_regular_file_is_compiled_past_neither_hanging_nor_growing(
    tmp_path: Path, what: str
):
    """A process whose kept file is a FIFO would block in its imports, one that is /dev/zero
    would read it whole at exit: run apart, with its address space bounded, and in time."""
    path = tmp_path / "rx.bin"
    in_place_of(path, what)
    script = (
        "import re, resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from pathlib import Path\n"
        "from cosyedge.speech import rx\n"
        "p = rx.Programs(Path(sys.argv[1]))\n"
        "assert p.compile(r'(\\d+) ?bar', 0).findall('5 bar, 6bar') == ['5', '6']\n"
        "p.write(always=True)\n"
        "print('done')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0 and run.stdout == "done\n", run.stderr[-500:]


def test_what_a_writer_killed_mid_write_left_is_removed_by_the_next_write(tmp_path, rules):
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    path = tmp_path / "rx.bin"
    left = tmp_path / f".tmp-{gone.pid}-rx.bin"
    left.write_bytes(b"half a file" * 1000)
    running = tmp_path / f".tmp-{os.getpid()}-rx.bin.other"  # not this file's: left alone
    running.write_bytes(b"x")
    kept_file(tmp_path, rules)
    assert not left.exists() and running.exists() and path.exists()
