"""hibari voices: hibari's own G2P (lexicon + OOV net, no espeak) and its vocoder's signal
(`vocoder.py`) around sessions made by our factory.

`hibari.Hibari()` builds its sessions with its own options and would fetch any voice but the
bundled one from the network, so it is not used: this module takes the pieces it needs (G2P,
phoneme vocabulary) and only ever opens files inside the installed package, unless the config
names another model file.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cosyedge.config.voices import SessionConfig, VoiceConfig
from cosyedge.speech import rx
from cosyedge.speech.allocator import HandBack
from cosyedge.speech.kept import SavedDir
from cosyedge.speech.lexicon import NO_LEXICON, Applied, Lexicon
from cosyedge.speech.text import Normalizer
from cosyedge.speech.voices import FrontedVoice, FrontEnd, identity_of, to_int16
from cosyedge.speech.voices.clauses import even_pieces
from cosyedge.speech.voices.session import make_session, model_digest, with_engine_defaults
from cosyedge.speech.voices.vocoder import Vocoder

if TYPE_CHECKING:
    import onnxruntime as ort

# Bump when our processing of the model output changes how a phrase sounds, so cached audio
# is not reused. Not bumped for the vocoder's noise drawn another way (`polar_noise`): a fresh
# draw of the same law for every phrase either way, so what is cached is what is made now.
ENGINE_VERSION = "hibari-5"
SAMPLE_RATE = 24000
# One inference's working memory grows with its input, about 4 MB per second of audio (in
# process, above the loaded voice: 40 phonemes 12 MB, 60 15 MB, 113 30 MB). Longer sentences
# are cut at word boundaries into the fewest steps of at most this many phonemes (about 4 s of
# speech). Measured in the proving ground's flood, steps handed back: peak 157-159 MB with
# whole clauses (up to 120 characters), 153-156 MB at 64; 48 gave 145 MB but cut a third of
# the shared alert set's clauses instead of a fifth.
MAX_PHONEMES = 64
PRIMARY_STRESS = "\u02c8"  # as hibari's G2P marks it, on every content word
PAUSE_MARKS = ",.;:!?"  # kept by hibari's G2P at the end of a word's phonemes
# At a cut, as long as the voice's own pause at a phrase break within one step (0.35 s), not
# the 0.75 s of silence two steps' ends would make.
CUT_LEAD_S = 0.12
CUT_TAIL_S = 0.23
FRAME = SAMPLE_RATE // 100
SILENCE = 0.02
# Read one after another as one thing (a value, a tag): a step is not cut between them.
SPELLED_WORDS = (
    "zero oh one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty "
    "ninety hundred thousand million billion point minus " + " ".join("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
).split()
# Without onnxruntime's arena this small model costs no more CPU and peaks 7 MB lower.
MEMORY_ARENA = False
# Without the arena the steps' tensors come from malloc, and glibc keeps what they leave (its
# mmap threshold rises past them), fragmented: over a flood of long alerts RSS rose 40-50 MB
# above the loaded voice and stayed there. Handed back after every step, the next step faulted
# the pages in again (a third more CPU per phrase); so the free heap is handed back once it
# is this far above its floor, chosen by measurement (docs/architecture.md, "Memory and CPU"):
# at 32 MB the flood of long alerts peaked 2-11 MB lower than at 48, for no CPU the bench
# could tell apart.
STEP_SLACK_MB = 32.0


# hibari's package is found, its registry and version read, without importing it: its import
# loads scipy and urllib (0.1 s of CPU), which a phrase said from the cache does not need.
PACKAGE = "hibari"


def _assets() -> Path:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"No module named {PACKAGE!r}", name=PACKAGE)
    return Path(spec.origin).parent / "assets"


def _registry() -> dict[str, dict[str, Any]]:
    """hibari's voices by name (its `hibari.voices.VOICES`, read from the same file)."""
    return dict(json.loads((_assets() / "voices.json").read_text(encoding="utf-8")))


