"""The arm64 package on arm64 Debian 12 under qemu-user emulation, next to this machine's own
(amd64) development install of the same code:

1. `dpkg -i` of the packages (cosyedge, cosyedge-voice-piper) into the rootfs,
   `cosyedge --version`, `cosyedge check` of the installed configuration;
2. `cosyedge say --out` on English and Mandarin alerts of the shared set: the Mandarin voice
   (espeak-ng reading our pinyin) must give the same samples as here when both have the same
   espeak-ng, the English one (hibari, which samples noise) must stay within MAX_DISTANCE_DB
   of the rendering here;
3. every English alert of the shared set rendered on both: pocketsphinx's word error on the
   arm64 renderings at most WER_TOLERANCE above the mean over AMD64_RENDERINGS renderings here
   (hibari's noise moves a single rendering's word error by about 0.01 over this set);
4. the installed daemon, as the user cosyedge, speaking an English and a Mandarin alert
   published to the rootfs's own Mosquitto, into an ALSA file sink; then the same here.

Each step's wall time and peak resident memory (GNU time; the daemon's VmHWM) are printed.
Under emulation the peak is the qemu process's: the guest's memory plus qemu's own, its
translated code among it.

scripts/arm64 runs this inside its namespace, where the rootfs's aarch64 programs run through
qemu-user and the loopback network is the namespace's own:

    python -m bench.arm64 --root ROOTFS --deb PACKAGE... [--json FILE] [--time STEP=SECONDS ...]

--time adds a step measured before (the rootfs, the package build). Exit status 0 when every
check passed, 1 when one failed (the measurements so far are printed).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import wave
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from bench.texts import ALERTS, REPO, alert_texts

VENV_BIN = REPO / ".venv" / "bin"
WER_TOLERANCE = 0.02
AMD64_RENDERINGS = 2
SAY_PER_LANGUAGE = 2
DAEMON_ALERTS = ("en-0", "zh-4")  # ids in the shared set: an emergency stop in each language
BROKER_PORT = 1883  # the rootfs's Mosquitto, alone in the namespace's network
GUEST_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "HOME": "/root"}
STEP_TIMEOUT_S = 900


class SmokeFailure(Exception):
    """A check failed; the message says which and what was seen."""


def expect(condition: bool, what: str, detail: str = "") -> None:
    if not condition:
        raise SmokeFailure(f"{what}{': ' + detail if detail else ''}")


# -- running and measuring ----------------------------------------------------------------


@dataclass
class Ran:
    command: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak_rss_mb: float

    def why(self) -> str:
        return f"{' '.join(self.command)} exited {self.returncode}\n{self.stdout}{self.stderr}"


def run_all(
    commands: list[list[str]], env: dict[str, str], timeout: float = STEP_TIMEOUT_S
) -> list[Ran]:
    """Runs the commands side by side to their ends; each one's wall time and peak resident
    memory, which GNU time takes: a child of ours would start from our own peak (the kernel
    carries it over fork and exec), a child of time from time's."""
    with contextlib.ExitStack() as files:

        def scratch() -> IO[bytes]:
            return files.enter_context(tempfile.NamedTemporaryFile())

        outputs = [(scratch(), scratch(), scratch()) for _ in commands]
        started = time.monotonic()
        processes = [
            subprocess.Popen(
                ["/usr/bin/time", "-f", "%M", "-o", peak.name, *command],
                stdout=out,
                stderr=err,
                env=env,
            )
            for command, (out, err, peak) in zip(commands, outputs, strict=True)
        ]
        ends = [_reap(p, started + timeout) for p in processes]
        return [
            Ran(command, code, _read(out), _read(err), end - started, _peak_mb(peak))
            for command, (code, end), (out, err, peak) in zip(commands, ends, outputs, strict=True)
        ]


def run(command: list[str], env: dict[str, str], timeout: float = STEP_TIMEOUT_S) -> Ran:
    return run_all([command], env, timeout)[0]


def _read(file: IO[bytes]) -> str:
    file.seek(0)
    return file.read().decode(errors="replace")


def _peak_mb(time_output: IO[bytes]) -> float:
    lines = _read(time_output).split()  # a killed command: time's note, then the figure
    return int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else float("nan")


