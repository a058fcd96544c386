"""A bad configuration never silences the gateway: a start runs the last good configuration,
else the embedded defaults' safe core, with the fault `config`; an optional part that cannot
start is a fault of its own while the rest runs; `check` tells which would happen."""

from __future__ import annotations

import json
import os
import socket
import stat
import time
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import pytest
from support import Listener, cosyedge, publish, site_yaml

from cosyedge import build, cli, installed
from cosyedge import daemon as daemon_module
from cosyedge.config import Config, ConfigError, build_config, lastgood, load_config, parse_config
from cosyedge.config.lastgood import FILE, LAST_GOOD, SAFE_CORE, StartPlan, config_data
from cosyedge.faults import Faults
from cosyedge.observe import Observer
from cosyedge.speech.kept import SavedDir

RICH = """
mqtt: {{host: broker.plant, port: 8883, username: gw, password_file: {dir}/password}}
voices:
  en: {{engine: hibari, session: {{intra_op_threads: 2}}}}
  zh: {{engine: espeak-pinyin}}
templates:
  - topic: "plant/{{line}}/valve/{{state}}"
    text: "Line {{line}} valve {{state}}."
    values: {{line: "1..3", state: [open, closed]}}
    ttl_s: 30
    priority: high
alarms:
  quiet_hours: {{start: "22:00", end: "06:00"}}
http: {{enabled: true, token_file: {dir}/token}}
pronunciations:
  en: [{{word: K7, say: kiln seven}}]
state_dir: {dir}/state
"""

# Each class of file a start refuses, and the key path its reason names.
REFUSED = {
    "schema": ("mqtt:\n  port: abc\n", 'mqtt.port: expected an integer 1-65535, got "abc"'),
    "yaml": ("mqtt: [port\n", "line 3, column 1: invalid YAML"),
    "missing engine package": ("voices:\n  en: {engine: piper}\n", "voices.en.engine: piper"),
    "unreadable file": (None, "cannot read"),
}


@pytest.fixture
def state(tmp_path: Path) -> Path:
    directory = tmp_path / "state"
    directory.mkdir()
    return directory


@pytest.fixture(autouse=True)
def own_default_state(tmp_path: Path, monkeypatch) -> None:
    """The embedded default state_dir is this test's, not the user's."""
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))


def hide(monkeypatch, package: str) -> None:
    """As if `package` were not installed, to the configuration's checks."""
    real = installed._importable
    monkeypatch.setattr(installed, "_importable", lambda m: m != package and real(m))


@pytest.fixture
def no_piper(monkeypatch):
    hide(monkeypatch, "piper")


def good_config(state: Path, text: str = "Kept: {text}") -> Config:
    return parse_config(f'state_dir: {state}\ntemplates:\n  - {{topic: a/b, text: "{text}"}}\n')


def refused_file(tmp_path: Path, state: Path, case: str) -> Path:
    text, _ = REFUSED[case]
    path = tmp_path / "site.yaml"
    if text is None:
        path.mkdir()  # a directory where the file should be: it cannot be read
    else:
        path.write_text(f"state_dir: {state}\n{text}")
    return path


def test_a_configuration_goes_to_json_and_back_equal(tmp_path):
    (tmp_path / "password").write_text("s3cret-password")
    (tmp_path / "token").write_text("s3cret-token-for-the-api")
    for config in (Config(), parse_config(RICH.format(dir=tmp_path))):
        data = json.loads(json.dumps(config_data(config)))
        assert build_config(data, "kept") == config


def test_it_is_kept_atomically_with_source_hash_and_time_and_no_secret(tmp_path, state):
    (tmp_path / "password").write_text("s3cret-password")
    (tmp_path / "token").write_text("s3cret-token-for-the-api")
    config = parse_config(RICH.format(dir=tmp_path).replace(f"{tmp_path}/state", str(state)))
    before = time.time()
    lastgood.save(config, tmp_path / "site.yaml")
    path = state / lastgood.LAST_GOOD_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in state.iterdir()] == [lastgood.LAST_GOOD_FILE]  # no temp file left
    text = path.read_text()
    assert "s3cret" not in text and f"{tmp_path}/password" in text  # the reference only
    saved = lastgood.load(state)
    assert saved.config == config and saved.source == str(tmp_path / "site.yaml")
    assert len(saved.sha256) == 64 and before <= saved.saved_at <= time.time()


