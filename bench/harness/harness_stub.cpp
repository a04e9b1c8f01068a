// The benchmark harness in a build without CUDA: nothing can be measured.
#include <stdexcept>

#include "bench/harness/harness.hpp"

namespace seisfd::bench {

namespace {
[[noreturn]] void no_cuda() {
  throw std::runtime_error("bench: this seisfd was built without CUDA (SEISFD_CUDA=OFF)");
}
}  // namespace

VerifyResult verify_variant(const KernelVariant&, const StepSpec&, int, uint32_t, double,
                            ModelPrecision) {
  no_cuda();
}
Timing time_variant(const KernelVariant&, const StepSpec&, int, int, int, bool, ModelPrecision) {
  no_cuda();
}
ImagingTiming time_imaging(const KernelVariant&, const StepSpec&, int, int, int) {
  no_cuda();
}
Timing time_stream_ceiling(const StepSpec&, Physics, int, int, int) {
  no_cuda();
}
double copy_bandwidth_gbps(size_t, int) {
  no_cuda();
}
PeerBandwidth peer_bandwidth(int, int, size_t, int) {
  no_cuda();
}
double copy_bandwidth_on(int, size_t, int) {
  no_cuda();
}
DeviceSummary current_device() {
  no_cuda();
}

}  // namespace seisfd::bench
