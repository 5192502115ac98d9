"""Changes and scale-out: what one process tells the others, and its listeners.

- ``sync.listen``: the change feed the Suite publishes, and the ``subscriptions/listen`` stream;
- ``sync.change_log``: the log a legacy session's GET stream resumes from;
- ``sync.catalog``: one catalog across processes (runtime adds and removals, replayed);
- ``sync.mail``: posting to a worker by id, wherever it runs;
- ``sync.interest``: which resource URIs this process's subscribers hold.

Builds on the catalogs and the tasks (a listen stream carries task status changes).
"""
