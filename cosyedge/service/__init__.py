"""Living on a gateway: systemd notifications and watchdog, the self-watch (canaries, drops,
stuck stages, restarts, the alarm system's own faults told), SIGHUP reload and
journald-friendly logs. Used by the daemon, as it is built and run, and the command line; no
stage imports it."""
