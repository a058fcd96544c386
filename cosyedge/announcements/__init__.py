"""Stage 3, announcements: alert → phrase, queued most urgent first, spoken by one thread.

`templates` fill in phrases, `queue` orders them, `announcer` renders and plays the next one
and gives way between audio blocks when something more urgent arrives.
"""
