"""The "Change the plan" form in headless Chromium at 390 px: it fits the phone (no sideways scroll), opens
without scripts, and its POST makes version 2, which the same link then shows beside version 1's timeline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser.test_approval_page import PHONE_WIDTH, _get, _press, _shot, _start, browser, pytestmark
from tests.support.local_serve import Served
from tests.support.net import free_port

__all__ = ["browser", "pytestmark"]


def test_change_the_plan_on_a_phone(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    port = free_port()
    data_dir, values = _start(tmp_path, port)
    served = Served(data_dir, port)
    try:
        _get(browser, values["APPROVAL_URL_2"])  # ben may approve, reject or change it
        summary = browser.find_element(By.CSS_SELECTOR, "details.change summary")
        assert summary.text == "Change the plan"
        summary.click()  # <details> opens without any script
        keep = browser.find_element(By.ID, "rv-keep")
        assert keep.is_displayed()
        keep.send_keys("STANDARD-100")
        width = int(browser.execute_script("return document.documentElement.scrollWidth"))
        assert width <= PHONE_WIDTH
        _shot(browser, "9-change-the-plan")
        heading = _press(browser, "details.change button.again")
        assert heading.startswith("Version 2")
        _get(browser, values["APPROVAL_URL_2"])
        body = browser.find_element(By.TAG_NAME, "body").text
        assert "Version 1 (replaced by this one)" in body and "STANDARD-100 is no longer moved" in body
        assert int(browser.execute_script("return document.documentElement.scrollWidth")) <= PHONE_WIDTH
        _shot(browser, "10-version-2-beside-version-1")
    finally:
        served.stop()