def hibari_version() -> str:
    """hibari's `__version__`, read from its `__init__.py` (importlib.metadata would cost as
    much as the import saved); from hibari itself where that file does not state it plainly."""
    init = _assets().parent / "__init__.py"
    found = re.search(r"^__version__ = [\"']([^\"']+)[\"']$", init.read_text("utf-8"), re.M)
    if found:
        return found.group(1)
    import hibari

    return str(hibari.__version__)


def packaged_model() -> Path:
    """The voice that ships inside hibari's package (`hibari.voices.DEFAULT`): the one entry
    of its registry whose file is there; asked of hibari itself if that is not one."""
    assets = _assets()  # found once: each search walks sys.path
    shipped = [e["file"] for e in _registry().values() if (assets / e["file"]).is_file()]
    if len(shipped) == 1:
        return assets / shipped[0]
    from hibari import voices

    return assets / voices.VOICES[voices.DEFAULT]["file"]


def _registry_entry(digest: str) -> tuple[str, dict[str, Any]] | None:
    for name, entry in _registry().items():
        if entry.get("sha256") == digest:
            return name, entry
    return None


def _markup(found: Applied) -> str:
    # hibari's G2P takes `[word](/phonemes/)` as a word with its phonemes given.
    return f"[{found.written}](/{found.spoken}/)"


@dataclass(frozen=True)
class HibariG2P:
    """hibari's G2P (lexicons, tagger and the small OOV net), site lexicon entries given to it
    inline."""

    g2p: Any  # hibari.g2p.G2P
    lock: threading.Lock = field(default_factory=threading.Lock)
    spelled: frozenset[str] = frozenset()  # the phonemes of SPELLED_WORDS, as this G2P reads them

    @classmethod
    def load(cls, british: bool, settings: SessionConfig, saved_dir: SavedDir | None) -> HibariG2P:
        """With `saved_dir`, the lexicons and tagger are read from tables kept there
        (`hibari_tables.py`), made now if needed, not at an alert."""
        from hibari.g2p.oov import OOV

        from cosyedge.speech.voices.hibari_tables import load_g2p

        oov_model = _assets() / ("oov_gb.onnx" if british else "oov.onnx")
        oov = OOV(str(oov_model), session=make_session(oov_model, settings, saved_dir))
        g2p = load_g2p(british, oov, saved_dir)
        return cls(g2p, spelled=frozenset(g2p(word) for word in SPELLED_WORDS))

    def units(self, words: str, lexicon: Lexicon, applied: list[Applied]) -> Iterator[str]:
        """A step per sentence, as hibari's own runtime takes them, cut past MAX_PHONEMES at
        its most natural pauses (`cut_phonemes`). Not a step per clause: every inference has
        a cost of its own besides its audio (about 3.5 ms here), and steps per clause made a
        third more of them for the same speech (docs/measurements.md, "Memory and CPU of a
        phrase"); the first step, the wait before anything is heard, stays bounded by
        MAX_PHONEMES (a few tens of milliseconds)."""
        yield from self._phonemes(lexicon.mark(words, _markup, applied))

    def _phonemes(self, text: str) -> list[str]:
        from hibari import Hibari

        pieces = []
        for sentence in Hibari.split_sentences(text):
            with self.lock:  # hibari's G2P is not documented as thread-safe
                phonemes = self.g2p(unjoined(unnumbered(sentence)))
            pieces += cut_phonemes(phonemes, MAX_PHONEMES, self.spelled)
        return pieces


# hibari's G2P tries the ways of merging the pieces of a word joined by hyphens, slashes or
# colons: its time grows as a power of their number (40 pieces take a second, 100 ten). A
# word of more pieces than a compound or a code has is given to it as those pieces, apart.
MAX_JOINTS = 6
_JOINT = rx.compile(r"[-/:]+")
# The same holds for the runs of letters, digits and marks inside a word (en-9): `1e1e1e…`
# is 2 pieces a pair, and 200 characters of it took a second, 800 over a minute. No word a
# reading leaves (a name, a code spelled, a hash's pieces) has more than a few of them.
MAX_RUNS = 16
_RUN = rx.compile(r"[^\W\d_]+|\d+|[^\w\s]|_+")


