"""English alert text → words read the way a plant operator expects.

Runs before phonemization for every English voice, because engines guess differently (espeak
reads `PT-101` as "pt minus one hundred and one", `6.49` with a pause, `°C` not at all):
- device codes spelled out, digits one by one: `PT-101` → "P T one oh one", `M8153` → "M eight
  one five three"; the hyphen after the letters is silent, a hyphen between digit groups is
  "dash": `A3-07` → "eh three dash oh seven";
- a number with capitals glued after it is the number, then the letters: `room 12B` → "room
  twelve B", `3F` → "three F" (a unit symbol such as `12V` stays a unit);
- dates, year first (`2024-05-01`, `2024/05/01`, `2024.05.01`) or, with the year last, day
  first (`01.05.2024`, `01/05/2024`; the month first only when the day cannot be a month,
  `05/31/2024`): "May first twenty twenty four", then a pause (a comma) before a time that
  follows after a space or a `T`;
- a date or a time directly followed by a colon, as a heading writes it (`Report
  15/11/2026: ...`, `At 07:45: ...`), is still a date or a time;
- a day and a month without a year, two digits each side, only with a cue that a date is
  meant (on, since, until, from, by, due, date, a weekday before it, or a time after it),
  day first unless it cannot be: `on 01/05` → "on May first", `due 12/31` → "due December
  thirty first", `10/20 14:00` → "October twentieth, fourteen hundred" (text/plant.py);
- the 12-hour clock: `7:45am` → "seven forty five eh M", `11 p.m.` → "eleven P M";
- times on the 24-hour clock: `14:48` → "fourteen forty eight", `09:05` → "oh nine oh five",
  seconds after "and": `14:05:30` → "fourteen oh five and thirty seconds"; a trailing `Z` is
  "U T C";
- compact durations, largest unit first, with "and" before the last part: `3h40m` → "three
  hours and forty minutes", `1h05m20s` → "one hour five minutes and twenty seconds", `1h30`
  → "one hour and thirty minutes" (parts of nothing are left out: `2h00m` → "two hours");
- MAC addresses pair by pair, a pause between pairs: `AC:DE:48:00:11:22` (or with hyphens,
  in either case) → "eh C, D E, four eight, zero zero, one one, two two";
- a known field inside a longer token (an address, a MAC address, a date, a device tag)
  keeps its reading, the characters joining it to the rest said: `gw2-10.20.30.40-a` → "gw
  two dash one zero dot two zero dot three zero dot four zero dash eh", `line3/PT-101A` →
  "line three slash P T one oh one eh" (`_` is "underscore"; one letter after it is a label);
- versions after a v, or after a word saying one follows: `v4.0.2` → "version four point
  zero point two", `fw v1.12.3` → "fw version one point twelve point three", `firmware 4.12`
  → "firmware four point twelve" (not a decimal), `-rc1` → "dash R C one";
- telephone numbers digit by digit (zero "oh") in their groups, a pause between, after a
  word that says one is dialled or with a country code and a bracketed area code: `call
  555-1234` → "call five five five, one two three four", `+1 (555) 123-4567 ext. 204` → "plus
  one, five five five, one two three, four five six seven extension two oh four", `Dial 911`
  → "Dial nine one one";
- IPv4 addresses digit by digit with "dot", as they are dictated: `10.0.1.5:1883` → "one zero
  dot zero dot one dot five port one eight eight three"; other dotted numbers (versions) with
  "point": `2.1.0` → "two point one point zero";
- identifiers digit by digit, in the groups they are written in: after a word that says
  one follows (SN, S/N, serial, part no., order, PO, batch, lot) four digits or more or
  hyphenated groups, three hyphenated groups or more on their own, and nine digits or more
  without separators: `SN 8842-1190-07` → "S N eight eight four two dash one one nine zero
  dash zero seven", `order 20251130044` → "order two zero two five ...";
- decimals digit by digit after the point: `6.49` → "six point four nine"; thousands
  separators are silent: `12,500.5` → "twelve thousand five hundred point five" (a comma
  followed by exactly three digits is a separator, so `1,450` is one number, not two); other
  digits joined by commas are a list, read as written: `3,4,5` → "three, four, five", `3,4
  down` (a list invents no magnitude), but one comma with one or two digits after it before
  a unit is a decimal comma (en-9): `1,5 bar` → "one point five bar", before a lone letter
  where it is a unit (`0,75 A` at a clause's end) and after an equals sign (`PV=12,5`);
  a European grouping, dots before groups of three then a decimal comma, is one number
  (en-7, text/amounts.py): `1.234,5 kg` → "one thousand two hundred thirty four point five
  kilograms", and so are groups of three parted by no-break or thin spaces (`12 345 kg`);
- scientific notation with "times ten to the": `1.5e-3` → "one point five times ten to the
  minus three", `1.2E+05` → "... to the five"; a caret power after a times sign too:
  `3.2x10^5 Pa` (or the multiplication sign, `*`) → "three point two times ten to the five
  pascals", and alone: `10^6` → "ten to the six";
- integer slash pairs (text/plant.py): a count of a whole where the first is at most the
  second, `Pumps 2/3 running` → "Pumps two of three running", `10/20 pumps` → "ten of twenty
  pumps"; a fraction only where it is a quantity: before a unit, an inch mark or a word of
  extent or size (`3/4 open` → "three quarters open", `3/4"` → "three quarter inch", `3/4 kg`
  → "three quarters of a kilogram"), a mixed number (`1 1/2` → "one and one half"), a vulgar
  fraction character (`½`, `1¾ in`); any other pair, and one before a unit, with "slash"
  (`24/7`, `12/24 V`);
- URLs with an address: `http://10.0.0.5:8080/status` → "H T T P colon slash slash one zero
  dot zero dot zero dot five port eight zero eight zero slash status"; money: `$1,200` → "one
  thousand two hundred dollars", `€5.50` → "five euros and fifty cents", `¥300`, `CNY 300` →
  "three hundred yuan"; hexadecimal codes: `0x1F`, `0X1F`, `1Fh` → "hex one F"; order numbers
  character by character in their groups: `6ES7 214-1AG40-0XB0` → "six E S seven, two one
  four dash one eh G four zero dash zero X B zero"; ratios after a word that says one
  follows: `ratio 1:50` → "ratio one to fifty"; time ranges: `08:00-16:00` → "oh eight
  hundred to sixteen hundred"; compact ISO timestamps `20261130T074500Z` as
  `2026-11-30T07:45:00Z`; `≈` and `~` before a number "about";
- a count after "call" is a number where people are counted (`call 100 staff`); three digits
  and four alone (`555-1234`) are a telephone number unless both ends are round, multiples
  of five (`100-1000`, `125-1500` are ranges), or a unit follows;
- units after a number, singular for one: `32.9 A.` → "thirty two point nine amps.", `1 bar`,
  `-5 °C` → "minus five degrees Celsius", `61%` → "sixty one percent", `5‰` → "five per
  mille";
- ranges `5-10`, `5~10` (or with an en dash; the unit may be written on: `4-20mA` → "four
  to twenty milliamps", `0.5-1.5mm`; `10%-20%` → "ten to twenty percent", the
  hyphen between two percentages is no minus) and ratios `3:1` with "to"; comparison signs;
  tolerances `±0.5`, `+/-0.5` → "plus or minus"; `#5`, `5#`, `No. 5` → "number five"; `&`;
  ordinals `1st`, `22nd`, and in capitals with the suffix their number takes (`1ST SHIFT`);
- acronyms plants say as words (text/acronyms.py): `LOTO` → "low-toe", `HAZOP` → "hazop",
  `ATEX` → "A-tex", `ESTOP` → "E stop" (other words of capitals are spelled by the voice);
- a capital A used as a label (`pump A is on`, `PT-101A`) as the letter, not the article.
- (en-6) superscript exponents: `1*10⁻⁶` → "one times ten to the minus six", `5²` → "five
  squared"; an en dash or a minus sign before a number is "minus" (`-5 °C`); a ratio a bracket
  or a few words after its cue (`Ratio (1:50)`, `mix ratio is 1:50`), three terms
  (`1:50:100`); a clock time that cannot be one said as written (`13:70` → "thirteen colon
  seventy"); a day the month has not said as written (`31/04`, `2026-02-29`); a two-digit
  year after a cued day and month (`on 10/20/26`), an eight-digit date after a cue (`Event
  20261130`), a month as a word with its year (`Nov 30, 2026`), a quarter (`Q3 2026`); money
  with a minus, a magnitude or a euro decimal comma (`-$50`, `$1.5M`, `€5,50`), cents alone
  (`$0.99`); IEC radix numbers (`16#FF00`); fractions of a time unit (`1/2 hour` → "half an
  hour"); inch marks (`Pipe 2"`, `5'10"`); offsets from UTC (`+08:00` → "U T C plus
  eight"); URLs with a host name, `www.` hosts, e-mail and IPv6 addresses dictated (text/
  plant.py); `~14:00` → "about fourteen hundred"; control and format characters and
  terminal escape sequences are not said, a Roman numeral character is its number (a run of
  them one numeral, en-7).
- (en-7, text/zones.py) an offset after `UTC` or `GMT` (`08:30 UTC+8` → "oh eight thirty U T
  C plus eight", `14:00 UTC-5` → "... minus five"); a dash and a time after a dated time
  parted by a space, without seconds, end a range (`2026-11-30 08:00-09:30` → "... oh eight
  hundred to oh nine thirty"), an offset being written after a `T` or seconds; money of any
  size as an amount (`$120,000,000` → "one hundred twenty million dollars", `$1.5T` → "one
  point five trillion dollars"); a range with a unit on both ends (`-5°C-10°C` → "minus
  five to ten degrees Celsius"), a minus on its second end (`-1.5--2.5 bar` → "... to minus
  two point five bar") or money on both (`$5-$10` → "five to ten dollars"; text/amounts.py);
  a one-digit day or month after a word only a date follows (`on 9/30` → "on September
  thirtieth", `due 3/4` → "due April third"; text/plant.py); a telephone number's trunk
  prefix not said (`+44 (0)20 7946 0958` → "plus four four, two oh, ..."), a country code
  and three groups or more a number without a word (`+49 30 1234 5678 90`); a negative
  power on a unit's last term is "per" (`5 s⁻¹` → "five per second", `kg·m⁻³` → "kilograms
  per cubic meter"), and a power of ten before a unit says it (`10⁻⁶ mbar`; text/units.py);
  a minus parted from its number by a space right after a colon or an equals sign (`Temp: -
  5 °C` → "Temp: minus five degrees Celsius"; `Line 3 - 5` is left, a dash between spaces
  there may be a range or a dash; after a word naming a value, `Temp - 5 °C`, at the start
  of a text or a bracket, it is a minus, en-9, text/signs.py); a tag's member
  (`TIC-2001.PV` → "T I C two oh oh one dot P V") and letters A to F with an h after a
  code's cue (`Error FFh` → "Error hex F F"; text/codes.py).
- (en-8, en-9) plant notations, designations and date forms beside the documented ones, each
  module's docstring stating its forms: text/notations.py (`3~`, `0b1011`), text/
  designations.py (`%I0.1`, `2oo3`, `Phase II`), text/dateforms.py (`30-Nov-2026`), text/
  daydates.py (`31.12.26`, `Since 01.12.`), text/clocks.py (`at 1900`, `1405Z`, `offline
  for 00:05:30`, `Downtime: 45m`, `PT1H30M`), text/dashes.py (typographic hyphens and
  dashes), text/unitcase.py (units in capitals or small letters: `12.5BARG`, `45 DEGC`, `5.5
  kw`).
- (en-9) identifiers, telephone numbers and groupings, each module's docstring stating its
  forms: text/registers.py (`Register 40001.3`, `Valve/B3:0/1`), text/phones.py (`Phone:
  555.123.4567`, `Telephone 0171 2345678`), text/serials.py (`S/N: A1B2C3D4`, `asset
  10023`), text/spacegroups.py (`1 234 567 kg`); versions with a pre-release or a letter
  (`1.0.0-beta`, `v3.2a`, text/fields.py), `0X4302` as `0x4302`; words of alerts written
  in capitals, text/capitals.py (`HI HI` → "high high", `AT` a word, `PAH` spelled).
- (en-10) an equipment's number before a value, text/equipment.py (`Pump 3 Dec 2` → "Pump
  three, December second", `Pump 3 3/4 open`, `Pump 3 1 500 kg`); compact durations in a
  row each a duration (`3h40m 3h40m`, text/fields.py); in capitals `0,75 A NOW`, `05:30 MIN`,
  and `85 degC`, `85 oC` (text/amounts.py, clocks.py, unitcase.py); a field after `word/`
  (`log/2026-11-30T14:05:00Z`, `fw/v1.2.3`) and four numbers or more joined by colons
  (`1:2:3:4:5`, "colon" said; text/fields.py); `5k rpm`, `2M cycles`, `PM2.5` (text/
  notations.py).
- (en-11) `Pump #3 120 kg`, `NO. 4` (text/equipment.py); `->`, `=>` "to" (text/signs.py);
  `DC24V` (text/unitcase.py); `trip…14:05` (text/pauses.py); `t`, `Ω`, `nA` and a unit before
  a bracket or a comparison, `Level ### %` "no value" (text/units.py); `HA 2024.11.2` a
  version (text/fields.py).
- (en-12) `06:30 +01:00`, `3 days 04:05:06` (text/stamps.py, clocks.py); `FT_101_PV` (text/
  pauses.py); `LEVEL 2.5 M`, `Oil 60C`, `US/CM` (text/unitcase.py); `0.665K`; `8N1` (codes.py).
A one-letter unit (A, V, W, m, s, h, l) is only read as a unit at the end of a clause, so
`pump 3 A failed` keeps its letter, or beside another value with its unit (`400 V 50 Hz`,
en-9); an A, V or W after a measured value anywhere (a decimal, or a number after a word of
current, voltage or power: `Current 18.4 A on phase L1`), never after an equipment's number
(`Tank 12 A` → "Tank twelve eh", en-9); or, a small one, written onto its number: `5s then` →
"five seconds then", `3m high` → "three meters high" (after a word of length minutes:
`idle 15m` → "idle fifteen minutes", text/clocks.py); another small letter written onto a
number is said apart, as a letter (`2w` → "two W"); `2x pumps`, `3x400V` → "two times pumps",
"three times four hundred volts"; units are read from their parts (text/units.py): `5
kvar·h` → "five kilovar hours", `12 ft·lbf` → "twelve foot pounds force", `2 m/s²` → "two
meters per second squared".
"""

