#include "kernels/cuda/cuda_state.hpp"

#include <cuda_runtime.h>

#include <atomic>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>

#include "kernels/cuda/device_guard.hpp"
#include "kernels/cuda/imaging.hpp"
#include "kernels/huge_pages.hpp"

namespace seisfd::cuda {
namespace {

const char* const kFieldName[kMaxFields] = {"p", "q"};
const char* const kAxisName[3] = {"z", "y", "x"};

template <class T>
DeviceBuffer<T> to_device(const std::vector<T>& h, cudaStream_t s) {
  DeviceBuffer<T> d(h.size());
  if (!h.empty()) d.upload(h, s);
  return d;
}

void box_extent(const Box& b, const int dec[3], int n[3]) {
  for (int a = 0; a < 3; ++a)
    n[a] = b.hi[a] > b.lo[a] ? (b.hi[a] - b.lo[a] + dec[a] - 1) / dec[a] : 0;
}

}  // namespace

uint64_t next_uid() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

// ---- state

CudaState::CudaState(const StepSpec& spec, int fields, const int64_t cpml_cells[3], bool compress,
                     const ExecContext& ctx, std::string engine)
    : spec_(spec), fields_(fields), ctx_(ctx), engine_(std::move(engine)), uid_(next_uid()) {
  const DeviceGuard guard(ctx.device);
  const size_t n = static_cast<size_t>(spec.layout.size());
  for (int f = 0; f < fields; ++f) {
    prev_[f] = DeviceBuffer<float>(n, compress, ctx.device);
    cur_[f] = DeviceBuffer<float>(n, compress, ctx.device);
  }
  for (int ax = 0; ax < 3; ++ax) {
    if (cpml_cells[ax] <= 0) continue;
    psi_[ax] = DeviceBuffer<float>(static_cast<size_t>(cpml_cells[ax]));
    zeta_[ax] = DeviceBuffer<float>(static_cast<size_t>(cpml_cells[ax]));
    cpml_.psi[ax] = psi_[ax].get();
    cpml_.zeta[ax] = zeta_[ax].get();
  }
  zero();
  CUDA_CHECK(cudaStreamSynchronize(stream()));
}

CudaState::~CudaState() {
  cudaStreamSynchronize(stream());  // destructors never throw; no launch may still use us
}

bool CudaState::compressed() const {
  for (int f = 0; f < fields_; ++f)
    if (!prev_[f].compressed() || !cur_[f].compressed()) return false;
  return true;
}

void CudaState::rotate() {
  for (int f = 0; f < fields_; ++f) std::swap(prev_[f], cur_[f]);
}

std::vector<CudaState::Named> CudaState::arrays() const {
  std::vector<Named> out;
  for (int f = 0; f < fields_; ++f) {
    out.push_back({std::string(kFieldName[f]) + ".previous", &prev_[f]});
    out.push_back({std::string(kFieldName[f]) + ".current", &cur_[f]});
  }
  for (int a = 0; a < 3; ++a)
    if (psi_[a].size() > 0) {
      out.push_back({std::string("cpml.psi.") + kAxisName[a], &psi_[a]});
      out.push_back({std::string("cpml.zeta.") + kAxisName[a], &zeta_[a]});
    }
  return out;
}

void CudaState::zero() {
  const DeviceGuard guard(ctx_.device);
  for (const Named& a : arrays()) const_cast<DeviceBuffer<float>*>(a.buffer)->zero(stream());
  set_step(0);
}

void CudaState::copy_from(const WaveState& other) {
  const auto* o = dynamic_cast<const CudaState*>(&other);
  if (!o || o->engine_ != engine_)
    throw std::invalid_argument("copy_from: the state was made by another engine");
  const DeviceGuard guard(ctx_.device);
  const auto mine = arrays(), theirs = o->arrays();
  for (size_t k = 0; k < mine.size(); ++k)
    CUDA_CHECK(cudaMemcpyAsync(mine[k].buffer->get(), theirs[k].buffer->get(),
                               mine[k].buffer->bytes(), cudaMemcpyDeviceToDevice, stream()));
  CUDA_CHECK(cudaStreamSynchronize(stream()));
  set_step(o->step());
}

StateImage CudaState::save() const {
  const DeviceGuard guard(ctx_.device);
  StateImage img;
  img.engine = engine_;
  img.step = step();
  for (const Named& a : arrays()) {
    StateArray s;
    s.name = a.name;
    s.element_bytes = sizeof(float);
    s.data.resize(a.buffer->bytes());
    CUDA_CHECK(cudaMemcpyAsync(s.data.data(), a.buffer->get(), s.data.size(),
                               cudaMemcpyDeviceToHost, stream()));
    img.arrays.push_back(std::move(s));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream()));
  return img;
}

