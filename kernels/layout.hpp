// Layout of one computational array: C-order [z][y][x], x unit-stride, every x-row padded to
// start 128-byte aligned (coalescing; TMA needs 16-byte strides). Plain C++, usable on host
// and, by value, inside kernels.
#pragma once
#include <cstdint>

namespace seisfd {

struct Layout {
  int nz = 0, ny = 0, nx = 0;  // computational extents, absorbing layers and halo included
  int64_t sy = 0;              // elements between consecutive y rows (>= nx, multiple of 32)
  int64_t sz = 0;              // elements between consecutive z planes (= sy * ny)

  static constexpr int kRowAlignElems = 32;  // 128 bytes of fp32

  static Layout make(int nz, int ny, int nx) {
    Layout l;
    l.nz = nz;
    l.ny = ny;
    l.nx = nx;
    l.sy = (static_cast<int64_t>(nx) + kRowAlignElems - 1) / kRowAlignElems * kRowAlignElems;
    l.sz = l.sy * ny;
    return l;
  }
  int64_t size() const { return sz * nz; }  // elements, padding included
  int64_t cells() const { return static_cast<int64_t>(nz) * ny * nx; }
#if defined(__CUDACC__)
  __host__ __device__
#endif
      int64_t
      idx(int z, int y, int x) const {
    return z * sz + y * sy + x;
  }
  // Inverse of idx for a cell inside the layout (x < sy).
#if defined(__CUDACC__)
  __host__ __device__
#endif
      void
      coords(int64_t i, int& z, int& y, int& x) const {
    z = static_cast<int>(i / sz);
    y = static_cast<int>((i % sz) / sy);
    x = static_cast<int>(i % sy);
  }
};

}  // namespace seisfd
