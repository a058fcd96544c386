"""Phrases rendered ahead and kept between starts (`speech/ahead.py`): read back only when
whole and current, rendered again otherwise, and never a reason for a start to fail."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

import numpy as np
import pytest
from support import in_place_of, seed_models

from cosyedge.faults import Faults
from cosyedge.observe import Observer
from cosyedge.speech.ahead import AheadFile, Held, rendered_ahead
from cosyedge.speech.fallback import FAULT_PHRASES, FaultPhrases
from cosyedge.speech.kept import KeptFile, SavedDir, problem_with
from cosyedge.speech.render import Rendering

KEYS = ["a" * 64, "b" * 64, "c" * 64]


class Told(Observer):
    def __init__(self) -> None:
        self.told: list[tuple[str, str | None]] = []

    def unkept(self, what: str, problem: str | None) -> None:
        self.told.append((what, problem))


def phrase(i: int) -> tuple[int, np.ndarray]:
    """A rendering as a voice gives it: int16 samples."""
    rng = np.random.default_rng(i)
    pcm = rng.uniform(-0.5, 0.5, 1000 + 17 * i)
    return 22050 + i, (pcm * 32767).astype(np.int16)


class Renders:
    """`render` for `rendered_ahead`, counting its calls; `failing` indexes return None."""

    def __init__(self, failing: frozenset[int] = frozenset()) -> None:
        self.calls: list[int] = []
        self.failing = failing

    def __call__(self, i: int):
        self.calls.append(i)
        return None if i in self.failing else phrase(i)


def same(found, expected) -> bool:
    """The same renderings: rates, samples and their type."""
    return all(
        a is not None and a[0] == b[0] and a[1].dtype == b[1].dtype and np.array_equal(a[1], b[1])
        for a, b in zip(found, expected, strict=True)
    )


def test_a_second_start_reads_what_the_first_rendered(tmp_path: Path):
    saved = SavedDir(tmp_path / "models")
    first = Renders()
    made = rendered_ahead(saved, "faults-en", KEYS, first)
    assert first.calls == [0, 1, 2]
    again = Renders()
    found = rendered_ahead(saved, "faults-en", KEYS, again)
    assert again.calls == []
    assert same(found, made) and same(found, [phrase(i) for i in range(3)])


def test_other_phrases_are_rendered_and_the_earlier_file_removed(tmp_path: Path):
    saved = SavedDir(tmp_path / "models")
    rendered_ahead(saved, "faults-en", KEYS, Renders())
    other = Renders()
    rendered_ahead(saved, "faults-en", [*KEYS[:2], "d" * 64], other)
    assert other.calls == [0, 1, 2]
    files = sorted(p.name for p in saved.path.glob("ahead-faults-en-*"))
    assert len(files) == 2 and files[1] == files[0] + ".json"
    # A family of its own is left alone.
    rendered_ahead(saved, "generic-en", KEYS, Renders())
    assert len(list(saved.path.glob("ahead-*.npz"))) == 2


def test_a_phrase_that_could_not_be_rendered_keeps_nothing(tmp_path: Path):
    saved = SavedDir(tmp_path / "models")
    found = rendered_ahead(saved, "faults-en", KEYS, Renders(failing=frozenset({1})))
    assert found[1] is None and found[0] is not None
    assert not list(saved.path.glob("ahead-*"))
    again = Renders()
    rendered_ahead(saved, "faults-en", KEYS, again)
    assert again.calls == [0, 1, 2]


def damage_flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(data)


def damage_truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:100])


def damage_record(path: Path) -> None:
    KeptFile.sidecar(path).write_text("{not json")


def damage_no_record(path: Path) -> None:
    KeptFile.sidecar(path).unlink()


def forged(arrays: dict[str, np.ndarray], save=np.savez):
    """A file numpy reads, with a record that matches it: what it holds is what is wrong."""

    def damage(path: Path) -> None:
        with path.open("wb") as f:
            save(f, **arrays)
        record = json.loads(KeptFile.sidecar(path).read_text())
        record["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
        KeptFile.sidecar(path).write_text(json.dumps(record))

    return damage


RATES = np.array([22050, 22051, 22052])
PCM = {f"pcm{i}": phrase(i)[1] for i in range(3)}


@pytest.mark.parametrize(
    "damage",
    [
        damage_flip,
        damage_truncate,
        damage_record,
        damage_no_record,
        forged({"rates": RATES, **PCM, "pcm3": PCM["pcm0"]}),  # one phrase too many
        forged({"rates": RATES[:2], "pcm0": PCM["pcm0"], "pcm1": PCM["pcm1"]}),  # too few
        forged({"rates": np.array([22050, 0, 22052]), **PCM}),  # a rate of zero
        forged({"rates": RATES, **PCM, "pcm0": np.full(10, np.nan, np.float32)}),
        forged({"rates": RATES, **PCM, "pcm1": np.zeros((2, 5), np.float32)}),  # not mono
        forged({"rates": RATES, **PCM, "pcm1": np.zeros(5, np.float64)}),  # no voice's samples
        # float32 within ±1: no voice gives it, and the player, taking int16, failed it
        forged({"rates": RATES, **PCM, "pcm1": (PCM["pcm1"] / 32768).astype(np.float32)}),
        forged({"rates": RATES, **PCM, "pcm2": np.zeros(0, np.int16)}),  # silence, not a phrase
        forged({"rates": np.array([22050, 1, 22052]), **PCM}),  # no voice's rate
        forged({"rates": np.array([22050, 22051, 400_000]), **PCM}),
        forged({"rates": RATES, **PCM, "pcm0": np.full(10, 3e38, np.float32)}),  # not a voice
        forged({"rates": RATES, **PCM, "pcm1": np.zeros(22051 * 61, np.int16)}),  # 61 s
        forged({"rates": RATES, **PCM}, save=np.savez_compressed),  # may unpack to any size
        forged({"rates": RATES, "pcm0": PCM["pcm0"], "x": PCM["pcm1"], "pcm2": PCM["pcm2"]}),
        forged({"pcm0": PCM["pcm0"], "pcm1": PCM["pcm1"], "pcm2": PCM["pcm2"], "x": RATES}),
    ],
)
def test_a_kept_file_that_is_not_whole_is_rendered_again_and_replaced(tmp_path: Path, damage):
    saved = SavedDir(tmp_path / "models")
    rendered_ahead(saved, "faults-en", KEYS, Renders())
    damage(AheadFile(saved, "faults-en", tuple(KEYS)).path)
    again = Renders()
    found = rendered_ahead(saved, "faults-en", KEYS, again)
    assert again.calls == [0, 1, 2]
    assert same(found, [phrase(i) for i in range(3)])
    third = Renders()
    assert same(rendered_ahead(saved, "faults-en", KEYS, third), found) and third.calls == []


def test_a_directory_that_cannot_be_written_keeps_nothing_and_says_so(tmp_path: Path):
    told = Told()
    plan = tmp_path / "faults.json"
    plan.write_text(json.dumps({"models.write": {"errno": "ENOSPC", "match": "ahead-"}}))
    saved = SavedDir(tmp_path / "models", Faults(plan), told)
    found = rendered_ahead(saved, "faults-en", KEYS, Renders())
    assert same(found, [phrase(i) for i in range(3)])
    assert (
        told.told
        and told.told[-1][0] == "phrases rendered ahead for faults-en"
        and told.told[-1][1]
    )
    assert not list(saved.path.glob("ahead-*")) and not list(saved.path.glob(".tmp-*"))


def test_a_state_directory_that_is_a_file_renders_every_start(tmp_path: Path):
    (tmp_path / "models").write_text("not a directory")
    saved = SavedDir(tmp_path / "models")
    for _ in range(2):
        r = Renders()
        assert same(rendered_ahead(saved, "faults-en", KEYS, r), [phrase(i) for i in range(3)])
        assert r.calls == [0, 1, 2]


def test_a_restart_reads_the_phrases_and_renders_again_only_what_does_not_verify(
    make_daemon, broker, tmp_path: Path, saved_models: Path
):
    """The daemon's first start kept the English generic and fault phrases (the run's saved
    models are a first start's); a restart reads them, and renders again a file damaged on
    disk, with a warning, and keeps it whole again."""
    state = tmp_path / "state"
    config = f"mqtt:\n  port: {broker.port}\nstate_dir: {state}\n"
    daemon = make_daemon(config, start=False)
    seed_models(state, saved_models)
    kept = {p.name.split("-")[1]: p for p in (state / "models").glob("ahead-*.npz")}
    assert sorted(kept) == ["faults", "generic"]
    generic_made = kept["generic"].stat().st_mtime_ns
    damage_flip(kept["faults"])
    daemon.start()
    log = daemon.log()
    assert f"phrases rendered ahead in {kept['faults']} are not usable" in log
    assert kept["generic"].stat().st_mtime_ns == generic_made  # read, not written again
    for path in kept.values():
        assert (
            problem_with(path, json.loads(KeptFile.sidecar(path).read_text())["made_from"]) is None
        )


def in_place(what: str, record: bool):
    """The kept file (`record`: its record) made a symlink to a FIFO no one writes to, or to
    /dev/zero; the file's record left saying it is whole."""

    def damage(path: Path) -> None:
        in_place_of(KeptFile.sidecar(path) if record else path, what)

    return damage


