"""The Wyoming text-to-speech server against the real daemon, with the wyoming library's own
client (AsyncTcpClient): describe, synthesis streamed clause by clause and then served from
the phrase cache, bad requests answered with `error` events, clients that go away or crowd
in, and alerts coming first. Without the wyoming package, enabling it is a config error."""

from __future__ import annotations

import asyncio
import json
import shlex
import socket
import sys
import time
import wave
from pathlib import Path

import pytest
from support import Listener, config_problems, free_port, publish, site_yaml, wait_until
from test_http import LONG_TEXT
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.error import Error
from wyoming.event import Event
from wyoming.info import Describe, Info
from wyoming.tts import Synthesize, SynthesizeVoice

from cosyedge.config import parse_config
from cosyedge.features import missing_components
from cosyedge.intake import local
from cosyedge.intake.local import BadField
from cosyedge.wyoming.server import MAX_EVENT_BYTES, Refused, read_event, voice_asked


def wyoming_config(port: int, tmp: Path, wyoming_port: int, extra: str = "") -> str:
    return (
        f"{site_yaml(port, tmp)}"
        f"wyoming:\n  enabled: true\n  listen: tcp://127.0.0.1:{wyoming_port}\n{extra}"
    )


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 120))


async def exchange(port: int, event: Event, cache: Path | None = None) -> list[tuple]:
    """Send one event; (event, phrases in the cache when it came) for each event answered,
    up to audio-stop or an error."""
    got = []
    async with AsyncTcpClient("127.0.0.1", port) as client:
        await client.write_event(event)
        while (answer := await client.read_event()) is not None:
            cached = len(list(cache.rglob("*.wav"))) if cache else None
            got.append((answer, cached))
            if answer.type in ("audio-stop", "error", "info"):
                break
    return got


def served(port: int, event: Event, within_s: float = 20) -> list[tuple]:
    """`exchange`, asked again while the answer is `busy`, as the error tells a client to."""
    deadline = time.monotonic() + within_s
    while True:
        got = run(exchange(port, event))
        answer = got[-1][0]
        if not Error.is_type(answer.type) or Error.from_event(answer).code != "busy":
            return got
        assert time.monotonic() < deadline, "still busy"
        time.sleep(0.2)


def audio_of(events: list[tuple]) -> tuple[int, bytes]:
    start = AudioStart.from_event(events[0][0])
    assert (start.width, start.channels) == (2, 1)
    assert AudioStop.is_type(events[-1][0].type), events[-1][0]
    chunks = [AudioChunk.from_event(e) for e, _ in events[1:-1]]
    assert all(c.rate == start.rate for c in chunks)
    return start.rate, b"".join(c.audio for c in chunks)


def test_describe_then_synthesis_streams_each_clause_and_comes_from_the_cache_after(
    broker, alsa_sink, make_daemon, tmp_path
):
    port = free_port()
    daemon = make_daemon(wyoming_config(broker.port, tmp_path, port))
    daemon.wait_for_log(rf"Wyoming text-to-speech on 127\.0\.0\.1 port {port}")
    cache = tmp_path / "cache"

    ((answer, _),) = run(exchange(port, Describe().event()))
    (program,) = Info.from_event(answer).tts
    assert program.name == "cosyedge" and program.installed
    voices = {v.languages[0]: v.name for v in program.voices}
    assert voices == {"en": "hibari-heart", "zh": "espeak-ng-cmn-latn-pinyin"}
    # Each voice is attributed to its makers, not to cosyedge.
    makers = {v.name: (v.attribution.name, v.attribution.url) for v in program.voices}
    assert makers == {
        "hibari-heart": ("Maureese Williams (hibari-tts)", "https://github.com/MMWilliams/hibari"),
        "espeak-ng-cmn-latn-pinyin": (
            "the eSpeak NG authors",
            "https://github.com/espeak-ng/espeak-ng",
        ),
    }

    files = set(cache.rglob("*.wav"))
    before = len(files)
    request = Synthesize(text=LONG_TEXT, voice=SynthesizeVoice(name="hibari-heart"))
    streamed = run(exchange(port, request.event(), cache))
    rate, audio = audio_of(streamed)
    assert rate == 24000
    # The first audio came while the phrase was still being synthesized: only a phrase
    # synthesized to its end is cached, and the cache did not hold it yet.
    assert streamed[1][1] == before, [c for _, c in streamed]
    assert len(streamed) > 4
    wait_until(lambda: len(list(cache.rglob("*.wav"))) == before + 1, 10, "the phrase cached")
    (entry,) = set(cache.rglob("*.wav")) - files
    with wave.open(str(entry)) as w:
        assert w.getframerate() == rate and w.readframes(w.getnframes()) == audio

    # Again, asked by language: the cached phrase, the same samples, nothing synthesized.
    request = Synthesize(text=LONG_TEXT, voice=SynthesizeVoice(language="en"))
    again = run(exchange(port, request.event(), cache))
    assert audio_of(again) == (rate, audio)
    assert len(list(cache.rglob("*.wav"))) == before + 1
    # Text hygiene as for alerts: control characters and spacing do not make another phrase.
    messy = run(exchange(port, Synthesize(text=f"  {LONG_TEXT}\u200b\x07 ").event(), cache))
    assert audio_of(messy) == (rate, audio)
    assert len(list(cache.rglob("*.wav"))) == before + 1
    # Chinese characters, no voice asked for: the Mandarin voice, by their script.
    mandarin = run(exchange(port, Synthesize(text="三号泵故障").event()))
    rate, audio = audio_of(mandarin)
    assert rate != 24000 and len(audio) > rate  # espeak-ng's rate; over half a second
    assert "wyoming" in daemon.log() and "Traceback" not in daemon.log()


