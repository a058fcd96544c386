"""The operator page in a real browser (Debian's Chromium, driven by Playwright) against the
real daemon, a real Mosquitto and an ALSA sink: what it shows, the commands it gives through
the command path, the test announcement, and its session and CSRF guard."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import os
import re
import signal
import struct
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from support import Listener, free_port, publish, site_yaml, wait_until
from test_http import call

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = Path("/usr/bin/chromium")
EVENT = "cosyedge/event"
SIZES = {"tablet": (1280, 800), "phone": (390, 844)}
TOKEN = "s3cret-token-for-the-page"
AXE = Path(__file__).parents[1] / ".axe/node_modules/axe-core/axe.min.js"  # scripts/setup test


def page_config(port: int, tmp: Path, http_port: int, extra: str = "") -> str:
    return (
        f"{site_yaml(port, tmp)}"
        "pronunciations:\n  en:\n    - {word: FV, say: flow valve}\n"
        "alarms:\n  priorities: {critical: {reannounce_s: 2}}\n"
        "templates:\n"
        '  - topic: "plant/{line}/alarm"\n'
        '    text: "{text}"\n'
        "    payload: json\n"
        f"http:\n  enabled: true\n  listen: 127.0.0.1:{http_port}\n{extra}"
    )


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the file's tests: starting it is most of a page test's cost."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (scripts/setup test)")
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM))
        yield chromium
        chromium.close()


@pytest.fixture
def open_page(browser):
    """A new page at a size, its console errors and failed requests kept in `.problems`."""
    contexts = []

    def make(url: str, size: str = "tablet", wait: bool = True):
        width, height = SIZES[size]
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        page.problems = []
        page.on("console", lambda m: m.type == "error" and page.problems.append(m.text))
        page.on("pageerror", lambda e: page.problems.append(str(e)))
        if wait:
            wait_until(lambda: answers(url), 30, f"the HTTP API at {url}")
        try:
            page.goto(url)
        except playwright_api.Error as exc:  # seen once in a full run: reset at the first load
            if "ERR_CONNECTION_RESET" not in str(exc):
                raise
            page.goto(url)  # as an operator reloads; a page that never loads still fails
        return page

    yield make
    for context in contexts:
        context.close()


def answers(url: str) -> bool:
    """Whether the HTTP API answers at all (any status): it starts with the voices."""
    try:
        with urllib.request.urlopen(url + "healthz", timeout=5):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def png_size(path: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", path.read_bytes()[16:24])
    return width, height


def test_an_alert_stands_on_the_page_and_its_ack_from_there_is_audited_and_ends_it(
    broker, make_daemon, open_page, tmp_path
):
    http_port = free_port()
    events = Listener(broker.port, EVENT)
    daemon = make_daemon(page_config(broker.port, tmp_path, http_port))
    page = open_page(f"http://127.0.0.1:{http_port}/")
    page.wait_for_selector("#state.online", timeout=15000)

    payload = {"id": "gas-1", "text": "Gas alarm in hall one.", "priority": "critical"}
    sent = publish(broker.port, "plant/1/alarm", json.dumps(payload))
    row = page.locator('#alarms tr[data-id="gas-1"]')
    row.wait_for(timeout=10000)
    shown_s = time.monotonic() - sent
    assert shown_s < 3, f"shown {shown_s:.1f} s after it was published"
    assert row.locator("td").first.inner_text().lower() == "critical"
    # Said again while it stands: the page counts it.
    events.wait_for(EVENT, lambda e: any(x["event"] == "reannounced" for x in e), 30)
    wait_until(lambda: int(row.locator("td").nth(3).inner_text()) >= 2, 5, "said twice")
    shows_stale_while_stopped(page, daemon)

    for size in SIZES:  # the key elements at both widths, before the ack empties the list
        page.set_viewport_size(dict(zip(("width", "height"), SIZES[size], strict=True)))
        shot = tmp_path / f"now-{size}.png"
        page.screenshot(path=str(shot), full_page=False)
        assert png_size(shot) == SIZES[size]
        for key in ("#state", "#alarms", 'button[aria-label="Acknowledge gas-1"]', "#user"):
            assert page.locator(key).is_visible(), f"{key} not visible at {size}"
    page.set_viewport_size({"width": 1280, "height": 800})

    page.fill("#user", "ana")
    page.fill("#comment", "valve closed by hand")
    page.click('button[aria-label="Acknowledge gas-1"]')
    page.wait_for_selector("#no-alarms", state="visible", timeout=5000)
    # The same command event as one from the command topic, with who and why.
    (ack,) = [
        x
        for x in events.wait_for(EVENT, lambda e: any(x.get("cmd") == "ack" for x in e))
        if x.get("cmd") == "ack"
    ]
    assert (ack["ids"], ack["user"], ack["comment"]) == (["gas-1"], "ana", "valve closed by hand")
    audit_row = page.locator("#audit-table tbody tr", has_text="valve closed by hand")
    audit_row.wait_for(timeout=10000)
    assert "ana" in audit_row.inner_text() and "gas-1" in audit_row.inner_text()
    acked = len(events.on(EVENT))
    time.sleep(5)  # over two re-announcement periods
    again = [x for x in events.on(EVENT)[acked:] if x["event"] == "reannounced"]
    assert again == [], again
    long_topics_keep_the_page_in_shape(page, broker.port)
    assert page.problems == [], page.problems
    events.close()


def long_topics_keep_the_page_in_shape(page, port: int) -> None:
    """A topic and an id of 8,000 characters made the page 27,656 px tall at 390 px."""
    line, key = "7" * 8000, "k" * 8000
    payload = {"id": key, "text": "Long line alarm.", "priority": "critical"}
    publish(port, f"plant/{line}/alarm", json.dumps(payload))
    row = page.locator("#alarms tbody tr")
    row.wait_for(timeout=10000)
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(300)
    height = row.bounding_box()["height"]  # a card at this width
    width = page.evaluate("document.documentElement.scrollWidth")
    assert height < 800 and width <= 390, (height, width)
    topic = row.locator(".id", has_text="plant/777")
    assert topic.get_attribute("title") == f"plant/{line}/alarm"  # whole in its tooltip
    page.set_viewport_size({"width": 1280, "height": 800})


def shows_stale_while_stopped(page, daemon) -> None:
    """A daemon that stops answering (SIGSTOP: its socket still takes connections) is shown
    as such within a few seconds, never left green; the alarms are marked as of its last
    answer. It was: `online`, `broker connected`, for as long as the tab stayed open."""
    os.kill(daemon.process.pid, signal.SIGSTOP)
    stopped = time.monotonic()
    try:
        page.wait_for_selector("#state.stale", timeout=8000)
        took = time.monotonic() - stopped
        assert page.locator("#state").inner_text() == "no answer"
        page.locator(
            "#conn", has_text=re.compile(r"no answer from the gateway for \d+ s")
        ).wait_for(timeout=3000)
        assert "connected" not in page.locator("#conn").inner_text()
        as_of = page.locator("#as-of")
        assert as_of.is_visible() and "as of" in as_of.inner_text(), as_of.inner_text()
        assert page.locator("#now.stale").count() == 1
    finally:
        os.kill(daemon.process.pid, signal.SIGCONT)
    assert took < 6, f"shown stale {took:.1f} s after the daemon stopped"
    page.wait_for_selector("#state.online", timeout=10000)
    assert not page.locator("#as-of").is_visible()
    page.problems[:] = [p for p in page.problems if "no answer within" not in p]


def test_a_test_announcement_is_heard_and_health_is_shown(
    broker, alsa_sink, make_daemon, open_page, tmp_path
):
    http_port = free_port()
    canaries = "monitor: {canary_interval_s: 1, canary_timeout_s: 10}\n"
    make_daemon(page_config(broker.port, tmp_path, http_port, canaries))
    page = open_page(f"http://127.0.0.1:{http_port}/", "phone")
    page.wait_for_selector("#state.online", timeout=15000)
    page.locator("#health-list dt", has_text="Voice en").wait_for(timeout=10000)
    health = page.inner_text("#health-list")
    assert "loaded" in health and "Memory" in health and "Phrase cache" in health, health
    # The age of each filter's last canary: the plant's filter is proven within a round.
    age = page.locator("#health-list dt:text-is('Canary plant/+/alarm') + dd")
    wait_until(lambda: re.fullmatch(r"\d s ago", age.inner_text()), 10, "a canary back")
    page.select_option("#say-lang", "en")
    page.fill("#say-text", "This is a test of FV-101 at 5 bar.")
    page.click("#say-form button[type=submit]")  # no operator's name: not sent
    page.locator("#message.bad", has_text="operator's name").wait_for(timeout=5000)
    page.fill("#user", "ana")
    page.click("#say-form button[type=submit]")
    page.locator("#said", has_text="spoken").wait_for(timeout=60000)
    # In the audit under the operator's name; another at once is refused (one per 10 s).
    audited = page.locator("#audit-table tbody tr", has_text="test announcement")
    audited.wait_for(timeout=10000)
    assert "ana" in audited.inner_text() and "FV-101" in audited.inner_text()
    page.click("#say-form button[type=submit]")
    page.locator("#said", has_text="one test announcement every 10 s").wait_for(timeout=10000)
    page.problems[:] = [p for p in page.problems if "429" not in p]
    # How it was read, shown before it was said: the site's entry, the classes, the words.
    reading = page.inner_text("#reading")
    assert "pronunciations.en[0]" in reading and "FV → say flow valve" in reading, reading
    assert "words" in reading and "flow valve one hundred one" in reading, reading
    played = alsa_sink.streams()
    assert played and max(abs(int(s)) for s in played[-1]) > 1000, "nothing heard"
    shot = tmp_path / "test-phone.png"
    page.screenshot(path=str(shot), full_page=True)
    assert png_size(shot)[0] == SIZES["phone"][0]
    assert page.locator("#said").is_visible()
    assert page.problems == [], page.problems


def test_with_a_token_the_page_signs_in_and_commands_need_the_page_itself(
    broker, make_daemon, open_page, tmp_path
):
    http_port = free_port()
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")
    token.chmod(0o600)
    make_daemon(page_config(broker.port, tmp_path, http_port, f"  token_file: {token}\n"))
    url = f"http://127.0.0.1:{http_port}"

    status, html, _ = call(http_port, "GET", "/")  # the page holds no secret: served to all
    assert status == 200 and b"s3cret" not in html
    assert call(http_port, "GET", "/v1/page/now")[0] == 401
    ack = {"cmd": "silence", "user": "ana"}
    # The bearer token alone does not make a command the page's: the guard header is needed.
    status, answer, _ = call(http_port, "POST", "/v1/page/command", ack, token=TOKEN)
    assert status == 403, answer

    page = open_page(f"{url}/")
    page.locator("#signin").wait_for(state="visible", timeout=10000)
    page.fill("#token", "wrong")
    page.click("#signin-form button")
    page.locator("#message", has_text="not the token").wait_for(timeout=10000)
    page.fill("#token", TOKEN)
    page.click("#signin-form button")
    page.locator("#message", has_text="signed in").wait_for(timeout=10000)
    page.problems.clear()  # the wrong token's 401; signed out, the page asks nothing more
    page.wait_for_selector("#state.online", timeout=15000)
    (cookie,) = page.context.cookies()
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert "s3cret" not in cookie["value"]
    page.fill("#user", "ana")
    page.click("#silence-all")  # nothing to silence: done, with no ids
    page.locator("#message", has_text="silence all: done").wait_for(timeout=10000)
    assert page.problems == [], page.problems

    # The cookie from another site's page (its Origin) is refused, as is one without the header.
    headers = {"Cookie": f"cosyedge_session={cookie['value']}", "Content-Type": "application/json"}
    foreign = {**headers, "X-Cosyedge-Page": "1", "Origin": "http://evil.example"}
    for sent in (headers, foreign):
        status, answer = _post(http_port, "/v1/page/command", ack, sent)
        assert status == 403, answer
    page_headers = {**headers, "X-Cosyedge-Page": "1"}
    status, answer = _post(http_port, "/v1/page/command", ack, page_headers)
    assert status == 200 and answer == {"done": True, "ids": []}, answer
    unknown = {"cmd": "ack", "id": "never-seen", "user": "ana"}
    status, answer = _post(http_port, "/v1/page/command", unknown, page_headers)
    assert status == 409 and "'never-seen' is not standing" in answer["error"], answer
    marked = {"cmd": "ack", "id": "never-seen", "user": "ana\u001b[31m"}
    status, answer = _post(http_port, "/v1/page/command", marked, page_headers)
    assert status == 400 and "control character" in answer["error"], answer
    for nameless in ({"cmd": "silence"}, {"cmd": "silence", "user": " "}):
        status, answer = _post(http_port, "/v1/page/command", nameless, page_headers)
        assert (status, answer.get("field")) == (400, "user"), answer
    # Refused commands are audited as refused, under the name they gave (cleaned).
    facts = call(http_port, "GET", "/v1/page/audit", token=TOKEN)[1]["facts"]
    refused = [f for f in facts if f["e"] == "command_refused"]
    assert [f.get("user") for f in refused][:2] == ["ana?[31m", "ana"], refused
    assert "never-seen" in refused[1]["reason"]


def history_facts(now: float) -> tuple[dict[float, int], list[dict]]:
    """A day's history as the daemon keeps it: annunciations in three 10-minute periods (one
    a flood of one chattering alarm), and operator commands, one with a formula for a
    comment. The periods' starts and counts, and the facts."""
    base = math.floor(now / 600) * 600
    periods = {base - 5 * 3600: 2, base - 3 * 3600: 12, base - 3600: 1}
    facts = [{"e": "start", "t": base - 6 * 3600, "version": "0"}]
    for start, n in periods.items():
        for i in range(n):
            alarm = "plant/pump/alarm" if n > 10 else f"plant/door{i}/alarm"
            t = start + 30 + 5 * i
            facts.append(
                {"e": "outcome", "t": t, "outcome": "spoken", "alarm": alarm, "received": t}
            )
    commands = [
        {
            "cmd": "ack",
            "id": "gas-7",
            "ids": ["gas-7"],
            "user": "ana",
            "comment": "=HYPERLINK(1)",
        },
        {"cmd": "silence", "user": "bo", "comment": "horn, too loud"},
    ]
    facts += [{"e": "command", "t": base - 2 * 3600 + i, **c} for i, c in enumerate(commands)]
    facts.append({"e": "command_refused", "t": base - 1800, "command": "{}", "reason": "id: no"})
    return periods, sorted(facts, key=lambda f: f["t"])


