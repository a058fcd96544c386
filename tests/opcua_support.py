"""OPC UA for the source's tests: certificates made here, and the two independent servers
(asyncua's own, and node-opcua's, tests/opcua/) as processes a test drives line by line."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

HERE = Path(__file__).resolve().parent
# node-opcua at the version tests/opcua/package-lock.json holds, installed by `scripts/setup
# test` into a directory of its own (which .gitignore names), as axe-core is into .axe/.
NODE_OPCUA = HERE.parent / ".node-opcua" / "node_modules"
NODE_SERVER = HERE / "opcua" / "server.js"
ASYNCUA_SERVER = HERE / "opcua_asyncua_server.py"
ANSWER = "ANSWER "  # how a server's answer line starts: node-opcua prints its own lines too


@dataclass(frozen=True)
class Pair:
    certificate: Path  # DER
    key: Path  # PEM
    uri: str


def make_pair(directory: Path, name: str, uri: str, server: bool = False) -> Pair:
    """A self-signed application instance certificate as OPC UA Part 6 wants it: RSA 2048,
    SHA-256, the application URI and the host in subjectAltName, both TLS usages."""
    directory.mkdir(parents=True, exist_ok=True)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    usages = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.UniformResourceIdentifier(uri), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=True,
                key_encipherment=True,
                data_encipherment=True,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / f"{name}.der", directory / f"{name}.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.DER))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    key_path.chmod(0o600)
    return Pair(cert_path, key_path, uri)


class ServerProcess:
    """A server process driven by JSON lines on its stdin, answering one JSON line each."""

    def __init__(self, argv: list[str], log: Path, env: dict[str, str] | None = None) -> None:
        self.log = log
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log.open("ab"),
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        )
        self.ready = self._answer()

    def do(self, **request: object) -> dict:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self._answer()

    def _answer(self) -> dict:
        """The next answer line (`ANSWER {...}`); what else the server prints is its log's."""
        assert self.process.stdout is not None
        while line := self.process.stdout.readline():
            if line.startswith(ANSWER):
                return json.loads(line.removeprefix(ANSWER))
            with self.log.open("a") as log:
                log.write(line)
        raise AssertionError(f"the server exited:\n{self.log.read_text(errors='replace')}")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def asyncua_server(port: int, pair: Pair | None, log: Path) -> ServerProcess:
    argv = [sys.executable, str(ASYNCUA_SERVER), str(port)]
    if pair is not None:
        argv += [str(pair.certificate), str(pair.key)]
    return ServerProcess(argv, log)


def node_opcua_server(port: int, pair: Pair, pki: Path, trusted: Pair, log: Path) -> ServerProcess:
    """node-opcua's server with its tank and alarm (tests/opcua/server.js), trusting only
    `trusted`'s certificate (its PKI in `pki`)."""
    argv = ["node", str(NODE_SERVER), str(port), str(pair.certificate), str(pair.key)]
    argv += [str(pki), str(trusted.certificate)]
    return ServerProcess(argv, log, {"NODE_PATH": str(NODE_OPCUA)})