async def like_home_assistant(port: int, request: Event, patience_s: float = 10) -> list[Event]:
    """A request as Home Assistant's Wyoming TTS client makes it (its
    homeassistant/components/wyoming/tts.py): a connection of its own, the `synthesize`
    event, then events read until `audio-stop` or the end of the connection, every other one
    skipped, `error` included. None stands for the end of the connection; a reading still
    waiting after `patience_s` (well under the server's `timeout_s` of 30) fails the test."""
    got: list[Event | None] = []
    async with AsyncTcpClient("127.0.0.1", port) as client:
        await client.write_event(request)
        try:
            async with asyncio.timeout(patience_s):
                while (event := await client.read_event()) is not None:
                    got.append(event)
                    if AudioStop.is_type(event.type):
                        return got
        except TimeoutError:
            raise AssertionError(f"still waiting after {patience_s} s: {got}") from None
    return [*got, None]


def test_a_refused_request_ends_the_connection_so_home_assistant_stops_waiting(
    broker, alsa_sink, make_daemon, tmp_path
):
    """Home Assistant reads until audio-stop or the end of the connection: after an `error`
    (an unknown voice; the synthesizer busy with another caller's phrase) the connection
    ends, so it gives up at once instead of after the server's 30 s timeout."""
    port = free_port()
    daemon = make_daemon(wyoming_config(broker.port, tmp_path, port, "  max_chars: 6000\n"))
    daemon.wait_for_log(r"Wyoming text-to-speech on")

    def refused(got: list[Event | None]) -> str:
        assert len(got) == 2 and got[1] is None, got  # the error, then the end
        assert Error.is_type(got[0].type), got
        return Error.from_event(got[0]).code

    unknown = Synthesize(text="Hello.", voice=SynthesizeVoice(name="alloy")).event()
    assert refused(run(like_home_assistant(port, unknown))) == "unknown-voice"

    async def while_another_caller_synthesizes() -> list[Event | None]:
        """Another caller asks for a long phrase and reads none of it: the synthesizer is
        its until the phrase is made and taken, or until the server gives up on it."""
        holder = AsyncTcpClient("127.0.0.1", port)
        await holder.connect()
        try:
            await holder.write_event(Synthesize(text=(LONG_TEXT + " ") * 14).event())
            started = await holder.read_event()
            assert started is not None and AudioStart.is_type(started.type), started
            return await like_home_assistant(port, Synthesize(text="Pump two stopped.").event())
        finally:
            assert holder._writer is not None
            holder._writer.transport.abort()

    assert refused(run(while_another_caller_synthesizes())) == "busy"
    # A request answered with audio still ends at audio-stop, the connection left to the
    # client (asked again while the phrase left behind stops at its next clause); describe
    # keeps it open.
    request = Synthesize(text="Pump two stopped.").event()
    deadline = time.monotonic() + 20
    while (spoken := run(like_home_assistant(port, request)))[-1] is None:
        assert refused(spoken) == "busy" and time.monotonic() < deadline, spoken
        time.sleep(0.2)
    assert AudioStop.is_type(spoken[-1].type), spoken

    async def describe_twice() -> list[Event | None]:
        async with AsyncTcpClient("127.0.0.1", port) as client:
            answers = []
            for _ in range(2):
                await client.write_event(Describe().event())
                answers.append(await asyncio.wait_for(client.read_event(), 10))
            return answers

    assert all(a is not None and Info.is_type(a.type) for a in run(describe_twice()))
    assert daemon.alive() and "Traceback" not in daemon.log()


