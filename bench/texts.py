"""The fixed texts every run uses, so figures stay comparable from one change to the next."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ALERTS = Path("/work/shared/data/alerts.jsonl")

SHORT = "Emergency stop at packing station 3."
MEDIUM = "Pressure alarm: sensor PT-173 reads 6.49 bar, limit 6."
THREE_SENTENCES = (
    "Temperature alarm: sensor TT-180 reads 109.6 °C, limit 85. "
    "Cooling water flow on line 2 is low. "
    "Check pump P-201 and reduce the feed rate."
)
SPEED_TEXTS = {"short": SHORT, "medium": MEDIUM, "3-sentence": THREE_SENTENCES}

# One sentence of clauses, about 14 s of speech: the case where one engine call per sentence
# costs the most memory. Its prefixes give the shorter lengths of the memory table.
LONG_CLAUSES = (
    "Pressure alarm on line 10, sensor PT-173 reads 6.49 bar against a limit of 6 bar",
    "the relief valve on the feed line has opened",
    "the operator on duty must check the feed pump and the bypass valve at once",
    "and report to the control room before the next batch is started.",
)


def long_alert(clauses: int = len(LONG_CLAUSES)) -> str:
    text = ", ".join(LONG_CLAUSES[:clauses])
    return text if text.endswith(".") else text + "."


def alert_texts(limit: int = 20, path: Path = ALERTS) -> list[str]:
    """English alerts from the shared set, rendered by the example config's templates."""
    from cosyedge.config import load_config
    from cosyedge.intake.alert import parse_alert
    from cosyedge.intake.templates import TemplateSet

    templates = TemplateSet(load_config(REPO / "config" / "cosyedge.yaml").templates)
    texts: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item["lang"] != "en":
            continue
        template, fields = templates.find(item["topic"])
        payload = json.dumps(item["payload"]).encode()
        alert = parse_alert(item["topic"], payload, template.config.payload)
        text = template.announcement(alert, fields).text
        if text not in texts:
            texts.append(text)
        if len(texts) == limit:
            break
    return texts
