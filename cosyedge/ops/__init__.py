"""The operator's commands beside `cosyedge run`: the phrase cache (`warm`, `cache stats |
export | import`), `voice info`, `read`, `report kpi | audit`, and acting as the cache's owner
when run as root. Loaded by the command line only when one of them is asked for; the daemon
never imports them.
"""
