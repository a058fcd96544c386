"""Run inside a network namespace of the test's own (`unshare -n`, tests/test_rtp.py): a page
sent by a network output in a child process and heard by FFmpeg (PyAV) through the output's
SDP, or an output that cannot send until the route to its group is added.

    python rtp_netns.py hear CODEC OUT   the tones, decoded, into OUT (npz); JSON on stdout
    python rtp_netns.py send CODEC       (the child) play the tones once
    python rtp_netns.py fail             the output without a route, then with one; JSON
    python rtp_netns.py page CODEC N IN PAUSE OUT [decode]
                                         N outputs (ports PORT, PORT + 2, ...) each say the
                                         announcements of IN (npz: `rate`, `a0`, `a1`, ...),
                                         PAUSE seconds apart; every packet with its arrival
                                         (tests/rtp_receiver.py) and, with `decode`, the
                                         first output's audio as FFmpeg decoded it, into OUT
    python rtp_netns.py say CODEC N IN PAUSE   (the child) send them
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from rtp_receiver import Listener

from cosyedge.audio.player import AudioUnavailable
from cosyedge.audio.rtp import RtpOutput
from cosyedge.config.outputs import RtpOutputConfig

REPO = Path(__file__).resolve().parent.parent
GROUP, PORT = "239.77.0.1", 5004
HOST = "10.77.0.1"  # the namespace's own interface, in the failure's scenario
VOICE_RATE = 22050  # a voice's rate, resampled by the output to the codec's
TONES = ((440.0, 0.6), (1000.0, 0.6))  # Hz, seconds: one after the other


def namespace_problem() -> str | None:
    """Why no network namespace can be had here, or None."""
    if os.geteuid() != 0:
        return "needs root for a network namespace of its own (unshare -n)"
    if not shutil.which("unshare") or not shutil.which("ip"):
        return "needs unshare (util-linux) and ip (iproute2)"
    tried = subprocess.run(["unshare", "-n", "true"], capture_output=True, text=True)
    return f"unshare -n fails here: {tried.stderr.strip()}" if tried.returncode else None


def inside(*args: str, timeout: float = 60) -> dict:
    """Run this file with `args` in a new network namespace; its JSON report (the last line
    it prints). RuntimeError with what it said on stderr when it fails."""
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run(
        ["unshare", "-n", "--", sys.executable, __file__, *args],
        capture_output=True, text=True, timeout=timeout, env={**os.environ, "PYTHONPATH": path},
    )  # fmt: skip
    if done.returncode:
        raise RuntimeError(done.stderr[-4000:])
    return json.loads(done.stdout.splitlines()[-1])


def tones() -> np.ndarray:
    """The signal sent: each tone in turn at half scale, as int16 at VOICE_RATE."""
    parts = [
        np.sin(2 * np.pi * hz * np.arange(int(s * VOICE_RATE)) / VOICE_RATE) for hz, s in TONES
    ]
    return (np.concatenate(parts) * 16000).astype(np.int16)


def output_config(codec: str) -> RtpOutputConfig:
    rate = 16000 if codec == "l16" else None
    return RtpOutputConfig(name="hall", address=GROUP, port=PORT, codec=codec, rate=rate, ttl=1)


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True)


def loopback(route: bool) -> None:
    """This namespace's loopback up and able to carry multicast; with `route`, groups go to it."""
    ip("link", "set", "lo", "up")
    ip("link", "set", "lo", "multicast", "on")
    if route:
        ip("route", "add", "224.0.0.0/4", "dev", "lo")


def joined(group: str) -> bool:
    """Whether a socket of this namespace has joined `group` (/proc/net/igmp, hex, host order)."""
    packed = socket.inet_aton(group)[::-1].hex().upper()
    return packed in Path("/proc/net/igmp").read_text()


def send(codec: str) -> None:
    pcm = tones()
    chunks = [pcm[i : i + 2048] for i in range(0, len(pcm), 2048)]  # as a voice yields them
    output = RtpOutput(output_config(codec))
    output.play(VOICE_RATE, chunks)
    print(json.dumps({"gaps": output.gaps}))  # begun again: this machine held the sender up


