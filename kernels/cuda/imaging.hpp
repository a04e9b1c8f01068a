// The CUDA engine's per-cell arrays (kernels/engine.hpp CellArray) and the kernels of Born
// modelling and imaging (docs/migration.md §2-§3) over the updated region. Plain C++ launch
// functions (runtime API types only).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "kernels/cuda/buffer.hpp"
#include "kernels/cuda/field_ops.hpp"
#include "kernels/engine.hpp"

namespace seisfd::cuda {

// Where an array's values are, for the kernels: fp32 or binary16, in device memory or in
// pinned host memory mapped for the device (read over the bus: kHost arrays are for storage).
struct ArrayRef {
  void* p = nullptr;
  bool half = false;
};

class CudaArray final : public CellArray {
 public:
  CudaArray(ArrayKind kind, int64_t n, int device, cudaStream_t s);
  // A view of n fp32 values on the device that someone else owns (a state's level): not
  // zeroed, not freed.
  CudaArray(const float* external, int64_t n, int device, cudaStream_t s);
  ~CudaArray() override;
  CudaArray(const CudaArray&) = delete;
  CudaArray& operator=(const CudaArray&) = delete;

  ArrayRef ref() const { return {device_ptr_, kind() == ArrayKind::kDeviceHalf}; }
  int64_t size() const override { return n_; }
  void upload(const std::vector<float>& values) override;
  std::vector<double> download() const override;
  std::vector<float> download_float() const override;
  void zero() override;

 private:
  int64_t n_;
  int device_;
  cudaStream_t stream_;
  DeviceBuffer<float> f32_;
  DeviceBuffer<uint16_t> f16_;
  void* host_ = nullptr;        // kHost: pinned, mapped
  void* device_ptr_ = nullptr;  // what kernels dereference
};

// A level of a field and an array: array = level, level = array (over the whole layout).
void launch_level_to_array(const float* level, ArrayRef out, int64_t n, cudaStream_t s);
void launch_array_to_level(ArrayRef in, float* level, int64_t n, cudaStream_t s);

// Over the updated region of spec, g its sponge term, d2 = (1+g) cur - 2 prev + (1-g) older:
//   out = scale * weight * d2 (weight.p null: 1), zero elsewhere
void launch_second_difference(const StepSpec& spec, const float* cur, const float* prev,
                              ArrayRef older, ArrayRef weight, float scale, ArrayRef out,
                              cudaStream_t s);
//   image += scale * a * d2
void launch_correlate_second_difference(const StepSpec& spec, ArrayRef image, ArrayRef a,
                                        const float* cur, const float* prev, ArrayRef older,
                                        float scale, cudaStream_t s);
//   image += scale * a * b (b.p of a level: ArrayRef{level, false})
void launch_correlate(const StepSpec& spec, ArrayRef image, ArrayRef a, ArrayRef b, float scale,
                      cudaStream_t s);
//   image += scale * u * (1 + g) * (what `inj` injects at step *step + offset), on its cells
//   inside the region: the injection's share of the second difference of the step that a fused
//   imaging update leaves out (it correlates the update's own second difference)
void launch_correlate_injection(const StepSpec& spec, ArrayRef image, ArrayRef u,
                                const InjectionView& inj, const int* step, int offset, float scale,
                                cudaStream_t s);
//   field += (v dt)^2 / (1 + g) * volume (a volume source injected as a point source is)
void launch_inject_volume(const StepSpec& spec, float* field, const float* vdt2, ArrayRef volume,
                          cudaStream_t s);

}  // namespace seisfd::cuda
