"""The CosyVoice voice's Chinese clauses against the reference frontend's own rules
(`cosyvoice.utils.frontend_utils.split_paragraph`, imported in the conversion venv)."""

from __future__ import annotations

import json

import pytest
from cosyvoice_support import conversion_unavailable, run_cosyvoice_python_alone

from cosyedge.speech.lexicon import NO_LEXICON
from cosyedge.speech.voices.clauses import ParagraphRules, paragraph_clauses
from cosyedge.speech.voices.cosyvoice import ZH_CLAUSES, ZH_UNIT_CHARS, text_units

TEXTS = (
    "注意：温度过高，请立即检查七号线。",
    "警告：三号泵停止运行；请检查阀门、压力表和管道。",
    "七号线压力报警，请值班人员立即到现场处理，并向调度室报告情况，处理完毕后复位报警。"
    "二号锅炉水位过低，已自动停炉！请检查给水泵、给水阀门以及水位计是否正常？",
    '他说："立即撤离。"然后关闭了阀门',
    "温度过高",
    "一、检查阀门；二、检查压力；三、报告。",
    "Pump 2 stopped. Check the valve; then call the operator!",
    "PT-144读数1.24MPa，请 check the valve.",
    "甲" * 50 + "。" + "乙" * 10 + "：" + "丙" * 35 + "；丁。",
    "……！",
    "甲" * 65 + "。" + "乙" * 15 + "。",  # a short last clause joins the one before
    "甲" * 32 + "。" + "乙" * 12 + "。" + "丙" * 25 + "。",
)

REFERENCE = """
import json, sys
from cosyvoice.utils.frontend_utils import is_only_punctuation, split_paragraph
texts, settings = json.loads(sys.argv[1]), json.loads(sys.argv[2])
out = {}
for name, (max_n, min_n, merge) in settings.items():
    out[name] = [[c for c in split_paragraph(t, len, "zh", token_max_n=max_n, token_min_n=min_n,
                                             merge_len=merge, comma_split=False)
                  if not is_only_punctuation(c)] for t in texts]
print(json.dumps(out, ensure_ascii=False))
"""


# Lengths (max, min, merge): the reference's text_normalize's; the voice's (one step); and
# none at all, so that every piece the marks cut is a clause of its own.
LENGTHS = {"reference": (80, 60, 20), "voice": (40, 30, 20), "pieces": (1, 0, 0)}


def test_a_heading_with_a_colon_is_not_a_clause_of_its_own():
    """The reference cuts at a full-width colon but joins pieces up to its length: the alert
    is one clause (the pack cut its heading and colon off on their own before)."""
    units = text_units("zh")
    assert list(units("注意：温度过高，请立即检查七号线。", NO_LEXICON, [])) == [
        "注意：温度过高，请立即检查七号线。"
    ]
    assert paragraph_clauses("温度过高") == ["温度过高。"]  # the reference's final mark
    assert paragraph_clauses("……！") == []


def test_clauses_are_the_reference_frontends():
    """Ours and the reference's split_paragraph (Chinese profile, lengths in characters) on
    the same texts: with the reference's own lengths, and with the voice's (one step)."""
    reason = conversion_unavailable()
    if reason:
        pytest.skip(reason)
    done = run_cosyvoice_python_alone(
        "-c", REFERENCE, json.dumps(TEXTS, ensure_ascii=False), json.dumps(LENGTHS)
    )
    assert done.returncode == 0, done.stderr
    reference = json.loads(done.stdout.strip().splitlines()[-1])
    pieces = ParagraphRules(max_len=1, min_len=0, merge_len=0)
    for name, rules in (("reference", ParagraphRules()), ("voice", ZH_CLAUSES), ("pieces", pieces)):
        ours = [paragraph_clauses(text, rules) for text in TEXTS]
        assert ours == reference[name], name
    assert any(len(clauses) > 1 for clauses in reference["voice"])  # the texts do get cut


def test_a_clause_longer_than_a_step_is_cut_at_its_marks_not_in_a_word():
    """The reference's joining can leave a clause over one step (a short last sentence joins
    the one before): it is cut at its marks, commas included, and never inside a word."""
    units = text_units("zh")
    text = (
        "七号线压力过高，请值班人员立即到现场检查阀门和压力表是否正常。"
        "二号泵已经停止运行，请尽快处理。"
    )
    assert len(paragraph_clauses(text, ZH_CLAUSES)) == 1  # joined, 46 characters
    assert list(units(text, NO_LEXICON, [])) == [
        "七号线压力过高，请值班人员立即到现场检查阀门和压力表是否正常。",
        "二号泵已经停止运行，请尽快处理。",
    ]
    assert all(len(u) <= ZH_UNIT_CHARS for u in units("甲" * 90, NO_LEXICON, []))