def hear(codec: str, out: Path) -> None:
    import av

    loopback(route=True)
    sdp = out.with_suffix(".sdp")
    sdp.write_text(RtpOutput(output_config(codec)).sdp())
    heard: dict = {}
    receiver = threading.Thread(target=_decode, args=(sdp, heard), daemon=True)
    receiver.start()
    deadline = time.monotonic() + 10
    while not joined(GROUP) and time.monotonic() < deadline:
        time.sleep(0.01)
    sender = subprocess.run(
        [sys.executable, __file__, "send", codec], capture_output=True, text=True
    )
    receiver.join(15)
    frames = heard.get("frames", [])
    pcm = np.concatenate([f for _, f in frames]) if frames else np.zeros(0, np.int16)
    np.savez(out, pcm=pcm, pts=np.array([p for p, _ in frames]), sizes=[len(f) for _, f in frames])
    report = {
        "sender": sender.returncode,
        "sender_err": sender.stderr[-2000:],
        "gaps": json.loads(sender.stdout)["gaps"] if sender.returncode == 0 else None,
        "rate": heard.get("rate"),
        "codec": heard.get("codec"),
        "error": heard.get("error"),
        "av": av.__version__,
    }
    print(json.dumps(report))


def page(codec: str, outputs: int, pages: Path, pause: float, out: Path, decode: bool) -> None:
    """The announcements of `pages` said by `outputs` outputs at once in a child process,
    heard by a Listener a port and, with `decode`, by FFmpeg through the first one's SDP (it
    joins first: it is the one waited for)."""
    loopback(route=True)
    heard: dict = {}
    receiver = threading.Thread(target=_decode, args=(out.with_suffix(".sdp"), heard), daemon=True)
    if decode:
        out.with_suffix(".sdp").write_text(RtpOutput(output_config(codec)).sdp())
        receiver.start()
        deadline = time.monotonic() + 10
        while not joined(GROUP) and time.monotonic() < deadline:
            time.sleep(0.01)
    listeners = [Listener(GROUP, PORT + 2 * i) for i in range(outputs)]
    argv = [sys.executable, __file__, "say", codec, str(outputs), str(pages), str(pause)]
    sender = subprocess.run(argv, capture_output=True, text=True)
    arrays = {}
    for i, listener in enumerate(listeners):
        arrays.update(listener.stop().arrays(f"o{i}_"))
    if decode:
        receiver.join(15)
    frames = heard.get("frames", [])
    pcm = np.concatenate([f for _, f in frames]) if frames else np.zeros(0, np.int16)
    np.savez(out, pcm=pcm, **arrays)
    said = json.loads(sender.stdout) if sender.returncode == 0 else {}
    report = {"sender": sender.returncode, "sender_err": sender.stderr[-2000:], **said}
    print(json.dumps({**report, **{k: heard.get(k) for k in ("rate", "codec", "error")}}))


def say(codec: str, outputs: int, pages: Path, pause: float) -> None:
    """Each output on a thread of its own says every announcement, `pause` seconds after the
    last returned (when its audio had played); JSON: each output's gaps and its playbacks'
    first and last audio (time.monotonic())."""
    loaded = np.load(pages)
    rate = int(loaded["rate"])
    said = [loaded[f"a{i}"] for i in range(len(loaded.files) - 1)]
    made = [
        RtpOutput(dataclasses.replace(output_config(codec), port=PORT + 2 * i))
        for i in range(outputs)
    ]
    playbacks: list[list] = [[] for _ in made]

    def speak(i: int) -> None:
        for k, pcm in enumerate(said):
            if k:
                time.sleep(pause)
            chunks = [pcm[j : j + 2048] for j in range(0, len(pcm), 2048)]
            done = made[i].play(rate, chunks)
            playbacks[i].append([done.first_audio, done.last_audio, done.samples])

    threads = [threading.Thread(target=speak, args=(i,)) for i in range(outputs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"gaps": [o.gaps for o in made], "playbacks": playbacks}))


