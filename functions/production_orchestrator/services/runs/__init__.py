"""Runs: a customer's request becomes a plan that waits for a person.

submit        an authenticated caller (or an inbound e-mail) hands in a request: a workflow starts (AWS)
plan_request  what one start plans: the e-mail on a shop, resolved fail-closed against its catalogue
preview       the plan the agent would propose, written nowhere (``plan``)
requests      requests beside the shop: the run holds its order; one start per request (the duplicate check,
              on the request key each run stores)
held          a possible duplicate held beside the earlier run until a person starts (--again) or drops it
holding       the open pending plans whose bookings a new plan treats as taken (they hold what they book)
start         the agent runs its tools until the hook interrupts before apply_production_plan; session,
              proposal and the sealed checkpoint are made durable; the process exits
repropose     a stale plan replaced by a new run's plan under the same policy and links
revise        an approver's guidance makes the next version of the plan (supersedes the previous one)

submit -> plan_request -> requests (not started yet? else held) -> holding -> start -> (asking) ... repropose
when stale, revise on guidance
"""
