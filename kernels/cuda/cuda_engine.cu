// The CUDA WaveEngine: two wavefield buffers rotated in place, the model as (v dt)^2, the
// selected registry variant for the update, and the field_ops kernels around it.
//
// Chunks of steps run as CUDA graphs: the launches of L steps are captured once and replayed
// for every chunk of that length. The step number lives in a device counter that the
// injection and recording kernels read and the chunk advances, and a graph is kept for each
// of the two buffer roles (after an odd chunk prev and cur swap), so nothing is re-captured
// as the loop goes on.
//
// Diagnostics: the diagnostics of field m (set_diagnostics_every) are reduced inside the chunk
// that runs step m, by its update kernel where the variant fuses them (it reads field m anyway)
// or by the separate reduction kernel just before it, each into its own accumulator. The
// one-thread kernel that ends every chunk (it advances the step counter) also copies the
// chunk's totals into a ring of pinned host memory mapped for the device and zeroes them: a
// check adds no launch, no copy and no graph boundary. An event after the chunk tells the host
// when those slots are final; the loop never waits for them unless the ring is full.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>

#include "kernels/cuda/buffer.hpp"
#include "kernels/cuda/cpml.hpp"
#include "kernels/cuda/diag_queue.hpp"
#include "kernels/cuda/engine_setup.hpp"
#include "kernels/cuda/field_ops.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/registry.hpp"

namespace seisfd {
namespace {

using cuda::DeviceBuffer;

class CudaEngine final : public WaveEngine {
 public:
  // `compress`: the wavefields and (v dt)^2 in compressible memory (want_compression()).
  CudaEngine(const StepSpec& spec, const std::vector<float>& velocity, double dt,
             const KernelVariant& variant, int device, bool compress)
      : spec_(spec), variant_(variant), device_(device) {
    CUDA_CHECK(cudaSetDevice(device));
    const size_t n = static_cast<size_t>(spec.layout.size());
    std::vector<float> vdt2(n);
    for (size_t i = 0; i < n; ++i) vdt2[i] = static_cast<float>(vdt_squared(velocity[i], dt));
    vdt2_host_ = vdt2;
    vdt2_ = DeviceBuffer<float>(n, compress, device);
    prev_ = DeviceBuffer<float>(n, compress, device);
    cur_ = DeviceBuffer<float>(n, compress, device);
    compressed_ = compress && prev_.compressed() && cur_.compressed();
    vdt2_.upload(vdt2, stream_.get());
    prev_.zero(stream_.get());
    cur_.zero(stream_.get());
    step_ = DeviceBuffer<int>(1);
    cuda::launch_set_step(step_.get(), 0, stream_.get());
    queue_ = std::make_unique<cuda::DiagQueue>(stream_.get());
    if (spec.cpml_on()) {
      if (spec.sponge_on())
        throw std::invalid_argument("cuda engine: CPML and sponge damping on the same layers");
      cpml_ = std::make_unique<cuda::CpmlBoundary>(spec, stream_.get());
    }
    stream_.synchronize();
  }

  ~CudaEngine() override {
    cudaStreamSynchronize(stream_.get());  // destructors never throw
    for (auto& [key, exec] : graphs_) cudaGraphExecDestroy(exec);
  }

  std::string name() const override { return "cuda:" + variant_.name; }
  const StepSpec& spec() const override { return spec_; }

  void set_injection(const SparsePoints& pts, const std::vector<double>& traces, int nt) override {
    drop_graphs();  // they hold the old buffers' addresses
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
    drop_graphs();
    std::vector<float> w(pts.weight.begin(), pts.weight.end());
    rec_off_ = to_device(pts.offset);
    rec_index_ = to_device(pts.index);
    rec_weight_ = to_device(w);
    rec_out_ = DeviceBuffer<float>(static_cast<size_t>(pts.count()) * nt);
    rec_out_.zero(stream_.get());
    rec_ = {rec_off_.get(), rec_index_.get(), rec_weight_.get(), rec_out_.get(), pts.count(), nt};
    stream_.synchronize();
  }

  void step(int n) override { steps(n, n + 1); }

  void steps(int n_begin, int n_end) override {
    if (n_end <= n_begin) return;
    if (n_begin != device_step_) cuda::launch_set_step(step_.get(), n_begin, stream_.get());
    // Launches of at most kPerLaunch reductions each (one accumulator each).
    const int64_t every = diagnostics_every();
    for (int n = n_begin; n < n_end;) {
      int end = n_end;
      if (every > 0)
        end = static_cast<int>(
            std::min<int64_t>(n_end, first_due(n) + every * cuda::DiagQueue::kPerLaunch));
      launch_chunk(n, end);
      n = end;
    }
    device_step_ = n_end;
  }

  void set_graphs(bool on) override { use_graphs_ = on; }
  bool graphs() const override { return use_graphs_; }

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
    return queue_->reduce_and_wait(cur_.get(), spec_, stream_.get());
  }

  void queue_diagnostics(int step) override {
    queue_->reduce_now(cur_.get(), spec_, step, stream_.get());
  }

  std::vector<TaggedDiagnostics> completed_diagnostics(int max_pending) override {
    return queue_->completed(max_pending);
  }

  void synchronize() override { stream_.synchronize(); }

  std::vector<std::pair<std::string, std::string>> details() const override { return details_; }
  void set_details(std::vector<std::pair<std::string, std::string>> d) { details_ = std::move(d); }
  bool compressed() const { return compressed_; }

