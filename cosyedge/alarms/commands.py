"""What the alarm desk makes of an operator command beyond the rules' part (alarms/desk.py):
the ids it acted on, and why one that acted on nothing is refused."""

from __future__ import annotations

from collections.abc import Callable

from cosyedge.model import Command, Effect, Event

SETTLING = ("ack", "silence", "confirm")  # a command of these that matched nothing is refused


def acted_on(effects: list[Effect]) -> tuple[str, ...]:
    """The ids a command's events (one, or one a zone) say it acted on."""
    told = [e for e in effects if isinstance(e, Event) and e.kind == "command"]
    return tuple(sorted({i for e in told for i in e.detail.get("ids", ())}))  # unshelve: none


def matched_nothing(command: Command, ids: tuple[str, ...], elsewhere: Elsewhere) -> bool:
    """Whether an ack, silence or confirm naming an id or a topic acted on nothing standing
    here nor at a plant system (one naming neither, a silence of all, never did)."""
    named = bool(command.id or command.topic)
    return command.cmd in SETTLING and not ids and named and not elsewhere.named(command)


def unmatched(command: Command) -> str:
    """Why a command naming an id or a topic that matched nothing standing is refused."""
    if command.id is not None:
        return f"{command.cmd}: {command.id!r} is not standing (unknown, or settled already)"
    return f"{command.cmd}: nothing standing on {command.topic!r}"


class Elsewhere:
    """The plant systems whose alarms an operator command also settles (an OPC UA server's
    conditions): a command naming one of theirs matched something, though nothing stands
    here (an alarm said once is acknowledged at its server)."""

    def __init__(self) -> None:
        self._knows: list[Callable[[Command], bool]] = []

    def add(self, knows: Callable[[Command], bool]) -> None:
        """`knows(command)`: whether it names one of the system's alarms; must not raise."""
        self._knows.append(knows)

    def named(self, command: Command) -> bool:
        return any(knows(command) for knows in self._knows)
