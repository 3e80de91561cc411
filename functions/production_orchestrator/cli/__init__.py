"""The console script ``production-orchestrator`` (also ``python -m production_orchestrator``).

main       the entry: parse, run one command, map failures to exit codes (Ctrl-C, closed pipes too)
parser     the parser: shared flags, ``--data-dir`` anywhere, help with examples and exit codes
inputs     argument types (hashes in any case, durations, name lists, ports, URLs)
output     exit codes, KEY=value lines or JSON on stdout, words for people on stderr
runs       start, resume, resume-approval, repropose: the commands that run the agent
views      show, status, history: the commands that only read
shop       shop show, shop set-inventory
serve      the approval pages on 127.0.0.1 (or one LAN address over TLS)
remind     remind: reminders and escalation, one pass (``serve`` runs it every minute)
approval_ops  approvals relink: a new link for one approver, the old one revoked
audit      audit verify, audit show
approvals  the approval side: links at start, resume of a page decision, propose again, the pages' wiring
preflight  before anything is written: credentials found, model server listening
root       the composition root: one data dir -> SQLite stores, file sessions, receipt key
processes  the local stand-in for the workflow: each resume runs in a fresh process
aws_ops    operator commands against a deployed stack (audit verification, relink)

A command module exposes ``register(subparsers)``; ``main.COMMAND_MODULES`` lists them.
"""

from .main import main

__all__ = ["main"]