# A site lexicon's entry as `_markup` writes it, which hibari's G2P reads as one word.
_MARKUP = rx.compile(r"\[[^\]]+\]\(/[^)]*/\)")


# hibari's G2P reads a Roman numeral after Phase, Level, Class, Section, Stage and the like as a
# number ("Phase C" "phase one hundred") and puts "zero" before any word beginning with I, V,
# X, L or C after them ("Level Low" "level zero low"). The text rules read the numerals meant
# as numbers already, so what is left there is a letter or a word: a word joiner before it,
# which is neither said nor a space, keeps hibari's rule from taking it.
WORD_JOINER = "\u2060"
_RUN_OF_SPACES = rx.compile(r"\s+")


def unnumbered(sentence: str) -> str:
    """`sentence` with a word joiner before each letter or word hibari's G2P would read as a
    Roman numeral (its spaces made single first, as hibari makes them)."""
    rules = importlib.import_module("hibari.g2p.normalize")  # hibari's own, as its G2P reads
    sentence = _RUN_OF_SPACES.sub(" ", sentence)
    for rule in (rules.RE_ROMAN_C, rules.RE_ROMAN_O):
        sentence = rule.sub(lambda m: f"{m.group(1)} {WORD_JOINER}{m.group(2)}", sentence)
    return sentence


def unjoined(sentence: str) -> str:
    """`sentence` with each word of more than MAX_JOINTS joints (`one-one-one-…`) or more
    than MAX_RUNS runs of letters, digits and marks (`onee1e1e…`, `((((one))))`) given as its
    pieces; a site lexicon's markup (`[word](/phonemes/)`) is left whole."""
    pieces, at = [], 0
    for m in _MARKUP.finditer(sentence):
        pieces += [_unjoined_words(sentence[at : m.start()]), m.group(0)]
        at = m.end()
    return "".join([*pieces, _unjoined_words(sentence[at:])])


def _unjoined_words(text: str) -> str:
    """`text` (no markup in it) with its long joined words given as their pieces."""
    words = text.split(" ")
    for i, word in enumerate(words):
        if len(_JOINT.findall(word)) > MAX_JOINTS:
            word = " ".join(_JOINT.sub(" ", word).split())
        if len(runs := _RUN.findall(word)) > MAX_RUNS:
            word = " ".join(runs)
        words[i] = word
    return " ".join(words)


def cut_phonemes(phonemes: str, limit: int, spelled: frozenset[str] = frozenset()) -> list[str]:
    """`phonemes` in as few pieces of at most `limit` characters as cutting only at spaces
    (word boundaries) allows. Each cut falls where a pause sounds most natural (`_pause_rank`)
    among the spaces near an equal share of what is left, so no piece is a stray word or two;
    `spelled`: the phonemes of words read one after another as one thing (digits, number
    words, letters), not to be cut between. A word longer than `limit` (a run of spelled
    capitals, a hash, a URL) is cut inside into even pieces, so no step is longer than `limit`
    whatever the text: a step's memory grows with its length. Nothing is lost but the spaces
    cut at. Time in proportion to the length (en-9): each place is counted from once."""
    text = phonemes.strip()
    needed = _Needed(text, limit)
    pieces, at = [], 0
    while len(text) - at > limit:
        cut = _cut_at(text, at, limit, spelled, needed)
        if cut is None:
            break
        pieces.append(text[at:cut].rstrip())
        at = _SPACES.match(text, cut + 1).end()  # type: ignore[union-attr]
    rest = text[at:]
    pieces = [*pieces, rest] if rest else pieces
    return [part for piece in pieces for part in even_pieces(piece, limit)]


_SPACES = rx.compile(r"\s*")