def test_bad_requests_get_an_error_event_and_never_stop_the_server(
    broker, alsa_sink, make_daemon, tmp_path
):
    port = free_port()
    extra = "  max_chars: 100\n  max_clients: 2\n  timeout_s: 2\n"
    daemon = make_daemon(wyoming_config(broker.port, tmp_path, port, extra))
    daemon.wait_for_log(r"Wyoming text-to-speech on")

    def error_of(event: Event) -> Error:
        ((answer, _),) = run(exchange(port, event))
        assert Error.is_type(answer.type), answer
        return Error.from_event(answer)

    cases = [
        (Synthesize(text="").event(), "bad-request", "text: required"),
        (Synthesize(text=" \u200b ").event(), "bad-request", "text: required"),
        (Event("synthesize", {"voice": {"language": "en"}}), "bad-request", "text: required"),
        (Event("synthesize", {"text": 7}), "bad-request", "text: expected a string"),
        (Event("synthesize", {"text": ["a"]}), "bad-request", "got an array"),
        (Synthesize(text="x" * 101).event(), "too-long", "over 100 characters"),
        (
            Synthesize(text="Hello.", voice=SynthesizeVoice(name="alloy")).event(),
            "unknown-voice",
            "no voice named 'alloy'",
        ),
        (
            Synthesize(text="Hello.", voice=SynthesizeVoice(language="fr")).event(),
            "unknown-voice",
            "lang: no voice for it",
        ),
        (Synthesize(text="Привет мир").event(), "bad-request", "no voice reads Cyrillic"),
    ]
    for event, code, words in cases:
        error = error_of(event)
        assert error.code == code and words in error.text, (event, error)

    # Not Wyoming at all, and an event too large to read: an error, then the connection ends.
    for raw, code in (
        (b"GET / HTTP/1.1\r\n\r\n", "bad-request"),
        (json.dumps({"type": "synthesize", "data_length": 10**9}).encode() + b"\n", "too-long"),
        (json.dumps({"type": "synthesize", "data_length": True}).encode() + b"\n", "bad-request"),
        (json.dumps({"type": "synthesize", "payload_length": -5}).encode() + b"\n", "bad-request"),
        (b'{"type": "synthesize", "data": {"text": "' + b"x" * 300_000 + b'"}}\n', "too-long"),
    ):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(raw)
            answer = _read_all(s)
        header = json.loads(answer.split(b"\n")[0])
        assert header["type"] == "error", answer[:200]
        assert json.loads(answer[answer.index(b"\n") + 1 :])["code"] == code

    # Clients that send nothing, or an event a byte at a time, hold no place a new one
    # needs: with max_clients of them open, the next client is served, and the one that has
    # waited longest without a request is closed to make room.
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
    held[1].sendall(b'{"type": "descr')
    time.sleep(0.3)
    ((answer, _),) = run(exchange(port, Describe().event()))
    assert Info.is_type(answer.type), answer
    held[0].settimeout(10)
    assert _read_all(held[0]) == b""
    daemon.wait_for_log(r"wyoming: 127\.0\.0\.1 closed to make room")
    # A client that sends nothing is let go after timeout_s all the same.
    held[1].settimeout(10)
    assert _read_all(held[1]) == b""
    for s in held:
        s.close()
    ((answer, _),) = run(exchange(port, Describe().event()))
    assert Info.is_type(answer.type)
    assert daemon.alive() and "Traceback" not in daemon.log()


def _read_all(s: socket.socket) -> bytes:
    out = b""
    while chunk := s.recv(65536):
        out += chunk
    return out


