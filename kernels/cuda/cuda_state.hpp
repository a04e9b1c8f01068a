// The CUDA engine's state, sources and receivers (kernels/engine.hpp): device arrays on the
// engine's device, operated on its stream. Each carries a unique id: the engine's captured
// graphs are keyed by it, since a graph records the raw addresses of the buffers it was
// captured with.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cuda/buffer.hpp"
#include "kernels/cuda/cpml.hpp"
#include "kernels/cuda/field_ops.hpp"
#include "kernels/engine.hpp"
#include "kernels/exec.hpp"

namespace seisfd::cuda {

// A process-wide id, never reused.
uint64_t next_uid();

class CudaState final : public WaveState {
 public:
  // cpml_cells[ax]: psi and zeta cells of axis ax (0: none).
  CudaState(const StepSpec& spec, int fields, const int64_t cpml_cells[3], bool compress,
            const ExecContext& ctx, std::string engine);
  ~CudaState() override;

  uint64_t uid() const { return uid_; }
  float* current(int f) const { return cur_[f].get(); }
  float* previous(int f) const { return prev_[f].get(); }
  const CpmlMemory& cpml() const { return cpml_; }
  int fields() const { return fields_; }
  bool compressed() const;  // the driver granted compression for the fields
  void rotate();            // the new level (written over the previous one) becomes the current

  void zero() override;
  void copy_from(const WaveState& other) override;
  StateImage save() const override;
  void load(const StateImage& image) override;
  void read_box(FieldRef f, const Box& b, const int dec[3], std::vector<float>& out) const override;
  void read_boxes(FieldRef f, const std::vector<Box>& boxes,
                  std::vector<float>& out) const override;
  void write_boxes(FieldRef f, const std::vector<Box>& boxes,
                   const std::vector<float>& in) override;
  // The fields are float: these go through float, exactly.
  void read_boxes(FieldRef f, const std::vector<Box>& boxes,
                  std::vector<double>& out) const override;
  void write_boxes(FieldRef f, const std::vector<Box>& boxes,
                   const std::vector<double>& in) override;
  // Device to device (or into mapped pinned memory), in the stream: no wait.
  void read_boxes(FieldRef f, const std::vector<Box>& boxes, CellArray& out,
                  int64_t offset) const override;
  void write_boxes(FieldRef f, const std::vector<Box>& boxes, const CellArray& in,
                   int64_t offset) override;
  int element_bytes() const override { return sizeof(float); }

 private:
  struct Named {
    std::string name;
    const DeviceBuffer<float>* buffer;
  };
  std::vector<Named> arrays() const;  // every array, in the order save() writes them
  float* level(FieldRef f) const;
  cudaStream_t stream() const { return static_cast<cudaStream_t>(ctx_.stream); }

  StepSpec spec_;
  int fields_;
  ExecContext ctx_;
  std::string engine_;
  uint64_t uid_;
  DeviceBuffer<float> prev_[kMaxFields], cur_[kMaxFields];
  DeviceBuffer<float> psi_[3], zeta_[3];
  CpmlMemory cpml_;
  mutable DeviceBuffer<float> box_;  // staging for box reads and writes
};

class CudaSources final : public Sources {
 public:
  // coef per CSR entry of `points`: weight (v dt)^2 / (1 + g) of its cell.
  CudaSources(const SparsePoints& points, const std::vector<float>& coef,
              const std::vector<double>& traces, int nt, cudaStream_t s);
  uint64_t uid() const { return uid_; }
  const InjectionView& view() const { return view_; }

 private:
  uint64_t uid_;
  DeviceBuffer<int64_t> cell_, off_;
  DeviceBuffer<int> point_;
  DeviceBuffer<float> coef_, traces_;
  InjectionView view_;
};

class CudaReceivers final : public Receivers {
 public:
  CudaReceivers(const SparsePoints& points, int nt, const ExecContext& ctx);
  uint64_t uid() const { return uid_; }
  const RecordingView& view() const { return view_; }
  std::vector<double> traces() const override;
  void clear() override;

 private:
  uint64_t uid_;
  ExecContext ctx_;
  DeviceBuffer<int64_t> offset_, index_;
  DeviceBuffer<float> weight_, out_;
  RecordingView view_;
};

}  // namespace seisfd::cuda
