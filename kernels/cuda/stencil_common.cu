#include <cuda_runtime.h>

#include <climits>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

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

std::string can_implement_vector_zmarch(const StepSpec& s, int) {
  std::string why = check_region(s);
  if (why.empty()) why = check_vector_layout(s);
  return why;
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

int resident_blocks(int device, const void* kernel, int threads, size_t dynamic_smem) {
  static std::mutex mu;
  static std::map<std::tuple<int, const void*, int, size_t>, int> slots_of;
  // The largest dynamic shared memory asked of each kernel so far: the attribute is a limit
  // for all its launches, so it only grows (a kernel launched with several sizes).
  static std::map<std::pair<int, const void*>, size_t> allowed;
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_tuple(device, kernel, threads, dynamic_smem);
  const auto it = slots_of.find(key);
  if (it != slots_of.end()) return it->second;
  int current = -1;
  CUDA_CHECK(cudaGetDevice(&current));
  if (current != device)
    throw std::logic_error("resident_blocks: launch for device " + std::to_string(device) +
                           " while device " + std::to_string(current) +
                           " is current (the caller must guard the device)");
  size_t& limit = allowed[std::make_pair(device, kernel)];
  if (dynamic_smem > limit) {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(dynamic_smem)));
    limit = dynamic_smem;
  }
  int per_sm = 0, sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_smem));
  return slots_of[key] = per_sm * sms;
}

}  // namespace seisfd::cuda
