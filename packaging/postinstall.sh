#!/bin/sh
# After the .deb or .rpm is installed or upgraded (dpkg: configure; rpm:
# 1 install, 2 upgrade).
set -e

# The user finance. The sysusers.d file is the declaration; not every
# system applies it at install (Debian's dpkg does not, RPM does from 4.19),
# so apply it here, or with useradd where systemd-sysusers is missing (a
# container without systemd).
if command -v systemd-sysusers >/dev/null 2>&1; then
	systemd-sysusers /usr/lib/sysusers.d/finance.conf
elif ! getent passwd finance >/dev/null 2>&1; then
	nologin=/usr/sbin/nologin
	[ -x "$nologin" ] || nologin=/sbin/nologin
	useradd --system --user-group --home-dir /var/lib/finance --no-create-home \
		--shell "$nologin" --comment "finance personal finance tracker" finance
fi

# The data directory, so finance commands run as the user finance work
# before the service's first start; systemd keeps it so (StateDirectory).
install -d -o finance -g finance -m 0700 /var/lib/finance

if [ -d /run/systemd/system ]; then
	systemctl daemon-reload
	# An upgrade restarts a running service onto the new binary (which backs
	# up the database before changing its schema); a first install leaves
	# starting it to you, once the environment file says how.
	systemctl try-restart finance.service
fi
