#!/usr/bin/env bash
# Installs what viva needs to build, run and test on Debian: the C libraries
# for cgo (opus, soxr, pocketsphinx, flite), the offline speech engines, sox,
# Chromium for the browser tests, PostgreSQL and Redis for the store and
# multi-node tests (started by the tests themselves, in temporary
# directories), Node.js for the room page's bundle, and
# livekit-server and SeaweedFS's weed (the S3-compatible object store the
# recordings tests run) into ./bin; then the room page's npm packages.
# As root it installs with apt-get; otherwise it prints the command to run.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(gcc pkg-config libopus-dev libopusfile-dev libsoxr-dev
  pocketsphinx pocketsphinx-en-us libpocketsphinx-dev libsphinxbase-dev
  flite flite1-dev sox chromium postgresql redis-server)
LIVEKIT_VERSION=v1.11.0
# SeaweedFS has no release tags in Go's form: this pseudo-version is its
# 2026-11-09 commit.
SEAWEEDFS_VERSION=v0.0.0-20261109003541-7506e5f91cd6

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm bundle the room page's JavaScript; any install of them will do.
if ! command -v npm >/dev/null 2>&1; then missing+=(nodejs npm); fi
if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ]; then
    echo "deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "deps: missing Debian packages. Run:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then export PATH=$PATH:/usr/local/go/bin; else
    echo "deps: Go 1.26 is required (https://go.dev/dl/), install it to /usr/local/go" >&2; exit 1
  fi
fi

if [ ! -x bin/livekit-server ] || ! bin/livekit-server --version 2>/dev/null | grep -q "${LIVEKIT_VERSION#v}"; then
  echo "deps: building livekit-server ${LIVEKIT_VERSION} into ./bin (takes a few minutes once)"
  mkdir -p bin
  tmp=$(mktemp -d)
  GOBIN="$tmp" GOFLAGS=-mod=mod go install "github.com/livekit/livekit-server/cmd/server@${LIVEKIT_VERSION}"
  mv "$tmp/server" bin/livekit-server
  rmdir "$tmp"
fi

# Only the tests need weed (`make bin/weed`, which `make test` runs):
# `make run` does not wait for it.
if [ "${1:-}" = "--with-weed" ] && [ ! -x bin/weed ]; then
  # Its go.mod has replace directives, so go install refuses it: build it
  # inside a copy of the module instead.
  echo "deps: building SeaweedFS's weed into ./bin (takes several minutes once)"
  mkdir -p bin
  src=$(go mod download -json "github.com/seaweedfs/seaweedfs@${SEAWEEDFS_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  tmp=$(mktemp -d)
  cp -r "$src/." "$tmp" && chmod -R u+w "$tmp"
  (cd "$tmp" && GOFLAGS=-mod=mod go build -o "$OLDPWD/bin/weed" ./weed)
  rm -rf "$tmp"
fi

if [ -f web/frontend/package-lock.json ] && [ ! -d web/frontend/node_modules ]; then
  echo "deps: installing the room page's npm packages"
  (cd web/frontend && npm ci --no-audit --no-fund --loglevel=error)
fi