@pytest.mark.parametrize(
    "damage", [in_place("fifo", False), in_place("zero", False), in_place("fifo", True)]
)
def test_what_is_not_a_regular_file_is_rendered_again_in_time(tmp_path: Path, damage):
    """Neither a FIFO (the open would block) nor /dev/zero (its sha256 would never end) holds
    a start: the phrases are rendered again and kept as a file."""
    saved = SavedDir(tmp_path / "models")
    rendered_ahead(saved, "faults-en", KEYS, Renders())
    kept = AheadFile(saved, "faults-en", tuple(KEYS)).path
    damage(kept)
    found: list = []
    start = threading.Thread(
        target=lambda: found.append(rendered_ahead(saved, "faults-en", KEYS, Renders())),
        daemon=True,  # left blocked or hashing when it fails
    )
    start.start()
    start.join(timeout=20)
    assert found and same(found[0], [phrase(i) for i in range(3)])
    assert kept.is_file() and not kept.is_symlink()
    assert KeptFile.sidecar(kept).is_file() and not KeptFile.sidecar(kept).is_symlink()


def test_one_set_kept_does_not_hide_another_that_could_not_be(tmp_path: Path):
    """The fault phrases not kept (a full disk) stay told as not kept when the generic ones,
    rendered after them, are kept: the status names what every start renders again."""
    told = Told()
    plan = tmp_path / "faults.json"
    plan.write_text(json.dumps({"models.write": {"errno": "ENOSPC", "match": "ahead-faults"}}))
    saved = SavedDir(tmp_path / "models", Faults(plan), told)
    rendered_ahead(saved, "faults-en", KEYS, Renders())
    rendered_ahead(saved, "generic-en", KEYS[:2], Renders())
    last = dict(told.told)
    assert [problem for what, problem in last.items() if "faults-en" in what] != [None]
    assert any(problem for problem in last.values()), told.told


