"""English readings new in en-9, each class with its neighbours that must not change."""

from __future__ import annotations

import pytest

from cosyedge.speech.text.english import normalize
from cosyedge.speech.text.units import WORDS

EN9_FORMS = [
    # A letter after a number that is no unit: a label's letter, a hexadecimal code, a decade.
    ("Fire alarm at gate 4A.", "Fire alarm at gate four eh."),
    ("Motor 12A.", "Motor twelve eh."),
    ("Per UL 508A.", "Per UL five hundred eight eh."),
    ("Per UL 508A panel", "Per UL five hundred eight eh panel"),
    ("Current 4A.", "Current four amps."),  # after a word of current: amps
    ("Fuse F3 10A.", "Fuse F three, ten amps."),
    ("Rated 12.5A.", "Rated twelve point five amps."),
    ("12.5A", "twelve point five amps"),  # a decimal is a measurement
    ("Fault code 8000h.", "Fault code hex eight zero zero zero."),
    ("Error code: 0100h", "Error code: hex zero one zero zero"),
    ("Runtime 8000h", "Runtime eight thousand hours"),  # no code cue: hours
    ("In 1980s plant.", "In nineteen eighties plant."),
    ("Since the 2020s.", "Since the twenty twenties."),
    ("Timer 1800s", "Timer one thousand eight hundred seconds"),  # no decade cue
    ("Retry in 30s", "Retry in thirty seconds"),
    # An offset from UTC after seconds, a minus written onto them, a fraction before it.
    ("Event at 14:05:00-05:00.", "Event at fourteen oh five U T C minus five."),
    ("At 14:05:00.5-05:00", "At fourteen oh five and zero point five seconds U T C minus five"),
    (
        "At 06:31:00.123 +01:00",
        "At oh six thirty one and zero point one two three seconds U T C plus one",
    ),
    (
        "14:05:30 -05:00",
        "fourteen oh five and thirty seconds to oh five hundred",
    ),  # spaced: a range
    ("14:05-15:00", "fourteen oh five to fifteen hundred"),
    # A slash between values is said.
    ("Alarm 12.5/13.0 bar.", "Alarm twelve point five slash thirteen point zero bar."),
    (
        "230/231/229 V",
        "two hundred thirty slash two hundred thirty one slash two hundred twenty nine volts",
    ),
    (
        "Tolerance +0.1/-0.2 mm",
        "Tolerance plus zero point one slash minus zero point two millimeters",
    ),
    ("Pumps 2/3 running", "Pumps two of three running"),
    ("due 12/31/2026", "due December thirty first twenty twenty six"),
    ("10.0.0.0/24", "one zero dot zero dot zero dot zero slash twenty four"),
    # A tolerance pair keeps both signs.
    (
        "D 25 +0.02 -0.01 mm.",
        "D twenty five plus zero point zero two minus zero point zero one millimeters.",
    ),
    (
        "D 25 -0.01 +0.02 mm.",
        "D twenty five minus zero point zero one plus zero point zero two millimeters.",
    ),
    ("Range 2-5 bar", "Range two to five bar"),
    ("Temp -5 - +10", "Temp minus five - plus ten"),
    # Hexadecimal identifiers are spelled, not read as scientific notation.
    (
        "UUID 123e4567-e89b-12d3-a456-426614174000",
        "UUID one two three E four five six seven dash"
        " E eight nine B dash one two D three dash eh four five six dash four two six six one four"
        " one seven four zero zero zero",
    ),
    ("Hash 9f86d081.", "Hash nine F eight six D zero eight one."),
    ("Checksum 3e5e3e5e", "Checksum three E five E three E five E"),
    ("Code 1E3.", "Code one E three."),
    ("Value 1E3", "Value one times ten to the three"),
    ("Value 1.5e-3", "Value one point five times ten to the minus three"),
    ("Batch 20261130", "Batch two zero two six one one three zero"),
    ("deadbeef", "deadbeef"),
    # Not equal is said so.
    ("Value != 0.", "Value not equal to zero."),
    ("Value <> 0", "Value not equal to zero"),
    ("a <= 5", "a at most five"),
]