def _reap(process: subprocess.Popen[bytes], deadline: float) -> tuple[int, float]:
    """Waits for `process`, killed at the monotonic `deadline`: its exit code and the
    monotonic time it was seen ended."""
    while process.poll() is None:
        if time.monotonic() > deadline:
            process.kill()
            deadline = float("inf")
        time.sleep(0.02)
    return process.returncode, time.monotonic()


def peak_rss_mb(pid: int) -> float:
    """The high-water mark of a running process's resident memory (VmHWM: since its exec)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


@dataclass
class Row:
    """One line of the table: a step on arm64 (emulated) and, where it has one, here."""

    step: str
    arm64_s: float | None = None
    arm64_mb: float | None = None
    amd64_s: float | None = None
    amd64_mb: float | None = None
    note: str = ""


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    quality: dict[str, Any] = field(default_factory=dict)

    def add(self, step: str, arm64: Ran | None, amd64: Ran | None = None, note: str = "") -> None:
        self.rows.append(
            Row(
                step,
                arm64.seconds if arm64 else None,
                arm64.peak_rss_mb if arm64 else None,
                amd64.seconds if amd64 else None,
                amd64.peak_rss_mb if amd64 else None,
                note,
            )
        )

    def print(self) -> None:
        def cell(value: float | None, digits: int) -> str:
            return "-" if value is None else f"{value:.{digits}f}"

        print(f"{'step':44} {'arm64 s':>8} {'MB':>6} {'amd64 s':>8} {'MB':>6}  note")
        for r in self.rows:
            print(
                f"{r.step[:44]:44} {cell(r.arm64_s, 1):>8} {cell(r.arm64_mb, 0):>6} "
                f"{cell(r.amd64_s, 1):>8} {cell(r.amd64_mb, 0):>6}  {r.note}"
            )
        for name, value in self.quality.items():
            print(f"{name}: {value}")
        sys.stdout.flush()

    def to_json(self) -> dict[str, Any]:
        return {"rows": [asdict(r) for r in self.rows], "quality": self.quality}


# -- the rootfs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Rootfs:
    path: Path

    def inside(self, path: str) -> Path:
        """Where a path of the rootfs is seen from here."""
        return self.path / path.lstrip("/")

    def command(self, *argv: str, user: str | None = None) -> list[str]:
        """argv run in the rootfs, as root or as `user` with its groups, by the rootfs's own
        ids (chroot then execs the program: its peak memory is the program's own)."""
        if user is None:
            return ["chroot", str(self.path), *argv]
        uid, gid = self.user_ids(user)
        groups = ",".join(str(g) for g in self.groups_of(user, gid))
        return ["chroot", f"--userspec={uid}:{gid}", f"--groups={groups}", str(self.path), *argv]

    def user_ids(self, user: str) -> tuple[int, int]:
        for line in self.inside("/etc/passwd").read_text().splitlines():
            name, _, uid, gid, *_ = line.split(":")
            if name == user:
                return int(uid), int(gid)
        raise SmokeFailure(f"no user {user} in the rootfs")

    def groups_of(self, user: str, gid: int) -> list[int]:
        groups = [gid]
        for line in self.inside("/etc/group").read_text().splitlines():
            _, _, group_id, members = line.split(":")
            if user in members.split(","):
                groups.append(int(group_id))
        return groups

    def group_members(self, group: str) -> list[str]:
        for line in self.inside("/etc/group").read_text().splitlines():
            name, _, _, members = line.split(":")
            if name == group:
                return members.split(",")
        return []


def amd64_env(home: Path) -> dict[str, str]:
    """The development install's environment here, its state kept out of root's home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "COSYEDGE_"))}
    return {**env, "HOME": str(home)}


# -- phrases --------------------------------------------------------------------------------


def mandarin_texts() -> list[str]:
    texts = []
    for line in ALERTS.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item["lang"] == "zh" and item["payload"]["text"] not in texts:
            texts.append(item["payload"]["text"])
    return texts


def read_wav(path: Path) -> tuple[int, np.ndarray]:
    with wave.open(str(path), "rb") as w:
        return w.getframerate(), np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")


def espeak_versions(rootfs: Rootfs) -> tuple[str, str]:
    """espeak-ng's version in the rootfs and here: the same one gives the same samples."""

    def version(out: str) -> str:  # without "Data at: <its directory>", which names the arch
        return out.split("Data at:")[0].strip()

    arm64 = version(run(rootfs.command("espeak-ng", "--version"), GUEST_ENV).stdout)
    here = shutil.which("espeak-ng")
    amd64 = version(run([here, "--version"], dict(os.environ)).stdout) if here else ""
    return arm64, amd64


def same_sound(
    arm64: tuple[int, np.ndarray], amd64: tuple[int, np.ndarray], identical: bool
) -> tuple[bool, str]:
    """Whether two renderings of one phrase agree: sample for sample when `identical`, else
    within the log-mel distance cosyedge quantize allows an int8 voice."""
    from cosyedge.packs.evaluate import log_mel_distance
    from cosyedge.packs.quantize import MAX_DISTANCE_DB

    (rate_a, a), (rate_b, b) = arm64, amd64
    if rate_a != rate_b:
        return False, f"sample rates {rate_a} and {rate_b}"
    if identical:
        return bool(np.array_equal(a, b)), f"{len(a)} and {len(b)} samples"
    distance = log_mel_distance(a, b, rate_a)
    return distance < MAX_DISTANCE_DB, f"log-mel distance {distance:.2f} dB"


# -- steps ----------------------------------------------------------------------------------


def install(rootfs: Rootfs, debs: list[Path], report: Report) -> None:
    for deb in debs:
        shutil.copy(deb, rootfs.inside("/tmp") / deb.name)
    ran = run(rootfs.command("dpkg", "-i", *(f"/tmp/{deb.name}" for deb in debs)), GUEST_ENV)
    report.add("install (dpkg -i)", ran)
    expect(ran.returncode == 0, "dpkg -i", ran.why())
    rootfs.user_ids("cosyedge")  # fails unless the postinst made the service user
    expect("cosyedge" in rootfs.group_members("audio"), "the user cosyedge is in group audio")


def version_and_check(rootfs: Rootfs, home: Path, report: Report) -> None:
    from cosyedge import __version__

    arm64 = run(rootfs.command("/usr/bin/cosyedge", "--version"), GUEST_ENV)
    amd64 = run([str(VENV_BIN / "cosyedge"), "--version"], amd64_env(home))
    report.add("cosyedge --version", arm64, amd64)
    expect(arm64.stdout.strip() == f"cosyedge {__version__}", "cosyedge --version", arm64.why())

    config = "/etc/cosyedge/cosyedge.yaml"
    arm64 = run(rootfs.command("/usr/bin/cosyedge", "check", "--config", config), GUEST_ENV)
    example = str(REPO / "config" / "cosyedge.yaml")
    amd64 = run([str(VENV_BIN / "cosyedge"), "check", "--config", example], amd64_env(home))
    report.add("cosyedge check (the installed config)", arm64, amd64)
    expect(arm64.stdout.startswith(f"{config}: OK"), "cosyedge check", arm64.why())


def say(rootfs: Rootfs, home: Path, espeak_same: bool, report: Report) -> None:
    """`cosyedge say --out` per phrase on both, each with a phrase cache of its own, so every
    phrase is synthesized (the first one on each also saves the optimized models)."""
    config = "cache:\n  dir: /tmp/say-cache\n"
    rootfs.inside("/tmp/say.yaml").write_text(config)
    (home / "say.yaml").write_text(config.replace("/tmp/say-cache", str(home / "say-cache")))
    phrases = [("en", t) for t in alert_texts(SAY_PER_LANGUAGE)]
    phrases += [("zh", t) for t in mandarin_texts()[:SAY_PER_LANGUAGE]]
    for i, (lang, text) in enumerate(phrases):
        options = ["--lang", lang, text]
        arm64 = run(
            rootfs.command(
                "/usr/bin/cosyedge", "say", "--config", "/tmp/say.yaml",
                "--out", f"/tmp/say-{i}.wav", *options,
            ),
            GUEST_ENV,
        )  # fmt: skip
        out = home / f"say-{i}.wav"
        amd64 = run(
            [str(VENV_BIN / "cosyedge"), "say", "--config", str(home / "say.yaml"),
             "--out", str(out), *options],
            amd64_env(home),
        )  # fmt: skip
        expect(arm64.returncode == 0, f"say {text!r} on arm64", arm64.why())
        expect(amd64.returncode == 0, f"say {text!r} here", amd64.why())
        agree, how = same_sound(
            read_wav(rootfs.inside(f"/tmp/say-{i}.wav")),
            read_wav(out),
            lang == "zh" and espeak_same,
        )
        report.add(f"say ({lang}) {text}", arm64, amd64, how)
        expect(agree, f"say {text!r}: arm64 and amd64 renderings differ", how)


def render_sets(rootfs: Rootfs, home: Path, espeak_same: bool, report: Report) -> None:
    """Every English and Mandarin alert of the shared set through bench/render_set.py: on
    arm64 in two processes side by side (a gateway's two cores; this machine's too), here
    AMD64_RENDERINGS times for English and once for Mandarin."""
    english = [{"lang": "en", "text": t} for t in alert_texts(limit=1000)]
    mandarin = [{"lang": "zh", "text": t} for t in mandarin_texts()]
    phrases = english + mandarin
    halves = [phrases[0::2], phrases[1::2]]
    shutil.copy(REPO / "bench" / "render_set.py", rootfs.inside("/tmp/render_set.py"))
    commands = []
    for n, half in enumerate(halves):
        rootfs.inside(f"/tmp/phrases-{n}.json").write_text(json.dumps(half, ensure_ascii=False))
        commands.append(
            rootfs.command(
                "/opt/cosyedge/bin/python", "/tmp/render_set.py",
                f"/tmp/phrases-{n}.json", f"/tmp/rendered-{n}",
            )
        )  # fmt: skip
    arm64 = run_all(commands, GUEST_ENV)
    for ran in arm64:
        expect(ran.returncode == 0, "rendering the shared set on arm64", ran.why())
    timings = [json.loads(line) for ran in arm64 for line in ran.stdout.splitlines()]

    def arm64_wav(i: int) -> Path:  # phrase i went to half i % 2 as its (i // 2)th
        return rootfs.inside(f"/tmp/rendered-{i % 2}/{i // 2}.wav")

    (home / "english.json").write_text(json.dumps(english, ensure_ascii=False))
    (home / "mandarin.json").write_text(json.dumps(mandarin, ensure_ascii=False))
    renders = [("english.json", f"english-{k}") for k in range(AMD64_RENDERINGS)]
    amd64 = [
        run([str(VENV_BIN / "python"), str(REPO / "bench" / "render_set.py"),
             str(home / source), str(home / target)], amd64_env(home))
        for source, target in [*renders, ("mandarin.json", "mandarin")]
    ]  # fmt: skip
    for ran in amd64:
        expect(ran.returncode == 0, "rendering the shared set here", ran.why())
    synth = sum(t["synth_s"] for t in timings)
    audio = sum(t["audio_s"] for t in timings)
    report.rows.append(
        Row(
            f"render {len(english)} en + {len(mandarin)} zh alerts",
            max(r.seconds for r in arm64),
            max(r.peak_rss_mb for r in arm64),
            amd64[0].seconds + amd64[-1].seconds,
            max(amd64[0].peak_rss_mb, amd64[-1].peak_rss_mb),
            f"arm64: 2 processes, real-time factor {synth / audio:.2f} each; amd64: 1 process",
        )
    )

    english_wer(english, arm64_wav, home, report)
    zh = range(len(english), len(phrases))
    verdicts = [
        same_sound(read_wav(arm64_wav(i)), read_wav(home / f"mandarin/{i - len(english)}.wav"),
                   espeak_same)
        for i in zh
    ]  # fmt: skip
    agreeing = sum(ok for ok, _ in verdicts)
    how = "sample-identical" if espeak_same else "within the log-mel bound"
    report.quality["mandarin"] = f"{agreeing}/{len(verdicts)} alerts {how} to amd64"
    expect(agreeing == len(verdicts), "Mandarin renderings differ", str(verdicts))


def english_wer(english: list[dict[str, str]], arm64_wav, home: Path, report: Report) -> None:
    """pocketsphinx's word error over the whole English set, weighted by words, on arm64 and on
    each rendering here; and the mean log-mel distance between arm64's and the first here."""
    from cosyedge.packs.evaluate import Listener, log_mel_distance, word_error_rate, words
    from cosyedge.packs.quantize import MAX_DISTANCE_DB
    from cosyedge.speech.text.english import normalize

    listener = Listener()
    references = [normalize(p["text"]) for p in english]
    total_words = sum(len(words(r)) for r in references)

    def wer(paths: list[Path]) -> float:
        errors = 0.0
        for reference, path in zip(references, paths, strict=True):
            rate, pcm = read_wav(path)
            heard = listener.transcribe(pcm, rate)
            errors += word_error_rate(reference, heard) * len(words(reference))
        return errors / total_words

    arm64_paths = [arm64_wav(i) for i in range(len(english))]
    arm64 = wer(arm64_paths)
    amd64 = [
        wer([home / f"english-{k}/{i}.wav" for i in range(len(english))])
        for k in range(AMD64_RENDERINGS)
    ]
    distances = [
        log_mel_distance(read_wav(a)[1], read_wav(home / f"english-0/{i}.wav")[1], read_wav(a)[0])
        for i, a in enumerate(arm64_paths)
    ]
    mean_amd64 = float(np.mean(amd64))
    report.quality["english_wer"] = {
        "phrases": len(english),
        "words": total_words,
        "arm64": round(arm64, 4),
        "amd64": [round(w, 4) for w in amd64],
        "delta": round(arm64 - mean_amd64, 4),
        "log_mel_db_mean": round(float(np.mean(distances)), 3),
        "log_mel_db_max": round(float(np.max(distances)), 3),
    }
    # One-sided: hearing arm64 better than here is no fault (it has measured 0.00-0.02 lower).
    expect(
        arm64 - mean_amd64 <= WER_TOLERANCE,
        f"English word error {arm64:.3f} on arm64 against {mean_amd64:.3f} here",
    )
    expect(
        float(np.mean(distances)) < MAX_DISTANCE_DB,
        f"English renderings {np.mean(distances):.2f} dB apart",
    )


# -- the daemon -----------------------------------------------------------------------------


class Reports:
    """The daemon's outcome reports (cosyedge/report), as a subscriber on the broker."""

    def __init__(self, port: int) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.outcomes: list[dict[str, Any]] = []
        self._subscribed = False
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"arm64-{os.getpid()}")
        client.on_message = lambda c, u, m: self.outcomes.append(json.loads(m.payload))
        client.on_subscribe = lambda *a: setattr(self, "_subscribed", True)
        client.on_connect = lambda c, *a: c.subscribe("cosyedge/report", qos=1)
        client.connect("127.0.0.1", port)
        client.loop_start()
        self.client = client
        wait_for(lambda: self._subscribed, 10, "a subscription to cosyedge/report")

    def spoken(self, topic: str, timeout: float) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            hits = [o for o in list(self.outcomes) if o.get("topic") == topic]
            return hits[0] if hits else None

        outcome = wait_for(found, timeout, f"the outcome of the alert on {topic}")
        expect(outcome.get("outcome") == "spoken", f"the alert on {topic}", str(outcome))
        return outcome

    def publish(self, topic: str, payload: str) -> float:
        """Publishes with QoS 1 and waits for the broker's acknowledgement; the wall time it
        was sent (the daemon may start speaking before the acknowledgement is back)."""
        sent = time.time()
        info = self.client.publish(topic, payload, qos=1)
        info.wait_for_publish(timeout=10)
        expect(info.is_published(), f"publishing to {topic}")
        return sent

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise SmokeFailure(f"timed out after {timeout:g} s waiting for {what}")


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def start_mosquitto(rootfs: Rootfs) -> subprocess.Popen[bytes]:
    """The rootfs's Mosquitto with its Debian configuration (and the conf.d file the package
    installs), after what its systemd unit does before starting it."""
    for directory in ("/var/log/mosquitto", "/run/mosquitto"):
        prepared = run(
            rootfs.command(
                "sh", "-c", f"mkdir -m 740 -p {directory} && chown mosquitto {directory}"
            ),
            GUEST_ENV,
        )
        expect(prepared.returncode == 0, f"preparing {directory}", prepared.why())
    broker = subprocess.Popen(
        rootfs.command("/usr/sbin/mosquitto", "-c", "/etc/mosquitto/mosquitto.conf"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,  # it logs to /var/log/mosquitto/mosquitto.log
        env=GUEST_ENV,
    )
    wait_for(lambda: listening(BROKER_PORT), 60, "Mosquitto in the rootfs to listen")
    return broker


def alert(alert_id: str) -> tuple[str, str]:
    for line in ALERTS.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item["payload"].get("id") == alert_id:
            return item["topic"], json.dumps(item["payload"], ensure_ascii=False)
    raise SmokeFailure(f"no alert {alert_id} in {ALERTS}")


@dataclass
class DaemonRun:
    ready_s: float  # start to "subscribed"
    first_audio_s: float  # start to the first alert's first audio
    publish_to_audio_s: dict[str, float]  # per alert id: its chime's start
    publish_to_spoken_s: dict[str, float]  # per alert id: its last audio block
    peak_rss_mb: float
    samples: int  # what the ALSA sink received


def daemon_trial(command: list[str], env: dict[str, str], log: Path, sink: Path) -> DaemonRun:
    """Starts the daemon, waits until it has subscribed, publishes each of DAEMON_ALERTS once
    the one before was spoken, then stops it (SIGTERM) and checks what the sink received."""
    reports = Reports(BROKER_PORT)
    started = time.time()
    with log.open("wb") as out:
        daemon = subprocess.Popen(command, stdout=out, stderr=out, env=env)
    try:
        wait_for(
            lambda: (
                daemon.poll() is not None
                or re.search(r"subscribed to \d+ topic filters", log.read_text(errors="replace"))
            ),
            300,
            "the daemon to subscribe",
        )
        expect(daemon.poll() is None, "the daemon exited", log.read_text(errors="replace"))
        ready = time.time() - started
        latencies: dict[str, float] = {}
        spoken: dict[str, float] = {}
        first_audio = 0.0
        for alert_id in DAEMON_ALERTS:
            topic, payload = alert(alert_id)
            published = reports.publish(topic, payload)
            outcome = reports.spoken(topic, 300)
            latencies[alert_id] = outcome["start"] - published
            spoken[alert_id] = outcome["end"] - published
            first_audio = first_audio or outcome["start"] - started
        peak = peak_rss_mb(daemon.pid)  # chroot execs the daemon: the same process
    finally:
        reports.close()
        daemon.send_signal(signal.SIGTERM)
        status, _ = _reap(daemon, time.monotonic() + 60)
    expect(status == 0, "the daemon's exit on SIGTERM", log.read_text(errors="replace"))
    played = [np.fromfile(p, dtype="<i2") for p in sorted(sink.glob("play.raw*"))]
    pcm = np.concatenate(played) if played else np.zeros(0, np.int16)
    # Two alerts, each a chime and two to four seconds of speech at 22.05 or 24 kHz.
    expect(len(pcm) > 100_000, "audio in the ALSA sink", f"{len(pcm)} samples")
    expect(float(np.abs(pcm.astype(np.float32)).mean()) > 300, "speech, not silence, in the sink")
    return DaemonRun(ready, first_audio, latencies, spoken, peak, len(pcm))


def alsa_sink(directory: Path, seen_as: str) -> dict[str, str]:
    """ALSA's default device as a raw file in `directory` (`seen_as` from the daemon's root);
    every stream the daemon opens writes play.raw or play.raw.N there."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "asoundrc").write_text(
        'pcm.!default {\n  type file\n  slave.pcm "null"\n'
        f'  file "{seen_as}/play.raw"\n  format "raw"\n  truncate false\n}}\n'
    )
    return {"ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{seen_as}/asoundrc"}


def daemons(rootfs: Rootfs, home: Path, report: Report) -> None:
    """The installed daemon, then the development install here, both on the rootfs's
    Mosquitto (the only broker in this network namespace)."""
    broker = start_mosquitto(rootfs)
    try:
        arm64 = arm64_daemon(rootfs, home)
        amd64 = amd64_daemon(home)
    finally:
        broker.send_signal(signal.SIGTERM)
        _reap(broker, time.monotonic() + 30)
    report.rows += [
        Row("daemon: start to subscribed", arm64.ready_s, None, amd64.ready_s),
        Row("daemon: start to first audio", arm64.first_audio_s, None, amd64.first_audio_s),
    ]
    for alert_id in DAEMON_ALERTS:
        report.rows += [
            Row(
                f"daemon: publish to first audio ({alert_id})",
                arm64.publish_to_audio_s[alert_id],
                amd64_s=amd64.publish_to_audio_s[alert_id],
                note="the chime",
            ),
            Row(
                f"daemon: publish to last audio ({alert_id})",
                arm64.publish_to_spoken_s[alert_id],
                amd64_s=amd64.publish_to_spoken_s[alert_id],
                note="the file sink takes audio as fast as it comes",
            ),
        ]
    report.rows.append(
        Row("daemon: peak RSS", None, arm64.peak_rss_mb, None, amd64.peak_rss_mb, "VmHWM")
    )


def arm64_daemon(rootfs: Rootfs, home: Path) -> DaemonRun:
    """The installed daemon as its unit runs it: the user cosyedge, the installed
    configuration, the state and cache directories systemd would make; not the unit's
    sandboxing, which needs systemd."""
    uid, gid = rootfs.user_ids("cosyedge")
    for directory in ("/var/lib/cosyedge", "/var/cache/cosyedge", "/tmp/cosyedge-alsa"):
        rootfs.inside(directory).mkdir(mode=0o700, exist_ok=True)
        os.chown(rootfs.inside(directory), uid, gid)
    env = {
        **GUEST_ENV,
        "HOME": "/var/lib/cosyedge",
        "STATE_DIRECTORY": "/var/lib/cosyedge",
        "CACHE_DIRECTORY": "/var/cache/cosyedge",
        **alsa_sink(rootfs.inside("/tmp/cosyedge-alsa"), "/tmp/cosyedge-alsa"),
    }
    command = rootfs.command(
        "/opt/cosyedge/bin/cosyedge", "run", "--config", "/etc/cosyedge/cosyedge.yaml",
        user="cosyedge",
    )  # fmt: skip
    sink = rootfs.inside("/tmp/cosyedge-alsa")
    return daemon_trial(command, env, home / "daemon-arm64.log", sink)


def amd64_daemon(home: Path) -> DaemonRun:
    """The development install with the example configuration, its state and cache here."""
    import yaml

    config = yaml.safe_load((REPO / "config" / "cosyedge.yaml").read_text(encoding="utf-8"))
    config["cache"]["dir"] = str(home / "daemon-cache")
    config["state_dir"] = str(home / "daemon-state")
    config["mqtt"]["client_id"] = "cosyedge-amd64"  # not the arm64 daemon's session
    (home / "daemon.yaml").write_text(yaml.safe_dump(config, allow_unicode=True))
    sink = home / "alsa"
    env = {**amd64_env(home), **alsa_sink(sink, str(sink))}
    command = [str(VENV_BIN / "cosyedge"), "run", "--config", str(home / "daemon.yaml")]
    return daemon_trial(command, env, home / "daemon-amd64.log", sink)


# -- main -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.arm64", description=__doc__)
    parser.add_argument("--root", type=Path, required=True, help="the arm64 rootfs (a copy)")
    parser.add_argument(
        "--deb", type=Path, nargs="+", required=True,
        help="cosyedge_VERSION_arm64.deb, and any other package to install with it",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, help="write the measurements here too")
    parser.add_argument(
        "--time", action="append", default=[], metavar="STEP=SECONDS",
        help="a step measured before this run, for the table",
    )  # fmt: skip
    args = parser.parse_args(argv)
    rootfs = Rootfs(args.root)
    report = Report()
    for measured in args.time:
        step, seconds = measured.rsplit("=", 1)
        report.rows.append(Row(step, float(seconds)))
    failure = None
    with tempfile.TemporaryDirectory(prefix="cosyedge-arm64-") as scratch:
        home = Path(scratch)
        try:
            install(rootfs, args.deb, report)
            version_and_check(rootfs, home, report)
            arm64_espeak, amd64_espeak = espeak_versions(rootfs)
            espeak_same = arm64_espeak == amd64_espeak
            report.quality["espeak-ng"] = f"arm64 {arm64_espeak!r}, amd64 {amd64_espeak!r}"
            say(rootfs, home, espeak_same, report)
            render_sets(rootfs, home, espeak_same, report)
            daemons(rootfs, home, report)
        except SmokeFailure as exc:
            failure = str(exc)
    report.print()
    if args.json:
        args.json.write_text(json.dumps({**report.to_json(), "failure": failure}, indent=1))
    if failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    print("arm64 smoke test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