from __future__ import annotations

import re
from collections.abc import Collection

from cosyedge.speech import rx
from cosyedge.speech.text import (
    ENGLISH_VERSION,
    amounts,
    capitals,
    clocks,
    codes,
    connections,
    dateforms,
    daydates,
    designations,
    equipment,
    fields,
    folding,
    hyphens,
    notations,
    pauses,
    phones,
    plant,
    registers,
    serials,
    signs,
    spacegroups,
    stamps,
    unitcase,
    units,
    zones,
)
from cosyedge.speech.text.acronyms import ACRONYMS, acronym_rule
from cosyedge.speech.text.spans import Explained, Rule, alternatives, explain, read, rule
from cosyedge.speech.text.words import (
    MONTHS,
    QUANTITY_DIGITS,
    cardinal,
    digits,
    exponent,
    fraction,
    letters,
    number,
    ordinal,
    year,
)

__all__ = ["VERSION", "cardinal", "explain_text", "fraction", "normalize", "ordinal", "year"]

VERSION = ENGLISH_VERSION  # bumped in speech/text/__init__.py whenever a rule below changes

_PER = {"%": "percent", "\u2030": "per mille"}
_SIGNS = {"+/-": "plus or minus", "+-": "plus or minus"}
_SIGNS |= {"<=": "at most", ">=": "at least", "≤": "at most", "≥": "at least"}
_SIGNS |= {"<": "less than", ">": "greater than", "~": "about", "±": "plus or minus"}
_SIGNS |= {"≈": "about", "!=": "not equal to", "<>": "not equal to", "≠": "not equal to"}