async def leave_mid_stream(port: int) -> int:
    """Ask for the long text, take its first chunk, and go without a word."""
    client = AsyncTcpClient("127.0.0.1", port)
    await client.connect()
    await client.write_event(Synthesize(text=LONG_TEXT).event())
    got = 0
    while got < 2:
        event = await client.read_event()
        assert event is not None and event.type in ("audio-start", "audio-chunk"), event
        got += 1
    writer = client._writer
    assert writer is not None
    writer.transport.abort()  # a reset, as a client that died
    return got


def test_a_client_gone_mid_stream_frees_the_synthesizer_and_alerts_come_first(
    broker, alsa_sink, make_daemon, tmp_path
):
    port = free_port()
    daemon = make_daemon(wyoming_config(broker.port, tmp_path, port))
    daemon.wait_for_log(r"Wyoming text-to-speech on")
    cache = tmp_path / "cache"
    before = len(list(cache.rglob("*.wav")))
    assert run(leave_mid_stream(port)) == 2
    # The next caller is served as soon as the synthesis left behind stops, at its next
    # clause; until then it is told the synthesizer is busy, and asks again.
    started = time.monotonic()
    short = served(port, Synthesize(text="Pump two stopped.").event())
    assert audio_of(short)[1] and time.monotonic() - started < 20
    daemon.wait_for_log(r"wyoming: 127\.0\.0\.1: connection ended")
    # Only the short phrase was cached: the long one was left unfinished.
    wait_until(lambda: len(list(cache.rglob("*.wav"))) == before + 1, 10, "the short one cached")

    # An alert arriving mid-stream: the synthesis gives way at the next clause, the client
    # gets an error instead of audio-stop, and the alert is spoken.
    reports = Listener(broker.port, "cosyedge/report")

    async def interrupted() -> list[Event]:
        got = []
        async with AsyncTcpClient("127.0.0.1", port) as client:
            await client.write_event(Synthesize(text=LONG_TEXT + " Again.").event())
            while (event := await client.read_event()) is not None:
                got.append(event)
                if event.type == "audio-chunk" and len(got) == 2:
                    publish(broker.port, "cosyedge/say", "Forklift in aisle four.")
                if event.type == "audio-stop":
                    return got
                if event.type == "error":  # and then the connection ends
                    got.append(await asyncio.wait_for(client.read_event(), 10))
                    return got
        return got

    *got, end = run(interrupted())
    assert end is None, end
    assert Error.is_type(got[-1].type), [e.type for e in got]
    assert Error.from_event(got[-1]).code == "interrupted"
    (report,) = reports.wait_for("cosyedge/report", lambda r: len(r) == 1)
    assert report["outcome"] == "spoken"
    reports.close()
    assert daemon.alive()