def test_a_damaged_record_is_not_run(state):
    lastgood.save(good_config(state), None)
    path = state / lastgood.LAST_GOOD_FILE
    record = json.loads(path.read_text())
    record["config"]["mqtt"]["port"] = 1884  # its hash no longer matches
    path.write_text(json.dumps(record))
    with pytest.raises(ConfigError, match="damaged"):
        lastgood.load(state)
    path.write_text("{")
    with pytest.raises(ConfigError, match="unreadable"):
        lastgood.load(state)


def test_a_good_file_is_run_as_it_is(tmp_path, state):
    path = tmp_path / "site.yaml"
    path.write_text(f"state_dir: {state}\n")
    plan = StartPlan.read(path)
    first = next(plan.choices())
    assert first.origin == FILE and first.config == load_config(path)
    assert plan.refusal(first) is None


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_file_starts_on_the_last_good_configuration(case, tmp_path, state, no_piper):
    kept = good_config(state)
    lastgood.save(kept, tmp_path / "site.yaml")
    path = refused_file(tmp_path, state, case)
    plan = StartPlan.read(path)
    if case == "unreadable file":  # its state_dir cannot be read from it: the given one
        plan.state_dir = state
    choice = next(plan.choices())
    assert (choice.origin, choice.config) == (LAST_GOOD, kept)
    reason = plan.refusal(choice)
    assert reason.startswith(f"{path}: ") and REFUSED[case][1] in reason
    assert f"running the last good configuration (from {tmp_path}/site.yaml, " in reason


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_file_without_a_last_good_one_starts_the_safe_core(
    case, tmp_path, state, no_piper
):
    path = refused_file(tmp_path, state, case)
    plan = StartPlan.read(path)
    choice = next(plan.choices())
    # Where the file keeps its files, when it can be read; none of these files names a
    # broker or a cache the schema takes, so those are the embedded defaults'.
    kept = Config().state_dir if case == "unreadable file" else state
    assert (choice.origin, choice.config) == (SAFE_CORE, replace(Config(), state_dir=kept))
    core = choice.config  # MQTT intake of the say topic, the default voices and device
    assert [t.topic for t in core.templates] == ["cosyedge/say"]
    assert (core.mqtt.host, core.mqtt.port, core.mqtt.local_broker) == ("127.0.0.1", 1883, True)
    assert core.audio.device is None and not (core.http.enabled or core.wyoming.enabled)
    running = f"; running the embedded defaults' safe core (state_dir {kept}, MQTT 127.0.0.1:1883"
    assert running + f", a local broker{NOT_KEPT[case]}" in plan.refusal(choice)


# What the safe core says of the sections it could not take from each refused file.
NOT_KEPT = {
    "schema": "; mqtt of the embedded defaults, not the file's: ",
    "yaml": "; mqtt and cache of the embedded defaults, not the file's: ",
    "missing engine package": ")",  # neither is in the file: its meaning is the defaults'
    "unreadable file": "; mqtt and cache of the embedded defaults, not the file's: ",
}


SITE_BROKER = """
mqtt: {{host: broker.plant, port: 8883, client_id: gw-7, local_broker: false}}
cache: {{dir: {dir}/phrases}}
"""


def test_the_safe_core_keeps_the_files_broker_state_dir_and_cache(tmp_path, state, no_piper):
    """A file refused for another section (here a voice whose package is gone) still says
    where the gateway keeps its files and which broker it hears: the safe core keeps those,
    so it hears the site's alerts in the gateway's own session and writes nowhere else."""
    path = tmp_path / "site.yaml"
    broker = SITE_BROKER.format(dir=tmp_path)
    path.write_text(f"state_dir: {state}\n{broker}voices:\n  en: {{engine: piper}}\n")
    plan = StartPlan.read(path)
    choice = next(plan.choices())
    assert choice.origin == SAFE_CORE
    core = choice.config
    assert (core.mqtt.host, core.mqtt.port, core.mqtt.client_id) == ("broker.plant", 8883, "gw-7")
    assert not core.mqtt.local_broker  # no Mosquitto of its own on :1883
    assert (core.state_dir, core.cache.dir) == (state, tmp_path / "phrases")
    assert core.voices == Config().voices and [t.topic for t in core.templates] == ["cosyedge/say"]
    assert plan.refusal(choice).endswith(
        f"running the embedded defaults' safe core (state_dir {state}, MQTT broker.plant:8883)"
    )