# A comma before exactly three digits groups thousands; an exponent needs digits after the e.
_NUM = r"(?:\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+(?![^\W_]))?"
# Not inside a word, a code or another number (a comma after a digit groups thousands; after
# a word it is punctuation: Down,5 bar).
_NUMBER_START = r"(?<![\w.])(?<!\d,)"
# nor inside a date, an address or a fraction; a colon before is a heading's (Date:2026-11-15)
_FIELD_START = r"(?<![\w./-])(?<!\d[,:])"
_DATE = rx.compile(
    rf"{_FIELD_START}(?:(\d{{4}})([-/.])(\d{{1,2}})\2(\d{{1,2}})|(\d{{1,2}})([-/.])(\d{{1,2}})\6(\d{{4}}))"
    r"(?:(T|\s+)(?=\d{1,2}:\d\d|\d{1,2}\s?[aApP]\.?[mM](?!\w))|(?![\w/-]|[.:]\d))"
)
_IPV4 = rx.compile(
    rf"{_FIELD_START}(\d{{1,3}}(?:\.\d{{1,3}}){{3}})(?::(\d{{1,5}}))?(?:/(\d{{1,2}}))?(?![\w/-]|[.:]\d)"
)
_DOTTED = rx.compile(rf"{_FIELD_START}\d+(?:\.\d+){{2,}}(?![\w-]|\.\d)")
_CODE = rx.compile(r"(?<![\w.-])([A-Z]{1,4})-?(\d{1,6})([A-Z]{0,2})((?:-\d{1,6})*)(?![\w-]|\.\d)")
# A colon after a time ends a heading (At 07:45: ...), as one before it starts a field.
_TIME = rx.compile(
    r"(?<![\d.])(?<!\d:)(\d{1,2}):(\d{1,2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z(?!\w))?(?!\d|[:.]\d)"
)
# The 12-hour clock: 7:45am, 7:45 p.m., 11pm (the dot after the m is left where it may end a
# sentence).
_CLOCK12 = rx.compile(
    r"(?<![\d.])(?<!\d:)(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s?([aApP])\.?[mM](?:\.(?=\s+[a-z]))?(?!\w)"
)
# Digits joined by commas: one number only where the commas group thousands (1,450 and
# 12,500.5); otherwise a list said as written (3,4 → "three, four"), never a guessed decimal.
_COMMA_DIGITS = rx.compile(rf"{_NUMBER_START}\d+(?:[.,]\d+)*,\d+(?:[.,]\d+)*")
# A power of ten written with a caret: after a times sign (3.2x10^5, 3.2*10^5) it is
# scientific notation, written as such for the number rules; alone (10^6) it is said as one.
_TIMES_POWER = rx.compile(
    rf"{_NUMBER_START}(\d+(?:\.\d+)?)\s?[x\u00d7*·⋅]\s?10\^([-+]?\d+)(?![\d^])"
)
_POWER = rx.compile(r"(?<![\w.^])10\^([-+]?\d+)(?![\d^])")
# Another number raised to a power (5^2, from 5²; a unit's exponent, m², is the unit's).
_BASE_POWER = rx.compile(rf"{_NUMBER_START}(\d+(?:\.\d+)?)\^([-+]?\d+)(?![\d^])")
# A times sign after a count (2x pumps, 3x400V, 3 x 4); 0x or 0X starts a hexadecimal number.
_TIMES = rx.compile(rf"{_NUMBER_START}(?!0[xX])(\d+(?:\.\d+)?)\s?[x\u00d7](?=\s|\d)")
# One small letter written onto a number that is no unit (2w, 1d): the number, then the letter.
_NUMBER_LETTER = rx.compile(rf"{_NUMBER_START}(\d+(?:\.\d+)?)([a-z])(?![\w'\u2019+-])")
# A group parted by a space is the number's unless it is an amount or a count (Call 1234 5
# bar, Call 911 12 times).
_NOT_A_QUANTITY = (
    rf"(?!\d|[.,]\d|\s?[%\u2030]|\s?(?:{units.GRAMMAR.pattern()})(?![\w/²³^])"
    r"|\s+(?:[a-z]+s|staff|people|personnel|crew|men|women)\b)"
)
# Telephone numbers: after a word that says one is dialled (call 555-1234, Dial 911, Tel +86
# 138 1234 5678, Dial 0800 123 456: groups parted by hyphens or spaces), or with a country
# code and an area code in brackets (+1 (555) 123-4567); an extension after.
# (en-7) The trunk prefix a country code makes no part of the number dialled is not said (+44
# (0)20 ...), and a country code with three groups or more after it is a number without a
# word (+49 30 1234 5678 90); up to six groups, the first may be one digit (+33 1 23 45 67
# 89; a count after "call", `call 5 now`, stays a count, see _phone).
# (en-9) The words are phones.DIAL_WORDS (`Telephone`, `Phone no.`, `Mob.`); a slash may part
# the groups (`Phone 0171/2345678`), and with a trunk prefix two groups are a number without a
# word (`+49 (0)30 1234567`).
_TRUNK = r"(?:\(0\)\s?)?"
_PHONE = rx.compile(
    rf"(?:(?<![\w.])({phones.DIAL_WORDS}:?\s+)(\+\d{{1,3}}\s?)?{_TRUNK}(?:\((\d{{2,4}})\)\s?)?"
    rf"|(?<![\w.])(\+\d{{1,3}}\s?)(?:\(0\)\s?(?=\d{{1,5}}[\s-]\d{{2,8}})|"
    rf"(?:\((\d{{2,4}})\)\s?|(?=\d{{1,5}}(?:[\s-]\d{{2,8}}){{2}}))))"
    rf"(\d{{1,11}}(?:[-/]\d{{2,8}}|\s\d{{2,8}}{_NOT_A_QUANTITY}){{0,5}})(?![\w-]|[.,]\d)"
)
# After "call", a number of people or things is counted, not dialled (call 100 staff): a
# plural noun or a word for a crew follows; an emergency number is dialled however it goes on.
_COUNTED = rx.compile(r"\s+(?:[a-z]+s|staff|people|personnel|crew|men|women)\b")
_EMERGENCY = frozenset({"911", "999", "112", "000", "110", "119", "120"})
# Three digits, a hyphen, four, alone: a local telephone number (555-1234, 555-1235). A range
# is written with a unit (100-1000 rpm) or in round numbers (100-1000, 125-1500): a first end
# a multiple of five and a second a multiple of a hundred above it stays a range (a telephone
# number is so one time in 2000).
_LOCAL_PHONE = rx.compile(r"(?<![\w.-])(?<!\d,)(\d{3})-(\d{4})(?![\w-]|[.,]\d)")
_EXTENSION = rx.compile(r"(?<![\w.])ext\.?\s?(\d{1,6})(?!\w)")
_THOUSANDS = rx.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
# A range of percentages, the sign written on both ends (10%-20%): one percent, at the end.
_PERCENT_RANGE = rx.compile(
    rf"{_NUMBER_START}(-?{_NUM})\s?([%\u2030]){amounts.RANGE_DASH}(-?{_NUM})\s?\2(?![\w%\u2030])"
)
# A range with its unit written on (4-20mA, 0.5-1.5mm): a range, the unit left for its rule.
_UNIT_RANGE = rx.compile(
    rf"{_NUMBER_START}({_NUM}){amounts.RANGE_DASH}({_NUM})"
    rf"(?=\s?(?:{units.GRAMMAR.pattern()})(?![\w/²³^]))"
)
_RANGE = rx.compile(rf"{_NUMBER_START}({_NUM}){amounts.RANGE_DASH}({_NUM})(?![\w.-]|\.\d)")
_MINUS = rx.compile(r"(?<![\w.)])(?<!\d,)-(?=\.?\d)")
# A minus parted from its number by a space right after a colon or an equals sign (`Temp: -
# 5 °C`, `SP = - 5`): a value follows there, never a range (en-7). Elsewhere (`Line 3 - 5`) a
# dash between spaces is left for the range and dash rules.
_SPACED_MINUS = rx.compile("(?<=[:=])(\\s*)[-\u2013\u2212]\\s+(?=\\.?\\d)")
_PLUS = rx.compile(r"(?<![\w.)])(?<!\d,)\+(?=\.?\d)")
_SIGN = rx.compile(rf"\s*({alternatives(_SIGNS)})\s*(?=[-+]?\.?\d)")
# An ordinal has the digits of a quantity at most: a longer run is said digit by digit.
_ORDINAL = rx.compile(rf"{_NUMBER_START}(\d{{1,{QUANTITY_DIGITS}}})(?:st|nd|rd|th)\b")
# An ordinal in capitals, as all-caps texts write it (1ST SHIFT, 22ND): only with the suffix
# its number takes, so other capitals after a number stay letters (3ND is "three N D").
_UPPER_ORDINAL = rx.compile(rf"{_NUMBER_START}(\d{{1,6}})(ST|ND|RD|TH)\b")