void CudaState::load(const StateImage& img) {
  if (img.engine != engine_)
    throw std::invalid_argument("load: the image was saved by engine '" + img.engine +
                                "', this state belongs to '" + engine_ + "'");
  const auto mine = arrays();
  if (img.arrays.size() != mine.size())
    throw std::invalid_argument("load: the image has " + std::to_string(img.arrays.size()) +
                                " arrays, the state " + std::to_string(mine.size()));
  for (const Named& m : mine) {
    const StateArray* a = img.find(m.name);
    if (!a || a->element_bytes != 4 || a->data.size() != m.buffer->bytes())
      throw std::invalid_argument("load: the image has no array '" + m.name +
                                  "' of this state's size and type");
  }
  const DeviceGuard guard(ctx_.device);
  for (const Named& m : mine)
    CUDA_CHECK(cudaMemcpyAsync(m.buffer->get(), img.find(m.name)->data.data(), m.buffer->bytes(),
                               cudaMemcpyHostToDevice, stream()));
  CUDA_CHECK(cudaStreamSynchronize(stream()));
  set_step(img.step);
}

float* CudaState::level(FieldRef f) const {
  if (f.field < 0 || f.field >= fields_)
    throw std::invalid_argument("state: no field " + std::to_string(f.field));
  return f.level == Level::kCurrent ? cur_[f.field].get() : prev_[f.field].get();
}

void CudaState::read_box(FieldRef f, const Box& b, const int dec[3],
                         std::vector<float>& out) const {
  const DeviceGuard guard(ctx_.device);
  int n[3];
  box_extent(b, dec, n);
  const size_t count = static_cast<size_t>(n[0]) * n[1] * n[2];
  out.resize(count);
  if (count == 0) return;
  if (box_.size() < count) box_ = DeviceBuffer<float>(count);
  launch_gather_box(level(f), spec_.layout, b.lo, n, dec, box_.get(), stream());
  CUDA_CHECK(cudaMemcpyAsync(out.data(), box_.get(), count * sizeof(float), cudaMemcpyDeviceToHost,
                             stream()));
  CUDA_CHECK(cudaStreamSynchronize(stream()));
}

void CudaState::read_boxes(FieldRef f, const std::vector<Box>& boxes,
                           std::vector<float>& out) const {
  const DeviceGuard guard(ctx_.device);
  size_t total = 0;
  for (const Box& b : boxes) total += static_cast<size_t>(b.cells());
  out.resize(total);
  if (total == 0) return;
  if (box_.size() < total) box_ = DeviceBuffer<float>(total);
  launch_gather_boxes(level(f), spec_.layout, boxes, box_.get(), stream());
  CUDA_CHECK(cudaMemcpyAsync(out.data(), box_.get(), total * sizeof(float), cudaMemcpyDeviceToHost,
                             stream()));
  CUDA_CHECK(cudaStreamSynchronize(stream()));
}

void CudaState::write_boxes(FieldRef f, const std::vector<Box>& boxes,
                            const std::vector<float>& in) {
  size_t total = 0;
  for (const Box& b : boxes) total += static_cast<size_t>(b.cells());
  if (total != in.size())
    throw std::invalid_argument("write_boxes: " + std::to_string(in.size()) + " values for " +
                                std::to_string(total) + " cells");
  if (total == 0) return;
  const DeviceGuard guard(ctx_.device);
  if (box_.size() < total) box_ = DeviceBuffer<float>(total);
  CUDA_CHECK(cudaMemcpyAsync(box_.get(), in.data(), total * sizeof(float), cudaMemcpyHostToDevice,
                             stream()));
  launch_scatter_boxes(level(f), spec_.layout, boxes, box_.get(), stream());
  CUDA_CHECK(cudaStreamSynchronize(stream()));  // `in` may go once we return
}

void CudaState::read_boxes(FieldRef f, const std::vector<Box>& boxes,
                           std::vector<double>& out) const {
  std::vector<float> values;
  read_boxes(f, boxes, values);
  out.assign(values.begin(), values.end());
}

void CudaState::write_boxes(FieldRef f, const std::vector<Box>& boxes,
                            const std::vector<double>& in) {
  write_boxes(f, boxes, std::vector<float>(in.begin(), in.end()));
}

