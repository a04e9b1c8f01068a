#include <cuda_runtime.h>

#include <climits>
#include <cmath>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/stencil_common.cuh"

namespace seisfd::cuda {

std::string check_region(const StepSpec& s) {
  const int n[3] = {s.layout.nz, s.layout.ny, s.layout.nx};
  const char* axis[3] = {"z", "y", "x"};
  for (int a = 0; a < 3; ++a) {
    if (s.begin[a] < s.radius || s.end[a] > n[a] - s.radius)
      return std::string("updated region must leave a halo of radius cells (axis ") + axis[a] + ")";
    if (s.end[a] <= s.begin[a]) return std::string("empty updated region (axis ") + axis[a] + ")";
  }
  if (s.layout.sz > INT_MAX / 2) return "z planes over 2^30 elements (32-bit in-plane offsets)";
  return {};
}

std::string check_vector_layout(const StepSpec& s) {
  if (s.layout.sy % 32 != 0) return "rows must be padded to 32 floats (layout.sy % 32 == 0)";
  return {};
}

int plan_z_chunk(int tiles, int nz, int slots, double warmup) {
  if (slots <= 0) slots = 1;
  double best = 1e300;
  int best_len = nz;
  // Candidate lengths ceil(nz / k): time ~ waves x (length + warmup).
  for (int k = 1; k <= nz && k <= 4096; ++k) {
    const int len = (nz + k - 1) / k;
    const long long blocks = 1LL * tiles * ((nz + len - 1) / len);
    const long long waves = (blocks + slots - 1) / slots;
    const double t = static_cast<double>(waves) * (len + warmup);
    if (t < best * 0.999) {
      best = t;
      best_len = len;
    }
  }
  return best_len;
}

int resident_blocks(const void* kernel, int threads, size_t dynamic_smem) {
  int dev = 0, per_sm = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_smem));
  return per_sm * sms;
}

}  // namespace seisfd::cuda
