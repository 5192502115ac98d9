"""The catalogs: one per feature a Suite serves, each with the handlers of its methods.

``tools``, ``prompts``, ``resources``, ``completion``, ``skills`` and ``apps`` each hold what
is served and answer their ``*/list``, ``*/get``, ``*/read`` or ``*/call`` methods;
``listing`` builds their paginated lists (sealed cursors), ``hooks`` calls a behaviour's
hooks and checks what they return, ``request_state`` seals the state of input rounds;
``served`` holds one Suite's four catalogs and answers what is asked of them together
(handlers, capabilities, a target's scopes, a resource URI's repository).

Builds on the request in flight (``genmcp.call``); knows nothing of other processes.
"""
