"""English text hygiene: what the operator hears for the forms alerts are written in."""

from __future__ import annotations

import numpy as np
import pytest
from speech import transcribe

from cosyedge.speech.text import normalizer_for
from cosyedge.speech.text.english import cardinal, normalize


@pytest.mark.parametrize(
    ("written", "spoken"),
    [
        # from the shared alert set
        (
            "Pressure alarm: sensor PT-173 reads 6.49 bar, limit 6.",
            "Pressure alarm: sensor P T one seven three reads six point four nine bar, limit six.",
        ),
        ("Conveyor B6 stopped since 14:48.", "Conveyor B six stopped since fourteen forty eight."),
        (
            "Motor M8153 tripped, current 32.9 A.",
            "Motor M eight one five three tripped, current thirty two point nine amps.",
        ),
        (
            "Temperature alarm: sensor TT-180 reads 109.6 °C, limit 85.",
            "Temperature alarm: sensor T T one eight oh reads one hundred nine point six degrees "
            "Celsius, limit eighty five.",
        ),
        ("Tank 9 level 61 %.", "Tank nine level sixty one percent."),
        ("fire door 110 is open.", "fire door one hundred ten is open."),
        # device codes
        ("PT-101", "P T one oh one"),
        ("PT-101A high", "P T one oh one eh high"),
        ("H2S and CO2", "H two S and C O two"),
        # times
        ("since 09:05", "since oh nine oh five"),
        ("at 14:00", "at fourteen hundred"),
        ("at 7:30", "at seven thirty"),
        ("at 14:48:09", "at fourteen forty eight and nine seconds"),
        ("ratio 25:99", "ratio twenty five to ninety nine"),  # not a clock time
        ("mix 3:1", "mix three to one"),
        # decimals, negatives, signs, ranges
        ("7.10 kPa", "seven point one zero kilopascals"),
        ("0.5 V.", "zero point five volts."),
        ("-5 °C", "minus five degrees Celsius"),
        ("ambient \u221212.5°C", "ambient minus twelve point five degrees Celsius"),
        ("drift +0.3 bar", "drift plus zero point three bar"),
        ("range 5-10 bar", "range five to ten bar"),
        ("level < 10 %", "level less than ten percent"),
        ("level >= 95%", "level at least ninety five percent"),
        # units: singular for one, plural otherwise
        ("1 bar, 1 A, 1 °C.", "one bar, one amp, one degree Celsius."),
        ("Speed 1450 rpm", "Speed one thousand four hundred fifty R P M"),
        ("ammonia 12 ppm", "ammonia twelve parts per million"),
        ("230 V, 50 Hz.", "two hundred thirty volts, fifty hertz."),
        ("12.5A", "twelve point five amps"),
        ("vibration 4.2 mm/s", "vibration four point two millimeters per second"),
        # a one-letter unit only at the end of a clause; the label A as the letter
        ("pump 3 A failed", "pump three eh failed"),
        ("pump A is on", "pump eh is on"),
        ("A pump is on", "A pump is on"),
        # plain numbers
        ("1,250 units on line10", "one thousand two hundred fifty units on line ten"),
        ("value 007", "value zero zero seven"),
        ("the 3rd and 21st", "the third and twenty first"),
        ("#5 & #6", "number five and number six"),
        ("Check ESTOP now!", "Check ESTOP now!"),
    ],
)
def test_english_hygiene(written, spoken):
    assert normalize(written) == spoken


@pytest.mark.parametrize(
    ("n", "words"),
    [
        (0, "zero"),
        (15, "fifteen"),
        (40, "forty"),
        (101, "one hundred one"),
        (1000, "one thousand"),
        (2_000_019, "two million nineteen"),
        (-7, "minus seven"),
    ],
)
def test_cardinals(n, words):
    assert cardinal(n) == words


def test_only_english_voices_get_english_rules():
    assert normalizer_for("en").normalize("6.49") == "six point four nine"
    assert normalizer_for("en-GB").version == normalizer_for("en").version
    assert normalizer_for("zh").normalize("6.49") == "6.49"
    assert normalizer_for("zh").version != normalizer_for("en").version


def test_hygiene_is_applied_before_phonemes(hibari_voice, piper_voice):
    # The engines on their own read these differently; through the voice both say the words.
    for voice in (hibari_voice, piper_voice):
        pcm = np.concatenate(list(voice.synthesize("Pressure 6.49 bar.")))
        heard = transcribe(pcm, voice.sample_rate).split()
        assert {"six", "point", "four", "nine"} & set(heard), (voice.name, heard)