def _cut_at(text: str, at: int, limit: int, spelled: frozenset[str], needed: _Needed) -> int | None:
    """Where in `text` to cut what is left from `at`: a space's index; None if it has none."""
    count = needed(at)
    fits = [
        i
        for i in range(at + 1, min(len(text), at + limit + 1))
        if text[i] == " " and needed(_SPACES.match(text, i + 1).end()) < count  # type: ignore[union-attr]
    ]
    if not fits:  # the first word is longer than a step
        cut = text.find(" ", at)
        return cut if cut > at else None
    share = (len(text) - at) / count
    near = [i for i in fits if abs(i - at - share) < share / 2] or fits
    return min(near, key=lambda i: (_pause_rank(text, at, i, spelled), abs(i - at - share)))


def _pause_rank(phonemes: str, at: int, space: int, spelled: frozenset[str]) -> int:
    """How natural a pause at `space` is, in what is left from `at`: 0 after punctuation, 1
    before a function word (no primary stress: the, of, at, is, and), 2 between other words,
    3 inside a number or tag."""
    before = phonemes[max(phonemes.rfind(" ", at, space) + 1, at) : space]
    end = phonemes.find(" ", space + 1)
    after = phonemes[space + 1 : end if end >= 0 else len(phonemes)]
    if before and before[-1] in PAUSE_MARKS:
        return 0
    if before in spelled:
        return 3 if after.rstrip(PAUSE_MARKS) in spelled else 2
    return 1 if PRIMARY_STRESS not in after else 2


@dataclass
class _Needed:
    """How many pieces cutting `text` (no space at its end) from a place at the last space
    within `limit` makes: the fewest possible. Each place's count is kept, so counting from
    every space of a long text takes time in proportion to its length, not its square."""

    text: str
    limit: int
    counts: dict[int, int] = field(default_factory=dict)

    def __call__(self, start: int) -> int:
        text, limit, counts = self.text, self.limit, self.counts
        chain: list[int] = []
        at = start
        while at not in counts:
            if len(text) - at <= limit:
                counts[at] = 1 if at < len(text) else 0
                break
            cut = text.rfind(" ", at, at + limit + 1)
            if cut <= at:
                cut = text.find(" ", at)
                if cut < 0:
                    counts[at] = 1
                    break
            chain.append(at)
            at = _SPACES.match(text, cut + 1).end()  # type: ignore[union-attr]
        total = counts[at]
        for place in reversed(chain):
            total += 1
            counts[place] = total
        return counts[start]


@dataclass
class G2POnFirstUse:
    """A `HibariG2P` loaded when it is first asked for phonemes."""

    load: Callable[[], HibariG2P]
    lock: threading.Lock = field(default_factory=threading.Lock)
    loaded: HibariG2P | None = None

    def units(self, words: str, lexicon: Lexicon, applied: list[Applied]) -> Iterator[str]:
        with self.lock:
            if self.loaded is None:
                self.loaded = self.load()
        return self.loaded.units(words, lexicon, applied)


def front_end(
    config: VoiceConfig,
    normalizer: Normalizer,
    lexicon: Lexicon,
    saved_dir: SavedDir | None = None,
    digest: str | None = None,
) -> FrontEnd:
    """The voice's front end alone: no acoustic model is loaded, and its G2P only when it is
    first asked for phonemes (its identity needs none of them). `digest`: the model's, when
    the caller has it already."""
    model = config.model or packaged_model()
    digest = digest or model_digest(model, saved_dir)
    known = _registry_entry(digest)
    name, british = (known[0], bool(known[1]["british"])) if known else (model.stem, False)
    settings = with_engine_defaults(config.session, memory_arena=MEMORY_ARENA)
    g2p = G2POnFirstUse(functools.partial(HibariG2P.load, british, settings, saved_dir))
    return FrontEnd(
        name=f"hibari-{name}",
        sample_rate=SAMPLE_RATE,
        base_identity=identity_of(ENGINE_VERSION, digest, hibari_version(), normalizer.version),
        lexicon=lexicon,
        normalize=normalizer.normalize,
        explainer=normalizer.explain,
        units_of=g2p.units,
    )


