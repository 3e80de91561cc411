"""Deciding: a person answers, and a fresh process carries out exactly that answer once.

review           what a valid link shows: the verified plan and what changed since, or how it ended
decide           a POST from a link holder: authorize, receipt, vote; once decided, wake the workflow
authorize        every path that can decide asks the one rule (domain/approval/authority) through here
wake             SendTaskSuccess once, recoverably (the next POST, or the reconciler)
ask_revision     AWS: "Change the plan" recorded on the approval (it closes) and the workflow woken to plan it
resume           verify every fact against persisted evidence, claim, rebuild the agent, answer the interrupt
claim            the decision claimed exactly once before the agent resumes (a dead resume's lease taken over)
resume_approval  resume with the decision an approval holds, or a CLI vote and resume in one

review -> decide (authorize) -> wake -> resume_approval -> resume (verify -> claim -> apply | cancel)
review -> ask_revision -> wake (the workflow plans the next version: services/runs/revise.py)
"""
