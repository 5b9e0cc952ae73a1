"""Learners' problem reports about questions (issue 27 item 6): model, writes (services) and reads (selectors)."""
