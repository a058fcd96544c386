"""The site pronunciation lexicon: its checks, `cosyedge read`, and a reload that changes it."""
# ruff: noqa: RUF001 (phonemes are written in IPA)

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from support import config_problems, cosyedge, publish, seed_models, site_yaml, wait_until

from cosyedge.config import config_warnings, parse_config
from cosyedge.speech.lexicon import Lexicon, say_phrase
from cosyedge.speech.text.english import normalize

LEXICON = """pronunciations:
  en:
    - {word: FV, say: flow valve}
    - {word: Siemens, phonemes: "sˈimənz"}
    - {pattern: "K-?(\\\\d+)", say: "kiln \\\\1"}
  zh:
    - {word: 泵房, pinyin: "beng4 fang2"}
"""


def lexicon(text: str, lang: str = "en") -> Lexicon:
    return Lexicon(parse_config(text).pronunciations[lang])


# --- checks -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("{pattern: '(a+)+', say: x}", "pattern: a quantifier inside a repeated part"),
        ("{pattern: '(ab|a)*c', say: x}", "pattern: alternatives (|) inside a repeated part"),
        ("{pattern: '\\d+ \\d{0,11}', say: x}", "pattern: more than 1 open-ended quantifier"),
        ("{pattern: 'a?b?c?d?e?', say: x}", "pattern: more than 4 quantifiers"),
        ("{pattern: '(a)\\1', say: x}", "pattern: backreferences are not allowed"),
        ("{pattern: '(?<=K)1', say: x}", "pattern: lookarounds are not allowed"),
        ("{pattern: '^K', say: x}", "pattern: anchors"),
        ("{pattern: '(?i)k', say: x}", "scope flags to a group, as (?i:...)"),
        ("{pattern: '" + "a" * 101 + "', say: x}", "pattern: longer than 100 characters"),
        ('{pattern: "K(\\\\d)", say: "kiln \\\\2"}', "say: invalid group reference 2"),
        ("{word: FV}", "say: an entry needs one of say, phonemes or pinyin"),
        ("{word: FV, say: x, phonemes: fv}", "phonemes: only one of say, phonemes or pinyin"),
        ("{say: x}", "word: an entry needs a word or a pattern"),
        ("{word: FV, pattern: FV, say: x}", "pattern: a word or a pattern, not both"),
        ("{word: FV, phonemes: fˈæʀ}", 'phonemes: "ʀ" not among the phonemes of hibari'),
        ("{word: FV, say: '  '}", "say: must not be blank"),
        ("{word: FV, phonemes: '[fv]'}", "phonemes: brackets, parentheses and slashes"),
        ("{word: 泵, pinyin: beng4}", "pinyin: engine hibari takes phonemes or say"),
        ("{pattern: 'K\\d', phonemes: kˈeɪ}", "phonemes: only for a word; a pattern takes say"),
    ],
)
def test_a_bad_entry_is_refused_with_its_key_path(entry, problem):
    text = f"pronunciations:\n  en:\n    - {{word: ok, say: fine}}\n    - {entry}\n"
    (found,) = config_problems(text)
    assert found.startswith("site.yaml: pronunciations.en[1]."), found
    assert problem in found, found


def test_mandarin_entries_are_checked_against_their_characters():
    bad = {
        "{word: 泵房, pinyin: beng4}": "zh[0].pinyin: 1 syllables for 2 characters",
        "{word: 泵房, pinyin: beng fang2}": 'zh[0].pinyin: "beng" is not a syllable',
        "{word: PLC, pinyin: pi1}": "zh[0].pinyin: only for a word in Chinese characters",
        "{word: PLC, phonemes: pi}": "zh[0].phonemes: engine espeak-pinyin takes pinyin or say",
    }
    for entry, problem in bad.items():
        (found,) = config_problems(f"pronunciations:\n  zh:\n    - {entry}\n")
        assert f"site.yaml: pronunciations.{problem}" in found, found
    (found,) = config_problems("pronunciations:\n  fr:\n    - {word: a, say: b}\n")
    assert found == 'site.yaml: pronunciations.fr: no voice configured for "fr"'


def test_phonemes_are_checked_against_the_symbols_of_the_voice_s_own_model():
    """hibari would drop a symbol it does not know without a word; misaki's capitals are
    hibari's and no espeak phonemes, so the same entry is right for one engine only."""
    entry = "pronunciations:\n  en:\n    - {word: Siemens, phonemes: sˈimənzA}\n"
    assert parse_config(entry).pronunciations["en"][0].phonemes == "sˈimənzA"
    (found,) = config_problems("voices:\n  en: {engine: piper}\n" + entry)
    assert 'pronunciations.en[0].phonemes: "A" not among the phonemes of piper' in found, found


