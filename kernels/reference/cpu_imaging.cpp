// The CPU engine's per-cell arrays and the operations of Born modelling and imaging
// (kernels/engine.hpp; docs/migration.md §2-§3), over the updated region.
#include "kernels/reference/cpu_array.hpp"
#include "kernels/reference/cpu_engine.hpp"
#include "kernels/reference/denormals.hpp"

namespace seisfd::reference {

template <class T>
std::unique_ptr<CellArray> CpuEngine<T>::make_array(ArrayKind kind, int64_t cells) {
  return std::make_unique<CpuArray<T>>(kind, cells);
}

template <class T>
void CpuEngine<T>::copy(const WaveState& s, FieldRef f, CellArray& out) {
  const auto& st = own_state<T>(s, "copy");
  const std::vector<T>& lv =
      f.level == Level::kCurrent ? st.current(f.field) : st.previous(f.field);
  auto& a = own_array<T>(out);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < a.size(); ++i) a.set(i, lv[i]);
}

template <class T>
void CpuEngine<T>::copy(const CellArray& in, WaveState& s, FieldRef f) {
  auto& st = own_state<T>(s, "copy");
  std::vector<T>& lv = f.level == Level::kCurrent ? st.current(f.field) : st.previous(f.field);
  const auto& a = own_array<T>(in);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < a.size(); ++i) lv[i] = a.get(i);
}

template <class T>
long long CpuEngine<T>::copy_async(const CellArray& from, CellArray& to) {
  const auto& a = own_array<T>(from);
  auto& b = own_array<T>(to);
  if (a.size() != b.size() ||
      (a.kind() == ArrayKind::kDeviceHalf) != (b.kind() == ArrayKind::kDeviceHalf))
    throw std::invalid_argument("copy_async: arrays of different size or precision");
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < a.size(); ++i) b.set(i, a.get(i));
  return 0;
}

template <class T>
void CpuEngine<T>::second_difference(const WaveState& s, int field, const CellArray& older,
                                     const CellArray* weight, double scale, CellArray& out) {
  const FlushDenormals flush;
  const auto& st = own_state<T>(s, "second_difference");
  const std::vector<T>& c = st.current(field);
  const std::vector<T>& p = st.previous(field);
  const auto& o = own_array<T>(older);
  const CpuArray<T>* w = weight ? &own_array<T>(*weight) : nullptr;
  auto& r = own_array<T>(out);
  r.zero();
  const T k = static_cast<T>(scale);
  for_region([&](int64_t i, T g) {
    const T d2 = (T(1) + g) * c[i] - T(2) * p[i] + (T(1) - g) * o.get(i);
    r.set(i, k * (w ? w->get(i) : T(1)) * d2);
  });
}

template <class T>
void CpuEngine<T>::correlate_second_difference(CellArray& image, const CellArray& a,
                                               const WaveState& s, int field,
                                               const CellArray& older, double scale) {
  const FlushDenormals flush;
  const auto& st = own_state<T>(s, "correlate_second_difference");
  const std::vector<T>& c = st.current(field);
  const std::vector<T>& p = st.previous(field);
  const auto& o = own_array<T>(older);
  const auto& u = own_array<T>(a);
  auto& img = own_array<T>(image);
  const T k = static_cast<T>(scale);
  for_region([&](int64_t i, T g) {
    const T d2 = (T(1) + g) * c[i] - T(2) * p[i] + (T(1) - g) * o.get(i);
    img.set(i, img.get(i) + k * u.get(i) * d2);
  });
}

template <class T>
void CpuEngine<T>::correlate(CellArray& image, const CellArray& a, const CellArray& b,
                             double scale) {
  const FlushDenormals flush;
  const auto& u = own_array<T>(a);
  const auto& v = own_array<T>(b);
  auto& img = own_array<T>(image);
  const T k = static_cast<T>(scale);
  for_region([&](int64_t i, T) { img.set(i, img.get(i) + k * u.get(i) * v.get(i)); });
}

template <class T>
void CpuEngine<T>::correlate(CellArray& image, const CellArray& a, const WaveState& s, FieldRef f,
                             double scale) {
  const FlushDenormals flush;
  const auto& st = own_state<T>(s, "correlate");
  const std::vector<T>& c = f.level == Level::kCurrent ? st.current(f.field) : st.previous(f.field);
  const auto& u = own_array<T>(a);
  auto& img = own_array<T>(image);
  const T k = static_cast<T>(scale);
  for_region([&](int64_t i, T) { img.set(i, img.get(i) + k * u.get(i) * c[i]); });
}

#define SEISFD_CPU_IMAGING(T)                                                                     \
  template std::unique_ptr<CellArray> CpuEngine<T>::make_array(ArrayKind, int64_t);               \
  template void CpuEngine<T>::copy(const WaveState&, FieldRef, CellArray&);                       \
  template void CpuEngine<T>::copy(const CellArray&, WaveState&, FieldRef);                       \
  template long long CpuEngine<T>::copy_async(const CellArray&, CellArray&);                      \
  template void CpuEngine<T>::second_difference(const WaveState&, int, const CellArray&,          \
                                                const CellArray*, double, CellArray&);            \
  template void CpuEngine<T>::correlate_second_difference(                                        \
      CellArray&, const CellArray&, const WaveState&, int, const CellArray&, double);             \
  template void CpuEngine<T>::correlate(CellArray&, const CellArray&, const CellArray&, double);  \
  template void CpuEngine<T>::correlate(CellArray&, const CellArray&, const WaveState&, FieldRef, \
                                        double);
SEISFD_CPU_IMAGING(float)
SEISFD_CPU_IMAGING(double)
#undef SEISFD_CPU_IMAGING

}  // namespace seisfd::reference
