// The CPU backend: one Engine for every physics over the reference kernels (acoustic.hpp,
// anisotropic.hpp, cpml.hpp), in fp32 or fp64. It runs the step sequence every backend runs
// (docs/architecture.md §3): CPML memory update, the physics' update in the requested
// direction, CPML correction, level rotation, injection, free surface, recording. Diagnostics
// and copies are of p.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/cpu_variants.hpp"
#include "kernels/engine.hpp"
#include "kernels/medium.hpp"
#include "kernels/reference/anisotropic.hpp"
#include "kernels/reference/cpml.hpp"

namespace seisfd::cpu {
struct SpongeTables;  // kernels/cpu/blocked.hpp
template <class T>
class RowDamping;  // kernels/cpu/zmarch.hpp
}  // namespace seisfd::cpu

namespace seisfd::reference {

template <class T>
class CpuState final : public WaveState {
 public:
  CpuState(const StepSpec& spec, int fields, CpmlMemory<T> cpml, std::string engine);

  // The arrays of field f (0 = p, 1 = q): current and previous level.
  std::vector<T>& current(int f) { return cur_[f]; }
  std::vector<T>& previous(int f) { return prev_[f]; }
  const std::vector<T>& current(int f) const { return cur_[f]; }
  const std::vector<T>& previous(int f) const { return prev_[f]; }
  CpmlMemory<T>& cpml() { return cpml_; }
  int fields() const { return fields_; }
  void rotate();  // the new level (written over the previous one) becomes the current one

  void zero() override;
  void copy_from(const WaveState& other) override;
  StateImage save() const override;
  void load(const StateImage& image) override;
  void read_box(FieldRef f, const Box& b, const int dec[3], std::vector<float>& out) const override;
  void read_boxes(FieldRef f, const std::vector<Box>& boxes,
                  std::vector<float>& out) const override;
  void write_boxes(FieldRef f, const std::vector<Box>& boxes,
                   const std::vector<float>& in) override;
  void read_boxes(FieldRef f, const std::vector<Box>& boxes,
                  std::vector<double>& out) const override;
  void write_boxes(FieldRef f, const std::vector<Box>& boxes,
                   const std::vector<double>& in) override;
  void read_boxes(FieldRef f, const std::vector<Box>& boxes, CellArray& out,
                  int64_t offset) const override;
  void write_boxes(FieldRef f, const std::vector<Box>& boxes, const CellArray& in,
                   int64_t offset) override;
  int element_bytes() const override { return sizeof(T); }

 private:
  const std::vector<T>& level(FieldRef f) const;
  std::vector<T>& level(FieldRef f);
  template <class U>
  void read_boxes_as(FieldRef f, const std::vector<Box>& boxes, std::vector<U>& out) const;
  template <class U>
  void write_boxes_as(FieldRef f, const std::vector<Box>& boxes, const std::vector<U>& in);
  // fn(name, array) for every array, in the order save() writes them (Self: this class,
  // const or not).
  template <class Self, class F>
  static void for_each_array(Self& self, F&& fn);

  StepSpec spec_;
  int fields_;
  std::string engine_;
  std::vector<T> prev_[kMaxFields], cur_[kMaxFields];
  CpmlMemory<T> cpml_;
};

// The CpuState<T> behind a WaveState (const or not); `what` names the caller in the error.
template <class T, class S>
auto& own_state(S& s, const char* what) {
  auto* c =
      dynamic_cast<std::conditional_t<std::is_const_v<S>, const CpuState<T>, CpuState<T>>*>(&s);
  if (!c) throw std::invalid_argument(std::string(what) + ": the state was made by another engine");
  return *c;
}

template <class T>
class CpuEngine final : public Engine {
 public:
  // Throws std::invalid_argument (check_medium): wrong array sizes, delta > eps, CPML where the
  // physics has none or together with sponge damping; a variant that does not exist or fit
  // (cpu::resolve_cpu_variant).
  CpuEngine(const StepSpec& spec, const Medium& medium, double dt,
            const std::string& variant = "auto");
  ~CpuEngine() override;

