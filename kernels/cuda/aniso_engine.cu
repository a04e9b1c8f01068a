// The CUDA engine for the pseudo-acoustic VTI/TTI physics (kernels/anisotropy.hpp): p and q
// (two time levels each, the new one overwriting the oldest), the per-cell coefficients, and a
// registry variant (vti/oN/*, tti/oN/*) for the stencil update. Injection (into p and q),
// free-surface mirroring and recording (of p) are small kernels of this file; diagnostics
// (queued: read back behind events, diag_queue.hpp) and field copies run on the device
// (field_ops). CPML (VTI only; TTI refuses it, kernels/cpml.hpp):
// the boundary kernels of kernels/cuda/cpml.cu in their coupled form around the variant (x, y
// driven by p, z by q). set_adjoint(true): the transposed update of the CPU
// engine (kernels/reference/anisotropic.hpp) as a pointwise pre-pass X = E p + D q,
// Y = D p + q into scratch, then the naive stencil kernels in their transposed mode
// (fp = H_0 X, fq = H_z Y); injection into p only, recording of p + q.
#include <cuda_runtime.h>

#include <cmath>
#include <memory>
#include <stdexcept>

#include "kernels/anisotropy.hpp"
#include "kernels/cpml.hpp"
#include "kernels/cuda/aniso_naive.hpp"
#include "kernels/cuda/buffer.hpp"
#include "kernels/cuda/engine_setup.hpp"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/cpml.hpp"
#include "kernels/cuda/diag_queue.hpp"
#include "kernels/cuda/field_ops.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/registry.hpp"

namespace seisfd {
namespace {

// One thread per CSR entry; entries of different points may share a cell, hence atomics.
__global__ void aniso_inject_kernel(float* p, float* q, const int64_t* index, const int* point,
                                    const float* coef, const float* traces, int nt, int n,
                                    int count) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= count) return;
  const float v = coef[e] * traces[static_cast<int64_t>(point[e]) * nt + n];
  atomicAdd(&p[index[e]], v);
  if (q) atomicAdd(&q[index[e]], v);
}

// Records p, or p + q when q is not null (the adjoint).
__global__ void aniso_record_kernel(const float* p, const float* q, const int64_t* offset,
                                    const int64_t* index, const float* weight, float* out,
                                    int npoints, int nt, int n) {
  const int pt = blockIdx.x * blockDim.x + threadIdx.x;
  if (pt >= npoints) return;
  float acc = 0;
  for (int64_t k = offset[pt]; k < offset[pt + 1]; ++k) {
    const int64_t i = index[k];
    acc += weight[k] * (q ? p[i] + q[i] : p[i]);
  }
  out[static_cast<int64_t>(pt) * nt + n] = acc;
}

// The adjoint's pre-pass over the updated region: X = E p + D q, Y = D p + q (the fields the
// transposed update's stencils act on; zero elsewhere, as allocated).
__global__ void aniso_transpose_prepass_kernel(const float* p, const float* q, const float* E,
                                               const float* D, float* X, float* Y, Layout l, int z0,
                                               int y0, int x0, int nz, int ny, int nx) {
  const int x = x0 + blockIdx.x * blockDim.x + threadIdx.x;
  const int y = y0 + blockIdx.y * blockDim.y + threadIdx.y;
  const int z = z0 + blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= x0 + nx || y >= y0 + ny || z >= z0 + nz) return;
  const int64_t i = l.idx(z, y, x);
  const float pc = p[i], qc = q[i], e = E[i], d = D[i];
  X[i] = e * pc + d * qc;
  Y[i] = d * pc + qc;
}

using TransposedFn = void (*)(const StepSpec&, const AnisoFields&, const float*, const float*,
                              void*);
// Indexed by the radius R = 1..8.
constexpr TransposedFn kVtiT[] = {nullptr,
                                  launch_vti_naive_transposed<1>,
                                  launch_vti_naive_transposed<2>,
                                  launch_vti_naive_transposed<3>,
                                  launch_vti_naive_transposed<4>,
                                  launch_vti_naive_transposed<5>,
                                  launch_vti_naive_transposed<6>,
                                  launch_vti_naive_transposed<7>,
                                  launch_vti_naive_transposed<8>};
constexpr TransposedFn kTtiT[] = {nullptr,
                                  launch_tti_naive_transposed<1>,
                                  launch_tti_naive_transposed<2>,
                                  launch_tti_naive_transposed<3>,
                                  launch_tti_naive_transposed<4>,
                                  launch_tti_naive_transposed<5>,
                                  launch_tti_naive_transposed<6>,
                                  launch_tti_naive_transposed<7>,
                                  launch_tti_naive_transposed<8>};

