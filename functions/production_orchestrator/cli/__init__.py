"""The console script ``production-orchestrator`` (also ``python -m production_orchestrator``).

main       the entry: parse, run one command, map failures to exit codes (Ctrl-C, closed pipes too)
commands/  one module per top-level command, each exposing ``register(subparsers)``; none imports another:
           start, resume, resume_approval, repropose, show, status, history, shop, order, serve, audit,
           outbox, submit, plan, approvals, remind, completion
parser     the parser kit: shared flags, ``--data-dir`` anywhere, help with examples and exit codes
inputs     argument types (hashes in any case, durations, name lists, ports, URLs)
given      the facts ``start`` takes from flags (product, quantity, due day, customer)
output     exit codes, KEY=value lines or JSON on stdout, words for people on stderr
printers   what several commands print the same way: a shop change, an import, the audit verdict, history
files      request and shop files read (``-``: stdin), the shop file's schema, a shop file written
running    what the commands that run the agent share: the binding, the runtime, a resume's result
approval_side  the approval side: policy and links at start, stale refusals explained, the pages' wiring
reminders  one pass of reminders and escalation (``remind``, and ``serve`` every minute)
preflight  before anything is written: credentials found, model server listening
root       the composition root: one data dir -> SQLite stores, file sessions, receipt key
processes  the local stand-in for the workflow: each resume runs in a fresh process
completion the shell completion scripts (bash, zsh, fish), written from the parser
config     production-orchestrator.toml (data dir, then user config dir): defaults under the flags
aws        --table NAME: the same commands on a deployed stack's DynamoDB table (boto3 only when one runs)

``main.COMMAND_NAMES`` lists the command modules in the order ``--help`` shows them; a command imports only its own.
"""

from .main import main

__all__ = ["main"]
