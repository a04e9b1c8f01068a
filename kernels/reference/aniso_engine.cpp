#include "kernels/reference/aniso_engine.hpp"

#include "kernels/reference/field_ops.hpp"

#include <cmath>
#include <stdexcept>

namespace seisfd::reference {

template <class T>
AnisoCpuEngine<T>::AnisoCpuEngine(const StepSpec& spec, const AnisoModel& m, double dt)
    : spec_(spec), kind_(m.kind), w_(spec) {
  const int64_t n = spec.layout.size();
  const std::string who = std::string("aniso engine (") + aniso_name(m.kind) + "): ";
  if (spec.cpml_on() && m.kind == AnisoKind::kTti)
    throw std::invalid_argument(who + kTtiCpmlRefusal);
  if (spec.cpml_on() && spec.sponge_on())
    throw std::invalid_argument(who + "CPML and sponge damping on the same layers");
  const auto check = [&](const std::vector<float>& v, const char* what) {
    if (static_cast<int64_t>(v.size()) != n)
      throw std::invalid_argument(who + what + " has " + std::to_string(v.size()) +
                                  " values, layout needs " + std::to_string(n));
  };
  check(m.velocity, "velocity");
  check(m.epsilon, "epsilon");
  check(m.delta, "delta");
  if (m.kind == AnisoKind::kTti) {
    check(m.theta, "theta");
    check(m.phi, "phi");
  }
  if (const int64_t bad = count_delta_above_epsilon(m))
    throw std::invalid_argument(who + std::to_string(bad) +
                                " cells have delta > epsilon (the p/q system is unstable there)");
  c_.vdt2.resize(n);
  c_.E.resize(n);
  c_.D.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    c_.vdt2[i] = static_cast<T>(vdt_squared(m.velocity[i], dt));
    c_.E[i] = static_cast<T>(1.0 + 2.0 * static_cast<double>(m.epsilon[i]));
    c_.D[i] = static_cast<T>(std::sqrt(1.0 + 2.0 * static_cast<double>(m.delta[i])));
  }
  if (m.kind == AnisoKind::kTti) {
    const Layout& l = spec.layout;
    for (int ax = 0; ax < 3; ++ax) {
      c_.n[ax].resize(n);
      c_.a[ax].resize(n);
      gx_[ax].assign(n, T(0));
      gy_[ax].assign(n, T(0));
    }
    for (int64_t i = 0; i < n; ++i) {
      int z, y, x;
      l.coords(i, z, y, x);
      // Mirror rows above a free surface hold the reflected axis of their image row.
      int64_t src = i;
      bool flip = false;
      if (spec.free_surface && z < spec.surface && 2 * spec.surface - z < l.nz) {
        src = l.idx(2 * spec.surface - z, y, x);
        flip = true;
      }
      double nx, ny, nz;
      symmetry_axis(m.theta[src], m.phi[src], nx, ny, nz);
      if (flip) nz = -nz;
      const double comp[3] = {nz, ny, nx};
      for (int ax = 0; ax < 3; ++ax) {
        c_.n[ax][i] = static_cast<T>(comp[ax]);
        c_.a[ax][i] = static_cast<T>(comp[ax] * comp[ax]);
      }
    }
  }
  p_prev_.assign(n, T(0));
  p_cur_.assign(n, T(0));
  q_prev_.assign(n, T(0));
  q_cur_.assign(n, T(0));
  if (spec.cpml_on()) cpml_ = std::make_unique<CpmlState<T>>(spec);
}

template <class T>
void AnisoCpuEngine<T>::set_adjoint(bool on) {
  if (on && cpml_)
    throw std::invalid_argument(
        "adjoint: not implemented for boundary.type = \"cpml\" (exact for \"sponge\" and "
        "\"none\")");
  adjoint_ = on;
}

template <class T>
std::string AnisoCpuEngine<T>::name() const {
  return std::string("cpu/") + aniso_name(kind_) + (sizeof(T) == 8 ? "/fp64" : "/fp32");
}

template <class T>
void AnisoCpuEngine<T>::set_injection(const SparsePoints& points, const std::vector<double>& traces,
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
                                  injection_factor(spec_, i, static_cast<double>(c_.vdt2[i])));
  }
}

template <class T>
void AnisoCpuEngine<T>::set_recording(const SparsePoints& points, int nt) {
  rec_ = points;
  nt_rec_ = nt;
  recorded_.assign(static_cast<size_t>(points.count()) * nt, 0.0);
}

