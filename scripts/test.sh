#!/usr/bin/env bash
# Set-up (scripts/setup.sh) then the whole test suite; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "${HEADMAP_BUILD_DIR:-build}" --output-on-failure -j"$(nproc)"
