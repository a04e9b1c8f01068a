// The CUDA WaveEngine: two wavefield buffers rotated in place, the model as (v dt)^2, the
// selected registry variant for the update, and the field_ops kernels around it.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>

#include "kernels/cuda/buffer.hpp"
#include "kernels/cuda/cpml.hpp"
#include "kernels/cuda/field_ops.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/registry.hpp"

namespace seisfd {
namespace {

using cuda::DeviceBuffer;

class CudaEngine final : public WaveEngine {
 public:
  CudaEngine(const StepSpec& spec, const std::vector<float>& velocity, double dt,
             const KernelVariant& variant, int device)
      : spec_(spec), variant_(variant), device_(device) {
    CUDA_CHECK(cudaSetDevice(device));
    const size_t n = static_cast<size_t>(spec.layout.size());
    std::vector<float> vdt2(n);
    for (size_t i = 0; i < n; ++i) vdt2[i] = static_cast<float>(vdt_squared(velocity[i], dt));
    vdt2_host_ = vdt2;
    vdt2_ = DeviceBuffer<float>(n);
    prev_ = DeviceBuffer<float>(n);
    cur_ = DeviceBuffer<float>(n);
    vdt2_.upload(vdt2, stream_.get());
    CUDA_CHECK(cudaMemsetAsync(prev_.get(), 0, prev_.bytes(), stream_.get()));
    CUDA_CHECK(cudaMemsetAsync(cur_.get(), 0, cur_.bytes(), stream_.get()));
    diag_ = DeviceBuffer<cuda::DiagAccum>(1);
    if (spec.cpml_on()) {
      if (spec.sponge_on())
        throw std::invalid_argument("cuda engine: CPML and sponge damping on the same layers");
      cpml_ = std::make_unique<cuda::CpmlBoundary>(spec, stream_.get());
    }
    stream_.synchronize();
  }

  std::string name() const override { return "cuda:" + variant_.name; }
  const StepSpec& spec() const override { return spec_; }

  void set_injection(const SparsePoints& pts, const std::vector<double>& traces, int nt) override {
    // Group CSR entries by target cell so that one thread owns each cell.
    std::map<int64_t, std::vector<std::pair<int, float>>> by_cell;
    for (int p = 0; p < pts.count(); ++p)
      for (int64_t k = pts.offset[p]; k < pts.offset[p + 1]; ++k) {
        const int64_t i = pts.index[k];
        by_cell[i].push_back(
            {p, static_cast<float>(pts.weight[k] * injection_factor(spec_, i, vdt2_host_[i]))});
      }
    std::vector<int64_t> cell, off{0};
    std::vector<int> point;
    std::vector<float> coef;
    for (const auto& [c, entries] : by_cell) {
      cell.push_back(c);
      for (const auto& [p, w] : entries) {
        point.push_back(p);
        coef.push_back(w);
      }
      off.push_back(static_cast<int64_t>(point.size()));
    }
    std::vector<float> tr(traces.begin(), traces.end());
    inj_cell_ = to_device(cell);
    inj_off_ = to_device(off);
    inj_point_ = to_device(point);
    inj_coef_ = to_device(coef);
    inj_traces_ = to_device(tr);
    inj_ = {inj_cell_.get(),
            inj_off_.get(),
            inj_point_.get(),
            inj_coef_.get(),
            inj_traces_.get(),
            static_cast<int>(cell.size()),
            nt};
    stream_.synchronize();
  }

  void set_recording(const SparsePoints& pts, int nt) override {
    std::vector<float> w(pts.weight.begin(), pts.weight.end());
    rec_off_ = to_device(pts.offset);
    rec_index_ = to_device(pts.index);
    rec_weight_ = to_device(w);
    rec_out_ = DeviceBuffer<float>(static_cast<size_t>(pts.count()) * nt);
    if (rec_out_.size() > 0)
      CUDA_CHECK(cudaMemsetAsync(rec_out_.get(), 0, rec_out_.bytes(), stream_.get()));
    rec_ = {rec_off_.get(), rec_index_.get(), rec_weight_.get(), rec_out_.get(), pts.count(), nt};
    stream_.synchronize();
  }

  void step(int n) override {
    cudaStream_t s = stream_.get();
    if (cpml_) cpml_->launch_psi(cur_.get(), s);
    variant_.launch(spec_, {prev_.get(), cur_.get(), prev_.get(), vdt2_.get()}, s);
    if (cpml_) cpml_->launch_correct(cur_.get(), vdt2_.get(), prev_.get(), s);
    std::swap(prev_, cur_);
    if (n < inj_.nt) cuda::launch_inject(cur_.get(), inj_, n, s);
    if (spec_.free_surface)
      cuda::launch_free_surface(cur_.get(), spec_.layout, spec_.surface, spec_.radius, s);
    if (n + 1 < rec_.nt) cuda::launch_record(cur_.get(), rec_, n + 1, s);
  }

