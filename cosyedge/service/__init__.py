"""Living on a gateway: systemd notifications and watchdog, the self-watch (canary, restarts),
SIGHUP reload and journald-friendly logs. Used by the daemon only; no stage imports it."""