def write_history(state: Path, facts: list[dict]) -> None:
    """The facts in the history's files, one per UTC day."""
    (state / "history").mkdir(parents=True)
    for fact in facts:
        day = dt.datetime.fromtimestamp(fact["t"], dt.UTC).strftime("%Y-%m-%d")
        with (state / "history" / f"{day}.jsonl").open("a") as f:
            f.write(json.dumps(fact) + "\n")


def test_the_history_draws_the_day_per_10_minutes_and_exports_the_audit_as_csv(
    broker, make_daemon, open_page, tmp_path
):
    http_port = free_port()
    periods, facts = history_facts(time.time())
    write_history(tmp_path / "state", facts)
    make_daemon(page_config(broker.port, tmp_path, http_port))
    page = open_page(f"http://127.0.0.1:{http_port}/")
    page.wait_for_selector("#chart rect.bar", timeout=15000)

    # One bar per 10 minutes with alarms, as high as its count; the flood's above the line.
    bars = page.locator("#chart rect.bar")
    drawn = {
        float(b.get_attribute("data-start")): int(b.get_attribute("data-n")) for b in bars.all()
    }
    assert drawn == periods
    line_y = float(page.locator("#flood-line").get_attribute("y1"))
    for bar in bars.all():
        top = float(bar.get_attribute("y"))
        flood = int(bar.get_attribute("data-n")) > 10
        assert (top < line_y) == flood and ("flood" in bar.get_attribute("class")) == flood
    assert page.inner_text("#top10 li >> nth=0") == "plant/pump/alarm (12)"
    assert page.inner_text("#chattering") == "plant/pump/alarm"

    with page.expect_download() as download:
        page.click("#export-audit")
    assert re.fullmatch(r"cosyedge-audit-\d{8}-\d{4}\.csv", download.value.suggested_filename)
    rows = list(csv.reader(io.StringIO(Path(download.value.path()).read_text())))
    assert rows[0] == ["when", "who", "what", "target", "alarms", "why"]
    audited = [f for f in facts if f["e"] != "outcome"]
    at = [time.strftime("%Y-%m-%d %H:%M", time.localtime(f["t"])) for f in audited]
    assert rows[1 : len(audited) + 1] == [
        [at[0], "cosyedge", "start", "", "", "0"],
        [at[1], "ana", "ack", "id gas-7", "gas-7", "'=HYPERLINK(1)"],
        [at[2], "bo", "silence", "all", "", "horn, too loud"],
        [at[3], "operator", "refused", "{}", "", "id: no"],
    ]
    assert [r[2] for r in rows[len(audited) + 1 :]] == ["start"]  # this run's own

    status, text, headers = call(http_port, "GET", "/v1/page/export?of=kpi")
    assert status == 200 and headers["Content-Type"] == "text/csv; charset=utf-8"
    assert headers["Content-Disposition"].startswith('attachment; filename="cosyedge-kpi-')
    kpi = list(csv.reader(io.StringIO(text.decode())))
    assert ["top10", "plant/pump/alarm", "12", ""] in kpi and [
        "chattering",
        "plant/pump/alarm",
        "",
        "",
    ] in kpi
    assert sum(int(r[2]) for r in kpi if r[0] == "period") == sum(periods.values())
    assert call(http_port, "GET", "/v1/page/export?of=passwords")[0] == 400
    assert page.problems == [], page.problems
    assert_accessible(page)


