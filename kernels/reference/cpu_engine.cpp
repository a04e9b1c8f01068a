#include "kernels/reference/cpu_engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "kernels/cpu/acoustic_blocked.hpp"
#include "kernels/cpu/cpml_rows.hpp"
#include "kernels/cpu/cpu_kernels.hpp"
#include "kernels/cpu/tti_blocked.hpp"
#include "kernels/cpu/vti_blocked.hpp"
#include "kernels/huge_pages.hpp"
#include "kernels/reference/acoustic.hpp"
#include "kernels/reference/cpu_array.hpp"
#include "kernels/reference/cpu_points.hpp"
#include "kernels/reference/denormals.hpp"
#include "kernels/reference/field_ops.hpp"

namespace seisfd::reference {
namespace {

const char* const kFieldName[kMaxFields] = {"p", "q"};
const char* const kAxisName[3] = {"z", "y", "x"};

template <class T, class S>
auto& own(S& s, const char* what) {
  auto* c =
      dynamic_cast<std::conditional_t<std::is_const_v<S>, const CpuState<T>, CpuState<T>>*>(&s);
  if (!c) throw std::invalid_argument(std::string(what) + ": the state was made by another engine");
  return *c;
}

template <class T, class U>
void write_box(const Layout& l, T* f, const Box& b, const U* in) {
  const int n[3] = {b.hi[0] - b.lo[0], b.hi[1] - b.lo[1], b.hi[2] - b.lo[2]};
#pragma omp parallel for collapse(2)
  for (int z = 0; z < n[0]; ++z)
    for (int y = 0; y < n[1]; ++y)
      for (int x = 0; x < n[2]; ++x)
        f[l.idx(b.lo[0] + z, b.lo[1] + y, b.lo[2] + x)] =
            static_cast<T>(in[(static_cast<size_t>(z) * n[1] + y) * n[2] + x]);
}

}  // namespace

// ---- state

template <class T>
CpuState<T>::CpuState(const StepSpec& spec, int fields, CpmlMemory<T> cpml, std::string engine)
    : spec_(spec), fields_(fields), engine_(std::move(engine)), cpml_(std::move(cpml)) {
  const size_t n = static_cast<size_t>(spec.layout.size());
  for (int f = 0; f < fields; ++f) {
    assign_huge(prev_[f], n, T(0));
    assign_huge(cur_[f], n, T(0));
  }
}

template <class T>
void CpuState<T>::rotate() {
  for (int f = 0; f < fields_; ++f) std::swap(prev_[f], cur_[f]);
}

template <class T>
template <class Self, class F>
void CpuState<T>::for_each_array(Self& self, F&& fn) {
  for (int f = 0; f < self.fields_; ++f) {
    fn(std::string(kFieldName[f]) + ".previous", self.prev_[f]);
    fn(std::string(kFieldName[f]) + ".current", self.cur_[f]);
  }
  for (int a = 0; a < 3; ++a)
    if (!self.cpml_.psi[a].empty()) {
      fn(std::string("cpml.psi.") + kAxisName[a], self.cpml_.psi[a]);
      fn(std::string("cpml.zeta.") + kAxisName[a], self.cpml_.zeta[a]);
    }
}

template <class T>
void CpuState<T>::zero() {
  for_each_array(
      *this, [](const std::string&, std::vector<T>& v) { std::fill(v.begin(), v.end(), T(0)); });
  set_step(0);
}

template <class T>
void CpuState<T>::copy_from(const WaveState& other) {
  const CpuState<T>& o = own_state<T>(other, "copy_from");
  if (o.fields_ != fields_ || o.engine_ != engine_)
    throw std::invalid_argument("copy_from: states of different engines");
  for (int f = 0; f < fields_; ++f) {
    prev_[f] = o.prev_[f];
    cur_[f] = o.cur_[f];
  }
  cpml_ = o.cpml_;
  set_step(o.step());
}

template <class T>
StateImage CpuState<T>::save() const {
  StateImage img;
  img.engine = engine_;
  img.step = step();
  for_each_array(*this, [&](const std::string& name, const std::vector<T>& v) {
    StateArray a;
    a.name = name;
    a.element_bytes = sizeof(T);
    a.data.resize(v.size() * sizeof(T));
    std::memcpy(a.data.data(), v.data(), a.data.size());
    img.arrays.push_back(std::move(a));
  });
  return img;
}

template <class T>
void CpuState<T>::load(const StateImage& img) {
  if (img.engine != engine_)
    throw std::invalid_argument("load: the image was saved by engine '" + img.engine +
                                "', this state belongs to '" + engine_ + "'");
  size_t k = 0;
  for_each_array(*this, [&](const std::string& name, const std::vector<T>& v) {
    const StateArray* a = img.find(name);
    if (!a || a->element_bytes != static_cast<int>(sizeof(T)) ||
        a->data.size() != v.size() * sizeof(T))
      throw std::invalid_argument("load: the image has no array '" + name +
                                  "' of this state's size and type");
    ++k;
  });
  if (k != img.arrays.size())
    throw std::invalid_argument("load: the image has arrays this state does not");
  for_each_array(*this, [&](const std::string& name, std::vector<T>& v) {
    std::memcpy(v.data(), img.find(name)->data.data(), v.size() * sizeof(T));
  });
  set_step(img.step);
}

template <class T>
const std::vector<T>& CpuState<T>::level(FieldRef f) const {
  if (f.field < 0 || f.field >= fields_)
    throw std::invalid_argument("state: no field " + std::to_string(f.field));
  return f.level == Level::kCurrent ? cur_[f.field] : prev_[f.field];
}

template <class T>
std::vector<T>& CpuState<T>::level(FieldRef f) {
  return const_cast<std::vector<T>&>(std::as_const(*this).level(f));
}

template <class T>
void CpuState<T>::read_box(FieldRef f, const Box& b, const int dec[3],
                           std::vector<float>& out) const {
  gather_box(spec_.layout, level(f).data(), b.lo, b.hi, dec, out);
}

template <class T>
template <class U>
void CpuState<T>::read_boxes_as(FieldRef f, const std::vector<Box>& boxes,
                                std::vector<U>& out) const {
  out.clear();
  const int one[3] = {1, 1, 1};
  std::vector<U> part;
  for (const Box& b : boxes) {
    gather_box(spec_.layout, level(f).data(), b.lo, b.hi, one, part);
    out.insert(out.end(), part.begin(), part.end());
  }
}

template <class T>
template <class U>
void CpuState<T>::write_boxes_as(FieldRef f, const std::vector<Box>& boxes,
                                 const std::vector<U>& in) {
  int64_t total = 0;
  for (const Box& b : boxes) total += b.cells();
  if (total != static_cast<int64_t>(in.size()))
    throw std::invalid_argument("write_boxes: " + std::to_string(in.size()) + " values for " +
                                std::to_string(total) + " cells");
  T* dst = level(f).data();
  const U* src = in.data();
  for (const Box& b : boxes) {
    write_box(spec_.layout, dst, b, src);
    src += b.cells();
  }
}

template <class T>
void CpuState<T>::read_boxes(FieldRef f, const std::vector<Box>& boxes,
                             std::vector<float>& out) const {
  read_boxes_as(f, boxes, out);
}

template <class T>
void CpuState<T>::write_boxes(FieldRef f, const std::vector<Box>& boxes,
                              const std::vector<float>& in) {
  write_boxes_as(f, boxes, in);
}

template <class T>
void CpuState<T>::read_boxes(FieldRef f, const std::vector<Box>& boxes,
                             std::vector<double>& out) const {
  read_boxes_as(f, boxes, out);
}

template <class T>
void CpuState<T>::write_boxes(FieldRef f, const std::vector<Box>& boxes,
                              const std::vector<double>& in) {
  write_boxes_as(f, boxes, in);
}

// The range [offset, offset + cells) of an array of this engine's, in T; throws where it is
// not one (half precision, another engine's) or too short.
template <class T, class A>
auto array_range(A& a, int64_t offset, int64_t cells, const char* what) {
  auto& arr = own_array<T>(a);
  if (arr.kind() == ArrayKind::kDeviceHalf)
    throw std::invalid_argument(std::string(what) + ": half-precision arrays are refused");
  if (offset < 0 || offset + cells > arr.size())
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(cells) + " cells from " +
                                std::to_string(offset) + " overrun an array of " +
                                std::to_string(arr.size()));
  return arr.data() + offset;
}