EN9_GROUPINGS = [
    # Groupings by underscore, apostrophe, Indian pairs, dots before a euro written after.
    ("Value 1_000_000", "Value one million"),
    (
        "Budget CHF 1'250.50.",
        "Budget one thousand two hundred fifty Swiss francs and fifty centimes.",
    ),
    ("Budget INR 12,50,000.", "Budget one million two hundred fifty thousand rupees."),
    ("Valves 1,10,100 open", "Valves one, ten, one hundred open"),  # no rupee: a list
    ("Budget \u20b95,000.", "Budget five thousand rupees."),
    ("Penalty 2.500 \u20ac.", "Penalty two thousand five hundred euros."),
    ("Cost 12.5 \u20ac", "Cost twelve point five euros"),
    ("Lines 3,4 down", "Lines three, four down"),
    ("1,250 units", "one thousand two hundred fifty units"),
    ("x_1_000", "x_1_000"),
    # Decimal commas: a range's first end, a zero before the comma.
    ("Range 2,5-3,5 bar.", "Range two point five to three point five bar."),
    ("Weight 0,750 kg.", "Weight zero point seven five zero kilograms."),
    ("x 0,750", "x zero seven five zero"),  # no unit: as written
    ("1,500 kg", "one thousand five hundred kilograms"),
]

EN9_MARKS = [
    # Enclosed numbers side by side are a list.
    ("Line \u2460\u2461\u2462 stopped.", "Line one, two, three stopped."),
    ("Step \u2461 done", "Step two done"),
    # Feet and inches with a space between.
    ("Length 12' 6\".", "Length twelve feet six inches."),
    ("5'10\"", "five feet ten inches"),
    # A month and a year.
    ("12/2026 inventory.", "December twenty twenty six inventory."),
    ("Count 5/2000 parts", "Count five of two thousand parts"),
    ("due 12/31/2026", "due December thirty first twenty twenty six"),
    # A unit after a lone slash or "per"; microstrain, gigohms.
    ("Count 3520 /m\u00b3.", "Count three thousand five hundred twenty per cubic meter."),
    ("Particles 10,000 per ft\u00b3.", "Particles ten thousand per cubic foot."),
    ("5 kg/m\u00b3", "five kilograms per cubic meter"),
    ("5 per s", "five per s"),  # a lone letter without a power stays a letter
    ("Strain 1200 \u00b5\u03b5 on beam.", "Strain one thousand two hundred microstrain on beam."),
    ("Insulation 1.2 G\u03a9.", "Insulation one point two gigohms."),
    # A 12-hour time written with a dot.
    ("Shift change at 6.00 am.", "Shift change at six eh M."),
    ("Stop at 10.30 p.m.", "Stop at ten thirty P M."),
    ("Value 6.00 amps", "Value six point zero zero amps"),
    # Capitals, a hyphen and a long digit group with groups after it: an identifier.
    (
        "Batch B-20261201-03 released.",
        "Batch B two zero two six one two zero one dash zero three released.",
    ),
    ("PT-101", "P T one oh one"),
    # An inch size after a fitting's word; a thread.
    ("Pipe 3/4 in leaking.", "Pipe three quarter inch leaking."),
    ("Valve 1/4 in the tank", "Valve one of four in the tank"),
    ("Pipes 2/3 in service", "Pipes two of three in service"),
    ("Bolt 3/8-16 UNC loose.", "Bolt three eighth inch sixteen U N C loose."),
    # A tilde between amounts is a range, not single phase.
    ("$1~$2", "one to two dollars"),
    ("Pump 3~", "Pump three phase"),
]


