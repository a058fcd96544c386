"""Home Assistant's MQTT discovery: the configs against a schema written from Home Assistant's
documentation, their templates rendered as Home Assistant renders them (Jinja2's sandbox)
against real status payloads, and end to end through a real Mosquitto with the real daemon:
a client acting as Home Assistant sees the configs, drives the notify entity and the button,
and the configs go when discovery is switched off, by a reload or across a restart."""

from __future__ import annotations

import json
import re
import signal
import time
from typing import Any

import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment
from support import REPO, Daemon, Listener, cosyedge_here, free_port, publish, site_yaml, wait_until

from cosyedge import __version__
from cosyedge.config import ConfigError, parse_config
from cosyedge.homeassistant.discovery import discovery_configs
from cosyedge.intake.alert import Message
from cosyedge.intake.intake import Intake
from cosyedge.model import Offer

REPORT, STATUS, EVENT = "cosyedge/report", "cosyedge/status", "cosyedge/event"

# --- the schema, from home-assistant.io: source/_integrations/mqtt.markdown ("Discovery
# messages") and the component pages notify.mqtt, sensor.mqtt, binary_sensor.mqtt and
# button.mqtt. Unknown keys are ignored by Home Assistant; here they are refused, so that a
# misspelt key (which Home Assistant would silently drop) fails the test.
# `<discovery_prefix>/<component>/[<node_id>/]<object_id>/config`, ids of [a-zA-Z0-9_-].
TOPIC = re.compile(
    r"(?P<prefix>[^/+#]+)/(?P<component>[a-z_]+)/(?:(?P<node>[a-zA-Z0-9_-]+)/)?"
    r"(?P<object>[a-zA-Z0-9_-]+)/config\Z"
)
# Keys every MQTT entity component documents.
COMMON = {
    "availability",
    "availability_mode",
    "availability_template",
    "availability_topic",
    "device",
    "enabled_by_default",
    "encoding",
    "entity_category",
    "entity_picture",
    "icon",
    "json_attributes_template",
    "json_attributes_topic",
    "name",
    "object_id",
    "origin",
    "payload_available",
    "payload_not_available",
    "qos",
    "unique_id",
}
COMPONENTS: dict[str, tuple[set[str], set[str]]] = {  # component: (required, allowed)
    "notify": (set(), COMMON | {"command_template", "command_topic", "retain"}),
    "sensor": (
        {"state_topic"},
        COMMON
        | {
            "device_class",
            "expire_after",
            "force_update",
            "last_reset_value_template",
            "options",
            "state_class",
            "state_topic",
            "suggested_display_precision",
            "unit_of_measurement",
            "value_template",
        },
    ),
    "binary_sensor": (
        {"state_topic"},
        COMMON
        | {
            "device_class",
            "expire_after",
            "force_update",
            "off_delay",
            "payload_off",
            "payload_on",
            "state_topic",
            "value_template",
        },
    ),
    "button": (
        set(),
        COMMON | {"command_template", "command_topic", "device_class", "payload_press", "retain"},
    ),
}
DEVICE = {
    "configuration_url",
    "connections",
    "hw_version",
    "identifiers",
    "manufacturer",
    "model",
    "model_id",
    "name",
    "serial_number",
    "suggested_area",
    "sw_version",
    "via_device",
}
AVAILABILITY = {"topic", "payload_available", "payload_not_available", "value_template"}
ORIGIN = {"name", "sw_version", "support_url"}
ENTITY_CATEGORIES = {"config", "diagnostic"}
STATE_CLASSES = {"measurement", "total", "total_increasing"}


