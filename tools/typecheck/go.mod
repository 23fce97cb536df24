// tools/typecheck holds the web client's type checker and linter (npm,
// scripts/typecheck.sh). This file makes it a module of its own, so that
// the relay's ./... patterns (go test, go vet, staticcheck, govulncheck)
// never reach into its node_modules, which can hold Go files.
module relay/tools/typecheck

go 1.26
