#!/usr/bin/env bash
# The GPU machine has no toml++ and no network: copy the header-only library from this
# machine's Debian package into .deps/include (git-ignored), to be carried with the call.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f /usr/include/toml++/toml.h ] || { apt-get update -qq && apt-get install -y -qq libtomlplusplus-dev; }
mkdir -p .deps/include
rm -rf .deps/include/toml++
cp -r /usr/include/toml++ .deps/include/
echo "toml++ headers in .deps/include"
