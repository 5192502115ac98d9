"""Legacy session mode (2025 revisions): sessions, their streams and input rounds.

``server`` holds :class:`LegacyServer` (sessions as sealed ids, requests translated to the
modern shape); ``get_stream`` a session's GET stream, ``resume`` resumable POST streams,
``journal`` the sink the SSE writer calls for them (SSE ids, SSE polling's close and the
rest of a closed stream), ``signals`` cancels and ends across processes; ``rounds`` the
input rounds a Call runs for a session and the broker topics sessions share. They return
protocol outcomes; the HTTP and stdio transports write them (``stream_log``: the protocol
between the SSE writer and the journal, declared here so nothing here imports a transport).
"""

from genmcp.sessions.get_stream import SessionStream
from genmcp.sessions.server import LegacyAnswer, LegacyServer
from genmcp.sessions.sessions import Session

__all__ = ["LegacyAnswer", "LegacyServer", "Session", "SessionStream"]
