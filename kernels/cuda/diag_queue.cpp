#include "kernels/cuda/diag_queue.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace seisfd::cuda {

DiagQueue::DiagQueue(cudaStream_t s) {
  void* ring = nullptr;
  CUDA_CHECK(cudaHostAlloc(&ring, kRing * sizeof(DiagAccum), cudaHostAllocMapped));
  std::memset(ring, 0, kRing * sizeof(DiagAccum));
  ring_host_ = static_cast<DiagAccum*>(ring);
  void* ring_device = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(&ring_device, ring, 0));
  acc_ = DeviceBuffer<DiagAccum>(kPerLaunch);
  waited_ = DeviceBuffer<DiagAccum>(1);
  launch_diag_reset(acc_.get(), s, kPerLaunch);
  ring_ = DeviceBuffer<DiagRing>(1);
  ring_.upload(std::vector<DiagRing>{{static_cast<DiagAccum*>(ring_device), kRing, 0}}, s);
  for (auto& e : events_) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  CUDA_CHECK(cudaStreamSynchronize(s));  // the upload's source is gone after this
}

DiagQueue::~DiagQueue() {
  // The owner synchronized its stream first (destructors never throw).
  for (auto& e : events_) cudaEventDestroy(e);
  cudaFreeHost(ring_host_);
}

void DiagQueue::make_room(int count) {
  while (!pending_.empty() && pending_.size() + count > static_cast<size_t>(kRing)) {
    CUDA_CHECK(cudaEventSynchronize(events_[pending_.front().event]));
    collect_front();
  }
}

void DiagQueue::reduce_now(const float* field, const StepSpec& spec, int step, cudaStream_t s) {
  make_room(1);
  launch_diagnostics(field, spec, acc_.get(), s);
  launch_diag_publish(ring_.get(), acc_.get(), 1, s);
  published({step}, s);
}

Diagnostics DiagQueue::reduce_and_wait(const float* field, const StepSpec& spec, cudaStream_t s) {
  launch_diag_reset(waited_.get(), s);
  launch_diagnostics(field, spec, waited_.get(), s);
  std::vector<DiagAccum> h;
  waited_.download(h, s);
  return to_diagnostics(h[0]);
}

void DiagQueue::published(const std::vector<int>& fields, cudaStream_t s) {
  if (fields.empty()) return;
  const int ev = next_event_;
  next_event_ = (next_event_ + 1) % kRing;  // at most kRing - 1 other launches are pending
  CUDA_CHECK(cudaEventRecord(events_[ev], s));
  for (int m : fields) pending_.push_back({m, ++published_, ev});
}

std::vector<TaggedDiagnostics> DiagQueue::completed(int max_pending) {
  while (!pending_.empty()) {
    const cudaEvent_t e = events_[pending_.front().event];
    if (pending_.size() > static_cast<size_t>(std::max(0, max_pending))) {
      CUDA_CHECK(cudaEventSynchronize(e));
    } else {
      const cudaError_t q = cudaEventQuery(e);
      if (q == cudaErrorNotReady) break;
      CUDA_CHECK(q);
    }
    collect_front();
  }
  std::vector<TaggedDiagnostics> out;
  out.swap(collected_);
  return out;
}

void DiagQueue::collect_front() {
  const Pending p = pending_.front();
  pending_.pop_front();
  // Final: the event after its launch has completed.
  const DiagAccum a = ring_host_[(p.number - 1) % kRing];
  if (a.published != p.number)  // a launch that did not publish: an engine defect
    throw std::logic_error("cuda engine: diagnostics slot of step " + std::to_string(p.step) +
                           " holds reduction " + std::to_string(a.published) + ", expected " +
                           std::to_string(p.number));
  collected_.push_back({p.step, to_diagnostics(a)});
}

}  // namespace seisfd::cuda