def assert_accessible(page) -> None:
    """No serious or critical axe-core violations at either size, the page as it stands."""
    if not AXE.exists():
        pytest.skip(f"axe-core is not installed at {AXE} (scripts/setup test installs it)")
    # Run by the browser's own protocol, as a tool's script: the page's CSP lets no script in
    # but its own (a script tag added here would be refused, as an injected one must be).
    page.evaluate(AXE.read_text())
    for size in SIZES:
        page.set_viewport_size(dict(zip(("width", "height"), SIZES[size], strict=True)))
        found = page.evaluate("async () => (await axe.run(document)).violations")
        bad = [
            (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
            for v in found
            if v["impact"] in ("serious", "critical")
        ]
        assert bad == [], f"at {size}: {bad}"


def _post(port: int, path: str, body: dict, headers: dict[str, str]) -> tuple[int, dict]:
    import urllib.error
    import urllib.request

    data = json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data, headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


EVIL = """<!doctype html><html><body>
<form id="f" method="POST" action="{api}/v1/say" enctype="text/plain" target="sink">
<input name='{{"text":"Evacuate now.","priority":"critical","x":"' value='"}}'></form>
<iframe name="sink"></iframe>
<script>
const body = JSON.stringify({{text: "Fire in hall two.", priority: "critical"}});
const plain = {{"Content-Type": "text/plain"}};
Promise.allSettled([
  fetch("{api}/v1/say", {{method: "POST", mode: "no-cors", headers: plain, body}}),
  fetch("{api}/v1/page/command", {{method: "POST", mode: "no-cors", headers: plain,
    body: JSON.stringify({{cmd: "silence", user: "x"}})}}),
]).then(() => {{ document.getElementById("f").submit(); document.title = "sent"; }});
</script></body></html>"""


def test_a_page_of_another_site_in_the_gateways_browser_cannot_say_anything(open_page):
    """Without a token (loopback), a page of any site open in a browser on the gateway sent
    say requests (a form, fetch in no-cors mode: no preflight) at critical priority."""
    import http.server
    import threading

    from test_http_server import serve

    server, backend = serve()
    said: list[bytes] = []
    say = backend.say
    backend.say = lambda body, *rest: said.append(body) or say(body, *rest)
    api = f"http://127.0.0.1:{server.server_address[1]}"
    html = EVIL.format(api=api).encode()

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(html)))
            self.end_headers()
            self.wfile.write(html)

        def log_message(self, *args: object) -> None:
            pass

    evil = http.server.ThreadingHTTPServer(("127.0.0.2", free_port()), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        page = open_page(f"http://127.0.0.2:{evil.server_address[1]}/", wait=False)
        page.wait_for_function("document.title === 'sent'", timeout=10000)
        time.sleep(1)  # the form's POST, sent at once, answered within this
    finally:
        evil.shutdown()
        server.stop()
    assert said == []