def _decode(sdp: Path, heard: dict) -> None:
    """Open the SDP as ffplay would, and decode until nothing comes for a second."""
    import av

    options = {"protocol_whitelist": "file,udp,rtp"}
    frames: list[tuple[int, np.ndarray]] = []
    heard["frames"] = frames
    try:
        with av.open(str(sdp), format="sdp", options=options, timeout=(10.0, 1.0)) as container:
            stream = container.streams.audio[0]
            heard["rate"], heard["codec"] = (
                stream.codec_context.sample_rate,
                stream.codec_context.name,
            )
            for packet in container.demux(stream):
                for frame in packet.decode():
                    frames.append((frame.pts, frame.to_ndarray().reshape(-1)))
    except av.error.FFmpegError as exc:  # the read timing out ends the page
        heard["error"] = f"{type(exc).__name__}: {exc}"


def fail() -> None:
    """Play with no route to the group, then add one and play again. The route is through one
    end of a veth pair whose other end is down: what goes out is lost, so a member of the
    group on this host hears the page only by IP_MULTICAST_LOOP."""
    loopback(route=False)
    try:
        ip("link", "add", "page0", "type", "veth", "peer", "name", "page1")
    except subprocess.CalledProcessError:
        print(json.dumps({"skip": "no veth interfaces here (ip link add type veth)"}))
        return
    ip("address", "add", f"{HOST}/24", "dev", "page0")
    ip("link", "set", "page0", "up")
    output = RtpOutput(dataclasses.replace(output_config("pcmu"), ttl=3))
    pcm = tones()[: VOICE_RATE // 5]
    output.look()  # idle, as the daemon looks every 10 s: a fault before any page
    report: dict = {"looked": output.trouble}
    try:
        output.play(VOICE_RATE, [pcm])
    except AudioUnavailable as exc:
        report["raised"] = str(exc)
    report["trouble"], report["tick"] = output.trouble, dict(output.tick(time.monotonic()))
    report["retry_in"] = output.retry_in()
    ip("route", "add", "224.0.0.0/4", "dev", "page0")
    output.look()
    report["looked_after"] = output.missing
    with member(GROUP, PORT) as listener:
        playback = output.play(VOICE_RATE, [pcm])
        report["ttl"], report["tos"] = ttl_and_tos(listener)
    report["played"], report["samples"] = playback.played, playback.samples
    report["after"] = {"trouble": output.trouble, "tick": dict(output.tick(time.monotonic()))}
    print(json.dumps(report))


IP_RECVTTL = 12  # Linux's <linux/in.h>; Python's socket module lacks it


@contextlib.contextmanager
def member(group: str, port: int) -> Iterator[socket.socket]:
    """A socket that joined `group` on HOST's interface and hears `port`, with each
    datagram's TTL and TOS byte."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with sock:
        sock.bind((group, port))
        join = socket.inet_aton(group) + socket.inet_aton(HOST)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, join)
        sock.setsockopt(socket.IPPROTO_IP, IP_RECVTTL, 1)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_RECVTOS, 1)
        sock.settimeout(2)
        yield sock


def ttl_and_tos(sock: socket.socket) -> tuple[int | None, int | None]:
    """The TTL and TOS byte the first datagram waiting on `sock` arrived with."""
    _, ancillary, _, _ = sock.recvmsg(2048, socket.CMSG_SPACE(4) * 2)
    found = {kind: data[0] for level, kind, data in ancillary if level == socket.IPPROTO_IP}
    return found.get(socket.IP_TTL), found.get(socket.IP_TOS)


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "hear":
        hear(sys.argv[2], Path(sys.argv[3]))
    elif mode == "send":
        send(sys.argv[2])
    elif mode == "page":
        codec, n, pages, pause, out = sys.argv[2:7]
        page(codec, int(n), Path(pages), float(pause), Path(out), sys.argv[7:] == ["decode"])
    elif mode == "say":
        say(sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]), float(sys.argv[5]))
    else:
        fail()
