// GPU tests skip visibly without a device, and fail instead under SEISFD_REQUIRE_GPU=1.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "kernels/cuda_backend.hpp"

namespace seisfd::test {

inline bool gpu_required() {
  const char* e = std::getenv("SEISFD_REQUIRE_GPU");
  return e && std::strcmp(e, "0") != 0 && *e;
}

inline bool have_gpu() {
  return !cuda_devices().empty();
}

// Engine options naming a variant (or "auto").
inline CudaEngineOptions variant(const std::string& name) {
  CudaEngineOptions o;
  o.variant = name;
  return o;
}

// A registry name as a test name ("acoustic/o8/naive" -> "acoustic_o8_naive"), for
// INSTANTIATE_TEST_SUITE_P over variant names.
struct VariantTestName {
  std::string operator()(const ::testing::TestParamInfo<std::string>& i) const {
    std::string n = i.param;
    for (char& c : n)
      if (c == '/') c = '_';
    return n;
  }
};

}  // namespace seisfd::test

// Use at the top of a GPU test body.
#define SEISFD_REQUIRE_DEVICE_OR_SKIP()                                                        \
  do {                                                                                         \
    if (!::seisfd::test::have_gpu()) {                                                         \
      if (::seisfd::test::gpu_required()) FAIL() << "SEISFD_REQUIRE_GPU=1 but no CUDA device"; \
      GTEST_SKIP() << (::seisfd::cuda_built() ? "no CUDA device" : "built without CUDA");      \
    }                                                                                          \
  } while (0)
