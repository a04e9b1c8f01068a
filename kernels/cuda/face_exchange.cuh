// What the device halo exchanges share (kernels/cuda_backend.hpp, docs/parallel.md): the faces a
// rank shares with its neighbours, packed into contiguous buffers and unpacked from them by one
// kernel each, and the order in which faces go.
//
// A face is the `halo` cells next to a side of the rank's own region (packed: the owned cells;
// unpacked: the halo beyond), over the full extent of the other axes, every field. Contiguous
// buffers keep a transfer whole even for x faces, whose rows are only `halo` cells long in the
// wavefield.
//
// Phases. The acoustic and VTI stencils read along the axes only, so every face goes at once (one
// phase) and the halo's edges are never read. TTI's cross terms read them: its faces go axis after
// axis (z, then y over the z halo just unpacked, then x over both), so that the edges and corners
// arrive with the later axes' faces.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/cuda_state.hpp"
#include "kernels/cuda/device_guard.hpp"
#include "kernels/cuda_backend.hpp"

namespace seisfd::cuda {

struct FieldPtrs {
  float* f[kMaxFields];
};

struct FaceBuffers {
  float* b[2];
};

// kPack: packed[f][cell of the box] = field f at the box (origin o, extents n) of layout l; else
// the other way. The buffer is b[0], or with `count` (a device counter of exchanges) the one of
// parity (*count + ahead) % 2. One thread per cell of the box, every field.
template <bool kPack>
__global__ void face_kernel(FaceBuffers buf, const unsigned long long* count, int ahead,
                            FieldPtrs field, int fields, Layout l, int3 o, int3 n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long plane = static_cast<long long>(n.x) * n.y, cells = plane * n.z;
  if (i >= cells) return;
  float* packed = count ? buf.b[(*count + ahead) & 1] : buf.b[0];
  const int z = static_cast<int>(i / plane);
  const int y = static_cast<int>((i % plane) / n.x);
  const int x = static_cast<int>(i % n.x);
  const long long at = l.idx(o.z + z, o.y + y, o.x + x);
  for (int f = 0; f < fields; ++f)
    if (kPack)
      packed[f * cells + i] = field.f[f][at];
    else
      field.f[f][at] = packed[f * cells + i];
}

// The faces of one rank's part of a CUDA engine's grid and the order they go in; the exchanges
// derive from it and add how the packed faces travel.
class FaceExchange : public HaloExchange {
 public:
  FaceExchange(Engine& engine, HaloLink link)
      : engine_(engine),
        link_(std::move(link)),
        fields_(traits(engine.physics()).fields),
        edges_(engine.physics() == Physics::kTti),
        device_(engine.context().device) {
    for (int a = 0; a < 3; ++a)
      if (link_.neighbour[2 * a] >= 0 || link_.neighbour[2 * a + 1] >= 0) axes_[naxes_++] = a;
  }

  bool overlaps() const override { return true; }

  // The whole exchange at once: start(), finish(), and the engine's stream waited for.
  void exchange(WaveState& ws, int fields) override {
    start(ws);
    finish(ws, fields);
    const DeviceGuard guard(device_);
    CUDA_CHECK(cudaStreamSynchronize(stream()));
  }

  Box interior(const StepSpec& spec) const override {
    Box b = updated_region(spec);
    for (int a = 0; a < 3; ++a) {
      if (link_.neighbour[2 * a] >= 0) b.lo[a] += link_.halo;
      if (link_.neighbour[2 * a + 1] >= 0) b.hi[a] -= link_.halo;
      b.hi[a] = std::max(b.hi[a], b.lo[a]);
    }
    return b;
  }

 protected:
  cudaStream_t stream() const { return static_cast<cudaStream_t>(engine_.context().stream); }

  // The axes with neighbours of the phase that starts at axes_[i]: all of them, or one for TTI.
  int phase_end(int i) const { return edges_ ? std::min(i + 1, naxes_) : naxes_; }

  // The slots (z-, z+, y-, y+, x-, x+) with a neighbour of the axes axes_[i, end), as a mask.
  int slots(int i, int end) const {
    int m = 0;
    for (int j = i; j < end; ++j)
      for (int side = 0; side < 2; ++side)
        if (link_.neighbour[2 * axes_[j] + side] >= 0) m |= 1 << (2 * axes_[j] + side);
    return m;
  }

