#include "kernels/reference/cpu_engine.hpp"

#include <cmath>
#include <stdexcept>

#include "kernels/reference/acoustic.hpp"
#include "kernels/reference/cpml.hpp"
#include "kernels/reference/field_ops.hpp"

namespace seisfd::reference {

template <class T>
CpuEngine<T>::CpuEngine(const StepSpec& spec, const std::vector<float>& velocity, double dt)
    : spec_(spec) {
  const int64_t n = spec.layout.size();
  if (static_cast<int64_t>(velocity.size()) != n)
    throw std::invalid_argument("CpuEngine: velocity has " + std::to_string(velocity.size()) +
                                " values, layout needs " + std::to_string(n));
  vdt2_.resize(n);
  for (int64_t i = 0; i < n; ++i) vdt2_[i] = static_cast<T>(vdt_squared(velocity[i], dt));
  prev_.assign(n, T(0));
  cur_.assign(n, T(0));
  if (spec.cpml_on()) {
    if (spec.sponge_on())
      throw std::invalid_argument("CpuEngine: CPML and sponge damping on the same layers");
    cpml_ = std::make_unique<CpmlState<T>>(spec);
  }
}

template <class T>
CpuEngine<T>::~CpuEngine() = default;

template <class T>
std::string CpuEngine<T>::name() const {
  return sizeof(T) == 8 ? "cpu/fp64" : "cpu/fp32";
}

template <class T>
void CpuEngine<T>::set_injection(const SparsePoints& points, const std::vector<double>& traces,
                                 int nt) {
  if (static_cast<int64_t>(traces.size()) != static_cast<int64_t>(points.count()) * nt)
    throw std::invalid_argument("set_injection: traces size does not match points x nt");
  inj_ = points;
  inj_traces_ = traces;
  nt_inj_ = nt;
  inj_coef_.resize(points.index.size());
  for (size_t k = 0; k < points.index.size(); ++k) {
    const int64_t i = points.index[k];
    inj_coef_[k] = static_cast<T>(points.weight[k] *
                                  injection_factor(spec_, i, static_cast<double>(vdt2_[i])));
  }
}

template <class T>
void CpuEngine<T>::set_recording(const SparsePoints& points, int nt) {
  rec_ = points;
  nt_rec_ = nt;
  recorded_.assign(static_cast<size_t>(points.count()) * nt, 0.0);
}

template <class T>
void CpuEngine<T>::step(int n) {
  // The new field overwrites the oldest one in place, then the two swap roles.
  if (cpml_) cpml_->update_psi(cur_.data());
  acoustic_step<T>(spec_, prev_.data(), cur_.data(), prev_.data(), vdt2_.data());
  if (cpml_) cpml_->correct(cur_.data(), vdt2_.data(), prev_.data());
  std::swap(prev_, cur_);
  if (n < nt_inj_) {
    for (int p = 0; p < inj_.count(); ++p) {
      const T s = static_cast<T>(inj_traces_[static_cast<size_t>(p) * nt_inj_ + n]);
      for (int64_t k = inj_.offset[p]; k < inj_.offset[p + 1]; ++k)
        cur_[inj_.index[k]] += inj_coef_[k] * s;
    }
  }
  if (spec_.free_surface) free_surface_mirror(spec_, cur_.data());
  if (n + 1 < nt_rec_) {
    for (int p = 0; p < rec_.count(); ++p) {
      T acc = 0;
      for (int64_t k = rec_.offset[p]; k < rec_.offset[p + 1]; ++k)
        acc += static_cast<T>(rec_.weight[k]) * cur_[rec_.index[k]];
      recorded_[static_cast<size_t>(p) * nt_rec_ + n + 1] = static_cast<double>(acc);
    }
  }
}

template <class T>
void CpuEngine<T>::copy_field(const int lo[3], const int hi[3], const int dec[3],
                              std::vector<float>& out) {
  gather_box(spec_.layout, cur_.data(), lo, hi, dec, out);
}

template <class T>
Diagnostics CpuEngine<T>::diagnostics() {
  return field_diagnostics(spec_, cur_.data());
}

template class CpuEngine<float>;
template class CpuEngine<double>;

std::unique_ptr<WaveEngine> make_cpu_engine(const StepSpec& spec,
                                            const std::vector<float>& velocity, double dt,
                                            bool fp64) {
  if (fp64) return std::make_unique<CpuEngine<double>>(spec, velocity, dt);
  return std::make_unique<CpuEngine<float>>(spec, velocity, dt);
}

}  // namespace seisfd::reference