 private:
  // (steps, prev buffer, steps between reductions, step of the first reduction or -1)
  using GraphKey = std::tuple<int, const float*, int, int>;

  // The first field >= n whose diagnostics are due (diagnostics_every() > 0).
  int first_due(int n) const {
    const int k = diagnostics_every();
    return (std::max(n, 1) + k - 1) / k * k;
  }

  // Steps [n, end) as one graph, or as plain launches, with the reductions due among them.
  void launch_chunk(int n, int end) {
    cudaStream_t s = stream_.get();
    const int count = end - n;
    const int first = diagnostics_every() > 0 && first_due(n) < end ? first_due(n) - n : -1;
    const int every = first >= 0 ? diagnostics_every() : 0;
    std::vector<int> fields;
    for (int k = first; every > 0 && k < count; k += every) fields.push_back(n + k);
    queue_->make_room(static_cast<int>(fields.size()));
    if (!use_graphs_ || count < 2) {
      enqueue(count, s, first, every);
    } else {
      const GraphKey key{count, prev_.get(), every, first};
      auto it = graphs_.find(key);
      if (it == graphs_.end()) {
        cudaGraph_t g;
        CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
        enqueue(count, s, first, every);  // recorded, not run; leaves the roles as after the chunk
        CUDA_CHECK(cudaStreamEndCapture(s, &g));
        cudaGraphExec_t exec;
        CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
        CUDA_CHECK(cudaGraphDestroy(g));
        graphs_.emplace(key, exec);
        CUDA_CHECK(cudaGraphLaunch(exec, s));
      } else {
        CUDA_CHECK(cudaGraphLaunch(it->second, s));
        if (count % 2) std::swap(prev_, cur_);
      }
    }
    queue_->published(fields, s);
  }

  // The launches of `count` steps on stream s (run now, or recorded into a graph). Step k
  // reduces the diagnostics of its cur when k >= first and (k - first) % every == 0 (every > 0),
  // the j-th such step into acc_[j]: the update does it where the variant fuses them, the
  // separate reduction otherwise. The chunk's last launch advances the step counter and
  // publishes the chunk's reductions.
  void enqueue(int count, cudaStream_t s, int first, int every) {
    int j = 0;
    for (int k = 0; k < count; ++k) {
      const bool reduce = every > 0 && k >= first && (k - first) % every == 0;
      const bool fused = reduce && variant_.fuses_diagnostics && fuse_diagnostics_;
      cuda::DiagAccum* acc = reduce ? queue_->acc(j++) : nullptr;
      if (reduce && !fused) cuda::launch_diagnostics(cur_.get(), spec_, acc, s);
      if (cpml_) cpml_->launch_psi(cur_.get(), s);
      AcousticFields f{prev_.get(), cur_.get(), prev_.get(), vdt2_.get()};
      if (fused) f.diag = acc;
      variant_.launch(spec_, f, s);
      if (cpml_) cpml_->launch_correct(cur_.get(), vdt2_.get(), prev_.get(), s);
      std::swap(prev_, cur_);
      cuda::launch_inject(cur_.get(), inj_, step_.get(), k, s);
      if (spec_.free_surface)
        cuda::launch_free_surface(cur_.get(), spec_.layout, spec_.surface, spec_.radius, s);
      cuda::launch_record(cur_.get(), rec_, step_.get(), k + 1, s);
    }
    if (j > 0)
      cuda::launch_diag_publish(queue_->ring(), queue_->acc(), j, s, step_.get(), count);
    else
      cuda::launch_advance_step(step_.get(), count, s);
  }

  void drop_graphs() {
    stream_.synchronize();
    for (auto& [key, exec] : graphs_) CUDA_CHECK(cudaGraphExecDestroy(exec));
    graphs_.clear();
  }

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
  DeviceBuffer<int64_t> inj_cell_, inj_off_, rec_off_, rec_index_;
  DeviceBuffer<int> inj_point_;
  DeviceBuffer<float> inj_coef_, inj_traces_, rec_weight_, rec_out_;
  cuda::InjectionView inj_;
  cuda::RecordingView rec_;
  std::unique_ptr<cuda::CpmlBoundary> cpml_;
  DeviceBuffer<int> step_;  // the device's step counter
  int device_step_ = 0;     // its value once the queued work has run
  bool use_graphs_ = true;
  std::map<GraphKey, cudaGraphExec_t> graphs_;
  std::unique_ptr<cuda::DiagQueue> queue_;  // the queued diagnostics
  // Where the variant fuses diagnostics; SEISFD_FUSED_DIAGNOSTICS=0 turns it off to measure
  // the separate reduction (a measurement knob, not a user setting).
  bool fuse_diagnostics_ = [] {
    const char* e = std::getenv("SEISFD_FUSED_DIAGNOSTICS");
    return !(e && std::string(e) == "0");
  }();
  bool compressed_ = false;
  std::vector<std::pair<std::string, std::string>> details_;
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
                                             const std::string& variant, int device,
                                             Compressible compressible) {
  const cuda::EngineSetup s = cuda::prepare_engine(spec, cuda_engine_bytes(spec), variant,
                                                   "acoustic", device, compressible);
  auto e = std::make_unique<CudaEngine>(spec, velocity, dt, *s.choice.variant, device, s.compress);
  e->set_details(cuda::engine_details(s, e->compressed()));
  return e;
}

}  // namespace seisfd
