"""An OPC UA condition whose fields say nothing is still said, with words: a Message and a
SourceName empty, punctuation, control characters, emoji or markup only are said by the
ConditionName, then the condition's browse name, against asyncua's own server; the last
fallback, that an alarm came from the source, is held to the voices' rule in process."""

from __future__ import annotations

from pathlib import Path

import pytest
from opcua_support import asyncua_server
from support import Listener, free_port, site_yaml, wait_until

from cosyedge.config.loader import parse_config
from cosyedge.intake.intake import Intake
from cosyedge.model import RejectedAlert
from cosyedge.sources.phrase import plain, worded

# The class of fields with no word: each is said by the ConditionName.
WORDLESS = ["", "   ", "!!! ---", "\x07\x1b\x7f", "<b></b><br/>", "&nbsp;&#160;", "🔥🔥", "∅ · …"]


def config(broker_port: int, tmp: Path, endpoint: str) -> str:
    return f"""{site_yaml(broker_port, tmp)}sources:
  - opcua:
      endpoint: {endpoint}
      name: tank
      security: {{policy: None, mode: None}}
      reconnect_max_s: 2
"""


@pytest.mark.system
def test_a_condition_with_wordless_fields_is_said_by_its_name(
    broker, alsa_sink, make_daemon, tmp_path
):
    port = free_port()
    server = asyncua_server(port, None, tmp_path / "server.log")
    listener = Listener(broker.port, "cosyedge/report")
    spoken = lambda: [r for r in listener.on("cosyedge/report") if r.get("outcome") == "spoken"]  # noqa: E731
    try:
        make_daemon(config(broker.port, tmp_path, f"opc.tcp://127.0.0.1:{port}/test"))
        for n, text in enumerate(WORDLESS):
            source = WORDLESS[-1 - n]
            sev = 500 + n  # a new Severity: a new alert each time
            server.do(
                do="change", severity=sev, message=text, source=source, condition_name="Overfill"
            )
            wait_until(lambda n=n: len(spoken()) == n + 1, 30, f"the alarm with Message {text!r}")
            assert spoken()[-1]["text"] == "Overfill", (text, spoken()[-1])
        # No ConditionName either: the condition's browse name.
        server.do(do="change", severity=900, message="<i></i>", source="", condition_name="...")
        wait_until(lambda: len(spoken()) == len(WORDLESS) + 1, 30, "said by its browse name")
        assert spoken()[-1]["text"] == "HighLevel"
        # Severities outside 1-1000: taken to the nearest end. (asyncua's server sends a
        # Severity only as a UInt16; NaN and text, which other servers may send, are read
        # in process: test_opcua.py.)
        for severity, message, priority in [
            (0, "zero", "low"), (1001, "over", "critical"), (65535, "most", "critical"),
        ]:  # fmt: skip
            server.do(do="change", severity=severity, message=message, source="Tank 3")
            wait_until(lambda m=message: spoken()[-1]["text"] == f"Tank 3: {m}", 30, message)
            assert spoken()[-1]["priority"] == priority
        outcomes = {r.get("outcome") for r in listener.on("cosyedge/report")}
        assert "rejected" not in outcomes
    finally:
        listener.close()
        server.kill()


def test_wordless_fields_are_empty_and_the_last_fallback_is_said(tmp_path: Path):
    assert [plain(t) for t in WORDLESS] == [""] * len(WORDLESS)
    assert plain("<b>Pump&nbsp;1</b> overload") == "Pump 1 overload"
    voices = parse_config("sources: []\n")
    intake = Intake(voices)

    def sayable(text: str, lang: str) -> bool:
        try:
            intake.sayable(text, lang, lang)
        except RejectedAlert:
            return False
        return True

    fallbacks = ["", "alarm from tank"]
    assert worded(("en", ": ."), fallbacks, sayable) == ("en", "alarm from tank")
    assert worded(("en", "Tank 3: Level high"), fallbacks, sayable)[1] == "Tank 3: Level high"
    # A name in a script no configured voice reads is passed over too.
    assert worded(("en", ": "), ["Ошибка насоса", "alarm from tank"], sayable)[1] == (
        "alarm from tank"
    )