def check_schema(configs: dict[str, Any], prefix: str) -> dict[str, dict[str, Any]]:
    """Every config as Home Assistant's documentation says it must be; the configs by
    component and unique id. Fails naming the topic and the rule."""
    found: dict[str, dict[str, Any]] = {}
    devices = []
    for topic, config in configs.items():
        where = f"{topic}: "
        match = TOPIC.match(topic)
        assert match, where + "not <prefix>/<component>/[<node_id>/]<object_id>/config"
        assert match["prefix"] == prefix, where + "another prefix"
        component = match["component"]
        assert component in COMPONENTS, where + f"component {component} not one of ours"
        required, allowed = COMPONENTS[component]
        assert isinstance(config, dict), where + "the payload must be a JSON object"
        assert required <= config.keys(), where + f"missing {required - config.keys()}"
        assert config.keys() <= allowed, where + f"unknown keys {config.keys() - allowed}"
        unique_id = config["unique_id"]
        assert isinstance(unique_id, str) and unique_id, where + "unique_id needed for a device"
        assert match["object"] == unique_id, where + "object id is the unique id (the advice)"
        assert match["node"] is None, where + "no node id when the object id is the unique id"
        key = f"{component}.{unique_id}"
        assert key not in found, where + "unique_id used twice"
        found[key] = config
        devices.append(config["device"])
        _check_entity(where, component, config)
    assert len({json.dumps(d, sort_keys=True) for d in devices}) == 1, "one device for all"
    return found


def _check_entity(where: str, component: str, config: dict[str, Any]) -> None:
    device = config["device"]
    assert device.keys() <= DEVICE, where + f"unknown device keys {device.keys() - DEVICE}"
    ids = device.get("identifiers") or device.get("connections")
    assert ids, where + "a device needs identifiers or connections"
    assert config["origin"].keys() <= ORIGIN and config["origin"]["name"]
    assert "availability_topic" not in config or "availability" not in config
    for entry in config.get("availability", []):
        assert entry.keys() <= AVAILABILITY and entry["topic"], where + "availability entry"
    for name, value in config.items():
        if name.endswith("_topic"):
            assert isinstance(value, str) and value and not set(value) & set("+#"), where + name
    assert config.get("qos", 0) in (0, 1, 2)
    assert config.get("entity_category", "config") in ENTITY_CATEGORIES
    assert config.get("state_class", "total") in STATE_CLASSES
    if "options" in config:
        assert config.get("device_class") == "enum", where + "options only with device_class enum"
    if component in ("notify", "button"):
        assert config.get("command_topic"), where + "nothing happens without a command topic"


# --- the templates, rendered as Home Assistant renders them ---------------------------------
JINJA = ImmutableSandboxedEnvironment()


def render(template: str, payload: dict[str, Any]) -> str:
    return JINJA.from_string(template).render(value=json.dumps(payload), value_json=payload)


def entity_states(configs: dict[str, dict[str, Any]], status: dict[str, Any]) -> dict[str, Any]:
    """What Home Assistant would show for one status payload: each entity's state (None:
    unknown), and availability. Fails when a template does not render to a value its
    entity takes."""
    states: dict[str, Any] = {}
    for key, config in configs.items():
        component, unique_id = key.split(".")
        (availability,) = config["availability"]
        available = render(availability["value_template"], status)
        assert available in ("online", "offline"), (key, available)
        states[f"{unique_id}:available"] = available == "online"
        if component not in ("sensor", "binary_sensor"):
            continue
        value = render(config["value_template"], status)
        if component == "binary_sensor":
            assert value in ("ON", "OFF"), (key, value)
        elif "options" in config:
            assert value in config["options"], (key, value)
        elif config.get("state_class") == "measurement" and value != "None":
            float(value)  # a number, or Home Assistant refuses the state
        states[unique_id] = None if value == "None" else value
        if "json_attributes_template" in config:
            attributes = json.loads(render(config["json_attributes_template"], status))
            assert isinstance(attributes, dict), key
            states[f"{unique_id}:attributes"] = attributes
    return states


SITE = "homeassistant:\n  discovery: true\n  name: Line 3 gateway\n  notify_priority: high\n"


