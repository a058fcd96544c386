"""The network output: G.711 checked by FFmpeg's decoders, the RTP headers, pacing and stops
caught on a real UDP socket, faults and their end, and, in a network namespace of the
test's own, a multicast page in each codec heard by FFmpeg through the output's SDP."""

from __future__ import annotations

import itertools
import socket
import struct
import threading
import time
from dataclasses import dataclass

import numpy as np
import pytest
import rtp_netns
import soxr

from cosyedge.audio import g711
from cosyedge.audio.player import AudioUnavailable
from cosyedge.audio.rtp import RtpOutput
from cosyedge.component import Detail
from cosyedge.config.loader import ConfigError, build_section
from cosyedge.config.outputs import RtpOutputConfig

VOICE = 22050  # a voice's sample rate


def tone(hz: float, seconds: float, rate: int = VOICE) -> np.ndarray:
    return (np.sin(2 * np.pi * hz * np.arange(int(seconds * rate)) / rate) * 12000).astype(np.int16)


def chunked(pcm: np.ndarray, size: int = 2048) -> list[np.ndarray]:
    return [pcm[i : i + size] for i in range(0, len(pcm), size)]


@dataclass(frozen=True)
class Packet:
    at: float  # time.monotonic() of its arrival
    version: int
    padding: int
    extension: int
    csrcs: int
    marker: bool
    pt: int
    seq: int
    ts: int
    ssrc: int
    payload: bytes

    @classmethod
    def parse(cls, at: float, data: bytes) -> Packet:
        first, second, seq, ts, ssrc = struct.unpack("!BBHII", data[:12])
        return cls(
            at, first >> 6, first >> 5 & 1, first >> 4 & 1, first & 15, bool(second >> 7),
            second & 127, seq, ts, ssrc, data[12:],
        )  # fmt: skip


class Catcher:
    """A UDP socket on 127.0.0.1 that keeps every datagram with its arrival time."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]
        self.packets: list[Packet] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.is_set():
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            self.packets.append(Packet.parse(time.monotonic(), data))

    def close(self, settle: float = 0.1) -> list[Packet]:
        time.sleep(settle)
        self._done.set()
        self._thread.join()
        self.sock.close()
        return self.packets


@pytest.fixture
def catcher():
    c = Catcher()
    yield c
    if not c._done.is_set():
        c.close(0)


def output(port: int, **settings) -> RtpOutput:
    return RtpOutput(RtpOutputConfig(name="hall", address="127.0.0.1", port=port, **settings))


# --- G.711 against FFmpeg's decoders --------------------------------------------------------


def ffmpeg_decode(codec: str, codes: np.ndarray) -> np.ndarray:
    import av

    context = av.CodecContext.create(codec, "r")
    context.sample_rate, context.layout = 8000, "mono"
    frames = context.decode(av.Packet(codes.astype(np.uint8).tobytes()))
    return np.concatenate([f.to_ndarray().reshape(-1) for f in frames]).astype(np.int64)


@pytest.mark.parametrize("law,codec", [(g711.ulaw, "pcm_mulaw"), (g711.alaw, "pcm_alaw")])
def test_g711_every_sample_decodes_within_half_a_step(law, codec):
    """Every int16 value, encoded here and decoded by FFmpeg, comes back within half the step
    between the law's levels around it (clipped beyond the last), in order, and symmetric."""
    x = np.arange(-32768, 32768, dtype=np.int64)
    decoded = ffmpeg_decode(codec, law(x.astype(np.int16)))
    levels = np.unique(ffmpeg_decode(codec, np.arange(256)))
    assert len(levels) >= 255  # µ-law has +0 and -0
    i = np.searchsorted(levels, decoded)
    below = np.diff(levels, prepend=levels[0])[i]
    above = np.diff(levels, append=levels[-1])[i]
    inside = (x >= levels[0]) & (x <= levels[-1])
    error = np.abs(decoded - x)
    assert np.all(error[inside] * 2 <= np.maximum(below, above)[inside])
    assert np.all(decoded[~inside] == np.where(x[~inside] < 0, levels[0], levels[-1]))
    assert np.all(np.diff(decoded) >= 0)  # a louder sample never decodes quieter
    assert np.array_equal(law(~x.astype(np.int16)), law(x.astype(np.int16)) ^ 0x80)


