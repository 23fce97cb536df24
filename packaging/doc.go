// Package packaging holds the recipe of the relay's Debian package (ADR
// 0115): nfpm's configuration, the systemd unit, the default
// /etc/relay/relay.toml, the maintainer scripts and the README installed
// for the first steps. scripts/package.sh builds it (make package); the
// package's test builds it, installs it on the machine, checks it and
// starts the installed relay. No code of the relay lives here.
package packaging
