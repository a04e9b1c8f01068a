#!/usr/bin/env bash
# Installs the Debian packages seisfd builds against, skipping those already present.
# CUDA is optional: with nvcc on PATH (or in /usr/local/cuda/bin) the CUDA backend is built too.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config libhdf5-dev libcli11-dev libtomlplusplus-dev
      nlohmann-json3-dev libgtest-dev)
# The Python package and its tests (python/), run by Debian's python3.
pkgs+=(python3 python3-h5py python3-numpy python3-matplotlib python3-pytest python3-segyio)
# SEG-Y (optional at build, CMake SEISFD_SEGY; its tests read it back with python3-segyio).
pkgs+=(libsegyio-dev)
# MPI: launches of several ranks (optional at build, CMake SEISFD_MPI; the MPI tests run mpirun).
pkgs+=(libopenmpi-dev openmpi-bin)
# clang and its libFuzzer runtime: the fuzzing test (scripts/fuzz.sh, the `fuzz` preset).
pkgs+=(clang libclang-rt-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "seisfd setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Make nvcc visible to CMake when the toolkit is installed in its default place.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "seisfd setup: nvcc found in /usr/local/cuda/bin (add it to PATH for the CUDA backend)"
fi
