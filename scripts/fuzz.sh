#!/usr/bin/env bash
# The libFuzzer run over the config parser and the plan (tests/fuzz): builds the `fuzz` preset
# (clang, ASan, UBSan) in build/fuzz and runs its tests: every seed of tests/fuzz/corpus, then
# SEISFD_FUZZ_SECONDS (60) of fuzzing. The CPU test suite runs this as the test
# Fuzz.ConfigParser; exit 77 (a visible skip) where clang or its libFuzzer runtime is missing
# (scripts/setup.sh installs both).
set -uo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang++ > /dev/null; then
  echo "SKIPPED: no clang++ (Debian: clang libclang-rt-dev, as scripts/setup.sh installs)"
  exit 77
fi
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
    clang++ -x c++ -fsanitize=fuzzer - -o /tmp/seisfd_fuzz_probe.$$ 2> /dev/null; then
  echo "SKIPPED: clang++ cannot link -fsanitize=fuzzer (Debian: libclang-rt-dev)"
  exit 77
fi
rm -f /tmp/seisfd_fuzz_probe.$$
cmake --preset fuzz > /dev/null || exit 1
cmake --build --preset fuzz -j "${SEISFD_FUZZ_JOBS:-2}" > build/fuzz/build.log 2>&1 ||
  { tail -30 build/fuzz/build.log; exit 1; }
ctest --preset fuzz
