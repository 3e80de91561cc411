"""The lifecycle of one governed write, one module per step. Read the file names top to bottom:

    start             the agent runs its tools; the hook interrupts before apply_production_plan;
                      session, proposal and sealed checkpoint are made durable; the process exits
    request_approval  an approval record (task token, policy) and one link per approver
                      ... human time: nothing runs ...
    review            a link holder sees the verified plan (and what changed since); reads only
    decide            a POST: authorize, receipt, vote; once decided, wake the workflow
    authorize         the decision an approval holds, checked against its policy and receipts
    resume            a fresh process: verify against persisted evidence, claim once (claim), rebuild the
                      agent, answer the interrupt: apply once or cancel
    resume_approval   resume with the decision recorded on an approval (page, workflow)
    repropose         a stale plan replaced by a new one under the same policy and links
    expire            the window closed: pending -> expired, never approved
    status            every approval as an operator sees it

    start -> interrupt -> persist -> exit -> review -> decide -> verify -> resume -> apply

``evidence`` holds the reads every step shares (the sealed checkpoint, the shop, the plan); ``runtime``
what the agent-running steps run on. Only start, claim, resume, resume_approval and repropose import
strands.
"""
