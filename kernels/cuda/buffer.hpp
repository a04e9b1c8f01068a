// Move-only owners of device resources. Kernels never allocate; these do, on the host side.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/compressible.hpp"

namespace seisfd::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) : n_(n) {
    if (n > 0) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
  }
  // With `compressible`, through the virtual memory API asking for generic compression
  // (compressed() says whether the driver granted it); a plain allocation otherwise.
  DeviceBuffer(size_t n, bool compressible, int device) : n_(n) {
    if (n == 0) return;
    if (!compressible) {
      CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
      return;
    }
    vmm_ = allocate_compressible(n * sizeof(T), device);
    p_ = static_cast<T*>(vmm_.ptr);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)),
        n_(std::exchange(o.n_, 0)),
        vmm_(std::exchange(o.vmm_, VmmAllocation{})) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
      vmm_ = std::exchange(o.vmm_, VmmAllocation{});
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }

  void reset() noexcept {
    if (vmm_.ptr)
      release_compressible(vmm_);  // never throws
    else if (p_)
      cudaFree(p_);  // destructors never throw
    p_ = nullptr;
    n_ = 0;
    vmm_ = VmmAllocation{};
  }
  bool compressed() const { return vmm_.compressed; }
  T* get() const { return p_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }

  void upload(const std::vector<T>& h, cudaStream_t s = nullptr) {
    CUDA_CHECK(cudaMemcpyAsync(p_, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, s));
  }
  void zero(cudaStream_t s = nullptr) {
    if (n_ > 0) CUDA_CHECK(cudaMemsetAsync(p_, 0, bytes(), s));
  }
  void download(std::vector<T>& h, cudaStream_t s = nullptr) const {
    h.resize(n_);
    CUDA_CHECK(cudaMemcpyAsync(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
  }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
  VmmAllocation vmm_;
};

class Stream {
 public:
  // On the current device, or on `device` (the current device is left as it was).
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  explicit Stream(int device) {
    int previous = 0;
    CUDA_CHECK(cudaGetDevice(&previous));
    if (previous != device) CUDA_CHECK(cudaSetDevice(device));
    const cudaError_t e = cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking);
    if (previous != device) cudaSetDevice(previous);
    CUDA_CHECK(e);
  }
  ~Stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void synchronize() const { CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&e_)); }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) { CUDA_CHECK(cudaEventRecord(e_, s)); }
  // Milliseconds from `start` to this event (both completed).
  float since(const Event& start) const {
    CUDA_CHECK(cudaEventSynchronize(e_));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace seisfd::cuda
