"""Lambda entry points. Each parses its event into a model, calls one lifecycle step and returns a model.

    run_agent          RunAgentUntilApproval   lifecycle.start until the interrupt
    request_approval   WaitForHumanDecision    lifecycle.request_approval: park the token, e-mail the links
    decide             Function URL            approval_web: GET/HEAD show the plan; POST decides
    resume_agent       ResumeVerifiedDecision  lifecycle.resume_approval: verify, claim, resume the agent
    record_expiry      DecisionExpired         lifecycle.expire: pending -> expired; never approves
    report_pending_age (schedule)              lifecycle.status: the oldest pending approval's age

``root`` is the composition root, built once per cold start. ``decide`` imports nothing of strands: the
agent part of the root (``agent_root``) imports it lazily.
"""
