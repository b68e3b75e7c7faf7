#!/bin/sh
# After the .deb or .rpm is removed. The data directory /var/lib/finance,
# its backups and the user finance stay: a ledger is never deleted by a
# package manager, not even on purge. Remove them by hand when you mean to.
set -e
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi
