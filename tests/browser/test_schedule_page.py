"""The whole shop's schedule (``serve``'s /schedule) in headless Chromium, at 390 px and at a desktop width:
the page itself never scrolls sideways, the drawing scrolls inside its own box, the pending plan's block
links to its entry, and the schedule reads in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser.test_approval_page import PHONE_WIDTH, _fits, _get, _secret, _shot, _start, browser, pytestmark
from tests.support.local_serve import Served
from tests.support.net import free_port

__all__ = ["browser", "pytestmark"]
DESKTOP = {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}


def _box(driver: Any) -> tuple[int, int, int]:
    """The drawing's box: (its content width, its visible width, how far it scrolled)."""
    box = driver.execute_script(
        "const t = document.querySelector('.timeline .tl'); return [t.scrollWidth, t.clientWidth, t.scrollLeft]"
    )
    return int(box[0]), int(box[1]), int(box[2])


def test_the_schedule_on_a_phone_and_a_desktop(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    port = free_port()
    data_dir, values = _start(tmp_path, port)
    served = Served(data_dir, port)
    try:
        _get(browser, f"http://127.0.0.1:{port}/schedule")  # at 390 px
        assert browser.find_element(By.TAG_NAME, "h1").text == "The shop's schedule"
        _fits(browser)  # the page itself does not scroll sideways
        wide, visible, _ = _box(browser)
        assert visible <= PHONE_WIDTH - 32 < wide, (wide, visible)  # the drawing is wider than its box ...
        browser.execute_script("document.querySelector('.timeline .tl').scrollLeft = 400")
        assert _box(browser)[2] > 0  # ... and scrolls inside it
        _fits(browser)
        svg = browser.find_element(By.CSS_SELECTOR, ".timeline svg")
        assert svg.get_attribute("aria-hidden") == "true"
        words = browser.find_element(By.ID, "schedule-text").text
        assert "EMB-01, Wed 12 Aug:" in words and "RUSH-200 4h (plan 1, pending: the new order)" in words
        entry = browser.find_element(By.ID, "plan-1").text
        assert "RUSH-200" in entry and values["CHECKPOINT_ID"] in entry
        _shot(browser, "11-schedule-phone")
        sources = browser.page_source
        browser.find_element(By.CSS_SELECTOR, "a[href='/']").click()  # the list of pending approvals
        assert browser.find_element(By.TAG_NAME, "h1").text == "Pending approvals"
        _fits(browser)

        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", DESKTOP)
        browser.get(f"http://127.0.0.1:{port}/schedule")
        # the page's width, and what the window leaves it beside a vertical scroll bar
        widths = browser.execute_script(
            "const d = document.documentElement; return [d.scrollWidth, d.clientWidth, window.innerWidth]"
        )
        assert widths[0] <= widths[1] and widths[2] == 1280, widths
        wide, visible, _ = _box(browser)
        assert visible > PHONE_WIDTH and wide >= visible
        label = browser.execute_script(
            "const t = [...document.querySelectorAll('.timeline svg text')].find(e => e.textContent.includes"
            "('RUSH-200')); return t.getBoundingClientRect().height"
        )
        assert float(label) >= 12, "labels too small to read"
        browser.save_screenshot(str(tmp_path / "desktop.png"))
        sources += browser.page_source
    finally:
        log = served.stop()
    for n in (1, 2, 3):
        secret = _secret(values[f"APPROVAL_URL_{n}"])
        assert secret not in sources and secret not in log
