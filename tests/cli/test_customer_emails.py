"""Customer e-mails through the console script: a refused start writes nothing, the facts a person gives are
recorded with the plan, and what a customer wrote never drives the terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from production_orchestrator.domain.intake.customer_message import MAX_MIME_DEPTH
from tests.support.clidriver import cli
from tests.support.hostile_mail import nested_mime
from tests.support.localstore import audit_types, fingerprint
from tests.support.provider_runs import EXAMPLE_DAY, EXAMPLES

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


@pytest.fixture
def shop_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    run = cli("--data-dir", str(data), "shop", "import", str(EXAMPLES / "print-shop.json"))
    assert run.returncode == 0, run.stderr
    return data


def start(data: Path, request: Path | str, *flags: str) -> tuple[int, str, str]:
    run = cli("--data-dir", str(data), "start", "--request", str(request), "--as-of", EXAMPLE_DAY, *flags)
    return run.returncode, run.stdout, run.stderr


@pytest.mark.parametrize(
    ("email", "named"),
    [
        ("ho-03-huge-quantity.eml", "more than its machines have in 10 x 90 days"),
        ("ho-02-year-9999.eml", "due date"),  # "by tomorrow" on 31 Dec 9999
        ("lab-01-label-disagrees.eml", "quantity: the e-mail gives several (4000 (labelled); 400)"),
    ],
)
def test_a_refused_start_writes_nothing(shop_dir: Path, email: str, named: str) -> None:
    before, events = fingerprint(shop_dir), audit_types(shop_dir)
    code, stdout, stderr = start(shop_dir, CORPUS / email)
    assert code == 2, stderr
    assert "internal error" not in stderr and named in stderr
    assert re.search(r"^error: (INTAKE_REFUSED|UNPLANNABLE): ", stderr, re.MULTILINE), stderr  # a stable code leads
    assert "CHECKPOINT_ID" not in stdout
    assert fingerprint(shop_dir) == before and audit_types(shop_dir) == events


@pytest.mark.parametrize("depth", [MAX_MIME_DEPTH + 1, 2000])
def test_an_email_nested_too_deep_is_refused_with_its_own_code_and_writes_nothing(
    shop_dir: Path, tmp_path: Path, depth: int
) -> None:
    request = tmp_path / "deep.eml"
    request.write_text(nested_mime(depth))
    before, events = fingerprint(shop_dir), audit_types(shop_dir)
    code, _, stderr = start(shop_dir, request)
    assert code == 2 and re.search(r"^error: MIME_TOO_DEEP: ", stderr, re.MULTILINE), stderr
    assert "internal error" not in stderr and "RecursionError" not in stderr
    assert fingerprint(shop_dir) == before and audit_types(shop_dir) == events


def test_given_facts_fill_the_email_and_are_recorded_with_the_plan(shop_dir: Path, tmp_path: Path) -> None:
    request = tmp_path / "vague.eml"
    request.write_text(
        "From: Marco <marco@pizzeria.example>\n\nHallo, wir brauchen Tote Bags in Navy.\n\nGrüße\nMarco\n"
    )
    code, _, stderr = start(shop_dir, request)
    assert code == 2 and "quantity: missing" in stderr and "due date: missing" in stderr
    run = cli(
        "--data-dir", str(shop_dir), "start", "--request", str(request), "--as-of", EXAMPLE_DAY,
        "--quantity", "60", "--due", "2026-12-15", "--requester", "dana",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    shown = cli("--data-dir", str(shop_dir), "show", "--checkpoint", run["CHECKPOINT_ID"], "--json")
    proposal = json.loads(shown.stdout)["proposal"]
    assert proposal["given"] == {
        "given_by": "dana",
        "product": None,
        "quantity": 60,
        "due": "2026-12-15",
        "customer": None,
    }
    order = proposal["target_order"]
    assert (order["product"], order["quantity"], order["due"], order["language"]) == (
        "TOTE-NAVY",
        60,
        "2026-12-15",
        "de",
    )
    text = cli("--data-dir", str(shop_dir), "show", "--checkpoint", run["CHECKPOINT_ID"]).stdout
    assert "Quantity 60: given by dana, not from the e-mail\n" in text  # the e-mail said no quantity
    assert "Due 2026-12-15: given by dana, not from the e-mail\n" in text


def test_given_facts_that_replace_the_emails_are_shown_with_what_the_email_said(shop_dir: Path, tmp_path: Path) -> None:
    request = tmp_path / "replaced.eml"
    request.write_text(
        "From: Lena Vogt <lena@harbour-books.example>\nDate: Tue, 1 Dec 2026 09:12:00 +0100\nSubject: Totes\n\n"
        "We need 400 navy tote bags by Friday.\n"
    )
    run = cli(
        "--data-dir", str(shop_dir), "start", "--request", str(request), "--as-of", EXAMPLE_DAY,
        "--quantity", "60", "--due", "2026-12-15", "--customer", "Harbour Books", "--requester", "dana",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    shown = cli("--data-dir", str(shop_dir), "show", "--checkpoint", run["CHECKPOINT_ID"], "--json")
    proposal = json.loads(shown.stdout)["proposal"]
    assert proposal["given"]["email_said"] == {"quantity": "400", "due": "2026-12-04", "customer": "Lena Vogt"}
    order = proposal["target_order"]
    assert (order["quantity"], order["due"], order["customer"]) == (60, "2026-12-15", "Harbour Books")
    text = cli("--data-dir", str(shop_dir), "show", "--checkpoint", run["CHECKPOINT_ID"]).stdout
    for line in (
        "Quantity 60: given by dana, not from the e-mail (the e-mail said 400)",
        "Due 2026-12-15: given by dana, not from the e-mail (the e-mail said 2026-12-04)",
        "Customer Harbour Books: given by dana, not from the e-mail (the e-mail said Lena Vogt)",
    ):
        assert f"  {line}\n" in text, text
    assert "Product" not in text.split("What blocks it:")[0]  # the product came from the e-mail


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (("--quantity", "0"), "--quantity"),
        (("--quantity", "10000001"), "--quantity"),
        (("--due", "2026-02-30"), "--due"),
        (("--product", "../etc"), "--product"),
        (("--customer", "Evil\x1b[8mCorp"), "--customer"),
    ],
)
def test_bad_given_facts_are_refused_before_anything_is_read(
    shop_dir: Path, flags: tuple[str, ...], named: str
) -> None:
    before = fingerprint(shop_dir)
    code, _, stderr = start(shop_dir, CORPUS / "en-02-code.eml", *flags)
    assert code == 2 and named in stderr
    assert fingerprint(shop_dir) == before


def test_control_characters_from_an_email_are_shown_escaped(shop_dir: Path) -> None:
    code, stdout, stderr = start(shop_dir, CORPUS / "ho-01-escape-sequences.eml")
    assert code == 0, stderr
    values = dict(line.split("=", 1) for line in stdout.splitlines() if "=" in line)
    checkpoint = values["CHECKPOINT_ID"]
    shown = cli("--data-dir", str(shop_dir), "show", "--checkpoint", checkpoint)
    assert "Evil\\x1b[8mCorp\\x07" in shown.stdout
    reject = cli(
        "--data-dir", str(shop_dir), "resume", "--checkpoint", checkpoint, "--decision", "reject",
        "--reviewed-hash", values["PROPOSAL_HASH"],
        "--reason", "no\x1b]0;owned\x07 thanks\u202e",
    )  # fmt: skip
    assert reject.returncode == 0, reject.stderr
    for command in (("show", "--checkpoint", checkpoint), ("status",), ("history",)):
        out = cli("--data-dir", str(shop_dir), *command)
        assert out.returncode == 0, out.stderr
        for char in "\x1b\x07\u202e":
            assert char not in out.stdout and char not in out.stderr, command
    assert "no\\x1b]0;owned\\x07 thanks\\u202e" in cli("--data-dir", str(shop_dir), "history").stdout