def test_a_section_the_schema_refuses_is_the_last_good_ones_else_the_defaults_said_why(
    tmp_path, state
):
    path = tmp_path / "site.yaml"
    path.write_text(f"state_dir: {state}\nmqtt: {{port: seventy}}\ncache: {{dir: {tmp_path}/c}}\n")
    plan = StartPlan.read(path)
    why = f'{path}: mqtt.port: expected an integer 1-65535, got "seventy"'
    core = plan.safe_core()
    assert (core.config.mqtt, core.config.cache.dir) == (Config().mqtt, tmp_path / "c")
    assert core.what.endswith(f"; mqtt of the embedded defaults, not the file's: {why})")
    kept = parse_config(SITE_BROKER.format(dir=tmp_path) + f"state_dir: {state}\n")
    lastgood.save(kept, None)
    core = plan.safe_core(lastgood.load(state))  # the last good one was tried, and failed
    assert core.config.mqtt == kept.mqtt and core.config.cache.dir == tmp_path / "c"
    assert "MQTT broker.plant:8883; mqtt of the last good configuration, not the file's: " in (
        core.what
    )


def test_a_file_that_is_no_yaml_keeps_its_state_dir_line_and_says_why_not_the_rest(tmp_path, state):
    path = tmp_path / "site.yaml"
    path.write_text(f"state_dir: {state}\nmqtt: {{host: broker.plant\n")
    core = StartPlan.read(path).safe_core()
    assert core.config == replace(Config(), state_dir=state)
    assert f"; mqtt and cache of the embedded defaults, not the file's: {path}: line " in (
        core.what
    )


