"""The proving-ground scenarios, CI-sized: each against the real daemon, Mosquitto and the
ALSA capture sink, each accounting for every alert it sent (scripts/prove runs them full-sized).
"""

from __future__ import annotations

import re

import pytest
import scenarios

pytestmark = pytest.mark.system  # the daemon and Mosquitto as processes

# Nothing there may go unsaid; and those of them that time how long recovery took.
RECOVERING = {
    "kill9",
    "http",
    "broker",
    "device",
    "cache",
    "diskfull",
    "model",
    "journalfull",
    "deaf",
    "opcua",
    "standby",
}
UNSAID_NOTHING = RECOVERING | {"faults", "retained", "hostile"}
# The premium tier's upgrading is waited for while it moves, and its worker runs at the
# lowest priority: on a loaded machine that takes longer than the suite's 300 s.
LONGER = {"premium": pytest.mark.timeout(1200)}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=LONGER.get(n, ())) for n in scenarios.SCENARIOS if n != "soak"]
)
def test_scenario_loses_nothing_and_explains_every_outcome(name, tmp_path, request, saved_models):
    size = dict(scenarios.SIZES["ci"])
    if name == "premium":  # the pack the other tests share, rather than one more
        size["premium_pack"] = request.getfixturevalue("cosyvoice_pack").directory
    try:
        result = scenarios.run(name, tmp_path, size, saved_models)
    except scenarios.Unavailable as exc:
        pytest.skip(str(exc))
    print(result.as_dict())
    assert result.sent > 0
    assert result.lost == 0, result
    assert result.missing_reasons == 0, result
    assert result.spoken + sum(result.other.values()) == result.sent, result
    assert not [n for n in result.notes if "died" in n or "traceback" in n or "changed" in n]
    bad_notes = ("never noticed", "played from the cache", "went unnoticed", "twice", "never")
    assert not [n for n in result.notes if any(b in n for b in bad_notes)], result.notes
    if name in UNSAID_NOTHING:
        assert result.spoken == result.sent, result
    if name in RECOVERING:
        assert result.recovery_s is not None
    if name == "malformed":
        every = int(scenarios.SIZES["ci"]["valid_every"])
        assert result.spoken == result.sent // every + (result.sent % every > 0)
        assert result.other == {"rejected": result.sent - result.spoken}
    if name == "model":
        detected = next(n for n in result.notes if "damaged models detected" in n).split()
        assert detected[0] == detected[2], result.notes  # "k of k damaged models ..."
    if name == "flood":
        from test_memory import CEILING_MB

        assert result.peak_rss_mb < CEILING_MB
        assert result.other.get("summarized", 0) > 0
    if name == "zones":
        assert not [n for n in result.notes if "other zones than named" in n], result.notes
        assert result.other.get("summarized", 0) > 0  # the flood rules ran in the zones
    if name == "hostile":
        assert result.peak_rss_mb < scenarios.HOSTILE_CEILING_MB
        notes = "\n".join(result.notes)
        shortened = re.search(r"shortened (\d+) of (\d+) hostile texts \((\d+) over", notes)
        assert shortened[1] == shortened[2] == shortened[3], notes  # each over, each shortened
        assert "other than the estimate says" not in notes
        assert re.search(r"^0 of \d+ ordinary alerts after a hostile one degraded", notes, re.M)
        assert "longer than max_spoken_s" not in notes
    if name == "standby":
        standby_figures(result)


def standby_figures(result: scenarios.Result) -> None:
    """Both running: the primary says all, the standby none; a latency for every kill; each
    announcement a kill cut short said whole after it by one of them; a hold at each of the
    primary's starts."""
    notes = "\n".join(result.notes)
    both = r"with both running: (\d+) alerts, \1 said by the primary, 0 by the standby, \1 standby"
    assert re.search(both, notes), notes
    kills = int(scenarios.SIZES["ci"]["standby_kills"])
    assert f"audio, all ({kills} kills)" in notes, notes
    # Said whole after the kill by the standby or by the restarted primary (which of them
    # depends on how soon the primary is back), or ended before it after all.
    cut = re.search(r"(\d+) cut alerts, said whole by: (.*)", notes)
    said = [
        int(k) for k in re.findall(r"(\d+) (?:standby, covered|restarted primary|ended)", cut[2])
    ]
    assert int(cut[1]) > 0 and sum(said) == int(cut[1]), notes
    assert re.search(r"handback hold per start of the primary \((\d+) of \1\)", notes), notes
