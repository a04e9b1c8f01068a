// Convolutional PML on the absorbing layers, backend-neutral parts: the coefficient profile and
// the geometry of the slabs that hold the auxiliary fields. docs/physics.md §5.2.
//
// The stretched second derivative along axis d (kappa = 1) is, per time step n,
//   psi_d[n]  = b psi_d[n-1]  + a D1_d p[n]
//   zeta_d[n] = b zeta_d[n-1] + a (D2_d p[n] + D1_d psi_d[n])
//   d~2_d p   = D2_d p[n] + D1_d psi_d[n] + zeta_d[n]
// (D1, D2: first and second derivative stencils of the run's order along d). So a step is the
// plain update, which every interior kernel does unchanged, plus a correction
//   next += (v dt)^2 sum_d (D1_d psi_d + zeta_d)
// computed only in the slab of each axis, where a != 0. psi and zeta are zero outside the
// slabs (a = 0 there), so a derivative reaching out of a slab reads zeros.
//
// VTI. Its update is a weighted sum of axis second derivatives, each of one field:
//   fp = E (d2_x p + d2_y p) + D d2_z q,   fq = D (d2_x p + d2_y p) + d2_z q
// (E = 1 + 2 eps, D = sqrt(1 + 2 delta), per cell). Stretching each axis derivative gives
//   d~2_x p = d2_x p + c_x(p),  d~2_y p = d2_y p + c_y(p),  d~2_z q = d2_z q + c_z(q),
//   c_d(f) = D1_d psi_d + zeta_d, with psi_d and zeta_d the recursions above driven by f,
// so a VTI step is its plain update plus
//   next_p += (v dt)^2 [E (c_x + c_y) + D c_z],   next_q += (v dt)^2 [D (c_x + c_y) + c_z],
// with one psi/zeta pair per axis, as for the acoustic equation: x and y are driven by p, z by
// q (a field each axis's term differentiates). Every coupling weight multiplies the corrected
// second derivative as it multiplies the plain one, which is what the stretched PDE says.
//
// TTI is refused with CPML (use the sponge; traits(Physics::kTti).cpml_refusal says so). Its mixed
// derivatives do not separate by axis, and no treatment tried meets the target (<= -40 dB at 0-60
// degrees incidence with 20 cells, CPU reference, order 8, eps 0.2, delta 0.1, tilt in the x-z
// plane facing the layer; tests/test_cpml_tti.cpp reruns every variant):
// - The axis tapered to vertical inside the damped layer, VTI corrections (the first attempt):
//   -49 to -30 dB at a tilt of 30 degrees, -35 to -23 dB at 45, and exponential growth on a
//   smooth random tilt field. Tilt left in damped cells grows: kept over 6 damped cells, then
//   tapered over 8, it grew by 1e9 within 300 steps (and reflected +3.5 dB with the taper reaching
//   cell 18). The corrections are VTI's, so in a tilted damped cell the mixed derivatives are not
//   stretched at all; and a PML on a tilted anisotropic medium is unstable anyway where the
//   slowness and the group velocity point opposite ways along the damped axis (Becache, Fauqueux
//   & Joly 2003), which a tilt can give, the pseudo-acoustic shear artefact mode above all.
// - The axis tapered to vertical over an undamped transition zone (CpmlSpec::start), then VTI's
//   CPML on a vertical medium, where it is exact: stable (20,000 steps, random tilt up to 60
//   degrees, eps - delta up to 0.3: 1e-10 of the peak at the end), exact at tilt 0 (-86 to -72 dB),
//   but the transition itself reflects: 12 tapered + 8 damped cells -45 to -32 dB at 30 degrees,
//   -37 to -26 dB at 45 (at 45: 8 + 12 cells -35 to -22, 14 + 6 -43 to -28; even 24 + 16 cells of a
//   40-cell layer only -52 to -37; a linear ramp -37 to -27), worst at 60 degrees incidence; with
//   the axis tilted parallel to the face (phi = 90) -52 to -28 dB at 30 and -48 to -22 at 45, worst
//   at normal incidence. A 20-cell sponge gives -34 to -18 dB (phi = 0), so the layer is 6 to 14 dB
//   better with the tilt towards the face, worse at normal incidence with it parallel, and never 40
//   dB good: a vertical medium is symmetric about the face's normal and a tilted one is not, so no
//   vertical target matches waves incident at +60 and -60 degrees at once.
// - The same with the medium reduced further: elliptic (eps -> delta; -40 to -27 dB at 45) or
//   isotropic (eps, delta -> 0; -38 to -25 dB at 45, -36 to -31 even at tilt 0). Isotropic does not
//   even decay: the energy stays at 0.14 of its peak for 20,000 steps, read as the
//   pseudo-acoustic shear mode (speed ~ sqrt(eps - delta)) slowing to zero across the transition
//   and trapped there.
// The CPU engine accepts TTI with CPML where the damped layers are vertical (check_medium), for
// this study; configs and the GPU refuse it. A CPML for TTI needs the mixed terms stretched (a
// recursion on each first derivative that crosses a damped axis) and a medium in the damped
// cells that satisfies the stability condition above, which the tilted ones do not.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/step_spec.hpp"