def test_the_configs_follow_home_assistants_schema_and_read_the_status():
    config = parse_config(SITE)
    found = check_schema(discovery_configs(config), "homeassistant")
    assert sorted(found) == [
        "binary_sensor.cosyedge_line_3_gateway_flood",
        "button.cosyedge_line_3_gateway_silence",
        "notify.cosyedge_line_3_gateway_say",
        "sensor.cosyedge_line_3_gateway_cache_hit_rate",
        "sensor.cosyedge_line_3_gateway_queue",
        "sensor.cosyedge_line_3_gateway_shelved",
        "sensor.cosyedge_line_3_gateway_state",
        "sensor.cosyedge_line_3_gateway_unacknowledged",
    ]
    device = found["notify.cosyedge_line_3_gateway_say"]["device"]
    assert device["name"] == "Line 3 gateway" and device["sw_version"] == __version__
    assert found["button.cosyedge_line_3_gateway_silence"]["command_topic"] == "cosyedge/command"
    assert json.loads(found["button.cosyedge_line_3_gateway_silence"]["payload_press"]) == {
        "cmd": "silence"
    }
    status = {
        "state": "degraded",
        "queue": 2,
        "held": 0,
        "speaking": "boiler-7",
        "unacknowledged": 1,
        "flood": True,
        "shelved": ["plant/3/#"],
        "faults": {"audio": "device gone"},
        "restarts_last_hour": 0,
        "cache_hit_rate": 0.875,
    }
    states = entity_states(found, status)
    prefix = "cosyedge_line_3_gateway_"
    assert {k.removeprefix(prefix): v for k, v in states.items() if ":" not in k} == {
        "state": "degraded",
        "queue": "2",
        "unacknowledged": "1",
        "flood": "ON",
        "shelved": "1",
        "cache_hit_rate": "87.5",
    }
    assert states[f"{prefix}shelved:attributes"] == {"sources": ["plant/3/#"]}
    assert states[f"{prefix}state:attributes"] == {"faults": {"audio": "device gone"}}
    assert states[f"{prefix}say:available"]
    # The Last Will: every entity unavailable, and no template fails on the missing fields.
    lwt = entity_states(found, {"state": "offline"})
    assert not any(v for k, v in lwt.items() if k.endswith(":available"))
    assert lwt[f"{prefix}queue"] is None and lwt[f"{prefix}flood"] == "OFF"


ZONES = """outputs:
  hall-amp: {device: hall}
  yard-horns: {device: no-such-card}
zones:
  hall: {outputs: [hall-amp]}
  yard: {outputs: [yard-horns]}
"""
ZONED = [  # what zones add to the eight entities, by component and key
    "binary_sensor.output_hall-amp_fault",
    "binary_sensor.output_yard-horns_fault",
    "sensor.zone_hall_queue",
    "sensor.zone_yard_queue",
]


def zoned(found: dict[str, Any], prefix: str = "cosyedge_line_3_gateway_") -> list[str]:
    """The entities of zones and outputs among `found`, as `component.key`."""
    keys = [k.replace(f".{prefix}", ".") for k in found]
    return sorted(k for k in keys if k.split(".")[1].startswith(("zone_", "output_")))


def test_with_zones_each_zones_queue_and_each_outputs_fault_are_entities():
    found = check_schema(discovery_configs(parse_config(SITE + ZONES)), "homeassistant")
    assert zoned(found) == ZONED and len(found) == 8 + len(ZONED)
    status = {
        "state": "degraded",
        "queue": 3,
        "speaking": "h-1",
        "faults": {"audio:yard-horns": "sound device unavailable (gone)"},
        "zones": {
            "hall": {"queue": 2, "speaking": "h-1", "flood": True},
            "yard": {"queue": 1, "speaking": None, "flood": False},
        },
    }
    states = entity_states(found, status)
    p = "cosyedge_line_3_gateway_"
    assert states[f"{p}zone_hall_queue"] == "2" and states[f"{p}zone_yard_queue"] == "1"
    assert states[f"{p}zone_hall_queue:attributes"] == {"speaking": "h-1", "flood": True}
    assert states[f"{p}output_yard-horns_fault"] == "ON"
    assert states[f"{p}output_yard-horns_fault:attributes"] == {
        "reason": "sound device unavailable (gone)"
    }
    assert states[f"{p}output_hall-amp_fault"] == "OFF"
    assert states[f"{p}output_hall-amp_fault:attributes"] == {"reason": None}
    lwt = entity_states(found, {"state": "offline"})  # nothing fails on the missing fields
    assert lwt[f"{p}zone_hall_queue"] is None and lwt[f"{p}output_hall-amp_fault"] == "OFF"
    # Without zones, nothing of them.
    assert zoned(check_schema(discovery_configs(parse_config(SITE)), "homeassistant")) == []


def test_a_gateway_without_a_name_is_named_by_its_host_and_the_prefix_is_kept():
    import socket

    config = parse_config("homeassistant: {discovery: true, prefix: ha-test}")
    found = check_schema(discovery_configs(config), "ha-test")
    (device,) = {json.dumps(c["device"]) for c in found.values()}
    assert json.loads(device)["name"] == socket.gethostname()


