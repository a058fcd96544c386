"""The routes that speak for a caller (docs/http.md, "Synthesize"): `/v1/synthesize` and
OpenAI's `/v1/audio/speech`, a phrase from the cache whole, any other streamed clause by
clause on the synthesis thread's turn, which alerts take first."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cosyedge.http.audio import wav_header
from cosyedge.intake import local
from cosyedge.intake.door import Unavailable
from cosyedge.intake.local import BadField, Speak
from cosyedge.model import RejectedAlert
from cosyedge.speech.render import Rendering
from cosyedge.speech.stream import Interrupted, Pump, pcm_bytes

log = logging.getLogger("cosyedge.http.server")


class SpeechRoutes:
    """For server.py's Handler (which gives `server`, `client_address`, `_start`, `_write`,
    `_write_chunk` and `_body`)."""

    server: Any
    client_address: Any

    def _synthesize(self, query: dict[str, list[str]]) -> None:
        voices = self.server.backend.voices()
        self._stream(local.synthesis_request(local.request_object(self._body()), voices))

    def _speech(self, query: dict[str, list[str]]) -> None:
        voices = self.server.backend.voices()
        self._stream(local.speech_request(local.request_object(self._body()), voices))

    def _stream(self, speak: Speak) -> None:
        backend, turns = self.server.backend, self.server.turns
        if not turns.take():  # one synthesis at a time: alerts wait behind it
            raise Unavailable("the synthesizer is busy (alerts come first); try again")
        held = True

        def give_back() -> None:
            """The turn goes back once the phrase is made, before the answer's last bytes are
            written: a caller who asks again as soon as it has them finds it free."""
            nonlocal held
            if held:
                held = False
                turns.release()

        try:
            rendering = self._rendering(speak)
            if rendering.source == "cache":
                self._whole(rendering, speak, give_back)
            else:
                self._chunked(rendering, speak, Pump(rendering, backend.busy), give_back)
        finally:
            give_back()

    def _rendering(self, speak: Speak) -> Rendering:
        try:
            return self.server.backend.rendering(speak.text, speak.lang)
        except RejectedAlert as exc:  # nothing the voices can say: refused as a say request is
            raise BadField(speak.field, str(exc)) from None

    def _whole(self, rendering: Rendering, speak: Speak, made: Callable[[], None]) -> None:
        pcm = b"".join(pcm_bytes(c) for c in rendering.chunks)
        made()
        head = wav_header(rendering.sample_rate, len(pcm) // 2) if speak.format == "wav" else b""
        headers = _audio_headers(rendering, speak)
        self._start(200, _audio_type(speak.format), len(head) + len(pcm), headers)
        self._write(head + pcm)

    def _chunked(
        self, rendering: Rendering, speak: Speak, pump: Pump, made: Callable[[], None]
    ) -> None:
        self._start(200, _audio_type(speak.format), None, _audio_headers(rendering, speak))
        clauses = pump.clauses()
        try:
            if speak.format == "wav":
                self._write_chunk(wav_header(rendering.sample_rate, None))
            for pcm in clauses:
                self._write_chunk(pcm_bytes(pcm))
            made()
            self._write(b"0\r\n\r\n")
        except Interrupted as exc:  # no last chunk: the caller sees the answer unfinished
            log.warning("http: synthesis for %s cut short: %s", self.client_address[0], exc)
        finally:
            clauses.close()

    if TYPE_CHECKING:  # given by the Handler

        def _start(
            self, status: int, kind: str, length: int | None, headers: Any = None
        ) -> None: ...
        def _write(self, data: bytes) -> None: ...
        def _write_chunk(self, data: bytes) -> None: ...
        def _body(self) -> bytes: ...


def _audio_type(form: str) -> str:
    return "audio/wav" if form == "wav" else "audio/pcm"


def _audio_headers(rendering: Rendering, speak: Speak) -> dict[str, str]:
    """The PCM's format for a `pcm` caller, whether it came from the cache, and what of the
    request was taken but not applied (`X-Ignored`)."""
    rate = str(rendering.sample_rate)
    headers = {"X-Sample-Rate": rate, "X-Sample-Format": "s16le", "X-Source": rendering.source}
    return {**headers, "X-Ignored": ", ".join(speak.ignored)} if speak.ignored else headers