  void copy_field(const int lo[3], const int hi[3], const int dec[3],
                  std::vector<float>& out) override {
    int n[3];
    for (int a = 0; a < 3; ++a) n[a] = (hi[a] - lo[a] + dec[a] - 1) / dec[a];
    const size_t count = static_cast<size_t>(n[0]) * n[1] * n[2];
    if (box_.size() < count) box_ = DeviceBuffer<float>(count);
    cuda::launch_gather_box(cur_.get(), spec_.layout, lo, n, dec, box_.get(), stream_.get());
    out.resize(count);
    CUDA_CHECK(cudaMemcpyAsync(out.data(), box_.get(), count * sizeof(float),
                               cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
  }

  std::vector<double> recorded() override {
    std::vector<float> h;
    rec_out_.download(h, stream_.get());
    return std::vector<double>(h.begin(), h.end());
  }

  Diagnostics diagnostics() override {
    cuda::launch_diag_reset(diag_.get(), stream_.get());
    cuda::launch_diagnostics(cur_.get(), spec_, diag_.get(), stream_.get());
    std::vector<cuda::DiagAccum> h;
    diag_.download(h, stream_.get());
    Diagnostics d;
    d.sum_sq = h[0].sum_sq;
    float mx;
    static_assert(sizeof(mx) == sizeof(h[0].max_abs_bits));
    std::memcpy(&mx, &h[0].max_abs_bits, sizeof(mx));
    d.max_abs = mx;
    d.nonfinite = static_cast<int64_t>(h[0].nonfinite);
    d.first_nonfinite = h[0].nonfinite ? static_cast<int64_t>(h[0].first_nonfinite) : -1;
    return d;
  }

  void synchronize() override { stream_.synchronize(); }

 private:
  template <class T>
  DeviceBuffer<T> to_device(const std::vector<T>& h) {
    DeviceBuffer<T> d(h.size());
    if (!h.empty()) d.upload(h, stream_.get());
    return d;
  }

  StepSpec spec_;
  const KernelVariant& variant_;
  int device_;
  cuda::Stream stream_;
  std::vector<float> vdt2_host_;
  DeviceBuffer<float> vdt2_, prev_, cur_, box_;
  DeviceBuffer<cuda::DiagAccum> diag_;
  DeviceBuffer<int64_t> inj_cell_, inj_off_, rec_off_, rec_index_;
  DeviceBuffer<int> inj_point_;
  DeviceBuffer<float> inj_coef_, inj_traces_, rec_weight_, rec_out_;
  cuda::InjectionView inj_;
  cuda::RecordingView rec_;
  std::unique_ptr<cuda::CpmlBoundary> cpml_;
};

}  // namespace

bool cuda_built() {
  return true;
}

std::string cuda_runtime_version() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return "unknown";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::vector<DeviceInfo> cuda_devices() {
  std::vector<DeviceInfo> out;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear: "no driver" is an answer, not an error
    return out;
  }
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    DeviceInfo d;
    d.id = i;
    d.name = p.name;
    d.compute_capability = p.major * 10 + p.minor;
    d.multiprocessors = p.multiProcessorCount;
    d.total_bytes = p.totalGlobalMem;
    if (cudaSetDevice(i) == cudaSuccess) cudaMemGetInfo(&d.free_bytes, &d.total_bytes);
    out.push_back(d);
  }
  return out;
}

std::unique_ptr<WaveEngine> make_cuda_engine(const StepSpec& spec,
                                             const std::vector<float>& velocity, double dt,
                                             const std::string& variant, int device) {
  const auto devs = cuda_devices();
  if (device < 0 || device >= static_cast<int>(devs.size()))
    throw std::runtime_error("backend cuda: no CUDA device " + std::to_string(device) + " (found " +
                             std::to_string(devs.size()) + ")");
  const DeviceInfo& d = devs[device];
  const size_t need = cuda_engine_bytes(spec);
  if (need > d.free_bytes)
    throw std::runtime_error("backend cuda: the run needs " + std::to_string(need >> 20) +
                             " MiB of device memory, " + d.name + " has " +
                             std::to_string(d.free_bytes >> 20) + " MiB free");
  const KernelVariant& v =
      resolve_variant(variant, "acoustic", 2 * spec.radius, spec, d.compute_capability);
  return std::make_unique<CudaEngine>(spec, velocity, dt, v, device);
}

}  // namespace seisfd