template <class T>
void CpuState<T>::read_boxes(FieldRef f, const std::vector<Box>& boxes, CellArray& out,
                             int64_t offset) const {
  int64_t total = 0;
  for (const Box& b : boxes) total += b.cells();
  T* dst = array_range<T>(out, offset, total, "read_boxes");
  const T* src = level(f).data();
  const Layout& l = spec_.layout;
  for (const Box& b : boxes) {
    const int ny = b.hi[1] - b.lo[1], nx = b.hi[2] - b.lo[2];
    for (int z = b.lo[0]; z < b.hi[0]; ++z)
      for (int y = b.lo[1]; y < b.hi[1]; ++y) {
        const T* row = src + l.idx(z, y, b.lo[2]);
        std::copy(row, row + nx,
                  dst + (static_cast<int64_t>(z - b.lo[0]) * ny + (y - b.lo[1])) * nx);
      }
    dst += b.cells();
  }
}

template <class T>
void CpuState<T>::write_boxes(FieldRef f, const std::vector<Box>& boxes, const CellArray& in,
                              int64_t offset) {
  int64_t total = 0;
  for (const Box& b : boxes) total += b.cells();
  const T* src = array_range<T>(in, offset, total, "write_boxes");
  for (const Box& b : boxes) {
    write_box(spec_.layout, level(f).data(), b, src);
    src += b.cells();
  }
}

