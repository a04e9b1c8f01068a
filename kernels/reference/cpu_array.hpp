// The CPU engine's per-cell arrays (kernels/engine.hpp CellArray): host memory in the engine's
// real type, or binary16 for ArrayKind::kDeviceHalf so that fp16 storage rounds as on a GPU.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/engine.hpp"
#include "kernels/huge_pages.hpp"
#include "kernels/reference/half.hpp"

namespace seisfd::reference {

template <class T>
class CpuArray final : public CellArray {
 public:
  CpuArray(ArrayKind kind, int64_t n) : CellArray(kind) {
    if (kind == ArrayKind::kDeviceHalf)
      h_.assign(static_cast<size_t>(n), 0);
    else
      v_.assign(static_cast<size_t>(n), T(0));
  }
  int64_t size() const override {
    return kind() == ArrayKind::kDeviceHalf ? static_cast<int64_t>(h_.size())
                                            : static_cast<int64_t>(v_.size());
  }
  T get(int64_t i) const {
    return kind() == ArrayKind::kDeviceHalf ? static_cast<T>(half_to_float(h_[i])) : v_[i];
  }
  // The values in the engine's real type (not for half-precision arrays).
  T* data() { return v_.data(); }
  const T* data() const { return v_.data(); }
  void set(int64_t i, T x) {
    if (kind() == ArrayKind::kDeviceHalf)
      h_[i] = float_to_half(static_cast<float>(x));
    else
      v_[i] = x;
  }
  void upload(const std::vector<float>& values) override {
    if (static_cast<int64_t>(values.size()) != size())
      throw std::invalid_argument("array upload: " + std::to_string(values.size()) +
                                  " values for " + std::to_string(size()) + " cells");
    const int64_t n = size();
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) set(i, static_cast<T>(values[i]));
  }
  std::vector<double> download() const override {
    return converted<double>();
  }
  std::vector<float> download_float() const override {
    return converted<float>();
  }
  void zero() override {
    std::fill(v_.begin(), v_.end(), T(0));
    std::fill(h_.begin(), h_.end(), uint16_t{0});
  }

 private:
  template <class D>
  std::vector<D> converted() const {
    const int64_t n = size();
    std::vector<D> out = huge_vector<D>(static_cast<size_t>(n));
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<D>(get(i));
    return out;
  }
  std::vector<T> v_;
  std::vector<uint16_t> h_;
};

template <class T>
const CpuArray<T>& own_array(const CellArray& a) {
  const auto* c = dynamic_cast<const CpuArray<T>*>(&a);
  if (!c) throw std::invalid_argument("array: made by another engine");
  return *c;
}
template <class T>
CpuArray<T>& own_array(CellArray& a) {
  auto* c = dynamic_cast<CpuArray<T>*>(&a);
  if (!c) throw std::invalid_argument("array: made by another engine");
  return *c;
}

}  // namespace seisfd::reference
