"""The console script ``production-orchestrator`` (also ``python -m production_orchestrator``).

main       the parser and the commands: start, resume, show, status, shop, serve, audit...
approvals  the approval side: links at start, resume of a page decision, propose again, serve
root       the composition root: one data dir -> SQLite stores, file sessions, receipt key
processes  the local stand-in for the workflow: each resume runs in a fresh process
aws_ops    operator commands against a deployed stack (audit verification)
"""

from .main import main

__all__ = ["main"]