  static FieldPtrs fields_of(WaveState& ws, int fields, const char* who) {
    auto* s = dynamic_cast<CudaState*>(&ws);
    if (!s)
      throw std::invalid_argument(std::string(who) + ": the state was not made by a CUDA engine");
    FieldPtrs f{};
    for (int k = 0; k < fields; ++k) f.f[k] = s->current(k);
    return f;
  }

  // Seconds from a device counter of nanoseconds (after the work queued so far).
  double device_seconds(const unsigned long long* ns_on_device) const {
    const DeviceGuard guard(device_);
    unsigned long long ns = 0;
    CUDA_CHECK(cudaMemcpyAsync(&ns, ns_on_device, sizeof ns, cudaMemcpyDeviceToHost, stream()));
    CUDA_CHECK(cudaStreamSynchronize(stream()));
    return 1e-9 * static_cast<double>(ns);
  }

  // The cells of one face of axis a (every field: times fields_).
  long long face_cells(int a) const {
    const Layout& l = engine_.spec().layout;
    const long long ext[3] = {l.nz, l.ny, l.nx};
    long long c = link_.halo;
    for (int b = 0; b < 3; ++b)
      if (b != a) c *= ext[b];
    return c;
  }
  size_t face_bytes(int a) const {
    return static_cast<size_t>(face_cells(a)) * fields_ * sizeof(float);
  }

  // The layout's extents (z, y, x), which a neighbour's must match across the face they share.
  void extents(int ext[3]) const {
    const Layout& l = engine_.spec().layout;
    ext[0] = l.nz;
    ext[1] = l.ny;
    ext[2] = l.nx;
  }
  // Throws unless the neighbour `from` across axis a laid out the same face with the same fields.
  void check_neighbour(int a, int from, const int got_ext[3], int got_fields) const {
    int ext[3];
    extents(ext);
    for (int b = 0; b < 3; ++b)
      if (b != a && got_ext[b] != ext[b])
        throw std::logic_error("halo exchange: rank " + std::to_string(from) +
                               "'s layout does not match this rank's across their face");
    if (got_fields != fields_)
      throw std::logic_error("halo exchange: rank " + std::to_string(from) +
                             " steps another physics");
  }

  // Packs this rank's faces of axis a into `own` (by slot), or unpacks `got` (by slot) into the
  // halo across them; the buffers of parity (*count + ahead) % 2 where count is given.
  void copy_axis(bool pack, const FieldPtrs& f, int a, float* (*bufs)[2],
                 const unsigned long long* count = nullptr, int ahead = 0) {
    for (int side = 0; side < 2; ++side) {
      const int slot = 2 * a + side;
      if (link_.neighbour[slot] < 0) continue;
      int3 o, n;
      face(a, side, pack, o, n);
      const long long cells = face_cells(a);
      const unsigned blocks = static_cast<unsigned>((cells + 255) / 256);
      const Layout& l = engine_.spec().layout;
      const FaceBuffers b{{bufs[slot][0], bufs[slot][1]}};
      if (pack)
        face_kernel<true><<<blocks, 256, 0, stream()>>>(b, count, ahead, f, fields_, l, o, n);
      else
        face_kernel<false><<<blocks, 256, 0, stream()>>>(b, count, ahead, f, fields_, l, o, n);
      CUDA_CHECK_LAUNCH();
    }
  }

  Engine& engine_;
  HaloLink link_;
  int fields_;
  bool edges_;  // faces axis after axis (the stencil reads the halo's edges)
  int device_;
  int axes_[3] = {0, 0, 0}, naxes_ = 0;  // the axes with neighbours, in order

 private:
  // The face box of (axis a, side) in this rank's layout: the owned cells next to it (pack) or
  // the halo beyond it (unpack), `halo` deep, the full extent of the other axes.
  void face(int a, int side, bool owned, int3& o, int3& n) const {
    const StepSpec& spec = engine_.spec();
    const int w = link_.halo;
    int d0[3] = {0, 0, 0}, ext[3];
    extents(ext);
    if (side == 0)
      d0[a] = owned ? spec.begin[a] : spec.begin[a] - w;
    else
      d0[a] = owned ? spec.end[a] - w : spec.end[a];
    ext[a] = w;
    o = make_int3(d0[2], d0[1], d0[0]);
    n = make_int3(ext[2], ext[1], ext[0]);
  }
};

}  // namespace seisfd::cuda