def _upper_ordinal(m: re.Match[str]) -> str:
    n = int(m[1])
    suffix = "TH" if n % 100 in (11, 12, 13) else {1: "ST", 2: "ND", 3: "RD"}.get(n % 10, "TH")
    return ordinal(n) if m[2] == suffix else m.group(0)


_HASH = rx.compile(r"#\s?(?=\d)")
_HASH_AFTER = rx.compile(rf"{_NUMBER_START}(\d+)\s?#(?![\w#])")
_NUMERO = rx.compile(r"\b(?:No|Nr)\.\s?(?=\d)")
# Capitals glued after a number, not a unit (those are read first) nor an exponent.
_NUMBER_LETTERS = rx.compile(rf"{_NUMBER_START}(\d+)([A-Z]{{1,2}})(?![\w'+-])")
_NUMBER = rx.compile(rf"{_NUMBER_START}({_NUM})(?![\d])")
_LABEL_A = rx.compile("(?<=[a-z0-9] )A(?![\\w'\u2019-])")
_LETTER_DIGIT = rx.compile(r"(?<=[a-z])(?<!\de)(?=\d)|(?<=\d)(?=[a-z]{2,})")
_SPACES = rx.compile(r"[ \t\r\n]+")
_SPACE_BEFORE_PUNCT = rx.compile(r" +(?=[,.;:!?)\]])")