// ---- engine

template <class T>
CpuEngine<T>::CpuEngine(const StepSpec& spec, const Medium& m, double dt,
                        const std::string& variant)
    : spec_(spec),
      physics_(m.physics),
      fields_(traits(m.physics).fields),
      variant_(&cpu::resolve_cpu_variant(variant, m.physics, 2 * spec.radius, spec.tti_operator)),
      w_(spec) {
  if (variant_->technique != cpu::Technique::kReference && spec.sponge_on())
    sponge_ = std::make_unique<cpu::SpongeTables>(spec);
  if (variant_->technique == cpu::Technique::kRegQueue ||
      variant_->technique == cpu::Technique::kSimd)
    damping_ = std::make_unique<cpu::RowDamping<T>>(spec, sponge_.get());
  check_medium(m, spec, std::string("cpu engine (") + to_string(m.physics) + "): ", true);
  std::vector<T> coef[kMaxMediumArrays];
  medium_coefficients(m, spec, dt, coef);
  c_.vdt2 = std::move(coef[kVdt2]);  // on huge pages (medium_coefficients)
  c_.E = std::move(coef[kE]);
  c_.D = std::move(coef[kD]);
  const int64_t n = spec.layout.size();
  if (physics_ == Physics::kTti)
    for (int ax = 0; ax < 3; ++ax) {
      c_.n[ax] = std::move(coef[kAxisZ + ax]);
      if (spec.tti_operator == TtiOperator::kNarrow) {  // the narrow diagonal terms' a_i = n_i^2
        assign_huge(c_.a[ax], static_cast<size_t>(n), T(0));
        for (int64_t i = 0; i < n; ++i) c_.a[ax][i] = c_.n[ax][i] * c_.n[ax][i];
      }
      if (variant_->technique == cpu::Technique::kSimd) continue;  // keeps them per thread
      assign_huge(scratch_[ax], static_cast<size_t>(n), T(0));
      assign_huge(scratch_[3 + ax], static_cast<size_t>(n), T(0));
    }
  if (spec.cpml_on()) cpml_ = std::make_unique<CpmlLayers<T>>(spec);
}

template <class T>
CpuEngine<T>::~CpuEngine() = default;

template <class T>
std::string CpuEngine<T>::name() const {
  return std::string("cpu:") + variant_->name + (sizeof(T) == 8 ? "/fp64" : "/fp32");
}

template <class T>
std::string CpuEngine<T>::state_tag() const {
  return std::string("cpu:") + to_string(physics_) + (sizeof(T) == 8 ? "/fp64" : "/fp32");
}

template <class T>
std::unique_ptr<WaveState> CpuEngine<T>::make_state() {
  return std::make_unique<CpuState<T>>(spec_, fields_,
                                       cpml_ ? cpml_->make_memory() : CpmlMemory<T>{}, state_tag());
}

template <class T>
std::unique_ptr<Sources> CpuEngine<T>::make_sources(const SparsePoints& points,
                                                    const std::vector<double>& traces, int nt) {
  if (static_cast<int64_t>(traces.size()) != static_cast<int64_t>(points.count()) * nt)
    throw std::invalid_argument("sources: traces size does not match points x nt");
  std::vector<T> coef(points.index.size());
  for (size_t k = 0; k < points.index.size(); ++k) {
    const int64_t i = points.index[k];
    coef[k] = static_cast<T>(points.weight[k] *
                             injection_factor(spec_, i, static_cast<double>(c_.vdt2[i])));
  }
  return std::make_unique<CpuSources<T>>(points, traces, nt, std::move(coef));
}