def test_a_notify_message_is_an_alert_at_the_notify_priority_before_any_template():
    site = SITE + 'templates:\n  - topic: "#"\n    text: "Something: {text}"\n    priority: low\n'
    intake = Intake(parse_config(site))
    assert "cosyedge/notify" in intake.filters
    message = Message("cosyedge/notify", b"Forklift in aisle four.")
    offer = intake.read(message, 1, time.time(), time.monotonic())
    assert isinstance(offer, Offer), offer
    assert offer.announcement.text == "Forklift in aisle four."
    assert offer.announcement.priority == "high"
    # Discovery off: the topic is an ordinary one again.
    plain = Intake(parse_config(site.replace("discovery: true", "discovery: false")))
    assert "cosyedge/notify" not in plain.filters
    offer = plain.read(message, 2, time.time(), time.monotonic())
    assert offer.announcement.text == "Something: Forklift in aisle four."


# --- end to end ------------------------------------------------------------------------------


class HomeAssistant(Listener):
    """A client doing what Home Assistant's MQTT integration does: subscribed to the
    discovery prefix, it keeps the latest config per topic (an empty one deletes it)."""

    def __init__(self, port: int, prefix: str = "homeassistant") -> None:
        super().__init__(port, f"{prefix}/#", REPORT, STATUS, EVENT)
        self.prefix = prefix

    def configs(self) -> dict[str, Any]:
        latest: dict[str, Any] = {}
        for topic, payload in list(self.messages):
            if topic.startswith(f"{self.prefix}/"):
                latest[topic] = payload
        return {t: p for t, p in latest.items() if p != b""}

    def wait_configs(self, count: int, timeout: float = 30) -> dict[str, Any]:
        wait_until(lambda: len(self.configs()) == count, timeout, f"{count} configs")
        return self.configs()


def retained(port: int, prefix: str = "homeassistant") -> dict[str, Any]:
    """What a Home Assistant starting now would find under the prefix."""
    ha = HomeAssistant(port, prefix)
    time.sleep(1.0)  # retained messages come at once after the subscription
    ha.close()
    return ha.configs()


def test_home_assistant_finds_the_gateway_speaks_through_notify_and_silences(
    broker, alsa_sink, make_daemon, tmp_path
):
    ha = HomeAssistant(broker.port)
    base = site_yaml(broker.port, tmp_path)
    daemon = make_daemon(base + SITE)
    configs = check_schema(ha.wait_configs(8), "homeassistant")
    notify = configs["notify.cosyedge_line_3_gateway_say"]
    status = ha.wait_for(STATUS, lambda s: s and s[-1]["state"] == "online")[-1]
    assert "cache_hit_rate" in status
    assert entity_states(configs, status)["cosyedge_line_3_gateway_state"] == "online"

    # notify.send_message: Home Assistant publishes the message on the command topic.
    publish(broker.port, notify["command_topic"], "Forklift in aisle four.", qos=notify["qos"])
    (report,) = ha.wait_for(REPORT, lambda r: any(x["topic"] == notify["command_topic"] for x in r))
    assert report["outcome"] == "spoken", report
    assert report["priority"] == "high" and report["text"] == "Forklift in aisle four."
    daemon.wait_for_log(r"spoke alert \S+ source=synth")
    # Once more, from the cache: the hit rate the sensor shows moves.
    publish(broker.port, notify["command_topic"], "Forklift in aisle four. ", qos=1)
    ha.wait_for(REPORT, lambda r: len(r) == 2 and r[-1].get("source") == "cache", timeout=60)
    rates = ha.wait_for(STATUS, lambda s: (s[-1].get("cache_hit_rate") or 0) > 0)
    shown = entity_states(configs, rates[-1])["cosyedge_line_3_gateway_cache_hit_rate"]
    assert 0 < float(shown) <= 100

    # The silence button: its payload on its command topic is the silence command.
    button = configs["button.cosyedge_line_3_gateway_silence"]
    publish(broker.port, button["command_topic"], button["payload_press"], qos=button["qos"])
    ha.wait_for(EVENT, lambda e: any(x.get("cmd") == "silence" for x in e))

    # Switched off by a reload: each config emptied, and forgotten once the broker has it.
    daemon.config.write_text(base + SITE.replace("discovery: true", "discovery: false"))
    daemon.process.send_signal(signal.SIGHUP)
    daemon.wait_for_log(r"Home Assistant discovery: 0 configs published, 8 removed")
    assert ha.wait_configs(0) == {}
    assert retained(broker.port) == {}
    state_file = tmp_path / "state" / "homeassistant.json"
    wait_until(lambda: not state_file.exists(), 10, "the remembered topics forgotten")
    # ... and the notify topic is no longer taken.
    daemon.wait_for_log(r"unsubscribed from cosyedge/notify")
    ha.close()


