"""What the alarm desk makes of an operator command beyond the rules' part (alarms/desk.py):
the ids it acted on, and why one that acted on nothing is refused."""

from __future__ import annotations

from cosyedge.model import Command, Effect, Event

SETTLING = ("ack", "silence", "confirm")  # a command of these that matched nothing is refused


def acted_on(effects: list[Effect]) -> tuple[str, ...]:
    """The ids a command's events (one, or one a zone) say it acted on."""
    told = [e for e in effects if isinstance(e, Event) and e.kind == "command"]
    return tuple(sorted({i for e in told for i in e.detail.get("ids", ())}))  # unshelve: none


def unmatched(command: Command) -> str:
    """Why a command naming an id or a topic that matched nothing standing is refused."""
    if command.id is not None:
        return f"{command.cmd}: {command.id!r} is not standing (unknown, or settled already)"
    return f"{command.cmd}: nothing standing on {command.topic!r}"