EN9_IDENTIFIERS = [
    # Modbus registers written whole, a register's bit; a count before a unit stays a count.
    ("4x40001", "four X four zero zero zero one"),
    ("1x10001", "one X one zero zero zero one"),
    ("Register 40001.3", "Register four zero zero zero one, bit three"),
    ("Reg 40001.17", "Reg four zero zero zero one dot one seven"),  # no 16-bit register's bit
    ("40001.3", "forty thousand one point three"),  # no register's word: a decimal
    ("3x400V", "three times four hundred volts"),
    # An address after a word and a slash, read as it is alone; a URL's path is the URL's.
    ("Valve/B3:0/1 open", "Valve slash B three colon zero slash one open"),
    ("Valve/T4:0.ACC open", "Valve slash T four colon zero dot eh C C open"),
    ("Valve/register 30001 open", "Valve slash register three zero zero zero one open"),
    ("Line3/3h40m", "Line three slash three hours and forty minutes"),
    ("http://host/N7:0", "H T T P colon slash slash host slash N seven colon zero"),
    # The hexadecimal prefix in capitals.
    ("BAD QUALITY (0X80310000)", "BAD QUALITY (hex eight zero three one zero zero zero zero)"),
    # Versions with a pre-release or a letter; a hyphenated word after a decimal is none.
    ("1.0.0-beta", "version one point zero point zero dash beta"),
    ("firmware v4.12b", "firmware version four point twelve B"),
    ("V2.0.1-hotfix", "version two point zero point one dash hotfix"),
    ("1.5-fold", "one point five-fold"),
    # Telephone numbers in dot groups, after more words, with a trunk prefix.
    ("Phone: 555.123.4567", "Phone: five five five, one two three, four five six seven"),
    ("+1.555.123.4567", "plus one, five five five, one two three, four five six seven"),
    ("Tel 555.123.456", "Tel five five five, one two three, four five six"),
    ("Phone 0171/2345678", "Phone oh one seven one, two three four five six seven eight"),
    (
        "Phone no. 0171 2345678",
        "Phone number oh one seven one, two three four five six seven eight",
    ),
    ("+49 (0)30 1234567", "plus four nine, three oh, one two three four five six seven"),
    ("Cell 12 tripped", "Cell twelve tripped"),  # a load cell is numbered, not dialled
    (
        "Value 2.345.678 kg",
        "Value two million three hundred forty five thousand six hundred seventy eight kilograms",
    ),
    # Serials and batches of letters and digits; a tag after its word stays a tag.
    ("S/N: A1B2C3D4", "S N: eh one B two C three D four"),
    (
        "batch b-20261202-03 complete",
        "batch B two zero two six one two zero two dash zero three complete",
    ),
    ("batch 2611-A", "batch two six one one dash eh"),
    ("Tag: PT-101", "Tag: P T one oh one"),
    ("batch 500kg complete", "batch five hundred kilograms complete"),  # an amount
    ("order 12A", "order one two eh"),
    # Equipment identifiers digit by digit; a small number after the word stays a number.
    ("WO#12345", "W O number one two three four five"),
    ("asset 10023", "asset one zero zero two three"),
    ("HR 40100", "H R four zero one zero zero"),
    ("Unit no. 4711", "Unit number four seven one one"),
    ("Recipe 12 loaded", "Recipe twelve loaded"),
    # Thousands grouped by plain spaces only before a unit or a decimal comma.
    (
        "1 234 567 kg",
        "one million two hundred thirty four thousand five hundred sixty seven kilograms",
    ),
    ("1 000,5 kg", "one thousand point five kilograms"),
    ("1 234 567", "one two hundred thirty four five hundred sixty seven"),
    ("Tank 3 500 kg", "Tank three, five hundred kilograms"),  # the tank's number
    # Words of an all-capital alert: levels, function words, ISA mnemonics.
    (
        "PRESSURE 12.5 BAR AT 07:45",
        "PRESSURE twelve point five bar at oh seven forty five",
    ),
    ("TEMP HI HI 98.5", "TEMP high high ninety eight point five"),
    ("HIHI", "high high"),
    ("LO LO", "low low"),
    ("HEX CODE 0X4F2A ON DRIVE 3", "HEX CODE hex four F two eh on DRIVE three"),
    ("PAH", "P eh H"),
    ("SIS trip", "S I S trip"),
    ("Meet AT 5", "Meet AT five"),  # no all-capital sentence
]


@pytest.mark.parametrize(("written", "spoken"), EN9_IDENTIFIERS)
def test_en9_identifiers_and_groupings(written, spoken):
    assert normalize(written) == spoken


@pytest.mark.parametrize(("written", "spoken"), EN9_FORMS)
def test_en9_classes(written, spoken):
    assert normalize(written) == spoken


@pytest.mark.parametrize(("written", "spoken"), EN9_GROUPINGS)
def test_en9_groupings(written, spoken):
    assert normalize(written) == spoken


