"""Lambda entry points. Each parses its event into a model, calls one lifecycle step and returns a model.

    run_agent          RunAgentUntilApproval   services.runs.start until the interrupt
    request_approval   WaitForHumanDecision    services.asking.request_approval: park the token, e-mail the links
    decide             Function URL            approval_web: GET/HEAD show the plan; POST decides
    resume_agent       ResumeVerifiedDecision  services.deciding.resume_approval: verify, claim, resume the agent
    record_expiry      DecisionExpired         services.asking.expire: pending -> expired; never approves
    report_pending_age (schedule)              services.status: the oldest pending approval's age

``root`` is the composition root, built once per cold start. ``decide`` imports nothing of strands: the
agent part of the root (``agent_root``) imports it lazily.
"""
