"""Fixtures for the integration tests that run the AWS adapters and handlers against a moto server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.moto_aws import AwsWorld, Clock, aws_world, moto_server


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    """One moto server on 127.0.0.1 per test session (per xdist worker)."""
    with moto_server() as endpoint:
        yield endpoint


@pytest.fixture
def aws(moto_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[AwsWorld]:
    """A fresh table, bucket and topic for one test, with the handlers configured for them."""
    with aws_world(moto_endpoint, monkeypatch) as world:
        yield world


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The handlers' clock, settable by the test."""
    from production_orchestrator.handlers import root

    fake = Clock()
    monkeypatch.setattr(root, "utc_now", fake)
    return fake