  // "cpu:acoustic/o8/blocked/fp32"; the states it makes are tagged without the technique
  // ("cpu:acoustic/fp32"): every CPU variant of a physics and precision shares them.
  std::string name() const override;
  const cpu::CpuVariant& variant() const { return *variant_; }
  Physics physics() const override { return physics_; }
  const StepSpec& spec() const override { return spec_; }
  std::unique_ptr<WaveState> make_state() override;
  std::unique_ptr<Sources> make_sources(const SparsePoints& points,
                                        const std::vector<double>& traces, int nt) override;
  std::unique_ptr<Receivers> make_receivers(const SparsePoints& points, int nt) override;
  void advance(WaveState& state, int n_begin, int n_end, const StepIo& io) override;
  Diagnostics diagnostics(const WaveState& state) override;

  // Per-cell arrays and the operations of Born modelling and imaging (cpu_imaging.cpp).
  using Engine::make_array;
  std::unique_ptr<CellArray> make_array(ArrayKind kind, int64_t cells) override;
  void copy(const WaveState& s, FieldRef f, CellArray& out) override;
  void copy(const CellArray& in, WaveState& s, FieldRef f) override;
  long long copy_async(const CellArray& from, CellArray& to) override;
  void second_difference(const WaveState& s, int field, const CellArray& older,
                         const CellArray* weight, double scale, CellArray& out) override;
  void correlate_second_difference(CellArray& image, const CellArray& a, const WaveState& s,
                                   int field, const CellArray& older, double scale) override;
  void correlate(CellArray& image, const CellArray& a, const CellArray& b, double scale) override;
  void correlate(CellArray& image, const CellArray& a, const WaveState& s, FieldRef f,
                 double scale) override;

  const MediumCoefs<T>& coefficients() const { return c_; }

 private:
  void step(CpuState<T>& s, int n, const StepIo& io);
  void update(CpuState<T>& s, Direction d, const Box* region);
  // f(i, g) for every cell of the updated region, g the sponge term there.
  template <class F>
  void for_region(F&& f) const;
  void inject_volume(const CellArray& a, std::vector<T>& field) const;

  std::string state_tag() const;

  StepSpec spec_;
  Physics physics_;
  int fields_;
  const cpu::CpuVariant* variant_;
  std::unique_ptr<cpu::SpongeTables> sponge_;    // the blocked kernel's, when the sponge damps
  std::unique_ptr<cpu::RowDamping<T>> damping_;  // the register-queue kernels' row tables
  AnisoWeights<T> w_;
  MediumCoefs<T> c_;
  std::unique_ptr<CpmlLayers<T>> cpml_;  // when spec.cpml_on()
  std::vector<T> scratch_[8];            // TTI cross intermediates (6), adjoint X and Y (2)
};

template <class T>
template <class F>
void CpuEngine<T>::for_region(F&& f) const {
  const StepSpec& sp = spec_;
  const Layout& l = sp.layout;
  const bool sponge = sp.sponge_on();
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = sp.begin[0]; z < sp.end[0]; ++z)
    for (int y = sp.begin[1]; y < sp.end[1]; ++y)
      for (int x = sp.begin[2]; x < sp.end[2]; ++x)
        f(l.idx(z, y, x), sponge ? static_cast<T>(sponge_g(sp.sponge, z, y, x)) : T(0));
}

// Host memory of a CPU engine and one state with `elem`-byte reals: both levels of every field,
// the coefficients ((v dt)^2; E, D; the axis, and its squares for the narrow TTI operator), the
// TTI cross intermediates (at most: the simd variant keeps them per thread) and the CPML memory
// variables.
inline size_t cpu_engine_bytes(Physics p, const StepSpec& spec, int elem) {
  const int tti = 6 + (spec.tti_operator == TtiOperator::kNarrow ? 3 : 0) + 6;
  const int arrays = 2 * traits(p).fields + (p == Physics::kTti ? tti : traits(p).medium_arrays);
  return (arrays * static_cast<size_t>(spec.layout.size()) +
          static_cast<size_t>(cpml_aux_cells(spec))) *
         elem;
}

// fp64 or fp32; variant as kernel.variant on the CPU backend (cpu_variants.hpp).
std::unique_ptr<Engine> make_cpu_engine(const StepSpec& spec, const Medium& medium, double dt,
                                        bool fp64, const std::string& variant = "auto");

}  // namespace seisfd::reference