def _comma_list(m: re.Match[str]) -> str:
    """Digits joined by commas that do not group thousands, as the list they are written as:
    `3,4,5` → "3, 4, 5", `1,5` → "1, 5" (a decimal comma would be a guess: a list reading
    never invents a magnitude); a European grouping (`1.234,5`) and a decimal comma before a
    unit (`1,5 bar`) were made one number before (amounts.py)."""
    written = m.group(0)
    return written if _THOUSANDS.fullmatch(written) else ", ".join(written.split(","))


def _phone(m: re.Match[str]) -> str:
    """Digit by digit, zero "oh", in the groups written, a pause between them: `+1 (555)
    123-4567` → "plus one, five five five, one two three, four five six seven"; a count after
    "call" (`call 100 staff`) is left for the number rules."""
    word, code, area, code_alone, area_alone, number = m.groups()
    alone = not (code or code_alone or area or area_alone)
    counted = alone and number.isdigit() and number not in _EMERGENCY
    if counted and (_COUNTED.match(m.string, m.end()) or len(number) < 3):
        return m.group(0)  # call 100 staff, call 12: a count
    code, area = code or code_alone, area or area_alone
    groups = ([code.strip().lstrip("+")] if code else []) + ([area] if area else [])
    said = ", ".join(digits(g, zero="oh") for g in [*groups, *re.split("[-/ ]", number)])
    return phones.say_word(word) + ("plus " if code else "") + said