class Uninstalled:
    """Refuses the wyoming package as if it were not installed."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] == "wyoming":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def test_enabled_without_the_wyoming_package_is_a_missing_component_naming_it(monkeypatch):
    """Valid, but the daemon runs without the server, as the fault `wyoming` (the rest runs:
    tests/test_lastgood.py)."""
    for name in [m for m in sys.modules if m.partition(".")[0] == "wyoming"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [Uninstalled(), *sys.meta_path])
    config = parse_config("wyoming:\n  enabled: true\n", "site.yaml")
    # Off the .deb: this interpreter's pip with the extra's own requirements (zeroconf with
    # them), not `cosyedge[wyoming]`, which would look for cosyedge on the package index.
    missing = missing_components(config)
    assert list(missing) == ["wyoming"]
    assert missing["wyoming"].startswith(
        "wyoming.enabled: the Wyoming server needs the wyoming package: "
        f"{shlex.quote(sys.executable)} -m pip install 'wyoming<2,>=1.5'"
    ), missing
    assert "cosyedge" not in missing["wyoming"]
    assert config_problems("wyoming: {listen: '127.0.0.1:10200'}") == [
        'site.yaml: wyoming.listen: expected tcp://host:port, got "127.0.0.1:10200"'
    ]


def test_zeroconf_announces_the_server_on_the_network(broker, alsa_sink, make_daemon, tmp_path):
    zeroconf = pytest.importorskip("zeroconf.asyncio")
    port = free_port()
    config = wyoming_config(broker.port, tmp_path, port).replace("127.0.0.1:", "0.0.0.0:")
    daemon = make_daemon(config)
    (announced,) = daemon.wait_for_log(r"wyoming: announced as (\S+) on (\S+) port (\d+)")
    name, address = announced.group(1), announced.group(2)
    assert name == f"cosyedge-{socket.gethostname()}._wyoming._tcp.local."

    async def look():
        found = zeroconf.AsyncZeroconf()
        try:
            return await found.async_get_service_info("_wyoming._tcp.local.", name, 5000)
        finally:
            await found.async_close()

    info = run(look())
    assert info is not None and info.port == port and info.parsed_addresses() == [address]
    # What it announces answers: describe at that address.
    ((answer, _),) = run(exchange_at(address, port, Describe().event()))
    assert Info.is_type(answer.type)


async def exchange_at(host: str, port: int, event: Event) -> list[tuple]:
    async with AsyncTcpClient(host, port) as client:
        await client.write_event(event)
        return [(await client.read_event(), None)]


DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.mark.parametrize(
    "raw",
    [
        DEEP + b"\n",
        b'{"type": "synthesize", "data": ' + DEEP + b"}\n",
        b'{"type": "synthesize", "data_length": 200000}\n' + DEEP,
        b'{"type": "synthesize", "data_length": 4400}\n{"a": ' + b"9" * 4393 + b"}",
    ],
    ids=["header", "data", "data-chunk", "long-number"],
)
def test_json_nested_too_deeply_is_a_bad_request_not_a_recursion_error(raw):
    async def read() -> None:
        reader = asyncio.StreamReader(limit=MAX_EVENT_BYTES)
        reader.feed_data(raw)
        reader.feed_eof()
        await read_event(reader)

    with pytest.raises(Refused) as refused:
        asyncio.run(read())
    assert refused.value.code == "bad-request"


def read_raw(raw: bytes) -> Event | None:
    async def read() -> Event | None:
        reader = asyncio.StreamReader(limit=MAX_EVENT_BYTES)
        reader.feed_data(raw)
        reader.feed_eof()
        return await read_event(reader)

    return asyncio.run(read())


@pytest.mark.parametrize(
    ("header", "words"),
    [
        ({"type": "synthesize", "data": [1, 2]}, "data: expected a JSON object, got an array"),
        ({"type": "synthesize", "data": "text"}, "data: expected a JSON object, got a string"),
        ({"type": "synthesize", "data": 7}, "data: expected a JSON object, got a number"),
    ],
)
def test_event_data_that_is_not_an_object_is_refused_naming_it(header, words):
    with pytest.raises(Refused) as refused:
        read_raw(json.dumps(header).encode() + b"\n")
    assert refused.value.code == "bad-request" and words in refused.value.text


def test_a_header_nested_too_deeply_says_so():
    with pytest.raises(Refused) as refused:
        read_raw(b"[" * 20_000 + b"]" * 20_000 + b"\n")
    assert "nested too deeply" in refused.value.text


@pytest.mark.parametrize(
    ("voice", "words"),
    [
        ("en", "voice: expected an object"),
        (["en"], "voice: expected an object"),
        (7, "voice: expected an object"),
        ({"name": 7}, "voice.name: expected a string, got a number"),
        ({"language": ["en"]}, "voice.language: expected a string, got an array"),
    ],
)
def test_a_voice_that_is_not_the_object_home_assistant_sends_is_refused(voice, words):
    with pytest.raises(Refused) as refused:
        voice_asked({"text": "Hello.", "voice": voice})
    assert refused.value.code == "bad-request" and words in refused.value.text


def test_the_voice_home_assistant_sends_is_taken():
    sent = Synthesize(text="Hello.", voice=SynthesizeVoice(name="en", speaker=None)).event()
    assert voice_asked(sent.data) == SynthesizeVoice(name="en")
    assert voice_asked({"text": "Hello."}) is None
    assert voice_asked({"text": "Hello.", "voice": None}) is None


@pytest.mark.parametrize("text", ["\ud800", "\udfff \ud800", "\u200b\ud800"])
def test_a_text_of_lone_surrogates_is_not_valid_unicode_not_missing(text):
    with pytest.raises(BadField) as bad:
        local.synthesis_request({"text": text}, {})
    assert bad.value.field == "text" and "not valid Unicode" in bad.value.reason
    assert "required" not in bad.value.reason