def test_a_refused_file_naming_its_state_dir_finds_its_last_good_one_there(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    lastgood.save(good_config(elsewhere), None)
    path = tmp_path / "site.yaml"
    path.write_text(f"state_dir: {elsewhere}\nmqtt: {{port: seventy}}\n")
    assert next(StartPlan.read(path).choices()).origin == LAST_GOOD


def test_a_last_good_one_this_machine_cannot_run_now_gives_the_safe_core(
    tmp_path, state, monkeypatch
):
    lastgood.save(parse_config(f"state_dir: {state}\nvoices:\n  en: {{engine: piper}}\n"), None)
    hide(monkeypatch, "piper")  # removed since
    path = refused_file(tmp_path, state, "schema")
    plan = StartPlan.read(path)
    choice = next(plan.choices())
    assert choice.origin == SAFE_CORE
    assert plan.problems[1].startswith(
        f"last good configuration: {state}/{lastgood.LAST_GOOD_FILE}: voices.en.engine: piper"
    )


class FakeDaemon:
    """Stands for the daemon: its voices fail to load (after it was built and subscribed, as
    the real one's do) on configurations whose template says so; keeps the systemd notifier
    each attempt was given, and the daemon that ran."""

    notifiers: ClassVar[list] = []
    ran: ClassVar[list] = []

    def __init__(
        self, config, path, refused=None, origin=FILE, notifier=None, voices_by=None
    ) -> None:
        FakeDaemon.notifiers.append(notifier)
        self.config, self.refused, self.origin = config, refused, origin

    def run(self) -> int:
        if self.config.templates[0].text.startswith("Broken voice"):
            raise daemon_module.VoiceFailed("voices.zh: cannot be loaded: PackError: bad hash")
        FakeDaemon.ran.append(self)
        return 0


def test_a_voice_that_does_not_load_starts_the_last_good_one_naming_its_key(
    tmp_path, state, monkeypatch
):
    monkeypatch.setattr(daemon_module, "Daemon", FakeDaemon)
    kept = good_config(state)
    lastgood.save(kept, None)
    path = tmp_path / "site.yaml"
    path.write_text(f'state_dir: {state}\ntemplates:\n  - {{topic: a/b, text: "Broken voice"}}\n')
    FakeDaemon.notifiers.clear()
    assert cli.run_daemon(path) == 0
    started = FakeDaemon.ran[-1]
    assert (started.origin, started.config) == (LAST_GOOD, kept)
    assert started.refused.startswith(f"{path}: voices.zh: cannot be loaded: PackError")
    # One notifier for every attempt: the first takes NOTIFY_SOCKET from the environment,
    # so a second of its own could never tell systemd the fallback is ready.
    first, second = FakeDaemon.notifiers
    assert first is second is not None
    (state / lastgood.LAST_GOOD_FILE).unlink()  # first install: the safe core
    assert cli.run_daemon(path) == 0  # in the file's state_dir, on its broker
    started = FakeDaemon.ran[-1]
    assert (started.origin, started.config) == (SAFE_CORE, replace(Config(), state_dir=state))


def test_nothing_to_announce_with_stops_the_start_with_every_reason(tmp_path, monkeypatch):
    def nothing(*args, **kwargs):
        raise daemon_module.VoiceFailed("voices.en: cannot be loaded: OSError: gone")

    monkeypatch.setattr(daemon_module, "Daemon", nothing)
    with pytest.raises(cli.CannotStart, match=r"nothing to announce with: .*voices\.en"):
        cli.run_daemon(None)


class HungDaemon(FakeDaemon):
    """Its voices are never loaded in time (a load that hangs), whatever it runs."""

    def run(self) -> int:
        raise daemon_module.VoicesHung("voices.en: not loaded within 60 s (the load hangs)")


def test_voices_that_hang_in_every_configuration_exit_for_a_restart(tmp_path, monkeypatch):
    """Not CannotStart (exit 2, which systemd does not restart): hung storage may come back."""
    monkeypatch.setattr(daemon_module, "Daemon", HungDaemon)
    path = tmp_path / "site.yaml"
    path.write_text(f"state_dir: {tmp_path}/state\n")
    with pytest.raises(RuntimeError, match=r"nothing to announce with: .*the load hangs") as e:
        cli.run_daemon(path)
    assert not isinstance(e.value, cli.CannotStart)
    assert cli.main(["run", "--config", str(path)]) == 1


def test_a_voice_pack_that_does_not_verify_is_named_by_its_key(tmp_path):
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "manifest.json").write_text('{"not": "a manifest"}')
    config = parse_config(  # a language with no default voice to stand in
        f"voices:\n  en: {{}}\n  fr: {{engine: cosyvoice, pack: {pack}}}\n"
        f"state_dir: {tmp_path}/state\ntemplates: [{{topic: a/b, text: Bonjour, lang: fr}}]\n"
    )
    with pytest.raises(daemon_module.VoiceFailed, match=r"^voices\.fr: cannot be loaded: "):
        saved = SavedDir(tmp_path / "state" / "models")
        build._voices(config, saved, Faults(), Observer())


def test_check_says_what_a_start_would_run_instead(tmp_path, state, capsys):
    path = refused_file(tmp_path, state, "schema")
    assert cli.main(["check", "--config", str(path)]) == 2
    out, err = capsys.readouterr()
    assert err.strip() == f"{path}: {REFUSED['schema'][1]}"  # the problems alone on stderr
    assert out.strip() == (
        f"{path}: would start on the embedded defaults' safe core (state_dir {state}, MQTT "
        f"127.0.0.1:1883, a local broker; mqtt of the embedded defaults, not the file's: "
        f"{path}: {REFUSED['schema'][1]}) because the file is refused; no last good "
        f"configuration in {state}"
    )
    lastgood.save(good_config(state), None)
    assert cli.main(["check", "--config", str(path)]) == 2
    out, _ = capsys.readouterr()
    assert out.startswith(f"{path}: would start on the last good configuration (from embedded")
    other = tmp_path / "other"
    assert cli.main(["check", "--config", str(path), "--state-dir", str(other)]) == 2
    assert f"no last good configuration in {other}" in capsys.readouterr().out