// Pressure release: the surface row is zero, the rows above hold the odd mirror.
__global__ void aniso_mirror_kernel(float* f, Layout l, int surface, int radius) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= l.nx || y >= l.ny) return;
  f[l.idx(surface, y, x)] = 0.0f;
  for (int k = 1; k <= radius; ++k) f[l.idx(surface - k, y, x)] = -f[l.idx(surface + k, y, x)];
}

template <class T>
cuda::DeviceBuffer<T> upload(const std::vector<T>& h) {
  cuda::DeviceBuffer<T> d(h.size());
  if (!h.empty()) d.upload(h);
  return d;
}

class CudaAnisoEngine final : public WaveEngine {
 public:
  // `compress`: the grid-sized arrays in compressible memory (want_compression()).
  CudaAnisoEngine(const StepSpec& spec, const AnisoModel& m, double dt, const KernelVariant& v,
                  int device, bool compress)
      : spec_(spec), kind_(m.kind), variant_(v), device_(device), compress_(compress) {
    CUDA_CHECK(cudaSetDevice(device));
    const int64_t n = spec.layout.size();
    if (static_cast<int64_t>(m.velocity.size()) != n ||
        static_cast<int64_t>(m.epsilon.size()) != n || static_cast<int64_t>(m.delta.size()) != n)
      throw std::invalid_argument("cuda aniso engine: parameter arrays do not match the layout");
    if (const int64_t bad = count_delta_above_epsilon(m))
      throw std::invalid_argument("cuda aniso engine: " + std::to_string(bad) +
                                  " cells have delta > epsilon");
    if (spec.cpml_on() && m.kind == AnisoKind::kTti)
      throw std::invalid_argument(std::string("cuda aniso engine: ") + kTtiCpmlRefusal);
    if (spec.cpml_on() && spec.sponge_on())
      throw std::invalid_argument("cuda aniso engine: CPML and sponge damping on the same layers");
    std::vector<float> vdt2(n), E(n), D(n);
    vdt2_host_.resize(n);
    for (int64_t i = 0; i < n; ++i) {
      vdt2_host_[i] = vdt_squared(m.velocity[i], dt);
      vdt2[i] = static_cast<float>(vdt2_host_[i]);
      E[i] = static_cast<float>(1.0 + 2.0 * m.epsilon[i]);
      D[i] = static_cast<float>(std::sqrt(1.0 + 2.0 * m.delta[i]));
    }
    vdt2_ = grid_array(vdt2);
    E_ = grid_array(E);
    D_ = grid_array(D);
    for (auto* b : {&p_[0], &p_[1], &q_[0], &q_[1]}) *b = zero_grid_array();
    compressed_ = compress && p_[0].compressed() && p_[1].compressed() && q_[0].compressed() &&
                  q_[1].compressed();
    if (kind_ == AnisoKind::kTti) {
      if (static_cast<int64_t>(m.theta.size()) != n || static_cast<int64_t>(m.phi.size()) != n)
        throw std::invalid_argument("cuda aniso engine: theta/phi do not match the layout");
      const Layout& l = spec.layout;
      std::vector<float> axis[3];
      for (auto& a : axis) a.resize(n);
      for (int64_t i = 0; i < n; ++i) {
        int z, y, x;
        l.coords(i, z, y, x);
        int64_t src = i;
        bool flip = false;  // mirror rows above a free surface: the reflected axis
        if (spec.free_surface && z < spec.surface && 2 * spec.surface - z < l.nz) {
          src = l.idx(2 * spec.surface - z, y, x);
          flip = true;
        }
        double nx, ny, nz;
        symmetry_axis(m.theta[src], m.phi[src], nx, ny, nz);
        axis[0][i] = static_cast<float>(flip ? -nz : nz);
        axis[1][i] = static_cast<float>(ny);
        axis[2][i] = static_cast<float>(nx);
      }
      for (int a = 0; a < 3; ++a) n_[a] = grid_array(axis[a]);
      for (auto& g : g_) g = zero_grid_array();
    }
    if (spec.cpml_on()) cpml_ = std::make_unique<cuda::CpmlBoundary>(spec, nullptr);
    queue_ = std::make_unique<cuda::DiagQueue>(nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  ~CudaAnisoEngine() override { cudaDeviceSynchronize(); }  // destructors never throw

  std::string name() const override { return "cuda/" + variant_.name; }
  const StepSpec& spec() const override { return spec_; }

  void set_adjoint(bool on) override {
    if (on && cpml_)
      throw std::invalid_argument(
          "adjoint: not implemented for boundary.type = \"cpml\" (exact for \"sponge\" and "
          "\"none\")");
    // The transposed update exists for the naive stencils (aniso_naive.hpp).
    if (on && variant_.technique != "naive")
      throw std::invalid_argument("adjoint: variant " + variant_.name +
                                  " has no transposed update; use " + aniso_name(kind_) + "/o" +
                                  std::to_string(2 * spec_.radius) + "/naive");
    if (on && x_.size() == 0) {
      x_ = zero_grid_array();
      y_ = zero_grid_array();
    }
    adjoint_ = on;
  }

  void set_injection(const SparsePoints& pts, const std::vector<double>& traces, int nt) override {
    if (static_cast<int64_t>(traces.size()) != static_cast<int64_t>(pts.count()) * nt)
      throw std::invalid_argument("set_injection: traces size does not match points x nt");
    std::vector<int> point(pts.index.size());
    std::vector<float> coef(pts.index.size());
    for (int p = 0; p < pts.count(); ++p)
      for (int64_t k = pts.offset[p]; k < pts.offset[p + 1]; ++k) {
        point[k] = p;
        coef[k] = static_cast<float>(
            pts.weight[k] * injection_factor(spec_, pts.index[k], vdt2_host_[pts.index[k]]));
      }
    inj_index_ = upload(pts.index);
    inj_point_ = upload(point);
    inj_coef_ = upload(coef);
    inj_traces_ = upload(std::vector<float>(traces.begin(), traces.end()));
    inj_count_ = static_cast<int>(pts.index.size());
    nt_inj_ = nt;
  }

  void set_recording(const SparsePoints& pts, int nt) override {
    rec_offset_ = upload(pts.offset);
    rec_index_ = upload(pts.index);
    rec_weight_ = upload(std::vector<float>(pts.weight.begin(), pts.weight.end()));
    rec_n_ = pts.count();
    nt_rec_ = nt;
    rec_out_ = cuda::DeviceBuffer<float>(static_cast<size_t>(rec_n_) * nt);
    rec_out_.zero();
  }

  void step(int n) override {
    AnisoFields f;
    f.p_prev = p_[0].get();
    f.p_cur = p_[1].get();
    f.p_next = p_[0].get();
    f.q_prev = q_[0].get();
    f.q_cur = q_[1].get();
    f.q_next = q_[0].get();
    f.vdt2 = vdt2_.get();
    f.E = E_.get();
    f.D = D_.get();
    for (int a = 0; a < 3; ++a) f.n[a] = n_[a].get();
    for (int a = 0; a < 6; ++a) f.g[a] = g_[a].get();
    if (!adjoint_) {
      // CPML (kernels/cpml.hpp): x and y driven by p, z by q; next_p += vdt2 [E (c_x + c_y) +
      // D c_z], next_q += vdt2 [D (c_x + c_y) + c_z].
      const float* src[3] = {f.q_cur, f.p_cur, f.p_cur};
      if (cpml_) cpml_->launch_psi(src, nullptr);
      variant_.launch_aniso(spec_, f, nullptr);
      if (cpml_) {
        const float* wp[3] = {f.D, f.E, f.E};
        const float* wq[3] = {nullptr, f.D, f.D};
        cpml_->launch_correct(src, f.vdt2, f.p_next, wp, f.q_next, wq, nullptr);
      }
    } else {
      step_transposed(f);
    }
    std::swap(p_[0], p_[1]);
    std::swap(q_[0], q_[1]);
    if (n < nt_inj_ && inj_count_ > 0) {
      aniso_inject_kernel<<<(inj_count_ + 127) / 128, 128>>>(
          p_[1].get(), adjoint_ ? nullptr : q_[1].get(), inj_index_.get(), inj_point_.get(),
          inj_coef_.get(), inj_traces_.get(), nt_inj_, n, inj_count_);
      CUDA_CHECK_LAUNCH();
    }
    if (spec_.free_surface)
      for (auto* fld : {p_[1].get(), q_[1].get()}) mirror(fld);
    if (n + 1 < nt_rec_ && rec_n_ > 0) {
      aniso_record_kernel<<<(rec_n_ + 127) / 128, 128>>>(
          p_[1].get(), adjoint_ ? q_[1].get() : nullptr, rec_offset_.get(), rec_index_.get(),
          rec_weight_.get(), rec_out_.get(), rec_n_, nt_rec_, n + 1);
      CUDA_CHECK_LAUNCH();
    }
  }

  // On the device (field_ops kernels): only the box or the reduced values come back.
  void copy_field(const int lo[3], const int hi[3], const int dec[3],
                  std::vector<float>& out) override {
    int n[3];
    for (int a = 0; a < 3; ++a) n[a] = (hi[a] - lo[a] + dec[a] - 1) / dec[a];
    const size_t count = static_cast<size_t>(n[0]) * n[1] * n[2];
    if (box_.size() < count) box_ = cuda::DeviceBuffer<float>(count);
    cuda::launch_gather_box(p_[1].get(), spec_.layout, lo, n, dec, box_.get(), nullptr);
    out.resize(count);
    CUDA_CHECK(cudaMemcpy(out.data(), box_.get(), count * sizeof(float), cudaMemcpyDeviceToHost));
  }

  std::vector<double> recorded() override {
    std::vector<float> h;
    if (rec_n_ > 0) rec_out_.download(h);
    return std::vector<double>(h.begin(), h.end());
  }

  Diagnostics diagnostics() override {
    return queue_->reduce_and_wait(p_[1].get(), spec_, nullptr);
  }

  // Reduced on the device and read back behind an event (kernels/cuda/diag_queue.hpp).
  void queue_diagnostics(int step) override {
    queue_->reduce_now(p_[1].get(), spec_, step, nullptr);
  }
  std::vector<TaggedDiagnostics> completed_diagnostics(int max_pending) override {
    return queue_->completed(max_pending);
  }

  void synchronize() override { CUDA_CHECK(cudaDeviceSynchronize()); }

  std::vector<std::pair<std::string, std::string>> details() const override { return details_; }
  void set_details(std::vector<std::pair<std::string, std::string>> d) { details_ = std::move(d); }
  bool compressed() const { return compressed_; }

 private:
  void mirror(float* fld) {
    const Layout& l = spec_.layout;
    const dim3 b(32, 8), g((l.nx + 31) / 32, (l.ny + 7) / 8);
    aniso_mirror_kernel<<<g, b>>>(fld, l, spec_.surface, spec_.radius);
    CUDA_CHECK_LAUNCH();
  }

  // X = E p + D q, Y = D p + q over the updated region (mirrored above a free surface, as the
  // CPU engine does), then the stencils in transposed mode.
  void step_transposed(const AnisoFields& f) {
    const StepSpec& s = spec_;
    const int n[3] = {s.end[0] - s.begin[0], s.end[1] - s.begin[1], s.end[2] - s.begin[2]};
    const dim3 b(32, 4, 2);
    const dim3 g((n[2] + 31) / 32, (n[1] + 3) / 4, (n[0] + 1) / 2);
    aniso_transpose_prepass_kernel<<<g, b>>>(f.p_cur, f.q_cur, f.E, f.D, x_.get(), y_.get(),
                                             s.layout, s.begin[0], s.begin[1], s.begin[2], n[0],
                                             n[1], n[2]);
    CUDA_CHECK_LAUNCH();
    if (s.free_surface) {
      mirror(x_.get());
      mirror(y_.get());
    }
    const TransposedFn fn = (kind_ == AnisoKind::kTti ? kTtiT : kVtiT)[s.radius];
    fn(s, f, x_.get(), y_.get(), nullptr);
  }

  // A grid-sized array, compressible where the engine was asked to: a copy of h, or zeros.
  cuda::DeviceBuffer<float> grid_array(const std::vector<float>& h) const {
    cuda::DeviceBuffer<float> d(h.size(), compress_, device_);
    d.upload(h);
    return d;
  }
  cuda::DeviceBuffer<float> zero_grid_array() const {
    cuda::DeviceBuffer<float> d(static_cast<size_t>(spec_.layout.size()), compress_, device_);
    d.zero();
    return d;
  }

  StepSpec spec_;
  AnisoKind kind_;
  KernelVariant variant_;
  int device_ = 0;
  bool compress_ = false, compressed_ = false;
  std::vector<std::pair<std::string, std::string>> details_;
  std::vector<double> vdt2_host_;
  cuda::DeviceBuffer<float> p_[2], q_[2], vdt2_, E_, D_, n_[3], g_[6];
  cuda::DeviceBuffer<int64_t> inj_index_, rec_offset_, rec_index_;
  cuda::DeviceBuffer<int> inj_point_;
  cuda::DeviceBuffer<float> inj_coef_, inj_traces_, rec_weight_, rec_out_, box_;
  std::unique_ptr<cuda::DiagQueue> queue_;
  cuda::DeviceBuffer<float> x_, y_;  // adjoint: X and Y
  std::unique_ptr<cuda::CpmlBoundary> cpml_;
  bool adjoint_ = false;
  int inj_count_ = 0, nt_inj_ = 0, rec_n_ = 0, nt_rec_ = 0;
};

}  // namespace

std::unique_ptr<WaveEngine> make_cuda_aniso_engine(const StepSpec& spec, const AnisoModel& model,
                                                   double dt, const std::string& variant,
                                                   int device, Compressible compressible) {
  const cuda::EngineSetup s =
      cuda::prepare_engine(spec, cuda_aniso_engine_bytes(spec, model.kind == AnisoKind::kTti),
                           variant, aniso_name(model.kind), device, compressible);
  auto e =
      std::make_unique<CudaAnisoEngine>(spec, model, dt, *s.choice.variant, device, s.compress);
  e->set_details(cuda::engine_details(s, e->compressed()));
  return e;
}

}  // namespace seisfd
