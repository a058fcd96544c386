"""A broker with TLS and a password file: the daemon connects with secrets read from files,
wrong credentials or an unknown CA fail clearly in the log, and the password shows nowhere."""

from __future__ import annotations

import json
import logging
import ssl
import subprocess
import uuid
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from support import Broker, wait_until

from cosyedge.config import ConfigError, parse_config

PASSWORD = f"s3cret-{uuid.uuid4().hex}"


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_ca(directory: Path, name: str) -> tuple[Path, Path]:
    """A self-signed CA and a server certificate for 127.0.0.1 signed by it."""
    directory.mkdir(parents=True, exist_ok=True)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
            f"/CN={name} CA", "-keyout", "ca.key", "-out", "ca.crt", cwd=directory)  # fmt: skip
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
            "-keyout", "server.key", "-out", "server.csr", cwd=directory)  # fmt: skip
    (directory / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.crt",
            cwd=directory)  # fmt: skip
    return directory / "ca.crt", directory


@pytest.fixture
def secure_broker(tmp_path: Path):
    ca, pki = make_ca(tmp_path / "pki", "plant")
    broker = Broker(tmp_path / "broker", persistence=False)
    passwords = tmp_path / "broker" / "passwords"
    subprocess.run(
        ["mosquitto_passwd", "-b", "-c", str(passwords), "cosyedge", PASSWORD], check=True
    )
    conf = broker.conf.read_text().replace("allow_anonymous true", "allow_anonymous false")
    conf += (
        f"password_file {passwords}\ncafile {ca}\n"
        f"certfile {pki / 'server.crt'}\nkeyfile {pki / 'server.key'}\n"
    )
    broker.conf.write_text(conf)
    broker.ca = ca
    yield broker.start()
    broker.kill()


def config(broker: Broker, tmp: Path, password_file: Path, ca: Path) -> str:
    return f"""
mqtt:
  port: {broker.port}
  local_broker: false
  username: cosyedge
  password_file: {password_file}
  tls_ca_file: {ca}
cache:
  dir: {tmp}/cache
state_dir: {tmp}/state
"""


def secret(tmp: Path, text: str) -> Path:
    path = tmp / f"password-{uuid.uuid4().hex[:6]}"
    path.write_text(text + "\n")
    path.chmod(0o600)
    return path


def publish_tls(broker, topic: str, payload: str) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"tls-{uuid.uuid4().hex[:8]}")
    client.username_pw_set("cosyedge", PASSWORD)
    client.tls_set(ca_certs=str(broker.ca), cert_reqs=ssl.CERT_REQUIRED)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        info = client.publish(topic, payload, qos=1)
        info.wait_for_publish(timeout=10)
        assert info.is_published()
    finally:
        client.disconnect()
        client.loop_stop()


def test_tls_and_password_from_a_file_and_the_secret_never_shows(
    secure_broker, alsa_sink, make_daemon, tmp_path
):
    daemon = make_daemon(
        config(secure_broker, tmp_path, secret(tmp_path, PASSWORD), secure_broker.ca)
    )
    publish_tls(secure_broker, "cosyedge/say", json.dumps({"text": "Secure line.", "id": "t-1"}))
    daemon.wait_for_log(r"spoke alert t-1 ")
    pid = daemon.process.pid
    for where in ("cmdline", "environ"):
        assert PASSWORD.encode() not in Path(f"/proc/{pid}/{where}").read_bytes(), where
    daemon.stop()
    assert PASSWORD not in daemon.log()
    assert PASSWORD not in daemon.config.read_text()


def test_wrong_password_is_refused_clearly(secure_broker, alsa_sink, make_daemon, tmp_path):
    wrong = secret(tmp_path, "not-the-password")
    daemon = make_daemon(config(secure_broker, tmp_path, wrong, secure_broker.ca), start=False)
    daemon.start(wait_ready=False)
    daemon.wait_for_log(r"MQTT broker refused the connection: Not authorized", timeout=30)
    assert daemon.alive() and "subscribed to" not in daemon.log()
    assert "not-the-password" not in daemon.log() and PASSWORD not in daemon.log()


def test_unknown_ca_fails_the_handshake_clearly(secure_broker, alsa_sink, make_daemon, tmp_path):
    other_ca, _ = make_ca(tmp_path / "other-pki", "elsewhere")
    daemon = make_daemon(
        config(secure_broker, tmp_path, secret(tmp_path, PASSWORD), other_ca), start=False
    )
    daemon.start(wait_ready=False)
    daemon.wait_for_log(
        rf"cannot connect to MQTT broker 127\.0\.0\.1:{secure_broker.port} over TLS: "
        r".*CERTIFICATE_VERIFY_FAILED",
        timeout=30,
    )
    wait_until(lambda: daemon.alive(), 1, "the daemon to keep retrying")
    assert daemon.log().count("CERTIFICATE_VERIFY_FAILED") == 1  # once, not per retry


@pytest.mark.parametrize(
    ("mqtt", "problem"),
    [
        ({"tls_ca_file": "/nonexistent/ca.crt"}, 'mqtt.tls_ca_file: cannot read "/nonexistent'),
        ({"tls_cert_file": "/etc/hostname"}, "mqtt.tls_key_file: needed with a client cert"),
        (
            {"tls_cert_file": "/etc/hostname", "tls_key_file": "/etc/hostname"},
            "mqtt.tls_ca_file: needed for a client certificate",
        ),
        (
            {"tls_ca_file": "/etc/hostname"},
            "mqtt.tls_ca_file: /etc/hostname holds no usable CA certificate",
        ),
    ],
)
def test_tls_settings_are_checked_at_load(mqtt, problem):
    with pytest.raises(ConfigError) as caught:
        parse_config(json.dumps({"mqtt": mqtt}), "site.yaml")
    assert caught.value.problems[0].startswith(f"site.yaml: {problem}")


@pytest.mark.system
def test_a_client_certificate_is_loaded_at_check_and_a_wrong_key_refused(tmp_path):
    ca, pki = make_ca(tmp_path / "pki", "plant")
    mqtt = {"tls_ca_file": str(ca), "tls_cert_file": str(pki / "server.crt")}
    config = parse_config(json.dumps({"mqtt": {**mqtt, "tls_key_file": str(pki / "server.key")}}))
    assert config.mqtt.tls_key_file == pki / "server.key"
    with pytest.raises(ConfigError) as caught:
        parse_config(json.dumps({"mqtt": {**mqtt, "tls_key_file": str(pki / "ca.key")}}), "s")
    (problem,) = caught.value.problems
    assert problem.startswith(
        f"s: mqtt.tls_cert_file: {pki / 'server.crt'} with tls_key_file {pki / 'ca.key'} is not "
        "a usable certificate and unencrypted key"
    )


def test_a_password_file_others_can_read_is_warned_about_when_the_client_is_made(tmp_path, caplog):
    from cosyedge.config import MqttConfig
    from cosyedge.mqtt.session import MqttSession

    password = secret(tmp_path, PASSWORD)
    password.chmod(0o604)
    config = MqttConfig(username="cosyedge", password_file=password, local_broker=False)
    caplog.set_level(logging.WARNING, logger="cosyedge.mqtt.session")
    MqttSession(config, ["plant/#"], lambda topic, payload, ack, retained: ack())
    assert caplog.messages == [
        f"mqtt.password_file: {password} is readable by others (mode 0604); chmod o-rwx it"
    ]
    caplog.clear()
    password.chmod(0o600)
    MqttSession(config, ["plant/#"], lambda topic, payload, ack, retained: ack())
    assert caplog.messages == []