@pytest.mark.parametrize(("written", "spoken"), EN9_MARKS)
def test_en9_marks(written, spoken):
    assert normalize(written) == spoken


# Clock times, lengths of time and day-first dates (clocks.py, daydates.py), with the
# neighbours each must leave alone.
EN9_CLOCKS = [
    # The military clock where a word or a mark says a time is meant.
    ("Shift ends 1400 hrs", "Shift ends fourteen hundred hours"),
    ("Trip at 1905", "Trip at nineteen oh five"),
    ("Time: 0745", "Time: oh seven forty five"),
    ("0745 shift change", "oh seven forty five shift change"),
    ("from 0600 to 1400", "from oh six hundred to fourteen hundred"),
    ("0600-1400 hrs", "oh six hundred to fourteen hundred hours"),
    ("ETA 1630", "ETA sixteen thirty"),
    ("until 2300", "until twenty three hundred"),
    ("1405Z", "fourteen oh five U T C"),
    ("1405 UTC", "fourteen oh five U T C"),
    ("Time: 1405 CET", "Time: fourteen oh five Central European Time"),
    ("Runtime 1405 hrs", "Runtime one thousand four hundred five hours"),  # a length
    ("at 1400 rpm", "at one thousand four hundred R P M"),  # a unit: a quantity
    ("since 2020", "since two thousand twenty"),  # a year may be meant
    ("from 1900 to 2300", "from nineteen hundred to twenty three hundred"),
    ("Error 0745", "Error zero seven four five"),  # no word of time: a code
    # A dotted or h time after a word of time; hours after a clock time.
    ("at 7.45", "at seven forty five"),
    ("from 14.30 to 15.00", "from fourteen thirty to fifteen hundred"),
    ("07.45 h", "oh seven forty five hours"),
    ("Time: 19h45", "Time: nineteen forty five"),
    ("14:00 hrs", "fourteen hundred hours"),
    ("14:00h", "fourteen hundred hours"),
    ("at 7.45 bar", "at seven point four five bar"),
    ("from 2.50 to 3.50", "from two point five zero to three point five zero"),
    ("1h30", "one hour and thirty minutes"),  # no word of time: a duration
    # Lengths of time in clock notation.
    ("offline for 00:05:30", "offline for five minutes and thirty seconds"),
    ("elapsed 00:00:45", "elapsed forty five seconds"),
    ("Downtime: 01:30:00", "Downtime: one hour and thirty minutes"),
    ("duration 0:45", "duration forty five minutes"),
    ("Wait 05:30 min", "Wait five minutes and thirty seconds"),
    ("uptime 123:45:00", "uptime one hundred twenty three hours and forty five minutes"),
    ("00:10:00 remaining", "ten minutes remaining"),
    ("scheduled for 14:00", "scheduled for fourteen hundred"),  # a time of day
    ("at 01:30:00", "at oh one thirty"),
    ("ratio 100:50:25", "ratio one hundred to fifty to twenty five"),
    # Minutes written m after a word of length.
    ("Downtime: 45m", "Downtime: forty five minutes"),
    ("Stopped 5m ago", "Stopped five minutes ago"),
    ("idle 15m", "idle fifteen minutes"),
    ("3m high", "three meters high"),
    ("1m left", "one meter left"),
    # ISO 8601 durations.
    ("PT5M", "five minutes"),
    ("PT30S", "thirty seconds"),
    ("PT1H30M", "one hour and thirty minutes"),
    ("P1DT2H", "one day and two hours"),
    ("P1Y2M", "one year and two months"),
    ("P1D", "P one D"),  # one part without T: a label as well
    ("PT-101", "P T one oh one"),
    # A pair after "on" that can be a share.
    ("Trip on 2/3 voting", "Trip on two of three voting"),
    ("open on 3/4", "open on three of four"),
    ('Leak on 1/4" line', "Leak on one quarter inch line"),
    ("Alarm on 7/8.", "Alarm on seven of eight."),
    ("Inspection on 9/30", "Inspection on September thirtieth"),
    ("Filter due 3/4", "Filter due April third"),  # a stronger cue
    # Day-first dates with dots, capitals, two-digit years.
    ("31.12.26", "December thirty first twenty twenty six"),
    ("1.1.27", "January first twenty twenty seven"),
    ("Calibration due 15.12.26.", "Calibration due December fifteenth twenty twenty six."),
    ("Since 01.12. the pump runs.", "Since December first the pump runs."),
    ("Due 01.12.", "Due December first."),
    ("01.12.-05.12.2026", "December first to December fifth twenty twenty six"),
    ("02-DEC-26", "December second twenty twenty six"),
    ("02-Dec-26", "December second twenty twenty six"),
    ("02 DEC 2026", "December second twenty twenty six"),
    ("15 JAN 2027 14:00", "January fifteenth twenty twenty seven, fourteen hundred"),
    ("firmware 1.1.27", "firmware one point one point twenty seven"),  # a version
    ("31.04.26", "thirty one point zero four point twenty six"),  # no such day
    ("2.1.0", "two point one point zero"),
    # A month and a day without a year; two-digit years without a cue; weeks after W.
    ("due Dec 2", "due December second"),
    ("December 2", "December second"),
    ("Mon 2 Dec", "Mon December second"),
    ("JAN 15", "January fifteenth"),
    ("Dec 2 14:00", "December second, fourteen hundred"),
    ("Sept. 5th", "September fifth"),
    ("Mar 3 pumps", "Mar three pumps"),  # a count
    ("May 5 bar", "May five bar"),  # a unit
    ("PUMP MAY 2 FAIL", "PUMP MAY two FAIL"),  # the verb
    ("DEC 2, 2026", "December second twenty twenty six"),
    ("2/12/26", "December second twenty twenty six"),
    ("31/12/26", "December thirty first twenty twenty six"),
    ("on 2/3/26", "on March second twenty twenty six"),
    ("10/40/26", "ten slash forty slash twenty six"),
    ("12-02-26", "one two dash zero two dash two six"),  # which part is the year: left
    ("W49/2026", "week forty nine of twenty twenty six"),
    ("KW49/2026", "week forty nine of twenty twenty six"),
]