def test_configs_published_before_are_removed_at_a_start_with_discovery_off(
    broker, alsa_sink, make_daemon, tmp_path
):
    base = site_yaml(broker.port, tmp_path) + "homeassistant:\n  prefix: plant-ha\n"
    daemon = make_daemon(base + "  discovery: true\n")
    wait_until(lambda: len(retained(broker.port, "plant-ha")) == 8, 30, "8 retained configs")
    daemon.stop()
    # A broker that forgot nothing, a daemon started with discovery off: it empties them.
    daemon.config.write_text(base + "  discovery: false\n")
    daemon.start()
    daemon.wait_for_log(r"Home Assistant discovery: 0 configs published, 8 removed")
    wait_until(lambda: retained(broker.port, "plant-ha") == {}, 30, "no retained configs")
    state_file = tmp_path / "state" / "homeassistant.json"
    wait_until(lambda: not state_file.exists(), 10, "the remembered topics forgotten")
    # The next start has nothing to remove, and says nothing about discovery.
    daemon.stop()
    daemon.start()
    assert daemon.log().count("Home Assistant discovery") == 2


def test_withdraw_takes_the_gateway_off_the_broker_once_the_daemon_has_stopped(
    broker, alsa_sink, make_daemon, tmp_path, capfd
):
    """`cosyedge withdraw`, as the package's prerm runs it on remove: refused while the
    daemon runs (it would publish them again); once it has stopped, every discovery config
    and the retained status are emptied, so a Home Assistant connecting later finds no
    device. The daemon's own session is left alone: an alert queued in it is still said. (The
    command runs in this process, beside the daemon's.)"""
    base = site_yaml(broker.port, tmp_path) + "homeassistant:\n  discovery: true\n"
    daemon = make_daemon(base)
    wait_until(lambda: len(retained(broker.port)) == 8, 30, "8 retained configs")
    config = str(daemon.config)
    running = cosyedge_here(capfd, "withdraw", "--config", config)
    assert running.returncode == 1, running
    assert "a daemon is running on" in running.stderr and "stop it first" in running.stderr
    assert len(retained(broker.port)) == 8

    daemon.stop()
    assert [s["state"] for s in retained_on(broker.port, STATUS)] == ["offline"]
    publish(broker.port, "cosyedge/say", json.dumps({"text": "Queued meanwhile.", "id": "q-1"}))
    done = cosyedge_here(capfd, "withdraw", "--config", config)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"withdrew from 127.0.0.1:{broker.port}: 8 Home Assistant discovery configs and the "
        "status\n"
    )
    assert retained(broker.port) == {}
    assert retained_on(broker.port, STATUS) == []
    assert not (tmp_path / "state" / "homeassistant.json").exists()

    reports = Listener(broker.port, REPORT)
    daemon.config.write_text(base.replace("discovery: true", "discovery: false"))
    daemon.start()
    reports.wait_for(REPORT, lambda r: any(x.get("id") == "q-1" for x in r))
    reports.close()

    # A broker out of reach: said, nothing withdrawn, exit status 1.
    away = tmp_path / "away.yaml"
    away.write_text(base.replace(f"port: {broker.port}", f"port: {free_port()}"))
    daemon.stop()
    unreachable = cosyedge_here(capfd, "withdraw", "--config", str(away))
    assert unreachable.returncode == 1
    assert "cannot reach the broker" in unreachable.stderr, unreachable.stderr
    assert "nothing withdrawn" in unreachable.stderr