def _local_phone(m: re.Match[str]) -> str:
    """`555-1234` → "five five five, one two three four"; round ends are a range, left."""
    head, tail = m.groups()
    if int(head) % 5 == 0 and int(tail) % 100 == 0 and int(head) < int(tail):
        return m.group(0)
    if units.UNIT_AHEAD.match(m.string, m.end()):
        return m.group(0)  # 120-1450 rpm: a range with its unit
    return f"{digits(head, zero='oh')}, {digits(tail, zero='oh')}"


def _code(m: re.Match[str]) -> str:
    prefix, code_digits, suffix, groups = m.groups()
    words = [*letters(prefix), digits(code_digits, zero="oh"), *letters(suffix)]
    for group in groups.split("-")[1:]:
        words += ["dash", digits(group, zero="oh")]
    return " ".join(words)


def _day_month(first: str, second: str) -> tuple[int, int]:
    """Day first unless the first cannot be a day of a month the second names (05/31)."""
    a, b = int(first), int(second)
    return (b, a) if b > 12 >= a else (a, b)


def _date(m: re.Match[str]) -> str:
    if m.group(1):
        y, mo, d = int(m.group(1)), int(m.group(3)), int(m.group(4))
    else:
        y = int(m.group(8))
        d, mo = _day_month(m.group(5), m.group(7))
    if not plant.real_date(y, mo, d):
        return _as_written(m)
    pause = ", " if m.group(9) else ""  # between a date and its time, as the T or space
    return f"{MONTHS[mo - 1]} {ordinal(d)} {year(y)}{pause}"