def speechlike(rng: np.random.Generator, n: int) -> np.ndarray:
    """int16 samples that wander as speech does, with the extremes and their wrap-around
    neighbours (32767 next to -32768) among them."""
    walk = np.cumsum(rng.normal(0, 900, n)).clip(-32768, 32767).astype(np.int16)
    walk[rng.integers(0, n, 50)] = 32767
    walk[rng.integers(0, n, 50)] = -32768
    return walk


@pytest.mark.parametrize("n", [1, 2, 3, 24_000, 240_001])
def test_a_held_phrase_gives_back_the_very_samples(n: int):
    samples = speechlike(np.random.default_rng(n), n)
    held = Held.of((22050, samples))
    back = held.samples()
    assert held.sample_rate == 22050 and back.dtype == np.int16
    assert np.array_equal(back, samples)


@pytest.mark.parametrize("samples", [np.zeros(5, np.float32), np.zeros((2, 5), np.int16)])
def test_only_what_a_voice_gives_is_held(samples: np.ndarray):
    with pytest.raises(ValueError, match="mono int16"):
        Held.of((22050, samples))


def test_speech_is_held_in_less_than_its_samples_take():
    samples = speechlike(np.random.default_rng(3), 48_000)
    assert len(Held.of((24000, samples)).packed) < 0.8 * samples.nbytes


def test_the_fault_phrases_are_said_as_they_were_rendered():
    rng = np.random.default_rng(5)
    rendered = {}

    def render(text: str, lang: str) -> Rendering:
        chunks = [speechlike(rng, 7000), speechlike(rng, 3001)]
        rendered[text] = np.concatenate(chunks)
        return Rendering(24000, "synth", iter(chunks))

    phrases = FaultPhrases(render, "en", key=lambda text, lang: text)
    for text in FAULT_PHRASES["en"].values():
        said = phrases.rendering(text)
        assert said is not None and said.sample_rate == 24000
        assert np.array_equal(np.concatenate(list(said.chunks)), rendered[text])
