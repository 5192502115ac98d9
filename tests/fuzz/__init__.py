"""The fuzz harness: seeded hostile HTTP requests against a real server (`make fuzz`)."""