def test_a_duplicate_entry_is_warned_about_naming_both_places():
    config = parse_config(
        "pronunciations:\n  en:\n    - {word: FV, say: flow valve}\n    - {word: K, say: kiln}\n"
        "    - {word: FV, phonemes: fˈæv}\n    - {pattern: 'K-?(\\d+)', say: kiln}\n"
        "    - {pattern: 'K-?(\\d+)', say: kay}\n"
    )
    assert config_warnings(config) == [
        'pronunciations.en[2].word: "FV" is already pronunciations.en[0], which is tried first: '
        "this entry never applies",
        'pronunciations.en[4].pattern: "K-?(\\\\d+)" is already pronunciations.en[3], which is '
        "tried first: this entry never applies",
    ]


def test_check_exits_2_naming_the_bad_entry(tmp_path):
    config = tmp_path / "site.yaml"
    config.write_text(LEXICON + "    - {pattern: '(K+)+', say: kiln}\n")
    done = cosyedge("check", "--config", str(config))
    assert done.returncode == 2
    assert f"{config}: pronunciations.zh[1].pattern: a quantifier inside" in done.stderr


def test_the_worst_patterns_allowed_stay_fast_on_a_long_phrase():
    # Overlapping quantifiers that fail at the end, on runs longer than any template says.
    worst = r"\d+\d{0,10}\d{0,10}\d{0,10}x"
    words = lexicon(f"pronunciations:\n  en:\n    - {{pattern: '{worst}', say: x}}\n")
    assert words.rewrite("a 12345x b", []) == "a x b"  # the pattern is the one meant
    for phrase in ("1" * 4000, "1 " * 2000, "12345678901234567890 " * 200):
        started = time.monotonic()
        assert words.rewrite(phrase, []) == phrase
        assert time.monotonic() - started < 2, phrase[:30]


# --- applying -------------------------------------------------------------------------------


def test_entries_apply_at_word_edges_first_in_the_list_winning_in_one_pass():
    words = lexicon(
        "pronunciations:\n  en:\n"
        "    - {word: FV, say: FV2}\n"  # its spoken form is not read again by the next entry
        "    - {word: FV2, say: wrong}\n"
        "    - {pattern: 'K-?(\\d+)', say: 'kiln \\1'}\n"
        "    - {pattern: 'K-?\\d+', say: never}\n"
    )
    applied: list = []
    said = words.rewrite("FV FVX xFV FV-3 K-12 K7, KK7", applied)
    assert said == "FV2 FVX xFV FV2 3 kiln 12 kiln 7, KK7"
    assert [(a.index, a.written, a.spoken) for a in applied] == [
        (0, "FV", "FV2"),
        (0, "FV", "FV2"),
        (2, "K-12", "kiln 12"),
        (2, "K7", "kiln 7"),
    ]


def test_a_tag_whose_prefix_is_replaced_is_read_as_the_spoken_form_then_its_number():
    """`FV-101` with FV said "flow valve": the hyphen would run "valve" and the number into
    one word for the voice; a separator that is part of a word stays."""
    words = lexicon("pronunciations:\n  en:\n    - {word: FV, say: flow valve}\n")
    said = words.rewrite("FV-101 FV_7 FV-A FV - 2 FV-", [])
    assert said == "flow valve 101 flow valve 7 flow valve-A flow valve - 2 flow valve-"
    assert normalize(said).startswith("flow valve one hundred one flow valve seven")


def test_a_site_entry_says_a_built_in_acronym_its_own_way(hibari_voice):
    """LOTO is said as a word by the rules; a `say` entry rewrites it first, and a word given
    `phonemes` is left as written for its entry."""
    front = hibari_voice.front
    assert front.read("LOTO on").words == "low-toe on"
    spelled = lexicon("pronunciations:\n  en:\n    - {word: LOTO, say: L O T O}\n")
    text, _ = say_phrase("LOTO on", "en", {"en": spelled})
    assert front.with_lexicon(spelled).read(text).words == "L O T O on"
    own = lexicon("pronunciations:\n  en:\n    - {word: LOTO, phonemes: lˈOtˌO}\n")
    reading = front.with_lexicon(own).read("LOTO on")
    assert reading.words == "LOTO on"
    assert [a.spoken for a in reading.applied] == ["lˈOtˌO"]


SPLIT = """pronunciations:
  en:
    - {word: FV, say: flow valve}
    - {pattern: "L/min", say: litres a minute}
  zh:
    - {pattern: "L/min", say: 立升每分}
    - {word: Loop check, say: 回路检查}
    - {word: FV, say: 流量阀}
"""


