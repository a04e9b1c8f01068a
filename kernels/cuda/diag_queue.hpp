// Asynchronous diagnostics of a CUDA engine: reductions into device accumulators, published by
// a one-thread kernel into a ring of pinned host memory mapped for the device (field_ops.hpp:
// DiagRing), and collected by the host behind events, oldest first. The engine enqueues the
// reductions and the publishing launch on its stream; this class keeps the ring, the events
// and the bookkeeping of which field each slot holds.
#pragma once
#include <cuda_runtime_api.h>

#include <deque>
#include <vector>

#include "kernels/cuda/buffer.hpp"
#include "kernels/cuda/field_ops.hpp"
#include "kernels/engine.hpp"

namespace seisfd::cuda {

class DiagQueue {
 public:
  static constexpr int kRing = 64;              // reductions in flight before the host waits
  static constexpr int kPerLaunch = kRing / 2;  // accumulators: reductions in one launch at most

  explicit DiagQueue(cudaStream_t s);
  ~DiagQueue();
  DiagQueue(const DiagQueue&) = delete;
  DiagQueue& operator=(const DiagQueue&) = delete;

  // Accumulator j (< kPerLaunch) of the next launch; the ring they are published to.
  DiagAccum* acc(int j = 0) const { return acc_.get() + j; }
  DiagRing* ring() const { return ring_.get(); }

  // Waits (oldest first) until `count` more reductions fit in the ring. Call before enqueuing.
  void make_room(int count);
  // The reduction of the current field `step` by the separate kernel, published at once.
  void reduce_now(const float* field, const StepSpec& spec, int step, cudaStream_t s);
  // Engine::diagnostics: the same reduction into an accumulator of its own, waited for.
  Diagnostics reduce_and_wait(const float* field, const StepSpec& spec, cudaStream_t s);
  // The launch just enqueued on s published the reductions of `fields`, in that order.
  void published(const std::vector<int>& fields, cudaStream_t s);
  // Engine::completed_diagnostics.
  std::vector<TaggedDiagnostics> completed(int max_pending);

 private:
  struct Pending {
    int step;         // the field reduced
    unsigned number;  // 1 + the reductions published before it (its slot: (number - 1) % kRing)
    int event;        // events_ index recorded after its launch
  };
  void collect_front();

  DeviceBuffer<DiagAccum> acc_;
  DeviceBuffer<DiagAccum> waited_;  // reduce_and_wait's
  DeviceBuffer<DiagRing> ring_;
  DiagAccum* ring_host_ = nullptr;  // pinned, mapped
  cudaEvent_t events_[kRing] = {};
  int next_event_ = 0;
  unsigned published_ = 0;  // reductions enqueued
  std::deque<Pending> pending_;
  std::vector<TaggedDiagnostics> collected_;
};

}  // namespace seisfd::cuda
