"""The Production Orchestrator stack. It composes constructs; it defines no resources itself."""

from __future__ import annotations

from typing import Any

from aws_cdk import Stack
from constructs import Construct


class ProductionOrchestratorStack(Stack):
    """Start Lambda, approval workflow, decision endpoint and resume Lambda (filled in by later work)."""

    def __init__(self, scope: Construct, construct_id: str, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, **kwargs)
