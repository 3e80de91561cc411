"""Lambda entry points. Each parses its event into a model, calls one use case and returns a model.

    run_agent        RunAgentUntilApproval       start_run until the interrupt
    request_approval WaitForHumanDecision        store the task token, e-mail one link per approver
    decide           Function URL                GET/HEAD show the plan; POST records the decision once
    resume_agent     ResumeVerifiedDecision      verify, claim, resume the agent with the decision
    record_expiry    DecisionExpired             pending -> expired; never approves

``decide`` imports nothing of strands: keep its imports to domain/, approval_service, approval_page and
the strands-free modules here (settings, events, observability, core).
"""
