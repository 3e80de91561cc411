"""The lifecycle of one governed write, one module per step. Read the file names top to bottom:

    start             the agent runs its tools; the hook interrupts before apply_production_plan;
                      session, proposal and sealed checkpoint are made durable; the process exits
    request_approval  an approval record (policy, task token) and one link per approver; locally written
                      with the checkpoint, in AWS once per workflow task
                      ... human time: nothing runs ...
    review            a valid link sees the approval as it stands: the verified plan, or what happened
    decide            a POST: authorize, receipt, vote; once decided, wake the workflow (wake)
    authorize         every path asks domain/approval/authority.authorize here: go, or a refusal with nothing written
    resume            a fresh process: verify against persisted evidence, claim once (claim), rebuild the
                      agent, answer the interrupt: apply once or cancel
    resume_approval   resume with the decision an approval holds (page, workflow), or a CLI vote and resume
    repropose         a stale plan replaced by a new one under the same policy and links
    wake              SendTaskSuccess once, recoverably (the next POST, or the reconciler)
    expire            the workflow timed out: what it never acted on -> expired, never approved
    status            every approval as an operator sees it
    history           who decided what, when and why, from the audit trail
    audit             the keyed audit chain and every vote's receipt, verified

    start -> interrupt -> persist -> exit -> review -> decide -> verify -> resume -> apply

``evidence`` holds the reads every step shares (the sealed checkpoint, the shop, the plan); ``runtime``
what the agent-running steps run on. Only start, claim, resume, resume_approval and repropose import
strands.
"""
