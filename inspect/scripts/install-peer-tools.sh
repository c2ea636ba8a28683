#!/usr/bin/env bash
# Installs the peer tools `inspect crosscheck` compares its counts with:
#   cargo-llvm-lines (LLVM IR lines and copies per function), cargo-bloat (native bytes per
#   function). Both come from crates.io through `cargo install`; a tool already on PATH is
#   kept. Exits non-zero (with cargo's message) when an install fails, e.g. without network.
set -euo pipefail

install() {
    local tool=$1 subcommand=$2
    if cargo "$subcommand" --version >/dev/null 2>&1; then
        echo "install-peer-tools: $tool already installed ($(cargo "$subcommand" --version 2>/dev/null | head -n1))"
        return 0
    fi
    echo "install-peer-tools: cargo install --locked $tool"
    cargo install --locked "$tool"
}

install cargo-llvm-lines llvm-lines
install cargo-bloat bloat
