"""Recorded messages: real WAV files, written here with the stdlib `wave` (and by hand for the
formats it cannot write), accepted with their samples read back as written, or refused with
the reason; their conversion to the output's rate measured; and one played on the sound
device (ALSA's file sink) and measured as captured."""

from __future__ import annotations

import math
import os
import shutil
import struct
import subprocess
import sys
import time
import wave
from pathlib import Path

import numpy as np
import pytest
from support import REPO, fresh_portaudio, in_place_of

from cosyedge.audio.player import Player
from cosyedge.audio.recorded import RecordedRefused, load_recorded
from cosyedge.audio.resample import resample
from cosyedge.config.loader import ConfigError, build_section
from cosyedge.config.signals import RecordedConfig


def message(rate: int, seconds: float, peak: float = 0.5) -> np.ndarray:
    """Something like a voice: two partials, their loudness rising and falling (float)."""
    t = np.arange(round(rate * seconds)) / rate
    x = np.sin(2 * np.pi * 440 * t) + 0.3 * np.sin(2 * np.pi * 1250 * t)
    x *= 0.6 + 0.4 * np.sin(2 * np.pi * 3 * t)
    return x * (peak / np.abs(x).max())


def ints(x: np.ndarray, bits: int) -> np.ndarray:
    top = 2 ** (bits - 1)
    return np.clip(np.round(x * top), -top, top - 1).astype(np.int64)


def write_pcm(path: Path, codes: np.ndarray, rate: int, width: int, channels: int = 1) -> Path:
    """A PCM WAV by the stdlib `wave`: `codes` signed (8-bit: stored offset, as WAV has it)."""
    if width == 1:
        raw = (codes + 128).astype(np.uint8).tobytes()
    else:
        little = codes.astype("<i8").view(np.uint8).reshape(-1, 8)[:, :width]
        raw = little.tobytes()
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(raw)
    return path


def write_by_hand(path: Path, raw: bytes, rate: int, tag: int, bits: int, extensible: bool):
    """What `wave` cannot write: 32-bit float, or the WAVE_FORMAT_EXTENSIBLE header."""
    align = bits // 8
    fmt = struct.pack("<HHIIHH", 0xFFFE if extensible else tag, 1, rate, rate * align, align, bits)
    if extensible:
        guid = struct.pack("<H", tag) + b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
        fmt += struct.pack("<HHI", 22, bits, 0x4) + guid
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"data" + struct.pack("<I", len(raw)) + raw
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


def load(path: Path, **settings):
    return load_recorded(RecordedConfig(file=path, **settings))


def refusal(path: Path, **settings) -> str:
    with pytest.raises(RecordedRefused) as refused:
        load(path, **settings)
    return str(refused.value)


