"""One module per top-level command, each exposing ``register(subparsers)``; none imports another (what two
commands share lives beside this package: printers, files, running, approval_side, reminders, aws, the parser kit).
"""