template <class T>
std::unique_ptr<Receivers> CpuEngine<T>::make_receivers(const SparsePoints& points, int nt) {
  return std::make_unique<CpuReceivers<T>>(points, nt);
}

template <class T>
void CpuEngine<T>::advance(WaveState& state, int n_begin, int n_end, const StepIo& io) {
  auto& s = own_state<T>(state, "advance");
  check_direction(spec_, io.direction);
  const FlushDenormals flush;
  for (int n = n_begin; n < n_end; ++n) {
    if (diagnostics_due(n)) queue_diagnostics(s, n);
    step(s, n, io);
  }
  if (n_end > n_begin) s.set_step(n_end);
}

template <class T>
void CpuEngine<T>::update(CpuState<T>& s, Direction d, const Box* region) {
  // A region: the update of its cells only, without CPML (StepIo::region).
  const StepSpec restricted = region ? narrowed(spec_, *region) : spec_;
  const StepSpec& sp = restricted;
  CpmlLayers<T>* const cpml = region ? nullptr : cpml_.get();
  const PhysicsTraits& t = traits(physics_);
  const bool adjoint = d == Direction::kAdjoint && physics_ != Physics::kAcoustic;
  // The fields the stencils act on: the current levels, or in the anisotropic adjoint
  // X = E p + D q, Y = D p + q (kernels/reference/anisotropic.hpp).
  const T* X[kMaxFields] = {s.current(0).data(), fields_ > 1 ? s.current(1).data() : nullptr};
  if (adjoint) {
    const int64_t n = sp.layout.size();
    if (scratch_[6].size() != static_cast<size_t>(n)) {
      assign_huge(scratch_[6], static_cast<size_t>(n), T(0));
      assign_huge(scratch_[7], static_cast<size_t>(n), T(0));
    }
    transposed_fields(sp, c_, s.current(0).data(), s.current(1).data(), scratch_[6].data(),
                      scratch_[7].data());
    X[0] = scratch_[6].data();
    X[1] = scratch_[7].data();
  }
  const T* src[3] = {X[t.cpml_source[0]], X[t.cpml_source[1]], X[t.cpml_source[2]]};
  // The readable CPML with the readable kernels; its vectorised rows (the same values) with the
  // fast ones.
  const bool fast_cpml = variant_->technique != cpu::Technique::kReference;
  if (cpml && fast_cpml)
    cpu::cpml_update_psi(*cpml, s.cpml(), src);
  else if (cpml)
    cpml->update_psi(s.cpml(), src);
  // The new level overwrites the previous one in place.
  const bool blocked = variant_->technique == cpu::Technique::kBlocked;
  T* const p_next = s.previous(0).data();
  if (physics_ == Physics::kAcoustic) {
    if (variant_->technique == cpu::Technique::kRegQueue)
      cpu::acoustic_regqueue<T>(sp, *damping_, p_next, X[0], p_next, c_.vdt2.data());
    else if (blocked)
      cpu::acoustic_blocked<T>(sp, sponge_.get(), p_next, X[0], p_next, c_.vdt2.data());
    else
      acoustic_step<T>(sp, p_next, X[0], p_next, c_.vdt2.data());
  } else if (physics_ == Physics::kVti && variant_->technique == cpu::Technique::kSimd) {
    cpu::vti_simd<T>(sp, *damping_, w_, c_, adjoint, X[0], X[1], s.current(0).data(),
                     s.current(1).data(), p_next, s.previous(1).data());
  } else if (physics_ == Physics::kVti && blocked) {
    cpu::vti_blocked<T>(sp, sponge_.get(), w_, c_, adjoint, X[0], X[1], s.current(0).data(),
                        s.current(1).data(), p_next, s.previous(1).data());
  } else {
    T* g[6];
    for (int k = 0; k < 6; ++k) g[k] = scratch_[k].data();
    if (variant_->technique == cpu::Technique::kSimd)
      cpu::tti_simd<T>(sp, *damping_, w_, c_, adjoint, X[0], X[1], s.current(0).data(),
                       s.current(1).data(), p_next, s.previous(1).data());
    else if (blocked)  // TTI
      cpu::tti_blocked<T>(sp, sponge_.get(), w_, c_, adjoint, X[0], X[1], s.current(0).data(),
                          s.current(1).data(), p_next, s.previous(1).data(), g);
    else
      aniso_update(sp, w_, c_, physics_ == Physics::kTti, adjoint, X[0], X[1], s.current(0).data(),
                   s.current(1).data(), p_next, s.previous(1).data(), g);
  }
  if (cpml) {
    const std::vector<T>* medium[kMaxMediumArrays] = {&c_.vdt2, &c_.E, &c_.D};
    const T* w[kMaxFields][3];
    for (int f = 0; f < kMaxFields; ++f)
      for (int ax = 0; ax < 3; ++ax) {
        const int k = t.cpml_weight[f][ax];
        w[f][ax] = k < 0 ? nullptr : medium[k]->data();
      }
    T* const next_b = fields_ > 1 ? s.previous(1).data() : nullptr;
    if (fast_cpml)
      cpu::cpml_correct(*cpml, s.cpml(), src, c_.vdt2.data(), p_next, w[0], next_b, w[1]);
    else
      cpml->correct(s.cpml(), src, c_.vdt2.data(), p_next, w[0], next_b, w[1]);
  }
}