def test_check_says_which_optional_part_a_start_would_run_without(tmp_path, monkeypatch, capsys):
    hide(monkeypatch, "wyoming")
    monkeypatch.setattr(cli, "setup_logging", lambda level: None)  # stderr is captured here
    path = tmp_path / "site.yaml"
    path.write_text("wyoming: {enabled: true}\n")
    assert cli.main(["check", "--config", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{path}: would start without wyoming: wyoming.enabled: the ")
    assert out[1] == f"{path}: OK (1 templates)"


def test_a_premium_pack_that_cannot_be_used_is_its_own_fault(tmp_path):
    from cosyedge.speech.premium import premium_voices

    assert build.premium_refused(parse_config(""), {}) == {}  # none configured
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "manifest.json").write_text("not a manifest")
    config = parse_config(f"voices:\n  en: {{engine: hibari, premium: {{pack: {pack}}}}}\n")
    refused = build.premium_refused(config, premium_voices(config.voices))
    assert refused["premium"].startswith("voices.en.premium.pack: the pack cannot be used")


# --- the daemon, as a process ---------------------------------------------------------------

REPORT, EVENT, STATUS = "cosyedge/report", "cosyedge/event", "cosyedge/status"


def fault_events(listen: Listener, kind: str, fault: str) -> list[dict]:
    return [
        e
        for e in listen.on(EVENT)
        if isinstance(e, dict) and e.get("event") == kind and e.get("fault") == fault
    ]


@pytest.mark.system
def test_a_broken_file_at_restart_runs_the_last_good_one_says_so_and_a_reload_clears_it(
    tmp_path, broker, make_daemon
):
    good = site_yaml(broker.port, tmp_path) + "monitor: {reannounce_s: 0}\n"
    listen = Listener(broker.port, STATUS, EVENT, REPORT)
    daemon = make_daemon(good)
    daemon.wait_for_log(r"cosyedge\.daemon: ready", timeout=60)
    assert (tmp_path / "state" / lastgood.LAST_GOOD_FILE).is_file()
    daemon.stop()

    daemon.config.write_text(good + "wyoming: {enabled: true, listen: nonsense}\n")  # refused
    daemon.start(wait_ready=False)
    daemon.wait_for_log(r"cosyedge\.daemon: ready", timeout=60, count=2)
    said = lambda: fault_events(listen, "fault_announcement", "config")  # noqa: E731
    listen.wait_for(EVENT, lambda _: said(), 60)
    assert said()[0]["text"] == (
        "The alarm system configuration was refused; running the previous configuration."
    )
    status = listen.wait_for(STATUS, lambda s: "config" in s[-1].get("faults", {}), 10)[-1]
    assert status["state"] == "degraded"
    assert status["faults"]["config"].startswith(f"{daemon.config}: wyoming.listen: expected")
    publish(broker.port, "cosyedge/say", json.dumps({"id": "heard", "text": "Pump one."}))
    listen.wait_for(REPORT, lambda r: any(x.get("outcome") == "spoken" for x in r), 30)

    daemon.config.write_text(good)
    reload = cosyedge("reload", "--config", str(daemon.config), "--pid", str(daemon.process.pid))
    assert reload.returncode == 0, reload.stderr
    listen.wait_for(EVENT, lambda _: fault_events(listen, "fault_cleared", "config"), 30)
    listen.wait_for(STATUS, lambda s: s[-1]["state"] == "online", 10)
    listen.close()


@pytest.mark.system
def test_wyoming_without_its_package_is_its_fault_while_the_rest_speaks(
    tmp_path, broker, make_daemon
):
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(
        "import sys\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.partition('.')[0] == 'wyoming':\n"
        "            raise ModuleNotFoundError(name, name=name)\n"
        "sys.meta_path.insert(0, Hide())\n"
    )
    env = {"PYTHONPATH": os.pathsep.join([str(shim), os.environ.get("PYTHONPATH", "")])}
    listen = Listener(broker.port, STATUS, REPORT)
    make_daemon(site_yaml(broker.port, tmp_path) + "wyoming: {enabled: true}\n", env=env)
    status = listen.wait_for(STATUS, lambda s: "wyoming" in s[-1].get("faults", {}), 60)[-1]
    assert status["faults"]["wyoming"].startswith("wyoming.enabled: the Wyoming server needs")
    assert "config" not in status["faults"]
    publish(broker.port, "cosyedge/say", json.dumps({"id": "heard", "text": "Pump two."}))
    listen.wait_for(REPORT, lambda r: any(x.get("outcome") == "spoken" for x in r), 30)
    listen.close()


@pytest.mark.system
def test_ports_in_use_are_faults_of_their_parts_while_the_rest_speaks(
    tmp_path, broker, make_daemon
):
    with socket.socket() as http, socket.socket() as wyoming:
        for held in (http, wyoming):
            held.bind(("127.0.0.1", 0))
            held.listen()
        ports = http.getsockname()[1], wyoming.getsockname()[1]
        listen = Listener(broker.port, STATUS, REPORT)
        make_daemon(
            site_yaml(broker.port, tmp_path)
            + f"http: {{enabled: true, listen: '127.0.0.1:{ports[0]}'}}\n"
            + f"wyoming: {{enabled: true, listen: 'tcp://127.0.0.1:{ports[1]}'}}\n"
        )
        wanted = {"http", "wyoming"}
        status = listen.wait_for(STATUS, lambda s: wanted <= set(s[-1].get("faults", {})), 60)
        faults = status[-1]["faults"]
        assert faults["http"].startswith(f"http.listen 127.0.0.1:{ports[0]}: OSError: ")
        assert faults["wyoming"].startswith(f"wyoming.listen tcp://127.0.0.1:{ports[1]}: ")
        publish(broker.port, "cosyedge/say", json.dumps({"id": "heard", "text": "Pump three."}))
        listen.wait_for(REPORT, lambda r: any(x.get("outcome") == "spoken" for x in r), 30)
        listen.close()


def test_a_source_edited_outside_the_sha256_is_shown_quoted_never_as_a_line_of_its_own(state):
    kept = good_config(state)
    lastgood.save(kept, Path("/etc/cosyedge/cosyedge.yaml"))
    path = state / lastgood.LAST_GOOD_FILE
    record = json.loads(path.read_text())
    record["source"] = "/etc/x.yaml\nwould start on nothing"
    path.write_text(json.dumps(record))
    saved = lastgood.load(state)
    assert saved.config == kept and "\n" not in saved.source


def test_a_section_given_twice_in_a_refused_file_is_not_guessed_at(tmp_path, state):
    """The file is refused for its repeated `mqtt`; which of the two the site meant nobody
    can say, so the safe core takes neither (the last good one's, else the defaults', said
    why), and still takes the sections given once."""
    path = tmp_path / "site.yaml"
    broker = SITE_BROKER.format(dir=tmp_path)
    path.write_text(f"state_dir: {state}\n{broker}mqtt: {{host: other.plant}}\n")
    core = StartPlan.read(path).safe_core()
    assert core.config.mqtt == Config().mqtt, core.config.mqtt
    assert (core.config.state_dir, core.config.cache.dir) == (state, tmp_path / "phrases")
    assert f"mqtt of the embedded defaults, not the file's: {path}: line " in core.what
    assert "key 'mqtt' given twice" in core.what


def test_the_file_and_the_last_good_share_the_voices_wait_the_safe_core_has_its_own(tmp_path):
    """A load that hangs costs one wait for the site's voices, whichever configuration runs
    them, and the safe core's own after it: READY=1 within TimeoutStartSec (120 s)."""
    from cosyedge.config.lastgood import SAFE_CORE_WAIT_S, VOICES_WAIT_S, Choice

    plan = StartPlan(None, Config(), tmp_path)
    first = plan.voices_by(Choice(Config(), FILE, "the file"))
    asked = time.monotonic()
    time.sleep(0.05)
    assert plan.voices_by(Choice(Config(), LAST_GOOD, "the last good")) == first
    assert 0 < first - asked <= VOICES_WAIT_S
    safe = plan.voices_by(Choice(Config(), SAFE_CORE, "the safe core"))
    assert safe - first >= SAFE_CORE_WAIT_S - VOICES_WAIT_S + 0.05
    assert VOICES_WAIT_S + SAFE_CORE_WAIT_S < 120