@pytest.mark.parametrize(("written", "spoken"), EN9_CLOCKS)
def test_en9_clocks_lengths_and_day_first_dates(written, spoken):
    assert normalize(written) == spoken


# A run of 5,000 digits (more than the 4,300 Python converts to an int) read as a quantity:
# before every unit, a percentage, after a sign or a currency, in an exponent or a power,
# on either side of a slash or a hyphen. The run is said digit by digit, never raises.
_RUN = "7" * 5000
_RUN_CONTEXTS = [
    *(f"{{}} {unit}" for unit in ("kg", "bar", "mA", "°C", "kW·h", "m/s²", "µS/cm", "A.", "V")),
    *("{}kg", "{}%", "{} %", "{}\u2030", "-{}", "+{}", "-{} %", "\u2212{} bar", "±{}", "≈{}"),
    *("${}", "€{}", "€{},50", "USD {}", "{} EUR", "\u20b9{}", "$-{}", "${}M", "{}\u00a2"),
    *("{}e3", "{}E-3", "1e{}", "1.5e-{}", "10^{}", "10^-{} mbar", "{}^2", "2^{}", "3x10^{} Pa"),
    *("1/{}", "{}/2", "{}/{}", "{}/4 in", "1 {}/2", "on {}/3", "{}/3 kg", "5 mm/{} mm"),
    *("{}-5", "5-{}", "{}-{} bar", "{}st", "{}th", "v1.2.3-rc{}", "{}.5 MPa", "0.{} bar"),
]


@pytest.mark.parametrize("context", _RUN_CONTEXTS)
def test_a_run_too_long_for_an_int_is_said_digit_by_digit(context):
    said = normalize(context.replace("{}", _RUN))
    assert said.count("seven") >= 5000 * context.count("{}")


def test_an_indian_grouping_too_long_for_an_int_is_still_grouped():
    said = normalize("INR 1" + ",11" * 2500 + ",111")
    assert said.endswith(" rupees") and said.count("one") == 5004


