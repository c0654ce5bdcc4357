#!/usr/bin/env bash
# Regenerates the Go code of our .proto files (the *.pb.go and *_grpc.pb.go
# files next to them).
#
#   scripts/genproto.sh                  every proto package
#   scripts/genproto.sh proxy/proxypb    only the named directories
#
# Pinned tools, so that every machine writes byte-identical output:
#   protoc              the one bundled in PyPI grpcio-tools==$GRPCIO_TOOLS,
#                       installed into .cache/protoc-venv (ignored by git)
#   protoc-gen-go       version in tools/go.mod (tool directive)
#   protoc-gen-go-grpc  version in tools/go.mod (tool directive)
# Needs python3 with venv and network access to PyPI on first run; later runs
# reuse the venv while its pin stamp matches.
set -euo pipefail
cd "$(dirname "$0")/.."

GRPCIO_TOOLS=1.85.1
MODULE=github.com/openpathways/pathways
# Every directory of the module that holds .proto files.
mapfile -t ALL_DIRS < <(git ls-files '*.proto' | xargs -n1 dirname | sort -u)

PYTHON=${PYTHON:-python3}
VENV=.cache/protoc-venv
BIN=.cache/protoc-bin

if [ $# -gt 0 ]; then
  dirs=("$@")
else
  dirs=("${ALL_DIRS[@]}")
fi

# protoc, from the pinned grpcio-tools wheel.
want="grpcio-tools==$GRPCIO_TOOLS"
if ! [ -x "$VENV/bin/python" ] || [ "$(cat "$VENV/.pins" 2>/dev/null)" != "$want" ]; then
  echo "genproto: installing $want into $VENV" >&2
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$want"
  printf '%s\n' "$want" >"$VENV/.pins"
fi
protoc=("$VENV/bin/python" -m grpc_tools.protoc)
wkt_include=$("$VENV/bin/python" -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')

# The protoc plugins, at the versions tools/go.mod pins.
mkdir -p "$BIN"
(cd tools && go build -o "../$BIN/" \
  google.golang.org/protobuf/cmd/protoc-gen-go \
  google.golang.org/grpc/cmd/protoc-gen-go-grpc)

for dir in "${dirs[@]}"; do
  dir=${dir%/}
  shopt -s nullglob
  protos=("$dir"/*.proto)
  stale=("$dir"/*.pb.go)
  shopt -u nullglob
  if [ ${#protos[@]} -eq 0 ]; then
    echo "genproto: no .proto files in $dir" >&2
    exit 1
  fi
  # Remove old output first so that a deleted .proto leaves no orphan.
  if [ ${#stale[@]} -gt 0 ]; then
    rm -f "${stale[@]}"
  fi
  # Import paths are relative to the repository root, e.g.
  # "internal/xlapb/xla_data.proto"; that is also the name each file is
  # registered under in the Go protobuf registry.
  "${protoc[@]}" \
    -I . -I "$wkt_include" \
    --plugin=protoc-gen-go="$BIN/protoc-gen-go" \
    --plugin=protoc-gen-go-grpc="$BIN/protoc-gen-go-grpc" \
    --go_out=. --go_opt=module="$MODULE" \
    --go-grpc_out=. --go-grpc_opt=module="$MODULE" \
    "${protos[@]}"
  echo "genproto: $dir: ${#protos[@]} proto files" >&2
done
