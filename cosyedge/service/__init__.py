"""Living on a gateway: systemd notifications and watchdog, the memory ceiling, SIGHUP reload
and journald-friendly logs."""
