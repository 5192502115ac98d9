"""Legacy session mode (2025 revisions): sessions, their streams and input rounds.

``server`` holds :class:`LegacyServer` (sessions as sealed ids, requests translated to the
modern shape, the notification stream); ``rounds`` the input rounds a Call runs for a
session and the broker topics sessions share. Both return protocol outcomes; the HTTP and
stdio transports write them.
"""

from genmcp.transports.legacy.server import LegacyAnswer, LegacyServer, Session, SessionStream

__all__ = ["LegacyAnswer", "LegacyServer", "Session", "SessionStream"]