@pytest.mark.parametrize("bits", [16, 24])
@pytest.mark.parametrize("rate", [8000, 11025, 16000, 22050, 44100, 48000])
def test_a_mono_pcm_message_is_read_back_as_written(tmp_path, bits, rate):
    codes = ints(message(rate, 1.0), bits)
    path = write_pcm(tmp_path / "evac.wav", codes, rate, bits // 8)
    got = load(path)
    assert got.sample_rate == rate and got.duration_s == pytest.approx(1.0, abs=1 / rate)
    assert got.encoding == f"{bits}-bit PCM, {rate} Hz"
    assert np.array_equal(got.samples.astype(np.float64) * 2 ** (bits - 1), codes)
    assert got.peak_dbfs == pytest.approx(20 * math.log10(0.5), abs=0.01)


@pytest.mark.parametrize(
    "tag,bits,extensible", [(3, 32, False), (3, 32, True), (1, 24, True), (1, 16, True)]
)
def test_float_and_extensible_messages_are_read_back_as_written(tmp_path, tag, bits, extensible):
    x = message(16000, 0.5)
    if tag == 3:
        written = x.astype("<f4")
        raw, expect = written.tobytes(), written.astype(np.float64)
    else:
        codes = ints(x, bits)
        raw = codes.astype("<i4").view(np.uint8).reshape(-1, 4)[:, : bits // 8].tobytes()
        expect = codes / 2 ** (bits - 1)
    path = write_by_hand(tmp_path / "evac.wav", raw, 16000, tag, bits, extensible)
    got = load(path)
    assert np.array_equal(got.samples.astype(np.float64), expect)
    assert got.encoding == f"{bits}-bit {'float' if tag == 3 else 'PCM'}, 16000 Hz"


def rms_dbfs(codes: np.ndarray, bits: int) -> float:
    return 20 * math.log10(np.sqrt(np.mean((codes / 2 ** (bits - 1)) ** 2)))


def test_what_is_not_a_usable_message_is_refused_naming_the_file_and_why(tmp_path):
    def pcm(name, x, rate=16000, width=2, channels=1):
        return write_pcm(tmp_path / name, ints(x, 8 * width), rate, width, channels)

    quiet = ints(message(16000, 1.0, peak=0.004), 16)
    loud = ints(np.clip(message(16000, 1.0, peak=1.2), -1, 1), 16)
    clipped_percent = 100 * np.count_nonzero(np.abs(loud) >= 32767) / len(loud)
    cases = {
        "stereo.wav": (
            pcm("stereo.wav", np.repeat(message(16000, 1.0), 2), channels=2),
            "2 channels, a message must be mono",
        ),
        "8bit.wav": (
            pcm("8bit.wav", message(16000, 1.0), width=1),
            "8-bit PCM, a message must be 16- or 24-bit PCM or 32-bit float",
        ),
        "32bit.wav": (
            pcm("32bit.wav", message(16000, 1.0), width=4),
            "32-bit PCM, a message must be 16- or 24-bit PCM or 32-bit float",
        ),
        "mp3.wav": (
            write_by_hand(tmp_path / "mp3.wav", bytes(32000), 16000, 0x55, 16, False),
            "format tag 0x0055, a message must be PCM or float",
        ),
        "96k.wav": (
            pcm("96k.wav", message(96000, 1.0), 96000),
            "96000 Hz, a message must be 8000-48000 Hz",
        ),
        "6k.wav": (
            pcm("6k.wav", message(6000, 1.0), 6000),
            "6000 Hz, a message must be 8000-48000 Hz",
        ),
        "silent.wav": (pcm("silent.wav", np.zeros(16000)), "silent: every sample is zero"),
        "quiet.wav": (
            write_pcm(tmp_path / "quiet.wav", quiet, 16000, 2),
            f"near-silent: RMS {rms_dbfs(quiet, 16):.1f} dBFS, below -45 dBFS",
        ),
        "clipped.wav": (
            write_pcm(tmp_path / "clipped.wav", loud, 16000, 2),
            f"clipped: {clipped_percent:.2f} % of its samples at full scale (at most 0.1 %)",
        ),
        "short.wav": (
            pcm("short.wav", message(16000, 0.1)),
            "0.10 s long, a message must be longer than 0.2 s",
        ),
        "long.wav": (
            pcm("long.wav", message(8000, 121.0), 8000),
            "121.0 s long, longer than the 120 s allowed (max_s)",
        ),
        "text.wav": (tmp_path / "text.wav", "not a WAV file (no RIFF/WAVE header)"),
        "empty.wav": (tmp_path / "empty.wav", "not a WAV file (no RIFF/WAVE header)"),
        "missing.wav": (tmp_path / "missing.wav", "cannot read: No such file or directory"),
    }
    (tmp_path / "text.wav").write_text("evacuate now\n")
    (tmp_path / "empty.wav").write_bytes(b"")
    assert 1.0 < clipped_percent < 50 and rms_dbfs(quiet, 16) < -45
    for name, (path, why) in cases.items():
        assert refusal(path) == f"recorded message {path}: {why}", name


def test_a_file_cut_short_is_refused_where_it_ends(tmp_path):
    whole = write_pcm(tmp_path / "whole.wav", ints(message(16000, 1.0), 16), 16000, 2).read_bytes()
    data_at = whole.index(b"data")
    cuts = {
        8: "not a WAV file (no RIFF/WAVE header)",
        30: "a format chunk of 16 bytes, cut short or malformed",
        data_at: "header cut short: no data chunk",
        data_at + 4: "header cut short: no data chunk",
        len(whole) - 1000: "truncated: its data chunk holds 32000 bytes, the file 31000 of them",
    }
    for cut, why in cuts.items():
        path = tmp_path / f"cut-{cut}.wav"
        path.write_bytes(whole[:cut])
        assert refusal(path) == f"recorded message {path}: {why}", cut
    claims = tmp_path / "claims.wav"  # a data size damaged: the file's end, not its length
    claims.write_bytes(whole[: data_at + 4] + struct.pack("<I", 10**7) + whole[data_at + 8 :])
    assert refusal(claims).endswith(
        "truncated: its data chunk holds 10000000 bytes, the file 32000 of them"
    )
    settings = {"max_s": 0.5}
    assert refusal(tmp_path / "whole.wav", **settings).endswith(
        "1.0 s long, longer than the 0.5 s allowed (max_s)"
    )


def test_a_damaged_header_is_refused_never_raised_otherwise(tmp_path):
    whole = write_pcm(tmp_path / "whole.wav", ints(message(16000, 0.5), 16), 16000, 2).read_bytes()
    reasons = set()
    for at in range(whole.index(b"data") + 8):  # every byte of the header, set to 00 and FF
        for value in (0x00, 0xFF):
            path = tmp_path / "damaged.wav"
            path.write_bytes(whole[:at] + bytes([value]) + whole[at + 1 :])
            try:
                load(path)
            except RecordedRefused as exc:
                reasons.add(str(exc).removeprefix(f"recorded message {path}: ").split(",")[0])
    assert len(reasons) >= 8, reasons  # told apart, not one catch-all


@pytest.mark.parametrize("what", ["fifo", "zero", "directory"])
def test_what_is_not_a_regular_file_is_refused_at_once(tmp_path, what):
    path = tmp_path / "evac.wav"
    in_place_of(path, what)
    began = time.monotonic()
    assert refusal(path) == f"recorded message {path}: cannot read: not a regular file"
    assert time.monotonic() - began < 2  # not waiting on the FIFO, nor reading /dev/zero


def test_a_file_its_reader_may_not_read_is_refused(tmp_path):
    path = write_pcm(tmp_path / "evac.wav", ints(message(16000, 1.0), 16), 16000, 2)
    path.chmod(0o000)
    expected = f"recorded message {path}: cannot read: Permission denied"
    if os.geteuid() != 0:
        assert refusal(path) == expected
        return
    if shutil.which("setpriv") is None:
        pytest.skip("as root, a file is unreadable only without CAP_DAC_OVERRIDE: needs setpriv")
    code = (
        "import sys; from pathlib import Path\n"
        "from cosyedge.audio.recorded import RecordedRefused, load_recorded\n"
        "from cosyedge.config.signals import RecordedConfig\n"
        "try: load_recorded(RecordedConfig(file=Path(sys.argv[1])))\n"
        "except RecordedRefused as exc: print(exc)\n"
    )
    # root, less the capabilities that let it read what its mode forbids
    drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]
    done = subprocess.run(
        [*drop, sys.executable, "-c", code, str(path)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected


def test_a_recorded_message_is_configured_and_checked_like_any_section(tmp_path):
    path = write_pcm(tmp_path / "evac.wav", ints(message(16000, 1.0), 16), 16000, 2)
    config = build_section(RecordedConfig, {"file": str(path), "max_s": 30}, "z.message")
    assert config.file == path and config.max_s == 30 and load_recorded(config).duration_s == 1.0
    refused = {
        "z.message.file: missing required key": {},
        "z.message.file: expected a path, got 3": {"file": 3},
        "z.message.max_s: expected a number 1-600, got 0": {"file": "/x.wav", "max_s": 0},
        "z.message.min_rms_dbfs: expected a number -80--10, got -5": {
            "file": "/x.wav",
            "min_rms_dbfs": -5,
        },
        "z.message.max_clipped_percent: expected a number 0-100, got 101": {
            "file": "/x.wav",
            "max_clipped_percent": 101,
        },
    }
    for problem, data in refused.items():
        with pytest.raises(ConfigError) as caught:
            build_section(RecordedConfig, data, "z.message", "site.yaml")
        assert caught.value.problems == [f"site.yaml: {problem}"]
    # The thresholds are the configured ones.
    quiet = write_pcm(tmp_path / "quiet.wav", ints(message(16000, 1.0, 0.02), 16), 16000, 2)
    assert load(quiet).rms_dbfs < -35
    assert "near-silent" in refusal(quiet, min_rms_dbfs=-35)


def level_db(x: np.ndarray) -> float:
    return 20 * math.log10(np.sqrt(np.mean(np.square(x, dtype=np.float64))) * math.sqrt(2))


def peak_hz(x: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(x * np.blackman(len(x)), 4 * len(x)))
    return float(np.fft.rfftfreq(4 * len(x), 1 / rate)[np.argmax(spectrum)])


def sine(hz: float, rate: int, seconds: float = 2.0) -> np.ndarray:
    return np.sin(2 * np.pi * hz * np.arange(round(rate * seconds)) / rate)


@pytest.mark.parametrize("source,target", [(48000, 22050), (8000, 48000), (44100, 16000)])
def test_resampling_keeps_a_tone_and_its_level(source, target):
    out = resample(sine(1000, source), source, target)
    assert len(out) == 2 * target
    middle = out[target // 2 : 3 * target // 2]
    assert level_db(middle) == pytest.approx(0.0, abs=0.05)
    assert peak_hz(middle, target) == pytest.approx(1000, abs=1)


def test_resampling_lets_nothing_fold_back_or_be_imaged():
    down = resample(sine(15000, 48000), 48000, 22050)  # above 11 kHz: would alias to 7050 Hz
    assert level_db(down[11025:33075]) < -70
    up = resample(sine(1000, 8000), 8000, 48000)  # its image at 7 kHz
    middle = up[24000:72000]
    spectrum = np.abs(np.fft.rfft(middle * np.blackman(len(middle))))
    freqs = np.fft.rfftfreq(len(middle), 1 / 48000)
    assert 20 * math.log10(spectrum[np.abs(freqs - 7000) < 200].max() / spectrum.max()) < -70


def test_a_message_played_on_the_device_is_heard_at_the_outputs_rate(
    tmp_path, alsa_sink, monkeypatch
):
    for name, value in alsa_sink.env.items():
        monkeypatch.setenv(name, value)
    fresh_portaudio()
    written = 0.5 * sine(440, 44100, 1.5)
    got = load(write_pcm(tmp_path / "evac.wav", ints(written, 16), 44100, 2))
    pcm = got.pcm(22050)
    played = Player(None, 100).play(22050, [pcm])
    assert played.played and played.samples == len(pcm) == round(1.5 * 22050)
    captured = alsa_sink.streams()[-1].astype(np.float64) / 32767
    sounding = np.flatnonzero(np.abs(captured) > 0.25)
    assert (sounding[-1] - sounding[0]) / 22050 == pytest.approx(1.5, abs=0.005)
    assert peak_hz(captured[sounding[0] : sounding[-1]], 22050) == pytest.approx(440, abs=1)
    assert level_db(captured[5000:30000]) == pytest.approx(20 * math.log10(0.5), abs=0.05)