def retained_on(port: int, topic: str) -> list[Any]:
    """The retained message a client subscribing to `topic` now gets, if any."""
    listener = Listener(port, topic)
    time.sleep(1.0)  # retained messages come at once after the subscription
    listener.close()
    return listener.on(topic)


def test_a_name_becomes_ids_of_the_allowed_characters_and_a_blank_one_is_refused():
    config = parse_config("homeassistant: {discovery: true, name: 'Hall B/gw 1'}")
    found = check_schema(discovery_configs(config), "homeassistant")
    assert "sensor.cosyedge_hall_b_gw_1_queue" in found
    with pytest.raises(ConfigError, match=r"homeassistant\.name: must not be blank"):
        parse_config("homeassistant: {name: '  '}")


def test_zones_and_outputs_in_home_assistant_follow_the_real_status_and_leave_with_them(
    broker, saved_models, tmp_path
):
    """The real daemon with two zones: the zone and output entities read its status (an
    output not there is a problem, a zone speaking shows its queue and what it says); a
    restart without a zone empties that zone's and its output's configs, one without zones
    leaves the eight entities of a gateway without them."""
    from test_zones_daemon import two_sinks

    env = {**two_sinks(tmp_path / "alsa"), "PYTHONPATH": str(REPO)}
    base = site_yaml(broker.port, tmp_path) + SITE
    alarm = 'templates:\n  - {topic: "plant/alarm", text: "{text}", payload: json}\n'
    # Paced as a card takes audio, so that the hall is speaking while its queue is read.
    paced = "bench.paced_daemon"
    daemon = Daemon(tmp_path / "d", base + ZONES + alarm, env, models=saved_models, module=paced)
    ha = HomeAssistant(broker.port)
    p = "cosyedge_line_3_gateway_"
    state_file = tmp_path / "state" / "homeassistant.json"

    def remembered() -> list[str]:
        return json.loads(state_file.read_text())["topics"]

    try:
        daemon.start()
        configs = check_schema(ha.wait_configs(12), "homeassistant")
        assert zoned(configs) == ZONED
        gone = ha.wait_for(STATUS, lambda s: "audio:yard-horns" in s[-1].get("faults", {}))[-1]
        states = entity_states(configs, gone)
        assert states[f"{p}output_yard-horns_fault"] == "ON"
        assert "no-such-card" in states[f"{p}output_yard-horns_fault:attributes"]["reason"]
        assert states[f"{p}output_hall-amp_fault"] == "OFF"
        long = "Conveyor four in the hall has stopped. Keep clear of the rollers."
        for key, text in (("h-1", long), ("h-2", "Tea break.")):
            payload = json.dumps({"id": key, "text": text, "zone": "hall"})
            publish(broker.port, "plant/alarm", payload)
        hall = {"queue": 1, "speaking": "h-1", "flood": False}
        busy = ha.wait_for(STATUS, lambda s: s[-1].get("zones", {}).get("hall") == hall)[-1]
        states = entity_states(configs, busy)
        assert states[f"{p}zone_hall_queue"] == "1" and states[f"{p}zone_yard_queue"] == "0"
        assert states[f"{p}zone_hall_queue:attributes"] == {"speaking": "h-1", "flood": False}

        # The yard leaves the configuration: its zone's and its output's configs are emptied.
        daemon.stop()
        hall_only = [line for line in ZONES.splitlines(keepends=True) if "yard" not in line]
        daemon.config.write_text(base + "".join(hall_only) + alarm)
        daemon.start()
        daemon.wait_for_log(r"Home Assistant discovery: 10 configs published, 2 removed")
        left = check_schema(ha.wait_configs(10), "homeassistant")
        assert zoned(left) == [k for k in ZONED if "yard" not in k]
        wait_until(lambda: len(remembered()) == 10, 10, "the removed topics forgotten")
        # ... and zones altogether: the gateway's eight, as without them.
        daemon.stop()
        daemon.config.write_text(base + alarm)
        daemon.start()
        daemon.wait_for_log(r"Home Assistant discovery: 8 configs published, 2 removed")
        assert zoned(check_schema(ha.wait_configs(8), "homeassistant")) == []
        wait_until(lambda: len(remembered()) == 8, 10, "the removed topics forgotten")
    finally:
        ha.close()
        daemon.stop()
    assert len(retained(broker.port)) == 8