@dataclass
class HibariVoice(FrontedVoice):
    """hibari's model behind its front end: a step per sentence, cut past MAX_PHONEMES, the
    heap handed back once it grows STEP_SLACK_MB past its floor."""

    front: FrontEnd
    session: ort.InferenceSession
    _vocab: dict[str, int]
    _hand_back: HandBack = field(default_factory=lambda: HandBack(STEP_SLACK_MB))
    _vocoder: Vocoder = field(default_factory=Vocoder)

    @classmethod
    def load(
        cls,
        config: VoiceConfig,
        normalizer: Normalizer,
        saved_dir: SavedDir | None = None,
        lexicon: Lexicon = NO_LEXICON,
    ) -> HibariVoice:
        model = config.model or packaged_model()
        digest = model_digest(model, saved_dir)
        settings = with_engine_defaults(config.session, memory_arena=MEMORY_ARENA)
        voice = cls(
            front=front_end(config, normalizer, lexicon, saved_dir, digest),
            session=make_session(model, settings, saved_dir, digest),
            _vocab=json.loads((_assets() / "vocab.json").read_text(encoding="utf-8")),
        )
        # Sizes the session's arena, and loads the G2P now rather than at the first alert.
        for _ in voice.synthesize("Ready."):
            pass
        return voice

    def with_lexicon(self, lexicon: Lexicon) -> HibariVoice:
        return replace(self, front=self.front.with_lexicon(lexicon))

    def synthesize(self, text: str) -> Iterator[np.ndarray]:
        """One chunk per step (`MAX_PHONEMES` at most); what the steps leave to the allocator
        is handed back before a chunk is yielded once it is STEP_SLACK_MB above its floor.
        Where a sentence was cut, the pause is made as short as the voice's own within a step
        (`shorten_pause`)."""
        rng = np.random.default_rng()
        continues = False  # the step goes on with the sentence the one before was cut from
        for phonemes, following in _with_next(self.front.units(text)):
            pcm = self._step(phonemes, rng)
            if pcm is None:
                continue
            cut = following is not None and phonemes[-1] not in PAUSE_MARKS
            pcm = shorten_pause(pcm, lead=continues, tail=cut)
            continues = cut
            self._hand_back()
            yield pcm

    def _step(self, phonemes: str, rng: np.random.Generator) -> np.ndarray | None:
        """One inference and the vocoder (`vocoder.py`: hibari's signal, in less CPU and
        memory); None when nothing in `phonemes` is in the model's vocabulary. Nothing the
        step allocated outlives it but the returned samples."""
        ids = [0, *(self._vocab[c] for c in phonemes if c in self._vocab), 0]
        if len(ids) < 3:
            return None
        inputs = {"ids": np.asarray([ids], np.int64), "speed": np.asarray([1.0], np.float32)}
        outputs = self.session.run(None, inputs)
        return to_int16(self._vocoder.synth(*(o[0] for o in outputs), rng=rng))


def _with_next(items: Iterator[str]) -> Iterator[tuple[str, str | None]]:
    """Each item with the one after it (None after the last)."""
    previous = next(items, None)
    for item in items:
        assert previous is not None
        yield previous, item
        previous = item
    if previous is not None:
        yield previous, None


def shorten_pause(pcm: np.ndarray, lead: bool, tail: bool) -> np.ndarray:
    """`pcm` with at most CUT_LEAD_S of silence before its speech (`lead`) and CUT_TAIL_S after
    it (`tail`). A step's audio starts and ends in silence (about 0.3 and 0.45 s), the pause
    between clauses; where a sentence is cut that would be a pause no one reading it makes.
    Silence: 10 ms frames whose peak is under SILENCE of the step's."""
    frames = np.abs(pcm[: len(pcm) // FRAME * FRAME].reshape(-1, FRAME)).max(axis=1)
    loud = np.flatnonzero(frames > SILENCE * frames.max()) if len(frames) else frames
    if not len(loud):
        return pcm
    start = max(0, loud[0] * FRAME - int(CUT_LEAD_S * SAMPLE_RATE)) if lead else 0
    end = (loud[-1] + 1) * FRAME + int(CUT_TAIL_S * SAMPLE_RATE) if tail else len(pcm)
    return pcm[start:end]
