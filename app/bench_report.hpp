// `seisfd bench`'s results: a row per variant, size, order and physics, printed as a table and
// written to the results directory as CSV and JSON (bench/results names them).
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "app/bench.hpp"
#include "bench/harness/harness.hpp"

namespace seisfd::app {

// Each variant is verified against the fp32 reference before it is timed: kVerifySteps sets the
// length of that run (bench/harness), kVerifyTol the relative L2 error it must stay within.
inline constexpr double kVerifyTol = 1e-5;
inline constexpr int kVerifySteps = 3;

struct BenchRow {
  int size = 0, order = 0;
  std::string physics, variant, technique, status = "ok";
  long long cells = 0;
  double ms_per_step = NAN, gcells = NAN, gbps = NAN, ceiling_gcells = NAN, fraction = NAN;
  double copy_gbps = NAN, verify_err = NAN, spread = NAN;
  bench::ImagingTiming imaging{NAN, NAN, NAN, NAN};  // with --imaging
};

// An adjoint step's time with imaging over the step's alone, less 1 (0.25: 25% dearer).
inline double imaging_extra(double with, double without) {
  return with / without - 1.0;
}

// The table on stdout; with --imaging, the adjoint step's imaging costs after it.
void print_table(const std::vector<BenchRow>& rows, const bench::DeviceSummary& d);
void print_imaging(const std::vector<BenchRow>& rows);
// <out>/<stamp>_<device>_bench-<physics...>.csv and .json.
void write_files(const std::vector<BenchRow>& rows, const bench::DeviceSummary& d,
                 const BenchArgs& a, const std::string& stamp);

}  // namespace seisfd::app