def test_g711_a_tone_keeps_its_level_and_pitch():
    pcm = tone(1000, 0.5, 8000)
    for law, codec in ((g711.ulaw, "pcm_mulaw"), (g711.alaw, "pcm_alaw")):
        decoded = ffmpeg_decode(codec, law(pcm))
        noise = decoded - pcm
        snr = 10 * np.log10(np.mean(pcm.astype(float) ** 2) / np.mean(noise.astype(float) ** 2))
        assert snr > 30, (codec, snr)  # G.711 gives about 38 dB on a loud tone


# --- headers, payloads, pacing, stops: a real socket ---------------------------------------


@pytest.mark.parametrize("codec,ptime,pt,size", [("pcmu", 20, 0, 160), ("pcma", 30, 8, 240)])
def test_headers_continue_across_two_announcements(catcher, codec, ptime, pt, size):
    out = output(catcher.port, codec=codec, ptime_ms=ptime)
    first = out.play(VOICE, chunked(tone(440, 0.5)))
    time.sleep(0.3)
    second = out.play(VOICE, chunked(tone(880, 0.3)))
    packets = catcher.close()
    assert first.played and not first.stopped and second.played
    assert abs(first.samples - 0.5 * VOICE) < size * VOICE / 8000  # counted at the voice's rate
    n1 = -(-4000 // size)  # 0.5 s at 8 kHz, the last packet padded
    assert len(packets) == n1 + -(-2400 // size)
    assert {(p.version, p.padding, p.extension, p.csrcs, p.pt) for p in packets} == {
        (2, 0, 0, 0, pt)
    }
    assert len({p.ssrc for p in packets}) == 1
    assert all(len(p.payload) == size for p in packets)
    seqs = [p.seq for p in packets]
    assert all((b - a) % 65536 == 1 for a, b in itertools.pairwise(seqs))
    steps = [(b.ts - a.ts) % 2**32 for a, b in itertools.pairwise(packets)]
    # One talkspurt an announcement: the marker and a step over the silence only there, but
    # where this machine held the sender up more than 100 ms (counted, said in its status).
    spurts = [0] + [i + 1 for i, step in enumerate(steps) if step != size]
    assert [p.marker for p in packets] == [i in spurts for i in range(len(packets))]
    assert len(spurts) == 2 + out.gaps and n1 in spurts and out.gaps <= 1
    # The 0.3 s between the announcements is in the timestamps: played as silence.
    gap = (steps[n1 - 1] - size) / 8000
    assert 0.25 < gap < 0.6, gap


def test_l16_carries_the_samples_big_endian_with_its_payload_type(catcher):
    """At the voice's own rate nothing is resampled: the payload is the samples, in order."""
    pcm = tone(300, 0.2, 16000)
    out = output(catcher.port, codec="l16", rate=16000, payload_type=101)
    out.play(16000, chunked(pcm, 1000))
    packets = catcher.close()
    assert {p.pt for p in packets} == {101}
    assert all(len(p.payload) == 640 for p in packets)  # 320 samples of 2 bytes
    sent = np.frombuffer(b"".join(p.payload for p in packets), dtype=">i2")
    assert np.array_equal(sent[: len(pcm)], pcm) and not sent[len(pcm) :].any()


def test_sequence_numbers_and_timestamps_wrap(catcher):
    near_the_top = lambda n: (1 << n) - 3  # noqa: E731 (the SSRC, first seq and ts)
    out = RtpOutput(
        RtpOutputConfig(name="hall", address="127.0.0.1", port=catcher.port), bits=near_the_top
    )
    out.play(8000, [tone(500, 0.1, 8000)])
    packets = catcher.close()
    assert [p.seq for p in packets] == [65533, 65534, 65535, 0, 1]
    assert [p.ts for p in packets] == [2**32 - 3, 157, 317, 477, 637]
    assert {p.ssrc for p in packets} == {2**32 - 3}


def test_packets_go_at_their_time_from_the_start_not_after_each_other(catcher):
    """A voice that takes 8 ms to make each 20 ms of audio: every packet still goes at its
    deadline from the start (a sleep of 20 ms after each send would lose 8 ms a packet),
    three at once to start with, then none before its time (so never a burst: a packet
    sent late on a busy machine is followed by the next at its own time)."""
    pcm = tone(440, 1.0)

    def slow_voice():
        for chunk in chunked(pcm, VOICE // 50):
            time.sleep(0.008)
            yield chunk

    out = output(catcher.port)
    began = time.monotonic()
    playback = out.play(VOICE, slow_voice())
    took = time.monotonic() - began
    packets = catcher.close()
    assert len(packets) == 50
    start = playback.first_audio  # when the first packet went: the pacing's start
    assert packets[2].at - start < 0.015  # the lead: three at once
    for k, p in enumerate(packets[3:], 3):
        assert p.at >= start + (k - 2) * 0.020, k  # never before its time
    spacing = np.diff([p.at for p in packets[3:]])
    assert 0.017 < float(np.median(spacing)) < 0.023
    # It returns once the second of audio has played; a sleep after each send would have
    # taken 1.4 s (wide margins: the machine is shared).
    assert 0.98 < took < 1.25 and 0.98 < playback.last_audio - start < 1.2, took


def test_a_voice_that_falls_behind_starts_a_talkspurt_not_a_burst(catcher):
    pcm = tone(440, 0.6)

    def stalling_voice():
        yield pcm[: VOICE // 5]
        time.sleep(0.3)  # synthesis fell behind for 0.3 s
        yield pcm[VOICE // 5 :]

    out = output(catcher.port)
    out.play(VOICE, stalling_voice())
    packets = catcher.close()
    assert out.state(Detail()) == {"audio_up": True, "audio": "ok, 1 gap"}  # counted, and told
    gap = next(i for i, p in enumerate(packets[1:], 1) if p.at - packets[i - 1].at > 0.1)
    assert [i for i, p in enumerate(packets) if p.marker] == [0, gap]
    assert 0.15 * 8000 < (packets[gap].ts - packets[gap - 1].ts) % 2**32 - 160 < 0.45 * 8000
    after = [p.at - packets[gap].at for p in packets[gap:]]
    # Paced again (a packet of slack: its first arrival is the only clock seen here).
    assert all(t >= (k - 3) * 0.020 for k, t in enumerate(after))


def test_should_stop_ends_the_announcement_at_once(catcher):
    out = output(catcher.port)
    began = time.monotonic()
    playback = out.play(VOICE, chunked(tone(440, 3.0)), lambda: time.monotonic() - began > 0.2)
    took = time.monotonic() - began
    packets = catcher.close(0.2)
    assert playback.stopped and playback.played
    assert took < 0.3, took
    assert 10 <= len(packets) <= 14  # 0.2 s of packets and the lead, nothing after the stop
    assert playback.samples == round(len(packets) * 160 * VOICE / 8000)
    # The next announcement follows on in the same stream.
    after = Catcher()
    out.configure(RtpOutputConfig(name="hall", address="127.0.0.1", port=after.port))
    out.play(VOICE, [tone(440, 0.1)])
    assert (after.close()[0].seq - packets[-1].seq) % 65536 == 1


def test_a_missing_interface_is_the_outputs_fault_until_it_sends_again(catcher):
    """IP_MULTICAST_IF with an address no interface has cannot send: AudioUnavailable and
    the fault `audio:NAME`, both naming the output; fixed by a reload, it clears itself."""
    bad = RtpOutputConfig(
        name="hall", address="239.1.2.3", port=catcher.port, interface="192.0.2.1"
    )
    out = RtpOutput(bad)
    out.look()  # idle: known before an alert needs it
    assert "(interface 192.0.2.1: Cannot assign requested address)" in out.trouble
    assert out.describe() == "cannot send (interface 192.0.2.1: Cannot assign requested address)"
    with pytest.raises(
        AudioUnavailable, match=r"^network output hall \(239\.1\.2\.3:\d+\): cannot send: "
    ):
        out.play(VOICE, [tone(440, 0.1)])
    fault = out.tick(time.monotonic())["audio:hall"]
    assert fault and fault.startswith("network output hall (239.1.2.3:") and "\n" not in fault
    assert "(interface 192.0.2.1: Cannot assign requested address)" in fault
    assert out.trouble == fault and out.retry_in() == 0.5
    with pytest.raises(AudioUnavailable):
        out.play(VOICE, [tone(440, 0.1)])
    assert out.retry_in() == 1.0  # backing off
    out.configure(RtpOutputConfig(name="hall", address="127.0.0.1", port=catcher.port))
    assert out.play(VOICE, [tone(440, 0.1)]).played
    assert out.tick(time.monotonic()) == {"audio:hall": None} and out.describe() == "ok"
    assert len(catcher.close()) == 5


def test_a_stopped_output_refuses_and_lets_its_socket_go(catcher):
    out = output(catcher.port)
    out.play(VOICE, [tone(440, 0.05)])
    out.stop()
    with pytest.raises(AudioUnavailable, match="stopped"):
        out.play(VOICE, [tone(440, 0.05)])
    assert out._socket is None and out.trouble is None


def test_the_sdp_says_what_a_listener_needs():
    out = RtpOutput(
        RtpOutputConfig(name="hall", address="239.1.2.3", port=5006, codec="l16", ttl=4)
    )
    sdp = out.sdp()
    assert sdp.endswith("\r\n") and "\n" not in sdp.replace("\r\n", "")
    lines = sdp.split("\r\n")
    assert lines[0] == "v=0" and "c=IN IP4 239.1.2.3/4" in lines
    assert "m=audio 5006 RTP/AVP 96" in lines and "a=rtpmap:96 L16/16000/1" in lines
    assert "a=ptime:20" in lines
    unicast = RtpOutput(RtpOutputConfig(name="desk", address="10.0.0.9", codec="pcma")).sdp()
    assert "c=IN IP4 10.0.0.9\r\n" in unicast and "a=rtpmap:8 PCMA/8000/1" in unicast


# --- the configuration ------------------------------------------------------------------------


def problems(data: dict) -> list[str]:
    """What refusing an output `hall` says: at a group, with `data` over that."""
    with pytest.raises(ConfigError) as refused:
        entry = {"name": "hall", "address": "239.1.2.3", **data}
        build_section(RtpOutputConfig, entry, "outputs.hall", "site.yaml")
    return refused.value.problems


def test_an_output_with_its_defaults():
    entry = {"name": "hall", "address": "239.1.2.3"}
    config = build_section(RtpOutputConfig, entry, "outputs.hall")
    assert (config.port, config.codec, config.clock_rate, config.pt) == (5004, "pcmu", 8000, 0)
    assert (config.ttl, config.dscp, config.ptime_ms, config.multicast) == (8, 46, 20, True)
    l16 = RtpOutputConfig(name="x", address="10.1.1.1", codec="l16")
    assert (l16.clock_rate, l16.pt, l16.multicast) == (16000, 96, False)


@pytest.mark.parametrize(
    "data,problem",
    [
        ({"port": 0}, "port: expected an integer 1-65535, got 0"),
        ({"port": 65536}, "port: expected an integer 1-65535, got 65536"),
        ({"address": "speakers.local"}, "address: expected an IPv4 address"),
        ({"address": "224.0.0.5"}, "address: 224.0.0.5 is reserved for routing protocols"),
        ({"address": "0.0.0.0"}, "address: 0.0.0.0 reaches no device"),
        ({"codec": "g722"}, "codec: expected one of pcmu, pcma, l16"),
        ({"ttl": 0}, "ttl: expected an integer 1-255, got 0"),
        ({"dscp": 64}, "dscp: expected an integer 0-63, got 64"),
        ({"ptime_ms": 5}, "ptime_ms: expected an integer 10-60, got 5"),
        ({"rate": 16000}, "rate: pcmu is 8000 Hz only"),
        ({"codec": "l16", "rate": 44100}, "rate: must be 8000 or 16000 for l16, got 44100"),
        ({"codec": "l16", "payload_type": 8}, "payload_type: expected an integer 96-127"),
        ({"payload_type": 96}, "payload_type: only for l16 (pcmu is always 0)"),
        ({"interface": "eth0"}, "interface: expected the IPv4 address of one of the gateway's"),
        ({"name": "hall 2"}, 'name: "hall 2" is not a name of letters'),
        ({"prot": 5004}, 'prot: unknown key; did you mean "port"?'),
    ],
)
def test_a_wrong_setting_is_named_with_its_reason(data, problem):
    found = problems(data)
    assert len(found) == 1 and found[0].startswith(f"site.yaml: outputs.hall.{problem}"), found


def test_an_output_needs_its_address():
    with pytest.raises(ConfigError, match=r"outputs\.hall\.address: missing required key"):
        build_section(RtpOutputConfig, {"name": "hall"}, "outputs.hall")


# --- in a network namespace: multicast heard by FFmpeg, and a send that fails ---------------


def in_namespace(*args: str) -> dict:
    """Run tests/rtp_netns.py in a new network namespace; its JSON report."""
    if problem := rtp_netns.namespace_problem():
        pytest.skip(problem)
    return rtp_netns.inside(*args)


@pytest.mark.system
@pytest.mark.parametrize("codec,decoder,rate", [
    ("pcmu", "pcm_mulaw", 8000), ("pcma", "pcm_alaw", 8000), ("l16", "pcm_s16be", 16000),
])  # fmt: skip
def test_a_multicast_page_is_heard_through_its_sdp(tmp_path, codec, decoder, rate):
    """A 440 Hz then a 1 kHz tone sent to a group by a child process, decoded by FFmpeg
    from the output's SDP: its codec and rate, its length, no gap, and the same signal as
    the tones resampled apart (one soxr call over the whole)."""
    report = in_namespace("hear", codec, str(tmp_path / "heard.npz"))
    assert report["sender"] == 0, report["sender_err"]
    assert (report["codec"], report["rate"]) == (decoder, rate)
    heard = np.load(tmp_path / "heard.npz")
    pcm, pts, sizes = heard["pcm"].astype(float), heard["pts"], heard["sizes"]
    sent = soxr.resample(rtp_netns.tones(), rtp_netns.VOICE_RATE, rate).astype(float)
    packet = rate // 50
    assert 0 <= len(pcm) - len(sent) < packet, (len(pcm), len(sent))  # the last one padded
    # Each frame where the last one ended: no gap, but where the sender said this machine
    # held it up for over 100 ms (a new talkspurt: there the timestamps skip the delay).
    assert pts[0] == 0 and np.sum(np.diff(pts) != sizes[:-1]) == report["gaps"] <= 1
    match = max(np.corrcoef(pcm[lag : lag + len(sent) - 64], sent[: len(sent) - 64])[0, 1]
                for lag in range(0, 32))  # fmt: skip
    assert match > 0.999, match
    half = len(sent) // 2
    for part, hz in ((pcm[:half], 440), (pcm[half : 2 * half], 1000)):
        peak = np.argmax(np.abs(np.fft.rfft(part))) * rate / len(part)
        assert abs(peak - hz) < 5, (peak, hz)


@pytest.mark.system
def test_no_route_to_the_group_is_a_fault_until_the_route_is_there():
    """In a namespace with no route to the group: AudioUnavailable and the fault, each one
    line naming the output; once the route is added, the next page goes, and ends it."""
    report = in_namespace("fail")
    if "skip" in report:
        pytest.skip(report["skip"])
    reason = "network output hall (239.77.0.1:5004): cannot send: Network is unreachable"
    looked = "network output hall (239.77.0.1:5004) cannot send (Network is unreachable); "
    assert report["looked"].startswith(looked)  # found idle, before the first page
    assert report["looked_after"] is None  # the route there: nothing missing when looked
    assert report["raised"] == reason
    trouble = "network output hall (239.77.0.1:5004) cannot send (Network is unreachable); "
    assert report["trouble"].startswith(trouble)
    assert report["tick"] == {"audio:hall": report["trouble"]}
    assert report["played"] and report["samples"] == 4410  # 0.2 s at 22.05 kHz: 10 packets
    assert report["after"] == {"trouble": None, "tick": {"audio:hall": None}}
    # Heard by a member on this host (IP_MULTICAST_LOOP), with the output's TTL (3 here) and
    # DSCP EF (46).
    assert (report["ttl"], report["tos"]) == (3, 46 << 2)