@pytest.mark.parametrize(
    ("text", "lang", "said"),
    [
        # a Mandarin entry says a Latin unit inside Chinese text, in a phrase of either language
        ("流量1.5L/min正常", "zh", "流量1.5立升每分正常"),
        ("Line 3: 流量1.5L/min", "en", "Line 3: 流量1.5立升每分"),
        ("3号 Loop check 完成", "zh", "3号 回路检查 完成"),
        # and not the same letters in an English sentence, which the English entry says
        ("Flow 1.5 L/min ok", "zh", "Flow 1.5 litres a minute ok"),
        # each language's entry where that language is spoken
        ("FV-101故障", "en", "流量阀 101故障"),
        ("Pump FV-101 tripped", "zh", "Pump flow valve 101 tripped"),
        # both could say it: the phrase's own language first
        ("Pump FV泵房", "zh", "Pump 流量阀泵房"),
        ("Pump FV泵房", "en", "Pump flow valve泵房"),
    ],
)
def test_say_entries_apply_to_the_phrase_before_it_is_split_into_languages(text, lang, said):
    lexicons = {code: lexicon(SPLIT, code) for code in ("en", "zh")}
    assert say_phrase(text, lang, lexicons)[0] == said


def test_read_shows_a_mandarin_entry_saying_a_latin_unit_in_chinese_text(
    tmp_path, front_end_tables
):
    from cosyedge.ops.read import read

    seed_models(tmp_path, front_end_tables)  # the front ends' tables, as after a first start
    config = parse_config(f"state_dir: {tmp_path}\n{SPLIT}")
    reading = read(config, "流量1.5L/min正常", "zh")
    assert reading["said"] == "流量1.5立升每分正常"
    (run,) = reading["runs"]
    assert run["lexicon"] == [
        {"entry": "pronunciations.zh[0]", "written": "L/min", "say": "立升每分"}
    ]
    assert run["words"] == "流量一点五立升每分正常"


def test_chinese_words_match_inside_chinese_text():
    words = lexicon(LEXICON, "zh")
    applied: list = []
    pieces = words.split("一号泵房压力", applied)
    assert [p if isinstance(p, str) else p.spoken for p in pieces] == [
        "一号",
        "beng4 fang2",
        "压力",
    ]


def test_the_lexicon_is_part_of_the_identity_and_none_keeps_the_old_one(hibari_voice):
    with_lexicon = hibari_voice.with_lexicon(lexicon(LEXICON))
    assert with_lexicon.identity != hibari_voice.identity
    assert with_lexicon.session is hibari_voice.session  # the model is shared, not reloaded
    other = hibari_voice.with_lexicon(lexicon(LEXICON.replace("flow valve", "feed valve")))
    assert len({hibari_voice.identity, with_lexicon.identity, other.identity}) == 3
    assert hibari_voice.with_lexicon(Lexicon()).identity == hibari_voice.identity


# --- cosyedge read --------------------------------------------------------------------------


@pytest.fixture
def site(tmp_path: Path, front_end_tables: Path) -> Path:
    """A site with a lexicon, whose state directory holds the tables its front ends read (as
    after a first start: `cosyedge read` would make them, seconds each time)."""
    seed_models(tmp_path / "state", front_end_tables)
    config = tmp_path / "site.yaml"
    config.write_text(f"state_dir: {tmp_path}/state\ncache:\n  dir: {tmp_path}/cache\n{LEXICON}")
    return config


def test_read_shows_runs_entries_words_and_what_each_model_is_given(site):
    text = "Siemens pump FV at K-12 tripped, 泵房 pressure 2.5 bar"
    done = cosyedge("read", text, "--config", str(site), "--json")
    assert done.returncode == 0, done.stderr
    reading = json.loads(done.stdout)
    assert (reading["lang"], reading["voice"]) == ("en", "hibari-heart")
    first, chinese, last = reading["runs"]
    assert [e["entry"] for e in first["lexicon"]] == [
        "pronunciations.en[0]",
        "pronunciations.en[2]",
        "pronunciations.en[1]",
    ]  # `say` entries apply before the rules, `phonemes` after them
    assert first["words"] == "Siemens pump flow valve at kiln twelve tripped,"
    assert first["phonemes"][0].startswith("sˈimənz pˈʌmp flˈO vˈælv")
    assert chinese == {
        "lang": "zh",
        "text": "泵房",
        "said": True,
        "voice": "espeak-ng-cmn-latn-pinyin",
        "lexicon": [{"entry": "pronunciations.zh[0]", "written": "泵房", "pinyin": "beng4 fang2"}],
        "words": "泵房",
        "pinyin": ["beng4 fang2"],
    }
    assert last["words"] == "pressure two point five bar" and not last["lexicon"]

    plain = cosyedge("read", text, "--config", str(site))
    assert plain.returncode == 0, plain.stderr
    assert f"cache key: {reading['cache_key']}" in plain.stdout
    assert '  pronunciations.en[0]: FV -> say "flow valve"' in plain.stdout
    assert "  pinyin: beng4 fang2" in plain.stdout