template <class T>
void CpuEngine<T>::step(CpuState<T>& s, int n, const StepIo& io) {
  update(s, io.direction, io.region);
  s.rotate();
  const bool forward = io.direction == Direction::kForward;
  for (int f = 0; f < fields_ && forward; ++f)
    if (io.volume[f]) inject_volume(*io.volume[f], s.current(f));
  if (const auto* src = static_cast<const CpuSources<T>*>(io.sources); src && n < src->nt()) {
    const int into = forward ? fields_ : 1;
    const T* sample = src->by_step.data() + static_cast<size_t>(n) * src->count();
    const int64_t cells = static_cast<int64_t>(src->cell.size());
#pragma omp parallel for schedule(static) if (cells >= 4096)
    for (int64_t c = 0; c < cells; ++c) {
      const int64_t i = src->cell[c];
      for (int f = 0; f < into; ++f) {
        T x = s.current(f)[i];
        for (int64_t j = src->cell_start[c]; j < src->cell_start[c + 1]; ++j)
          x += src->cell_coef[j] * sample[src->cell_point[j]];
        s.current(f)[i] = x;
      }
    }
  }
  if (spec_.free_surface)
    for (int f = 0; f < fields_; ++f) free_surface_mirror(spec_, s.current(f).data());
  if (auto* rec = static_cast<CpuReceivers<T>*>(io.receivers); rec && n + 1 < rec->nt()) {
    const int from = forward ? 1 : fields_;
    // Each point sums its own taps into its own sample: the threads share the points of a large
    // spread (a 128 x 128 grid of receivers costs more than the update on a small grid).
#pragma omp parallel for schedule(static) if (rec->count() >= 512)
    for (int p = 0; p < rec->count(); ++p) {
      T acc = 0;
      for (int64_t k = rec->points.offset[p]; k < rec->points.offset[p + 1]; ++k) {
        const int64_t i = rec->points.index[k];
        T f = s.current(0)[i];
        for (int q = 1; q < from; ++q) f += s.current(q)[i];
        acc += static_cast<T>(rec->points.weight[k]) * f;
      }
      rec->by_step[static_cast<size_t>(n + 1) * rec->count() + p] = static_cast<double>(acc);
    }
  }
}

template <class T>
void CpuEngine<T>::inject_volume(const CellArray& a, std::vector<T>& field) const {
  const auto& v = own_array<T>(a);
  for_region([&](int64_t i, T g) { field[i] += c_.vdt2[i] / (T(1) + g) * v.get(i); });
}

template <class T>
Diagnostics CpuEngine<T>::diagnostics(const WaveState& state) {
  return field_diagnostics(spec_, own_state<T>(state, "diagnostics").current(0).data());
}

template class CpuState<float>;
template class CpuState<double>;
template class CpuEngine<float>;
template class CpuEngine<double>;

std::unique_ptr<Engine> make_cpu_engine(const StepSpec& spec, const Medium& medium, double dt,
                                        bool fp64, const std::string& variant) {
  if (fp64) return std::make_unique<CpuEngine<double>>(spec, medium, dt, variant);
  return std::make_unique<CpuEngine<float>>(spec, medium, dt, variant);
}

}  // namespace seisfd::reference