# Typographic hyphens and dashes (en-9): a hyphen is a hyphen, a dash between numbers a range.
EN9_DASHES = [
    ("5\u201010 bar", "five to ten bar"),
    ("5\u201110 bar", "five to ten bar"),
    ("5\u201410 bar", "five to ten bar"),
    ("5\u201510 bar", "five to ten bar"),
    ("5 \u2012 10 bar", "five to ten bar"),
    ("4\u201020 mA", "four to twenty milliamps"),
    ("07:45\u201008:00", "oh seven forty five to oh eight hundred"),
    ("2026\u201012\u201002", "December second twenty twenty six"),
    ("-5\u20100 \u00b0C", "minus five to zero degrees Celsius"),
    ("-5\u2014-10 \u00b0C", "minus five to minus ten degrees Celsius"),
    ("5\u221210 bar", "five to ten bar"),
    ("PT\u2011101", "P T one oh one"),
    ("PT\u2014101", "P T one oh one"),
    ("CPU 1516\u20103", "CPU one five one six dash three"),  # a hyphen: an identifier
    ("Pump stopped \u2014 check it", "Pump stopped \u2014 check it"),  # a pause, left
]


@pytest.mark.parametrize(("written", "spoken"), EN9_DASHES)
def test_en9_dashes(written, spoken):
    assert normalize(written) == spoken


# Units in capitals or small letters after a number (en-9), and what stays a letter.
EN9_CASED_UNITS = [
    ("Pressure 12.5BARG", "Pressure twelve point five bar gauge"),
    ("45DEGC", "forty five degrees Celsius"),
    ("TEMP 45 DEG C", "TEMP forty five degrees Celsius"),
    ("12 DEGF", "twelve degrees Fahrenheit"),
    ("Loop 4-20 MA", "Loop four to twenty milliamps"),
    ("Supply 24 VDC", "Supply twenty four volts DC"),
    ("Flow 15 L/MIN", "Flow fifteen liters per minute"),
    ("Cl 0.5 MG/L", "Cl zero point five milligrams per liter"),
    (
        "CONDUCTIVITY 2500 \u039cS/CM",
        "CONDUCTIVITY two thousand five hundred microsiemens per centimeter",
    ),
    (
        "conductivity 2500 \u00b5s/cm",
        "conductivity two thousand five hundred microsiemens per centimeter",
    ),
    ("Speed 1500RPM", "Speed one thousand five hundred R P M"),
    ("Pressure 1,5 BAR", "Pressure one point five bar"),
    ("T=45.2C", "T=forty five point two degrees Celsius"),
    ("Temp 98.6F.", "Temp ninety eight point six degrees Fahrenheit."),
    ("dT=3.5K", "dT=three point five kelvin"),
    ("overcurrent 32.9 a", "overcurrent thirty two point nine amps"),
    ("load 5.5 kw, 400 v, 11 a", "load five point five kilowatts, four hundred volts, eleven amps"),
    ("3 a day", "three a day"),  # the article
    ("pump 3 a failed", "pump three a failed"),
    ("Room 3F", "Room three F"),  # a label's letter
    ("5K parts", "five thousand parts"),
    ("Tag P-20 MA", "Tag P two oh MA"),  # a tag's number, no value
    ("STEP 2 OF 3", "STEP two of three"),
    ("3 MW", "three megawatts"),  # a unit as written
    ("5 mS/cm", "five millisiemens per centimeter"),
]


@pytest.mark.parametrize(("written", "spoken"), EN9_CASED_UNITS)
def test_en9_cased_units(written, spoken):
    assert normalize(written) == spoken


# A lone A, V or W: a measured value's unit anywhere, an equipment number's label (en-9).
EN9_LONE_LETTERS = [
    ("Current 18.4 A on phase L1", "Current eighteen point four amps on phase L one"),
    ("motor current 32 A since 07:45", "motor current thirty two amps since oh seven forty five"),
    ("drawing 12.5 A and rising", "drawing twelve point five amps and rising"),
    ("Battery 11.2 V low", "Battery eleven point two volts low"),
    ("Voltage 231 V on L1", "Voltage two hundred thirty one volts on L one"),
    ("Power 3.5 W per channel", "Power three point five watts per channel"),
    ("Overload 18.4 A (limit 16 A)", "Overload eighteen point four amps (limit sixteen amps)"),
    ("Tank 12 A", "Tank twelve eh"),
    ("Bay 3 A.", "Bay three eh."),
    ("Line 4 A", "Line four eh"),
    ("Compressor 1 A.", "Compressor one eh."),
    ("Motor 4 V", "Motor four V"),
    ("Panel 3 W", "Panel three W"),
    ("Alarm: P 101 A", "Alarm: P one hundred one eh"),
    ("Pump 3 A failed", "Pump three eh failed"),
    ("Fuse 10 A", "Fuse ten amps"),
    ("5 A", "five amps"),  # alone at the end of a clause, as before
    ("Pump 3 A 400 V", "Pump three amps four hundred volts"),  # values in a row
]


