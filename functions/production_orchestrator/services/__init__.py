"""The service layer: the lifecycle of one governed write, each step a module, grouped by concern.

    runs/       a customer's request becomes a plan waiting for approval (start, the agent runs until the
                interrupt, session + proposal + sealed checkpoint made durable, the process exits)
    asking/     the approval is asked for: its record and one link per approver, the approval e-mail,
                reminders, escalation, new links, expiry
                ... human time: nothing runs ...
    deciding/   a person decides: review a link, vote, authorize (one rule), wake the workflow, then a fresh
                process verifies, claims once and resumes the agent: apply once, or cancel
    shop/       the operator's shop: import, deliveries and completions, the order list
    outbox/     the messages a plan drafted, delivered once after the apply (and queued again by a person)

    runs -> asking -> (human time) -> deciding -> outbox
    start -> interrupt -> persist -> exit -> review -> decide -> verify -> resume -> apply -> deliver

At the top, below every concern (each may read them; they import none of them):

    runtime     what every step runs on (the ports, a clock, this process's id) and the agent-run helpers
    evidence    the one checkpoint reader and the reads every step shares (shop, plan, approval, staleness)

and the read models an operator asks for, above the reads: ``status`` (every approval as it stands),
``history`` (who decided what, from the audit trail) and ``audit`` (the keyed chain and every receipt,
verified). Only runs/start, runs/repropose, deciding/claim, deciding/resume and deciding/resume_approval
run the agent (and import strands).
"""
