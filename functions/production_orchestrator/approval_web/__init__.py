"""The approval pages and their routing, shared by the decision Lambda and the local ``serve``.

pages         HTML strings from domain objects (escaped, no script, CSP with a style hash)
endpoint      GET/HEAD show, POST decide or propose again, over the lifecycle steps
local_server  the stdlib HTTP server that ``serve`` runs on 127.0.0.1
"""
