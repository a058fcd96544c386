"""A small reference verbalizer for the English reading classes, written apart from the
normalizer (cosyedge/speech/text/) and never calling it: the property tests compare what the
normalizer says for a generated instance with what these say for the parts it was made of.

Each function states the reading of one class, as the docs list them.
"""

from __future__ import annotations

WORDS = [
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen"),
]
TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy"}
TENS |= {8: "eighty", 9: "ninety"}
GROUPS = ["", "thousand", "million", "billion", "trillion"]


def _below_thousand(n: int) -> list[str]:
    out = []
    if n >= 100:
        out += [WORDS[n // 100], "hundred"]
        n %= 100
    if n >= 20:
        out.append(TENS[n // 10])
        n %= 10
        if n:
            out.append(WORDS[n])
    elif n or not out:
        out.append(WORDS[n])
    return out


def cardinal(n: int) -> str:
    """Groups of three digits from the right, each with its scale word; empty groups left out."""
    if n == 0:
        return "zero"
    text = str(n)
    groups = []
    while text:
        groups.append(int(text[-3:]))
        text = text[:-3]
    out: list[str] = []
    for scale in range(len(groups) - 1, -1, -1):
        if groups[scale]:
            out += _below_thousand(groups[scale]) + ([GROUPS[scale]] if scale else [])
    return " ".join(out)


def digit_words(text: str) -> str:
    return " ".join(WORDS[int(c)] for c in text)


def letter(c: str) -> str:
    """A capital as the voice is given it: A is "eh" (alone it would be the article)."""
    return "eh" if c == "A" else c


def decimal(text: str) -> str:
    """`"12.05"` → "twelve point zero five"."""
    whole, _, fraction = text.partition(".")
    said = cardinal(int(whole))
    return said + (" point " + digit_words(fraction) if fraction else "")


def plural(count_said: str, singular: str, plural_form: str | None = None) -> str:
    return singular if count_said == "one" else (plural_form or singular + "s")


# --- the classes ---------------------------------------------------------------------------


def duration(parts: list[tuple[str, str]]) -> str:
    """(amount, unit word) pairs, largest unit first: the parts that are not nothing, "and"
    before the last; all nothing: the last part ("zero minutes")."""
    kept = [(a, u) for a, u in parts if float(a) != 0] or [parts[-1]]
    said = [f"{decimal(a)} {plural(decimal(a), u)}" for a, u in kept]
    if len(said) > 1:
        said[-1] = "and " + said[-1]
    return " ".join(said)


def mac(pairs: list[str]) -> str:
    """Pair by pair with a pause (a comma) between; hex letters as capitals, digits as words."""

    def pair(p: str) -> str:
        return " ".join(WORDS[int(c)] if c.isdigit() else letter(c.upper()) for c in p)

    return ", ".join(pair(p) for p in pairs)


PREFIXES = {"p": "pico", "n": "nano", "μ": "micro", "u": "micro", "m": "milli", "c": "centi"}
PREFIXES |= {"h": "hecto", "k": "kilo", "M": "mega", "G": "giga", "T": "tera"}
UNIT_NAMES = {
    "m": ("meter", "meters"),
    "ft": ("foot", "feet"),
    "g": ("gram", "grams"),
    "s": ("second", "seconds"),
    "min": ("minute", "minutes"),
    "h": ("hour", "hours"),
    "A": ("amp", "amps"),
    "V": ("volt", "volts"),
    "W": ("watt", "watts"),
    "Wh": ("watt hour", "watt hours"),
    "VA": ("volt amp", "volt amps"),
    "var": ("var", "vars"),
    "varh": ("var hour", "var hours"),
    "Ah": ("amp hour", "amp hours"),
    "Pa": ("pascal", "pascals"),
    "Hz": ("hertz", "hertz"),
    "Ω": ("ohm", "ohms"),
    "J": ("joule", "joules"),
    "N": ("newton", "newtons"),
    "Nm": ("newton meter", "newton meters"),
    "l": ("liter", "liters"),
    "L": ("liter", "liters"),
    "lb": ("pound", "pounds"),
    "lbf": ("pound force", "pounds force"),
    "bar": ("bar", "bar"),
    "°C": ("degree Celsius", "degrees Celsius"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "dB": ("decibel", "decibels"),
}
LENGTHS = {"m", "ft"}


def unit_term(prefix: str, base: str, power: int, many: bool) -> str:
    """`k`, `Ω` → "kilohm": the prefix runs into the unit, an o into an o."""
    name = UNIT_NAMES[base][1 if many else 0]
    head = PREFIXES.get(prefix, "")
    if head.endswith(("o", "a")) and name.startswith("o"):
        head = head[:-1]
    name = head + name
    if power == 1:
        return name
    if base in LENGTHS:
        return {2: "square", 3: "cubic"}[power] + " " + name
    return name + " " + {2: "squared", 3: "cubed"}[power]


def quantity(amount: str, above: list, below: list) -> str:
    """The number, then the unit: plural on the last term above the line unless it is one."""
    many = amount != "1"
    words = [unit_term(*t, many=many and i == len(above) - 1) for i, t in enumerate(above)]
    words += ["per " + unit_term(*t, many=False) for t in below]
    return decimal(amount) + " " + " ".join(words)
