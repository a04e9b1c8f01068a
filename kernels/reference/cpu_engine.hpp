// The CPU backend: a WaveEngine over the reference kernels, in fp32 or fp64.
#pragma once
#include <memory>
#include <vector>

#include "kernels/engine.hpp"

namespace seisfd::reference {

template <class T>
class CpmlState;

template <class T>
class CpuEngine final : public WaveEngine {
 public:
  // velocity: one value per cell of spec.layout (padding included), m/s.
  CpuEngine(const StepSpec& spec, const std::vector<float>& velocity, double dt);
  ~CpuEngine() override;

  std::string name() const override;
  void set_injection(const SparsePoints& points, const std::vector<double>& traces,
                     int nt) override;
  void set_recording(const SparsePoints& points, int nt) override;
  void step(int n) override;
  void copy_field(const int lo[3], const int hi[3], const int dec[3],
                  std::vector<float>& out) override;
  std::vector<double> recorded() override { return recorded_; }
  Diagnostics diagnostics() override;

  const std::vector<T>& current() const { return cur_; }
  const std::vector<T>& previous() const { return prev_; }
  // Initial conditions for tests: fields n = 0 (current) and n = -1 (previous).
  std::vector<T>& mutable_current() { return cur_; }
  std::vector<T>& mutable_previous() { return prev_; }
  const std::vector<T>& vdt2() const { return vdt2_; }
  const StepSpec& spec() const override { return spec_; }

 private:
  StepSpec spec_;
  std::vector<T> vdt2_, prev_, cur_;
  std::unique_ptr<CpmlState<T>> cpml_;  // auxiliary fields when spec.cpml_on()
  SparsePoints inj_, rec_;
  std::vector<T> inj_coef_;  // per CSR entry: weight (v dt)^2 / (1 + g)
  std::vector<double> inj_traces_;
  std::vector<double> recorded_;
  int nt_inj_ = 0, nt_rec_ = 0;
};

std::unique_ptr<WaveEngine> make_cpu_engine(const StepSpec& spec,
                                            const std::vector<float>& velocity, double dt,
                                            bool fp64);

}  // namespace seisfd::reference
