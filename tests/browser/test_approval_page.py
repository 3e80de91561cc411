"""The approval page in a real headless Chromium (Debian's chromium + chromium-driver, driven by Selenium).

    start (ana requests, ben/cy approve) -> serve on 127.0.0.1 -> ben opens his link in two tabs
    -> sees the plan -> rejects with a reason -> sees what happens next -> the second tab's stale POST
    is refused and shown what was recorded -> status shows the rejection; a stale plan shows what changed
    and proposes again

Screenshots of every page state go to $PO_SCREENS_DIR (`make screens`: evidence/screens/).
None shows a link secret: no page contains one
(the forms post back to their own URL) and headless screenshots have no address bar; the test checks both
the page sources and the server's log.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.clidriver import cli
from tests.support.local_serve import Served
from tests.support.net import APPROVERS, free_port

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
# `make screens` writes the committed evidence/screens/; a plain test run keeps its screenshots out of the tree.
SCREENS = Path(os.environ.get("PO_SCREENS_DIR") or Path(tempfile.gettempdir()) / "po-screens")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=600,1000",
)
PHONE_WIDTH = 390  # CSS pixels of a common phone; emulated per tab (headless windows are at least 500 wide)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Debian's chromium and chromium-driver are not installed (make browser-deps installs them)",
)


@pytest.fixture
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="po-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _start(tmp_path: Path, port: int) -> tuple[Path, dict[str, str]]:
    data_dir = tmp_path / "data"
    run = cli(
        "start", "--data-dir", str(data_dir), "--approvers", APPROVERS, "--requester", "ana@example.com",
        "--separation-of-duties", "--link-base", f"http://127.0.0.1:{port}/approve", "--print-links",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return data_dir, run.values


def _phone(driver: Any, height: int = 844) -> None:
    """Emulate a phone screen in the current tab: narrow viewport, device pixel ratio 2, mobile."""
    metrics = {"width": PHONE_WIDTH, "height": height, "deviceScaleFactor": 2, "mobile": True}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)


def _get(driver: Any, url: str) -> None:
    _phone(driver)
    driver.get(url)


def _press(driver: Any, selector: str) -> str:
    """Click a submit button and wait for the next page (the local POST runs the resume first); its h1.

    Chromium's inspector can report a node as detached while a navigation starts; such a report is
    retried, never the click that already submitted the form (the title tells them apart).
    """
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.wait import WebDriverWait

    before = driver.title
    for attempt in range(3):
        try:
            driver.find_element(By.CSS_SELECTOR, selector).click()
            break
        except WebDriverException:
            if attempt == 2 or driver.title != before:
                break
    wait = WebDriverWait(driver, 90, ignored_exceptions=(WebDriverException,))
    wait.until(lambda d: d.title != before and d.execute_script("return document.readyState") == "complete")
    return str(wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text))


def _shot(driver: Any, name: str) -> None:
    """The whole page at phone width (the viewport grown to the page's height for the capture)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    _phone(driver, min(max(height, 600), 4000))
    driver.save_screenshot(str(SCREENS / f"{name}.png"))
    _phone(driver)


def _secret(url: str) -> str:
    return parse_qs(urlsplit(url).query)["s"][0]


def test_open_see_reject_and_the_stale_tab_is_refused(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    port = free_port()
    data_dir, values = _start(tmp_path, port)
    served = Served(data_dir, port)
    secrets = [_secret(values[f"APPROVAL_URL_{n}"]) for n in (1, 2, 3)]
    try:
        _get(browser, values["APPROVAL_URL_1"])  # ana started the run: she may only reject
        assert "may not approve" in browser.find_element(By.TAG_NAME, "body").text
        assert not browser.find_elements(By.CSS_SELECTOR, "button.approve")
        assert browser.find_elements(By.CSS_SELECTOR, "button.reject")
        _shot(browser, "4-requester-may-only-reject")
        sources = browser.page_source

        _get(browser, values["APPROVAL_URL_2"])  # ben
        text = browser.find_element(By.TAG_NAME, "body").text
        for expected in ("RUSH-200", "Why it is blocked", "Move STANDARD-100", "Order 600 units of THREAD-RED-40",
                         "To the customer", "Proposal fingerprint", "deterministic", "ana@example.com, ben@example.com",
                         "left", "You are\nben@example.com"):  # fmt: skip
            assert expected in text, expected
        widths = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert widths == [PHONE_WIDTH, PHONE_WIDTH], "the page scrolls sideways (or zooms) on a phone"
        font = browser.execute_script("return getComputedStyle(document.body).fontSize")
        assert float(font.rstrip("px")) >= 16, "text too small to read on a phone without zooming"
        _shot(browser, "1-confirmation")
        sources += browser.page_source

        first_tab = browser.current_window_handle
        browser.switch_to.new_window("tab")
        _get(browser, values["APPROVAL_URL_2"])
        stale_tab = browser.current_window_handle
        sources += browser.page_source

        browser.switch_to.window(first_tab)
        browser.find_element(By.ID, "reason").send_keys("Wait for the thread delivery on Friday")
        assert _press(browser, "button.reject") == "Plan rejected"
        body = browser.find_element(By.TAG_NAME, "body").text
        assert "What happens next" in body and "changed nothing" in body
        _shot(browser, "2-rejected")
        sources += browser.page_source

        browser.switch_to.window(stale_tab)
        # The second tab's approve is refused, and the page says what was recorded instead (not "unknown link").
        assert _press(browser, "button.approve") == "Plan rejected"
        body = browser.find_element(By.TAG_NAME, "body").text
        assert "not recorded" in body and "ben@example.com rejected" in body
        assert "Wait for the thread delivery on Friday" in body
        _shot(browser, "3-stale-tab-refused")
        sources += browser.page_source
    finally:
        log = served.stop()
    status = cli("status", "--data-dir", str(data_dir))
    assert f"{values['CHECKPOINT_ID']}  rejected  by ben@example.com" in status.stdout
    for secret in secrets:
        assert secret not in sources and secret not in log
    assert "GET /approve" in log and "?" not in log.split("GET /approve", 1)[1].split("\n", 1)[0]


def test_a_stale_plan_shows_what_changed_and_proposes_again(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    port = free_port()
    data_dir, values = _start(tmp_path, port)
    assert cli("shop", "--data-dir", str(data_dir), "set-inventory", "THREAD-RED-40", "0").returncode == 0
    served = Served(data_dir, port)
    try:
        _get(browser, values["APPROVAL_URL_3"])  # cy
        body = browser.find_element(By.TAG_NAME, "body").text
        assert "This plan no longer holds on the current shop" in body
        assert "Inventory THREAD-RED-40: 600 -> 0." in body
        assert not browser.find_elements(By.CSS_SELECTOR, "button.approve")
        _shot(browser, "5-stale-plan")
        assert _press(browser, "button.again") == "A new plan was proposed"
        _shot(browser, "6-proposed-again")
        _get(browser, values["APPROVAL_URL_3"])
        body = browser.find_element(By.TAG_NAME, "body").text
        assert "This plan no longer holds" not in body and browser.find_elements(By.CSS_SELECTOR, "button.approve")
        assert _press(browser, "button.approve") == "Plan approved"
        assert "applied, once" in browser.find_element(By.TAG_NAME, "body").text
        _shot(browser, "7-approved-and-applied")
    finally:
        served.stop()
    status = cli("status", "--data-dir", str(data_dir))
    assert "revision 2, plans applied 1" in status.stdout
    assert f"{values['CHECKPOINT_ID']}  superseded" in status.stdout


FIRST_SCREEN = 844  # CSS px: what a 390 px wide phone shows before any scrolling


def _bottoms(driver: Any, *selectors: str) -> list[float]:
    """Where each element ends, in CSS px from the top of the page (scrolling included)."""
    script = (
        "return arguments[0].map(s => { const r = document.querySelector(s).getBoundingClientRect();"
        " return r.bottom + window.scrollY; })"
    )
    return [float(v) for v in driver.execute_script(script, list(selectors))]


def _fits(driver: Any) -> None:
    widths = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths == [PHONE_WIDTH, PHONE_WIDTH], f"the page scrolls sideways on a phone: {widths}"


def test_the_first_screen_decides_and_the_timeline_reads_on_a_phone(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    port = free_port()
    data_dir, values = _start(tmp_path, port)
    served = Served(data_dir, port)
    secrets = [_secret(values[f"APPROVAL_URL_{n}"]) for n in (1, 2, 3)]
    try:
        _get(browser, values["APPROVAL_URL_2"])  # ben may approve
        card = browser.find_element(By.CSS_SELECTOR, ".card").text
        for expected in ("RUSH-200", "On time", "STANDARD-100", "600 THREAD-RED-40", "Fingerprint", "Due"):
            assert expected in card, expected
        approve, reject, reason = _bottoms(browser, "button.approve", "button.reject", "#reason")
        print(f"\nfirst screen at {PHONE_WIDTH} px: approve ends at {approve:.0f}, reject at {reject:.0f} CSS px")
        assert max(approve, reject, reason) <= FIRST_SCREEN, (approve, reject)
        _fits(browser)
        # The timeline: two drawings (before, after) hidden from readers, and the same grid in words for them.
        svgs = browser.find_elements(By.CSS_SELECTOR, ".timeline svg")
        assert len(svgs) == 2 and all(s.get_attribute("aria-hidden") == "true" for s in svgs)
        drawn = [s.size["width"] for s in svgs]
        assert all(w <= PHONE_WIDTH - 32 for w in drawn), drawn  # two days fit without sideways scrolling
        label = browser.execute_script(
            "const t = [...document.querySelectorAll('.timeline svg text')].find(e => e.textContent.includes"
            "('RUSH-200')); return t.getBoundingClientRect().height"
        )
        assert float(label) >= 12, "timeline labels too small to read on a phone"
        words = browser.find_element(By.ID, "timeline-text").get_attribute("textContent")
        assert "EMB-01, Wed 12 Aug: before, STANDARD-100 6h (moves away in this plan)" in words
        assert "RUSH-200 4h (the new order)" in words and "moved here from EMB-01 Wed 12 Aug" in words
        height = int(browser.execute_script("return document.documentElement.scrollHeight"))
        print(f"page height at {PHONE_WIDTH} px: {height} CSS px")
        SCREENS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SCREENS / "0-first-screen.png"))  # exactly what the phone shows first
        _shot(browser, "8-confirmation-with-timeline")
        sources = browser.page_source

        _get(browser, f"http://127.0.0.1:{port}/")
        assert "RUSH-200" in browser.find_element(By.TAG_NAME, "body").text
        _fits(browser)
        _shot(browser, "9-index")
        sources += browser.page_source
    finally:
        log = served.stop()
    for secret in secrets:
        assert secret not in sources and secret not in log

    target = tmp_path / "plan.html"
    shown = cli("show", "--data-dir", str(data_dir), "--checkpoint", values["CHECKPOINT_ID"], "--html", str(target))
    assert shown.returncode == 0, shown.stderr
    assert shown.values["HTML"] == str(target)
    _get(browser, target.as_uri())
    _fits(browser)
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "Status: pending" in body and "RUSH-200" in body and "cannot decide" in body
    assert len(browser.find_elements(By.CSS_SELECTOR, ".timeline svg")) == 2
    assert not browser.find_elements(By.TAG_NAME, "button")
    _shot(browser, "10-show-html")
    assert all(secret not in target.read_text() for secret in secrets)