template <class T>
void AnisoCpuEngine<T>::update(const T* X, const T* Y) {
  const StepSpec& s = spec_;
  const Layout& l = s.layout;
  const int R = s.radius;
  const bool tti = kind_ == AnisoKind::kTti;
  T* gx[3] = {nullptr, nullptr, nullptr};
  T* gy[3] = {nullptr, nullptr, nullptr};
  if (tti) {
    for (int ax = 0; ax < 3; ++ax) {
      gx[ax] = gx_[ax].data();
      gy[ax] = gy_[ax].data();
    }
    cross_intermediates(s, w_, c_, X, gx);
    cross_intermediates(s, w_, c_, Y, gy);
    if (s.free_surface) {
      mirror_intermediates(s, gx);
      mirror_intermediates(s, gy);
    }
  }
  // CPML (forward only): x and y are driven by X = p, z by Y = q (kernels/cpml.hpp).
  const T* cpml_src[3] = {Y, X, X};
  if (cpml_) cpml_->update_psi(cpml_src);
  const bool sponge = s.sponge_on();
  const bool adjoint = adjoint_;
  T* pn = p_prev_.data();  // next overwrites prev in place
  T* qn = q_prev_.data();
  const T* pc = p_cur_.data();
  const T* qc = q_cur_.data();
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = s.begin[0]; z < s.end[0]; ++z)
    for (int y = s.begin[1]; y < s.end[1]; ++y)
      for (int x = s.begin[2]; x < s.end[2]; ++x) {
        const int64_t i = l.idx(z, y, x);
        T h0x, hzx, hzy;
        if (!tti) {
          T h0y;
          vti_parts(w_, l, R, X, i, h0x, hzx);
          vti_parts(w_, l, R, Y, i, h0y, hzy);
        } else {
          hzx = tti_hz(w_, l, R, c_, X, gx, i);
          hzy = tti_hz(w_, l, R, c_, Y, gy, i);
          h0x = laplacian_at(w_.lap, l, R, X, i) - hzx;
        }
        T fp, fq;
        if (!adjoint) {
          fp = c_.E[i] * h0x + c_.D[i] * hzy;
          fq = c_.D[i] * h0x + hzy;
        } else {
          fp = h0x;
          fq = hzy;
        }
        const T v = c_.vdt2[i];
        if (!sponge) {
          pn[i] = T(2) * pc[i] - pn[i] + v * fp;
          qn[i] = T(2) * qc[i] - qn[i] + v * fq;
        } else {
          const T g = static_cast<T>(sponge_g(s.sponge, z, y, x));
          pn[i] = (T(2) * pc[i] - (T(1) - g) * pn[i] + v * fp) / (T(1) + g);
          qn[i] = (T(2) * qc[i] - (T(1) - g) * qn[i] + v * fq) / (T(1) + g);
        }
      }
  if (cpml_) {
    // next_p += vdt2 [E (c_x + c_y) + D c_z],  next_q += vdt2 [D (c_x + c_y) + c_z]
    const T* wp[3] = {c_.D.data(), c_.E.data(), c_.E.data()};
    const T* wq[3] = {nullptr, c_.D.data(), c_.D.data()};
    cpml_->correct(cpml_src, c_.vdt2.data(), pn, wp, qn, wq);
  }
}

template <class T>
void AnisoCpuEngine<T>::step(int n) {
  const StepSpec& s = spec_;
  if (!adjoint_) {
    update(p_cur_.data(), q_cur_.data());
  } else {
    // The stencils act on X = E p + D q and Y = D p + q (zero outside the updated region).
    const int64_t size = s.layout.size();
    r1_.resize(size, T(0));
    r2_.resize(size, T(0));
    const Layout& l = s.layout;
#pragma omp parallel for collapse(2) schedule(static)
    for (int z = s.begin[0]; z < s.end[0]; ++z)
      for (int y = s.begin[1]; y < s.end[1]; ++y)
        for (int x = s.begin[2]; x < s.end[2]; ++x) {
          const int64_t i = l.idx(z, y, x);
          r1_[i] = c_.E[i] * p_cur_[i] + c_.D[i] * q_cur_[i];
          r2_[i] = c_.D[i] * p_cur_[i] + q_cur_[i];
        }
    if (s.free_surface) {
      free_surface_mirror(s, r1_.data());
      free_surface_mirror(s, r2_.data());
    }
    update(r1_.data(), r2_.data());
  }
  std::swap(p_prev_, p_cur_);
  std::swap(q_prev_, q_cur_);
  if (n < nt_inj_) {
    for (int pt = 0; pt < inj_.count(); ++pt) {
      const T v = static_cast<T>(inj_traces_[static_cast<size_t>(pt) * nt_inj_ + n]);
      for (int64_t k = inj_.offset[pt]; k < inj_.offset[pt + 1]; ++k) {
        p_cur_[inj_.index[k]] += inj_coef_[k] * v;
        if (!adjoint_) q_cur_[inj_.index[k]] += inj_coef_[k] * v;
      }
    }
  }
  if (s.free_surface) {
    free_surface_mirror(s, p_cur_.data());
    free_surface_mirror(s, q_cur_.data());
  }
  if (n + 1 < nt_rec_) {
    for (int pt = 0; pt < rec_.count(); ++pt) {
      T acc = 0;
      for (int64_t k = rec_.offset[pt]; k < rec_.offset[pt + 1]; ++k) {
        const int64_t i = rec_.index[k];
        const T f = adjoint_ ? p_cur_[i] + q_cur_[i] : p_cur_[i];
        acc += static_cast<T>(rec_.weight[k]) * f;
      }
      recorded_[static_cast<size_t>(pt) * nt_rec_ + n + 1] = static_cast<double>(acc);
    }
  }
}

template <class T>
void AnisoCpuEngine<T>::copy_field(const int lo[3], const int hi[3], const int dec[3],
                                   std::vector<float>& out) {
  gather_box(spec_.layout, p_cur_.data(), lo, hi, dec, out);
}

template <class T>
Diagnostics AnisoCpuEngine<T>::diagnostics() {
  return field_diagnostics(spec_, p_cur_.data());
}

template class AnisoCpuEngine<float>;
template class AnisoCpuEngine<double>;

std::unique_ptr<WaveEngine> make_aniso_cpu_engine(const StepSpec& spec, const AnisoModel& model,
                                                  double dt, bool fp64) {
  if (fp64) return std::make_unique<AnisoCpuEngine<double>>(spec, model, dt);
  return std::make_unique<AnisoCpuEngine<float>>(spec, model, dt);
}

}  // namespace seisfd::reference
