// tools/clientlibs holds what the web client vendors (npm,
// scripts/vendor-clientlibs.sh). This file makes it a module of its own, so
// that the relay's ./... patterns never reach into its node_modules.
module relay/tools/clientlibs

go 1.26