namespace {

// The fp32 elements [offset, offset + cells) of a CudaArray, for the kernels.
float* array_span(const CellArray& a, int64_t offset, int64_t cells, const char* what) {
  const auto* c = dynamic_cast<const CudaArray*>(&a);
  if (!c) throw std::invalid_argument(std::string(what) + ": the array was made by another engine");
  if (c->kind() == ArrayKind::kDeviceHalf)
    throw std::invalid_argument(std::string(what) + ": half-precision arrays are refused");
  if (offset < 0 || offset + cells > c->size())
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(cells) + " cells from " +
                                std::to_string(offset) + " overrun an array of " +
                                std::to_string(c->size()));
  return static_cast<float*>(c->ref().p) + offset;
}

}  // namespace

void CudaState::read_boxes(FieldRef f, const std::vector<Box>& boxes, CellArray& out,
                           int64_t offset) const {
  int64_t total = 0;
  for (const Box& b : boxes) total += b.cells();
  float* dst = array_span(out, offset, total, "read_boxes");
  const DeviceGuard guard(ctx_.device);
  launch_gather_boxes(level(f), spec_.layout, boxes, dst, stream());
}

void CudaState::write_boxes(FieldRef f, const std::vector<Box>& boxes, const CellArray& in,
                            int64_t offset) {
  int64_t total = 0;
  for (const Box& b : boxes) total += b.cells();
  const float* src = array_span(in, offset, total, "write_boxes");
  const DeviceGuard guard(ctx_.device);
  launch_scatter_boxes(level(f), spec_.layout, boxes, src, stream());
}

// ---- sources and receivers

CudaSources::CudaSources(const SparsePoints& pts, const std::vector<float>& coef,
                         const std::vector<double>& traces, int nt, cudaStream_t s)
    : Sources(pts.count(), nt), uid_(next_uid()) {
  // Grouped by target cell so that one thread owns each cell and sums in a fixed order: the
  // injection is deterministic (no atomics).
  std::map<int64_t, std::vector<std::pair<int, float>>> by_cell;
  for (int p = 0; p < pts.count(); ++p)
    for (int64_t k = pts.offset[p]; k < pts.offset[p + 1]; ++k)
      by_cell[pts.index[k]].push_back({p, coef[k]});
  std::vector<int64_t> cell, off{0};
  std::vector<int> point;
  std::vector<float> w;
  for (const auto& [c, entries] : by_cell) {
    cell.push_back(c);
    for (const auto& [p, x] : entries) {
      point.push_back(p);
      w.push_back(x);
    }
    off.push_back(static_cast<int64_t>(point.size()));
  }
  cell_ = to_device(cell, s);
  off_ = to_device(off, s);
  point_ = to_device(point, s);
  coef_ = to_device(w, s);
  traces_ = to_device(std::vector<float>(traces.begin(), traces.end()), s);
  view_ = {cell_.get(), off_.get(),    point_.get(),
           coef_.get(), traces_.get(), static_cast<int>(cell.size()),
           nt};
  CUDA_CHECK(cudaStreamSynchronize(s));  // the host vectors go when we return
}

CudaReceivers::CudaReceivers(const SparsePoints& pts, int nt, const ExecContext& ctx)
    : Receivers(pts.count(), nt), uid_(next_uid()), ctx_(ctx) {
  const auto s = static_cast<cudaStream_t>(ctx.stream);
  offset_ = to_device(pts.offset, s);
  index_ = to_device(pts.index, s);
  weight_ = to_device(std::vector<float>(pts.weight.begin(), pts.weight.end()), s);
  out_ = DeviceBuffer<float>(static_cast<size_t>(pts.count()) * nt);
  out_.zero(s);
  view_ = {offset_.get(), index_.get(), weight_.get(), out_.get(), pts.count(), nt};
  CUDA_CHECK(cudaStreamSynchronize(s));
}

std::vector<double> CudaReceivers::traces() const {
  const DeviceGuard guard(ctx_.device);
  std::vector<float> h = huge_vector<float>(out_.size());  // a shot's traces: hundreds of MB
  if (out_.size() > 0) out_.download(h, static_cast<cudaStream_t>(ctx_.stream));
  return widen(h);
}

void CudaReceivers::clear() {
  const DeviceGuard guard(ctx_.device);
  out_.zero(static_cast<cudaStream_t>(ctx_.stream));
}

}  // namespace seisfd::cuda
