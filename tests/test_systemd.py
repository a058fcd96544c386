"""The systemd unit: it verifies cleanly, its sandbox scores well, and the daemon lives in it.

Units cannot be started on this machine (systemd is not PID 1), so the unit is checked with
`systemd-analyze`, and the sandbox settings that could break the daemon are tried on it
directly where the kernel offers them (MemoryDenyWriteExecute through PR_SET_MDWE).
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml
from support import REPO, AlsaSink

from cosyedge.config import MemoryConfig

UNIT = REPO / "systemd" / "cosyedge.service"

needs_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed"
)

pytestmark = pytest.mark.system  # systemd-analyze and the daemon as processes


def unit_settings() -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    section = None
    for line in UNIT.read_text().splitlines():  # repeated keys are kept, in order
        if line.startswith("["):
            section = line.strip("[]")
        elif "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            settings.setdefault(f"{section}.{key}", []).append(value)
    return settings


def megabytes(value: str) -> float:
    m = re.fullmatch(r"(\d+)([KMG]?)", value)
    assert m, value
    return int(m.group(1)) * {"K": 1 / 1024, "M": 1, "G": 1024, "": 1 / (1 << 20)}[m.group(2)]


def in_mount_namespace_with_stub(command: list[str]) -> subprocess.CompletedProcess[str]:
    """Run `command` where /opt/cosyedge/bin/cosyedge exists, without touching the real /opt."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare not installed")
    setup = (
        "mount -t tmpfs tmpfs /opt && mkdir -p /opt/cosyedge/bin && "
        "printf '#!/bin/sh\\n' > /opt/cosyedge/bin/cosyedge && "
        'chmod 755 /opt/cosyedge/bin/cosyedge && exec "$@"'
    )
    userns = [] if os.geteuid() == 0 else ["--map-root-user"]
    result = subprocess.run(
        ["unshare", "--mount", *userns, "sh", "-c", setup, "sh", *command],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if result.returncode and "unshare failed" in result.stderr:
        pytest.skip(f"cannot make a mount namespace here: {result.stderr.strip()}")
    return result


@needs_analyze
def test_unit_verifies_without_a_word_on_stderr():
    result = in_mount_namespace_with_stub(["systemd-analyze", "verify", str(UNIT)])
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # typos only warn, so any output is a failure


@needs_analyze
def test_unit_sandbox_exposure_is_at_most_2_5():
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", "--no-pager", str(UNIT)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    m = re.search(r"Overall exposure level for cosyedge\.service: (\d+\.\d+)", result.stdout)
    assert m, result.stdout + result.stderr
    print(f"systemd-analyze security: {m.group(1)}")
    assert float(m.group(1)) <= 2.5


def test_unit_memory_limits_sit_above_the_configured_ceiling():
    settings = unit_settings()
    high = megabytes(settings["Service.MemoryHigh"][0])
    hard = megabytes(settings["Service.MemoryMax"][0])
    example = yaml.safe_load((REPO / "config" / "cosyedge.yaml").read_text())
    ceiling = example.get("memory", {}).get("ceiling_mb", MemoryConfig().ceiling_mb)
    assert ceiling == MemoryConfig().ceiling_mb
    assert ceiling + 32 <= high < hard
    assert settings["Service.Type"] == ["notify"]
    assert settings["Service.Restart"] == ["always"]
    assert int(settings["Service.WatchdogSec"][0]) >= 10
    assert settings["Service.ExecStart"] == [
        "/opt/cosyedge/bin/cosyedge run --config /etc/cosyedge/cosyedge.yaml"
    ]


def test_the_daemons_stack_runs_without_writable_executable_memory(tmp_path):
    """MemoryDenyWriteExecute=yes: onnxruntime, espeak-ng and PortAudio must not need W+X."""
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_mdwe, pr_get_mdwe, refuse_exec_gain = 65, 66, 1
    if libc.prctl(pr_get_mdwe, 0, 0, 0, 0) < 0:
        pytest.skip("this kernel has no PR_SET_MDWE")

    def deny_write_execute() -> None:
        if libc.prctl(pr_set_mdwe, refuse_exec_gain, 0, 0, 0) != 0:
            os._exit(99)

    sink = AlsaSink(tmp_path / "alsa")
    config = tmp_path / "c.yaml"
    config.write_text(f"cache:\n  dir: {tmp_path}/cache\n")
    result = subprocess.run(
        [sys.executable, "-m", "cosyedge", "say", "-c", str(config), "Valve four is open."],
        env={**os.environ, **sink.env},
        preexec_fn=deny_write_execute,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    (played,) = sink.streams()
    assert len(played) > 22050  # over a second of speech went through the device
