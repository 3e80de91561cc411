"""Shop: the operator's own changes of the shop, each one audited write that names the plans it made stale.

importing   a shop file's state in place of the stored one: a change with its diff, never a silent replace
life        a delivery, an order that completes, is cancelled or makes progress
order_list  every order with its status, and the requests whose plan waits beside it
schedule    every machine over the days ahead, the open runs' plans laid over it (the schedule page)

importing | life -> (pending plans judged again: still holds, or stale, each named) ; order_list, schedule read
"""
