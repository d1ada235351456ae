#!/usr/bin/env bash
# Installs headmap's Debian 12 build dependencies (when missing), configures a Release build in
# ./build and builds everything. Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make pkg-config
  qt6-base-dev libqt6svg6-dev libgl-dev libqcustomplot-dev
  libeigen3-dev nlohmann-json3-dev libzip-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  fonts-dejavu-core)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "headmap: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build_dir="${HEADMAP_BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release ${HEADMAP_CMAKE_ARGS:-}
cmake --build "$build_dir" -j"$(nproc)"
