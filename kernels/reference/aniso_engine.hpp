// The CPU backend for the pseudo-acoustic VTI/TTI physics (kernels/anisotropy.hpp), in fp32 or
// fp64. It holds p and q (previous and current each) and the per-cell coefficients; it injects
// into p and q, records p, and reports p in copy_field and diagnostics. set_adjoint(true)
// switches it to the transposed update (exact discrete adjoint, solver/operators.hpp): then it
// injects into p only and records p + q.
// CPML for VTI (kernels/cpml.hpp): one psi/zeta pair per axis, x and y driven by p and z by q,
// the corrections weighted as the update weights the axis terms. TTI refuses CPML, and so
// does the adjoint.
#pragma once
#include <memory>
#include <vector>

#include "kernels/anisotropy.hpp"
#include "kernels/engine.hpp"
#include "kernels/reference/anisotropic.hpp"
#include "kernels/reference/cpml.hpp"

namespace seisfd::reference {

template <class T>
class AnisoCpuEngine final : public WaveEngine {
 public:
  // Throws std::invalid_argument for CPML with TTI or with sponge damping, wrong array sizes,
  // or cells with delta > eps.
  AnisoCpuEngine(const StepSpec& spec, const AnisoModel& model, double dt);

  std::string name() const override;
  const StepSpec& spec() const override { return spec_; }
  void set_injection(const SparsePoints& points, const std::vector<double>& traces,
                     int nt) override;
  void set_recording(const SparsePoints& points, int nt) override;
  void set_adjoint(bool on) override;
  void step(int n) override;
  void copy_field(const int lo[3], const int hi[3], const int dec[3],
                  std::vector<float>& out) override;
  std::vector<double> recorded() override { return recorded_; }
  Diagnostics diagnostics() override;

  const std::vector<T>& p() const { return p_cur_; }
  const std::vector<T>& q() const { return q_cur_; }
  std::vector<T>& mutable_p() { return p_cur_; }
  std::vector<T>& mutable_q() { return q_cur_; }
  std::vector<T>& mutable_p_previous() { return p_prev_; }
  std::vector<T>& mutable_q_previous() { return q_prev_; }

 private:
  void update(const T* X, const T* Y);

  StepSpec spec_;
  AnisoKind kind_;
  AnisoWeights<T> w_;
  AnisoCoefs<T> c_;
  bool adjoint_ = false;
  std::vector<T> p_prev_, p_cur_, q_prev_, q_cur_;
  std::vector<T> gx_[3], gy_[3];  // TTI cross intermediates of X and Y
  std::vector<T> r1_, r2_;        // adjoint: the fields the stencils act on
  std::unique_ptr<CpmlState<T>> cpml_;
  SparsePoints inj_, rec_;
  std::vector<T> inj_coef_;
  std::vector<double> inj_traces_, recorded_;
  int nt_inj_ = 0, nt_rec_ = 0;
};

std::unique_ptr<WaveEngine> make_aniso_cpu_engine(const StepSpec& spec, const AnisoModel& model,
                                                  double dt, bool fp64);

}  // namespace seisfd::reference
