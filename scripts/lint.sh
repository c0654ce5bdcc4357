#!/usr/bin/env bash
# The linters beyond gofmt and go vet, at the versions tools/go.mod pins:
#   staticcheck  its default checks; staticcheck.conf files narrow them per
#                directory, each saying why
#   errcheck     every dropped error, except the calls scripts/errcheck.excludes
#                lists with the reason for each
# Builds the tools into .cache/lint-bin (ignored by git) on first use.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=.cache/lint-bin
mkdir -p "$BIN"
(cd tools && go build -o "../$BIN/" honnef.co/go/tools/cmd/staticcheck github.com/kisielk/errcheck)

status=0
"$BIN/staticcheck" ./... || status=1
"$BIN/errcheck" -exclude scripts/errcheck.excludes ./... || status=1
exit $status