def _power(base: str, power: str) -> str:
    """`5^2` → "five squared", `2^10` → "two to the ten", `2^-1` → "two to the minus one"."""
    if power in ("2", "+2"):
        return f"{number(base)} squared"
    if power in ("3", "+3"):
        return f"{number(base)} cubed"
    return number(base) + exponent(power).removeprefix(" times ten")


def _as_written(m: re.Match[str]) -> str:
    """A date the calendar has not (`2026-04-31`, `29/02/2025`), said as written: each
    number, then "dash", "slash" or "dot"; a time after it keeps its pause."""
    sep = m.group(2) or m.group(6)
    parts = m.group(1, 3, 4) if m.group(1) else m.group(5, 7, 8)
    said = f" {_SEPARATORS[sep]} ".join(number(p) for p in parts)
    return said + (", " if m.group(9) else "")


_SEPARATORS = {"-": "dash", "/": "slash", ".": "dot"}


def _ipv4(m: re.Match[str]) -> str:
    address, port, prefix = m.groups()
    octets = address.split(".")
    if any(int(o) > 255 for o in octets):
        return m.group(0)  # not an address: left for the dotted-number rule
    spoken = " dot ".join(digits(o) for o in octets)
    if port:
        spoken += f" port {digits(port)}"
    if prefix:
        spoken += f" slash {cardinal(int(prefix))}"
    return spoken


def _dotted(m: re.Match[str]) -> str:
    return " point ".join(number(part) for part in m.group(0).split("."))


def _seconds(seconds: str, decimals: str | None) -> str:
    spoken = cardinal(int(seconds)) + (f" point {digits(decimals)}" if decimals else "")
    return f"{spoken} {'second' if spoken == 'one' else 'seconds'}"


def _minutes(mi: int) -> str:
    return "" if mi == 0 else f" oh {cardinal(mi)}" if mi < 10 else f" {cardinal(mi)}"


def _clock12(m: re.Match[str]) -> str:
    """`7:45am` → "seven forty five eh M", `11pm` → "eleven P M": no "hundred" and no "oh"
    before the hour on the 12-hour clock."""
    hours, minutes, seconds, half = m.groups()
    h, mi, sec = int(hours), int(minutes or 0), int(seconds or 0)
    if not 1 <= h <= 12 or mi > 59 or sec > 59:
        return m.group(0)
    spoken = cardinal(h) + _minutes(mi)
    if sec:
        spoken += f" and {_seconds(seconds, None)}"
    return spoken + (" eh M" if half in "aA" else " P M")


def _hour(hours: str, mi: int) -> str:
    """The hour of a 24-hour time: "oh" before a written leading zero or a one-digit hour on
    the hour; "zero zero" after midnight, "zero" at midnight (then "hundred")."""
    h = int(hours)
    if h == 0:
        return "zero" if mi == 0 else "zero zero"
    oh = (hours.startswith("0") and len(hours) == 2) or (len(hours) == 1 and mi == 0)
    return ("oh " if oh else "") + cardinal(h)


def _time(m: re.Match[str]) -> str:
    hours, minutes, seconds, decimals, utc = m.groups()
    h, mi = int(hours), int(minutes)
    # A leap second (23:59:60) is a real time: said as written.
    if len(minutes) != 2 or h > 24 or mi > 59 or (seconds and int(seconds) > 60):
        if seconds or utc:
            return m.group(0)
        if len(minutes) != 2:
            return f"{number(hours)} to {number(minutes)}"  # not a clock time: a ratio, 3:1
        # Written as a time but none (13:70, 25:00): said as written, no ratio invented.
        return f"{number(hours)} colon {number(minutes)}"
    # 09:05 is "oh nine oh five", 8:00 "oh eight hundred" (as 08:00; "eight hundred" is a
    # number); the hour after midnight is "zero zero", as on a 24-hour watch, and midnight
    # itself "zero hundred".
    spoken = _hour(hours, mi)
    spoken += _minutes(mi) if mi else " hundred"
    if seconds and (int(seconds) or decimals):  # 14:05:00 is said as 14:05
        spoken += f" and {_seconds(seconds, decimals)}"
    return spoken + (" U T C" if utc else "")


