"""Tone-numbered pinyin from normalized Mandarin: polyphones, sandhi, letters, clauses."""

from __future__ import annotations

import pytest

from cosyedge.speech.zh.normalize import MandarinNormalizer
from cosyedge.speech.zh.pinyin import clause_syllables, to_clauses

READINGS = [
    # pypinyin reads 转 in 转每分 as zhuan3, 差压 as cha4, 相 in 单相 as xiang1
    ("两千转每分", "liang3 qian1 zhuan4 mei3 fen1"),
    ("转速", "zhuan4 su4"),
    ("差压过高", "cha1 ya1 guo4 gao1"),
    ("单相电压", "dan1 xiang4 dian4 ya1"),
    ("相同", "xiang1 tong2"),
    ("给水泵", "ji2 shui3 beng4"),  # ji3, said as ji2 before shui3
    ("杠", "gang4"),
    # 一点 in a reading is a decimal point, not "a little" (yi4 dian3)
    ("一点二四", "yi1 dian3 er4 si4"),
    ("一号线", "yi1 hao4 xian4"),
    # sandhi: 不 before a fourth tone, 一 before a unit, third before third
    ("不要靠近", "bu2 yao4 kao4 jin4"),
    ("一万", "yi2 wan4"),
    ("一千", "yi4 qian1"),
    ("每小时", "mei2 xiao3 shi2"),
    ("请检查", "qing2 jian3 cha2"),
]


@pytest.mark.parametrize(("text", "expected"), READINGS)
def test_readings(text, expected):
    assert " ".join(clause_syllables(text)) == expected


PLANT_FORMS = [
    ("2#泵", "er4 hao4 beng4"),
    ("1#~3#泵", "yi1 hao4 dao4 san1 hao4 beng4"),
    ("1.5e-3", "yi1 dian2 wu3 cheng2 shi2 de5 fu4 san1 ci4 fang1"),
    (
        "10.0.0.1:1883",
        "yao1 ling2 dian3 ling2 dian3 ling2 dian3 yao1 duan1 kou3 yao1 ba1 ba1 san1",
    ),
    (
        "172.16.0.0/16",
        "yao1 qi1 er4 dian3 yao1 liu4 dian3 ling2 dian3 ling2 xie2 gang4 shi2 liu4",
    ),
    ("1 1/2", "yi1 you4 er4 fen1 zhi1 yi1"),
    ("±0.5mm", "zheng4 fu4 ling2 dian2 wu3 hao2 mi3"),
    ("1st", "di4 yi1"),
    ("-20~60℃", "ling2 xia4 er4 shi2 dao4 liu4 shi2 she4 shi4 du4"),
    ("3‰", "qian1 fen1 zhi1 san1"),
    ("2.1.0", "er4 dian3 yi1 dian3 ling2"),
]


@pytest.mark.parametrize(("written", "expected"), PLANT_FORMS)
def test_plant_forms_reach_the_voice_as_pinyin(written, expected):
    # The reading of the pre-pass, then the syllables the espeak-pinyin voice is given.
    normalized = MandarinNormalizer().normalize(written)
    assert " ".join(s for c in to_clauses(normalized) for s in c.syllables) == expected


def test_letters_are_spelled_as_mandarin_speakers_say_them():
    assert clause_syllables("P T 杠 幺零幺") == ("pi1", "ti1", "gang4", "yao1", "ling2", "yao1")


def test_clauses_split_at_punctuation_and_keep_their_text():
    normalized = MandarinNormalizer().normalize("8号电机电流15.1A，转速2307rpm，已跳闸")
    clauses = to_clauses(normalized)
    assert [c.text for c in clauses] == [
        "八号电机电流十五点一安",
        "转速两千三百零七转每分",
        "已跳闸",
    ]
    assert clauses[1].syllables[-3:] == ("zhuan4", "mei3", "fen1")
    assert all(s[-1] in "12345" for c in clauses for s in c.syllables)


def test_nothing_to_say_gives_no_clause():
    assert to_clauses("，。！") == []


def test_long_stretches_are_cut_into_even_clauses():
    clauses = to_clauses("请检查压力表读数" * 10)  # 80 syllables, no punctuation
    assert [len(c.syllables) for c in clauses] == [27, 27, 26]
    assert sum((c.syllables for c in clauses), ()) == clause_syllables("请检查压力表读数" * 10)