def test_read_gives_the_cache_key_the_voices_use(site, front_end_tables):
    from cosyedge.config import load_config
    from cosyedge.speech.cache import PhraseCache
    from cosyedge.speech.render import Renderer
    from cosyedge.speech.voices import load_voices

    text = "Pump FV tripped"
    config = load_config(site)
    voices = load_voices(config.voices, None, config.pronunciations)
    cache = PhraseCache.from_config(config.cache)
    try:
        expected = Renderer(voices, cache).key(text, "en")
    finally:
        cache.close()
    done = cosyedge("read", text, "--config", str(site), "--json")
    assert json.loads(done.stdout)["cache_key"] == expected
    # The embedded defaults (not the host's /etc/cosyedge/cosyedge.yaml, if a package test
    # installed one): no lexicon, another key. Their state directory is the test's own, with
    # the tables, not the user's (where the first read on a machine made them: 3.6 s of CPU).
    home = site.parent / "state-home"
    seed_models(home / "cosyedge", front_end_tables)
    env = {**os.environ, "COSYEDGE_CONFIG": "", "XDG_STATE_HOME": str(home)}
    bare = cosyedge("read", text, "--json", env=env)
    assert bare.returncode == 0, bare.stderr
    assert json.loads(bare.stdout)["cache_key"] != expected


def test_read_explain_shows_the_class_of_each_stretch_of_every_run(site):
    done = cosyedge(
        "read", "FV at 2.5 bar, 泵房运行3h40m", "--explain", "--json", "--config", str(site)
    )
    assert done.returncode == 0, done.stderr
    english, chinese = json.loads(done.stdout)["runs"]
    assert {"class": "unit", "written": "2.5 bar", "said": "two point five bar"} in english[
        "classes"
    ]
    assert {"class": None, "written": "flow"} in english["classes"]  # a say entry's words
    assert {"class": "duration", "written": "3h40m", "said": "三小时四十分钟"} in chinese["classes"]
    plain = cosyedge("read", "FV at 2.5 bar", "--explain", "--config", str(site))
    assert '  "2.5 bar": unit -> "two point five bar"' in plain.stdout


def test_read_refuses_a_language_without_a_voice(site):
    done = cosyedge("read", "hello", "--lang", "fr", "--config", str(site))
    assert done.returncode == 2
    assert "no voice configured for 'fr'" in done.stderr


# --- reload ---------------------------------------------------------------------------------


def test_a_reload_that_changes_the_lexicon_has_the_phrase_synthesized_anew(
    broker, alsa_sink, make_daemon, tmp_path
):
    say = "pronunciations:\n  en:\n    - {word: FV, say: %s}\n"
    daemon = make_daemon(site_yaml(broker.port, tmp_path) + say % "flow valve")

    def speak(n: int) -> str:
        publish(broker.port, "cosyedge/say", json.dumps({"text": "Pump FV tripped.", "id": n}))
        return daemon.wait_for_log(rf"spoke alert {n} source=(\w+)")[0].group(1)

    assert [speak(1), speak(2)] == ["synth", "cache"]
    daemon.config.write_text(site_yaml(broker.port, tmp_path) + say % "feed water valve")
    daemon.process.send_signal(signal.SIGHUP)
    daemon.wait_for_log(r"site pronunciations reloaded: en 1")
    assert [speak(3), speak(4)] == ["synth", "cache"]
    streams = wait_until(lambda: len(alsa_sink.streams()) == 4 and alsa_sink.streams(), 10, "4")
    assert len(streams[2]) > len(streams[0])  # "feed water valve": the longer words are heard
    assert len(list((tmp_path / "cache").rglob("*.wav"))) == 2


def test_read_leaves_out_bytes_of_the_phrase_that_are_no_utf8(site):
    # An argument's bytes that are not UTF-8 come to Python as lone surrogates (`\udc80`).
    done = cosyedge("read", "\udc80 bad surrogate 5 bar", "--json", "--config", str(site))
    assert done.returncode == 0, done.stderr
    reading = json.loads(done.stdout)
    assert [run["words"] for run in reading["runs"]] == ["bad surrogate five bar"]
