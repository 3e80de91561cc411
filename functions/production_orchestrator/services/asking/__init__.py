"""Asking: the approval is requested, and kept asked for until someone answers or it expires.

request_approval  the approval record (policy, task token, link-secret hashes) and one link per approver
approval_mail     locally, the approval requests and reminders queued and delivered through the outbox
remind            nudge the approvers an open approval still waits for; add the backups once it has waited
escalate          the part of a reminder pass that hands out links (backups, links that never went out)
relink            a new link for one approver; their old link stops working at once
reminder_links    a reminder that carries a new link (AWS, where only the first link's hash is stored)
reminder_wakes    on AWS, one-time wake-ups armed when the workflow parks, each reminder claimed once
expire            the workflow stopped waiting: what it never acted on becomes expired, never approved

request_approval -> approval_mail | SNS -> (remind -> escalate) ... relink ... expire
"""
