"""Plant systems heard as sources of alerts (`sources:`): each decides what is an alarm by its
own rules and hands it to the door like any other alert (intake/sourced.py)."""
