"""Pure domain: no boto3, strands, powertools or os.environ. One folder per concern:

    shop/       the shop model, its file format, its digest, what changed between two states
    planning/   the proposal (what a human approves), how it is built (materials, the greedy placer),
                its message drafts
    intake/     a customer's e-mail or request read into facts; received e-mails; submissions
    approval/   the approval record and its policy, the one decision rule (authority), receipts,
                the audit chain, decision claims, the resume gate (verification)
    messages/   the outbox: the approved plan's messages, delivered exactly once per transport id

and the few shared modules beside them: canonical JSON and hashes, errors, persisted records, identities,
durations, the ports the services need (``ports.py``), plain-text presentation and the reference scenarios.
Dependencies point down this list's reverse: messages and approval read planning; planning reads shop;
nothing below imports ``ports``.
"""