#if defined(__CUDACC__)
#define SEISFD_HOST_DEVICE __host__ __device__
#else
#define SEISFD_HOST_DEVICE
#endif

namespace seisfd {

// The two layers (low and high face) of one axis, over the whole updated extent of the other
// two axes, stored as one C-order box [z][y][x] in which the slab axis is compressed to the
// wlo + whi layer cells. Corners and edges belong to every axis whose layer they are in.
struct CpmlSlab {
  int axis = 0;
  int wlo = 0, whi = 0;  // layer cells on the low and high face of `axis`
  int lo_first = 0;      // first index of the low layer along `axis`
  int hi_first = 0;      // first index of the high layer (= last physical + 1)
  int begin[3] = {0, 0, 0};
  int dims[3] = {0, 0, 0};  // box extents (z, y, x)

  static CpmlSlab make(const StepSpec& s, int axis) {
    CpmlSlab b;
    b.axis = axis;
    b.wlo = s.sponge.width_lo[axis];
    b.whi = s.sponge.width_hi[axis];
    b.lo_first = s.sponge.phys_lo[axis] - b.wlo;
    b.hi_first = s.sponge.phys_hi[axis] + 1;
    for (int a = 0; a < 3; ++a) {
      b.begin[a] = s.begin[a];
      b.dims[a] = a == axis ? b.wlo + b.whi : s.end[a] - s.begin[a];
    }
    return b;
  }
  int64_t size() const { return static_cast<int64_t>(dims[0]) * dims[1] * dims[2]; }

  // Slab coordinate along `axis` of index j, -1 outside both layers.
  SEISFD_HOST_DEVICE int local(int j) const {
    if (j >= lo_first && j < lo_first + wlo) return j - lo_first;
    if (j >= hi_first && j < hi_first + whi) return wlo + (j - hi_first);
    return -1;
  }
  // Grid index along `axis` of slab coordinate k.
  SEISFD_HOST_DEVICE int global(int k) const { return k < wlo ? lo_first + k : hi_first + k - wlo; }
  // Grid index along axis a of box coordinate k along it.
  SEISFD_HOST_DEVICE int grid(int a, int k) const { return a == axis ? global(k) : begin[a] + k; }
  // Box index of box coordinates (bz, by, bx).
  SEISFD_HOST_DEVICE int64_t at(int bz, int by, int bx) const {
    return (static_cast<int64_t>(bz) * dims[1] + by) * dims[2] + bx;
  }
  // Distance in box elements between neighbours along `axis`.
  SEISFD_HOST_DEVICE int64_t stride() const {
    return axis == 0 ? static_cast<int64_t>(dims[1]) * dims[2] : axis == 1 ? dims[2] : 1;
  }
};

// a and b of the recursive convolution for every index along `axis` (a = 0, b = 1 outside
// the layers), in double; each backend rounds them to its own type.
inline void cpml_profile(const StepSpec& s, int axis, std::vector<double>& a,
                         std::vector<double>& b) {
  const int n = axis == 0 ? s.layout.nz : axis == 1 ? s.layout.ny : s.layout.nx;
  a.assign(n, 0.0);
  b.assign(n, 1.0);
  const CpmlSpec& c = s.cpml;
  if (c.d0[axis] <= 0) return;
  const int lo = s.sponge.phys_lo[axis], hi = s.sponge.phys_hi[axis];
  for (int j = 0; j < n; ++j) {
    int d = 0, w = 1;
    if (j < lo && s.sponge.width_lo[axis] > 0) {
      d = lo - j;
      w = s.sponge.width_lo[axis];
    } else if (j > hi && s.sponge.width_hi[axis] > 0) {
      d = j - hi;
      w = s.sponge.width_hi[axis];
    }
    if (d <= c.start || d > w) continue;
    const double r = static_cast<double>(d - c.start) / (w - c.start);
    const double damp = c.d0[axis] * std::pow(r, c.power);
    const double alpha = c.alpha_max * (1.0 - r);
    b[j] = std::exp(-(damp + alpha) * c.dt);
    a[j] = damp + alpha > 0 ? damp / (damp + alpha) * (b[j] - 1.0) : 0.0;
  }
}

// Cells of auxiliary storage: psi and zeta for each axis with layers.
inline int64_t cpml_aux_cells(const StepSpec& s) {
  if (!s.cpml_on()) return 0;
  int64_t n = 0;
  for (int a = 0; a < 3; ++a)
    if (s.cpml.d0[a] > 0) n += 2 * CpmlSlab::make(s, a).size();
  return n;
}

}  // namespace seisfd
