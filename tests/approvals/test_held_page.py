"""The operator's held-request page on ``serve`` (issue 27): behind a key minted at each start and printed once on
serve's terminal, never in a log line; GET/HEAD read only; a POST completes a needs-facts request through the
same path as ``request complete``; a cross-site form, a wrong key or a malformed field is refused with nothing
written."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.error import HTTPError
from urllib.parse import urlencode, urlsplit
from urllib.request import Request, urlopen

import pytest

from tests.support.clidriver import cli, spawn, wait_for_line
from tests.support.localstore import fingerprint
from tests.support.net import free_port
from tests.support.provider_runs import EXAMPLES

NO_DATE = (
    "From: Lena Vogt <lena@harbour-books.example>\nDate: Tue, 1 Dec 2026 09:12:00 +0100\n"
    "Subject: totes <b>bold</b>\nMessage-ID: <page-nf@harbour-books.example>\n\n"
    "Please make 220 navy tote bags for our fair.\n"
)


@dataclass
class Page:
    data_dir: Path
    held_id: str
    url: str  # OPERATOR_URL, the key in its query string
    port: int
    process: subprocess.Popen[str]

    @property
    def key(self) -> str:
        return urlsplit(self.url).query.removeprefix("k=")


def _call(url: str, *, method: str = "GET", form: dict[str, str] | None = None, **headers: str) -> tuple[int, str]:
    data = urlencode(form).encode() if form is not None else None
    request = Request(url, data=data, method=method, headers=headers)
    try:
        with urlopen(request, timeout=120) as response:
            return response.status, response.read().decode()
    except HTTPError as error:
        return error.code, error.read().decode()


def _stable(data_dir: Path) -> dict[str, object]:
    return {k: v for k, v in fingerprint(data_dir).items() if k != "clock"}


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Page]:
    data = tmp_path / "data"
    imported = cli(
        "--data-dir", str(data), "--now", "2026-12-07T08:00:00Z", "shop", "import", str(EXAMPLES / "print-shop.json")
    )
    assert imported.returncode == 0, imported.stderr
    request = tmp_path / "no-date.eml"
    request.write_text(NO_DATE)
    held = cli("--data-dir", str(data), "--now", "2026-12-07T09:00:00Z", "start", "--request", str(request))
    assert held["NEEDS_FACTS"] == "1", held.stderr
    port = free_port()
    process = spawn("--now", "2026-12-07T10:00:00Z", "serve", "--data-dir", str(data), "--port", str(port))
    try:
        url = wait_for_line(process, "OPERATOR_URL=").removeprefix("OPERATOR_URL=")
        wait_for_line(process, "SERVING=")
        yield Page(data, held["HELD_ID"], url, port, process)
    finally:
        process.terminate()
        process.wait(timeout=10)


def _log(page: Page) -> str:
    page.process.terminate()
    _, err = page.process.communicate(timeout=10)
    return err


def test_the_page_needs_the_key_and_reading_it_changes_nothing(page: Page) -> None:
    assert page.url.startswith(f"http://127.0.0.1:{page.port}/requests?k=") and len(page.key) >= 40
    before = _stable(page.data_dir)
    base = f"http://127.0.0.1:{page.port}/requests"
    for url in (base, f"{base}?k=", f"{base}?k={'x' * len(page.key)}"):
        status, body = _call(url)
        assert status == 404 and page.held_id not in body and "220" not in body
    status, body = _call(page.url)
    assert status == 200 and page.held_id in body and 'name="quantity"' in body and 'value="220"' in body
    assert "&lt;b&gt;bold&lt;/b&gt;" in body and "<b>bold</b>" not in body  # the e-mail's words, escaped
    assert page.key not in body  # the form posts back to its own URL: the key is in no page body
    assert _call(page.url, method="HEAD") == (200, "")
    assert _stable(page.data_dir) == before
    log = _log(page)
    assert page.key not in log and "/requests" in log


@pytest.mark.parametrize(
    ("headers", "form", "status"),
    [
        ({"Origin": "http://evil.example"}, {"quantity": "220"}, 403),
        ({"Sec-Fetch-Site": "cross-site"}, {"quantity": "220"}, 403),
        ({}, {"quantity": "2.5"}, 400),
        ({}, {"due": "next week"}, 400),
        ({}, {"product": "--data-dir=/tmp/x"}, 400),
    ],
)
def test_a_refused_form_writes_nothing(page: Page, headers: dict[str, str], form: dict[str, str], status: int) -> None:
    fields = {"held_id": page.held_id, "product": "TOTE-NAVY", "quantity": "220", "due": "2026-12-18", **form}
    before = _stable(page.data_dir)
    got, body = _call(page.url, method="POST", form=fields, **headers)
    assert got == status and page.held_id in body  # the page again, saying why
    assert _stable(page.data_dir) == before
    wrong_key = page.url[:-4] + "abcd"
    assert _call(wrong_key, method="POST", form=fields)[0] == 404
    assert _stable(page.data_dir) == before


def test_the_form_completes_the_request_as_request_complete_does(page: Page) -> None:
    fields = {"held_id": page.held_id, "product": "TOTE-NAVY", "quantity": "220", "due": "2026-12-18"}
    origin = f"http://127.0.0.1:{page.port}"
    status, body = _call(page.url, method="POST", form=fields, Origin=origin, **{"Sec-Fetch-Site": "same-origin"})
    assert status == 200 and "Planned" in body, body
    d = ("--data-dir", str(page.data_dir), "--now", "2026-12-07T10:05:00Z")
    [hold] = json.loads(cli(*d, "request", "list", "--all", "--json").stdout)["held"]
    assert hold["status"] == "started" and hold["started_as"].startswith("ckpt-")
    shown = json.loads(cli(*d, "show", "--checkpoint", hold["started_as"], "--json").stdout)
    order = shown["proposal"]["target_order"]
    assert (order["product"], order["quantity"], order["due"]) == ("TOTE-NAVY", 220, "2026-12-18")
    again, _ = _call(page.url, method="POST", form=fields)
    assert again == 409  # no longer waiting for facts: nothing is planned twice
    log = _log(page)
    assert "request complete process finished" in log and page.key not in log
