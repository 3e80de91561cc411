"""Production Orchestrator: an agent that proposes production plans and writes only after human approval."""

__version__ = "0.1.0"