@pytest.mark.parametrize(("written", "spoken"), EN9_LONE_LETTERS)
def test_en9_lone_letters(written, spoken):
    assert normalize(written) == spoken


# A decimal comma before a lone letter that is a unit, after an equals sign, before a slash
# and another value (en-9).
EN9_DECIMAL_COMMAS = [
    ("Current 0,75 A", "Current zero point seven five amps"),
    ("Output 2,5 V.", "Output two point five volts."),
    ("Runtime 2,5 h", "Runtime two point five hours"),
    ("Length 1,25 m", "Length one point two five meters"),
    ("Delay 0,5 s", "Delay zero point five seconds"),
    ("PV=12,5", "PV=twelve point five"),
    ("T=45,2 now", "T=forty five point two now"),
    ("Limits 1,5 bar/2,5 bar", "Limits one point five bar slash two point five bar"),
    ("Accuracy 0,1 %FS", "Accuracy zero point one percent of full scale"),
    ("Lines 1,2 A down", "Lines one, two eh down"),  # no unit: a list
    ("Lines 3,4 down", "Lines three, four down"),
    ("x=1,250", "x=one thousand two hundred fifty"),  # three digits group thousands
]


@pytest.mark.parametrize(("written", "spoken"), EN9_DECIMAL_COMMAS)
def test_en9_decimal_commas(written, spoken):
    assert normalize(written) == spoken


# A unit before a slash and another value, after a diameter sign or a tolerance (en-9).
EN9_UNITS_BESIDE_MARKS = [
    ("Gap 5 mm/10 mm", "Gap five millimeters slash ten millimeters"),
    ("Fuse 8 A/10 A", "Fuse eight amps slash ten amps"),
    ("[8 A/10 A]", "[eight amps slash ten amps]"),
    ("Supply 12 V/24 V", "Supply twelve volts slash twenty four volts"),
    ("Pipe \u00d850 mm", "Pipe diameter fifty millimeters"),
    (
        "Shaft 12.5 (+0.1/-0.2) mm",
        "Shaft twelve point five (plus zero point one slash minus zero point two) millimeters",
    ),
    ("Speed 5 m/s", "Speed five meters per second"),  # a quotient, not two values
]


@pytest.mark.parametrize(("written", "spoken"), EN9_UNITS_BESIDE_MARKS)
def test_en9_units_beside_marks(written, spoken):
    assert normalize(written) == spoken


# A minus parted from its value by a space, a delta before one (en-9).
EN9_DETACHED_MINUS = [
    ("reading - 5 bar now", "reading minus five bar now"),
    ("Value - 5 \u00b0C.", "Value minus five degrees Celsius."),
    ("[- 5 bar]", "[minus five bar]"),
    ("- 12.5 kPa, limit exceeded", "minus twelve point five kilopascals, limit exceeded"),
    ("\u0394-3 mbar", "delta minus three millibar"),
    ("Line 3 - 5", "Line three to five"),  # after a number: a range
    ("Pump stopped - 5 min ago", "Pump stopped - five minutes ago"),  # the writer's dash
]


@pytest.mark.parametrize(("written", "spoken"), EN9_DETACHED_MINUS)
def test_en9_detached_minus(written, spoken):
    assert normalize(written) == spoken


@pytest.mark.parametrize("symbol", sorted(WORDS))
def test_a_run_too_long_for_an_int_before_every_unit(symbol):
    said = normalize(f"{_RUN} {symbol}")
    assert said.count("seven") == 5000