_LINES = (
    # Words of an all-capital text, before any rule writes a small letter near them (en-9).
    *pauses.ELLIPSES,
    *pauses.UNDERSCORES,
    *capitals.RULES,
    # Units in capitals or small letters written as units first: every rule after reads them.
    *unitcase.RULES,
    *signs.ARROWS,
    *fields.PRODUCT_VERSIONS,
    *units.PLACEHOLDERS,
    # A name ending in digits keeps a pause before a value after it (T1 85 %, en-8).
    *pauses.RULES,
    *equipment.RULES,  # an equipment's number before a value: never a day or a whole
    *fields.SLASHED,
    *notations.RULES,
    *connections.RULES,
    *dateforms.RULES,
    *registers.RULES,  # before the PLC addresses: a word and a slash before one
    *phones.RULES,  # before the amounts: dot groups of three are no thousands there
    *spacegroups.RULES,
    *daydates.RULES,
    *clocks.RULES,
    *designations.RULES,
    # Whole fields first: their digits must not be taken for ranges, ratios or decimals.
    *amounts.RULES,
    *plant.FIELDS,
    *stamps.FIELDS,
    *zones.RULES,
    *serials.RULES,  # letters and digits of an identifier, before the tags take a piece
    *codes.RULES,
    Rule("identifier", fields.CUED_SERIAL, fields.read_serial),
    Rule("telephone number", _PHONE, _phone),
    Rule("telephone number", _LOCAL_PHONE, _local_phone),
    Rule("telephone number", _EXTENSION, lambda m: "extension " + digits(m[1], zero="oh")),
    *fields.RULES,
    Rule("list of numbers", _COMMA_DIGITS, _comma_list),
    *units.POWERS,
    rule("scientific notation", _TIMES_POWER, r"\1e\2"),
    Rule(
        "scientific notation", _POWER, lambda m: "ten" + exponent(m[1]).removeprefix(" times ten")
    ),
    Rule("power", _BASE_POWER, lambda m: _power(m[1], m[2])),
    Rule("date", _DATE, _date),
    Rule("IP address", _IPV4, _ipv4),
    Rule("dotted number", _DOTTED, _dotted),
    Rule("device tag", _CODE, _code),
    *stamps.OFFSETS,
    *plant.CLOCK,
    *daydates.LATE,
    *clocks.LENGTHS,
    Rule("time", _CLOCK12, _clock12),
    Rule("time", _TIME, _time),
    *plant.SLASHES,
    *hyphens.RULES,
    Rule("range", _PERCENT_RANGE, lambda m: f"{m[1]} to {m[3]} {_PER[m[2]]}"),
    *amounts.RANGES,
    rule("times", _TIMES, r"\1 times "),
    rule("range", _UNIT_RANGE, r"\1 to \2"),
    rule("range", _RANGE, r"\1 to \2"),
    Rule("sign", _SIGN, lambda m: f" {_SIGNS[m.group(1)]} "),
    *signs.RULES,
    rule("sign", _SPACED_MINUS, r"\1minus "),
    rule("sign", _MINUS, "minus "),
    rule("sign", _PLUS, "plus "),
    *units.RULES,
    *plant.LATE,
    Rule("ordinal", _UPPER_ORDINAL, _upper_ordinal),
    Rule("number with letters", _NUMBER_LETTER, lambda m: f"{m[1]} {m[2].upper()}"),
    Rule("number with letters", _NUMBER_LETTERS, lambda m: " ".join([m[1], *letters(m[2])])),
    rule("label A", _LABEL_A, "eh"),
    rule("equipment number", _HASH, "number "),
    rule("equipment number", _HASH_AFTER, r"number \1"),
    rule("equipment number", _NUMERO, "number "),
    rule("ampersand", "&", " and "),
    Rule("ordinal", _ORDINAL, lambda m: ordinal(int(m.group(1)))),
    ACRONYMS,
    rule("letters beside digits", _LETTER_DIGIT, " "),
    Rule("number", _NUMBER, lambda m: number(m.group(1))),
)


def _tidy(text: str) -> str:
    text = _SPACES.sub(" ", text).strip()
    return _SPACE_BEFORE_PUNCT.sub("", text)


def _lines(keep: Collection[str]) -> tuple[Rule, ...]:
    """The rules, the acronyms and capital words in `keep` left as written (a site says them
    its own way)."""
    if not keep:
        return _LINES
    return tuple(
        acronym_rule(keep) if line is ACRONYMS else capitals.kept(line, keep) for line in _LINES
    )


def normalize(text: str, keep: Collection[str] = ()) -> str:
    """The words a voice is given for `text`; words in `keep` (those the site lexicon gives
    phonemes for) are not respelled."""
    return _tidy(read(_lines(keep), folding.folded(text)))


def explain_text(text: str, keep: Collection[str] = ()) -> Explained:
    """What `normalize` says, with the place each reading class read (`read --explain`)."""
    explained = explain(_lines(keep), folding.folded(text))
    return Explained(_tidy(explained.said), explained.written, explained.spans)
