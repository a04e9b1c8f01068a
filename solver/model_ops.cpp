#include "solver/model_ops.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/huge_pages.hpp"

namespace seisfd {
namespace {

// One axis of a separable Gaussian over a [n0][n1][n2] array, axis a, edges extended. Each
// output sums the weights' products in the same order (offset -r to r) whatever the axis; the
// loops run along x rows (unit stride, so they vectorise): along z and y a whole row of outputs
// at a time from rows of a copy of the slab or plane, along x over a copy of the row with its
// edges extended.
void gaussian_axis(std::vector<double>& f, const int n[3], int a, double sigma_cells) {
  const int r = static_cast<int>(std::ceil(3 * sigma_cells));
  std::vector<double> w(2 * r + 1);
  double sum = 0;
  for (int k = -r; k <= r; ++k)
    sum += w[k + r] = std::exp(-0.5 * k * k / (sigma_cells * sigma_cells));
  for (double& x : w) x /= sum;
  const int nz = n[0], ny = n[1], nx = n[2];
  if (a == 2) {
#pragma omp parallel
    {
      std::vector<double> ext(static_cast<size_t>(nx) + 2 * r), acc(nx);
#pragma omp for schedule(static)
      for (int64_t row = 0; row < static_cast<int64_t>(nz) * ny; ++row) {
        double* p = &f[row * nx];
        for (int k = 0; k < nx + 2 * r; ++k) ext[k] = p[std::clamp(k - r, 0, nx - 1)];
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int d = 0; d <= 2 * r; ++d) {
          const double wd = w[d];
          const double* e = &ext[d];
          for (int k = 0; k < nx; ++k) acc[k] += wd * e[k];
        }
        std::copy(acc.begin(), acc.end(), p);
      }
    }
    return;
  }
  // Along z (a = 0) the rows of one y: the xz slab; along y (a = 1) the rows of one z: the plane.
  const int outer = a == 0 ? ny : nz, len = n[a];
  const auto row = [&](int k, int o) -> double* {
    return &f[(a == 0 ? static_cast<size_t>(k) * ny + o : static_cast<size_t>(o) * ny + k) * nx];
  };
#pragma omp parallel
  {
    std::vector<double> copy(static_cast<size_t>(len) * nx), acc(nx);
#pragma omp for schedule(static)
    for (int o = 0; o < outer; ++o) {
      for (int k = 0; k < len; ++k) std::copy_n(row(k, o), nx, &copy[static_cast<size_t>(k) * nx]);
      for (int k = 0; k < len; ++k) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int d = -r; d <= r; ++d) {
          const double wd = w[d + r];
          const double* src = &copy[static_cast<size_t>(std::clamp(k + d, 0, len - 1)) * nx];
          for (int x = 0; x < nx; ++x) acc[x] += wd * src[x];
        }
        std::copy(acc.begin(), acc.end(), row(k, o));
      }
    }
  }
}

}  // namespace

void smooth_velocity(VelocityModel& m, const GridConfig& g, double sigma) {
  if (sigma <= 0) return;
  const int n[3] = {m.nz, m.ny, m.nx};
  const double h[3] = {g.dz, g.dy, g.dx};
  std::vector<double> s(m.vp.size());
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < s.size(); ++i) s[i] = 1.0 / m.vp[i];
  for (int a = 0; a < 3; ++a)
    if (n[a] > 1) gaussian_axis(s, n, a, sigma / h[a]);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < s.size(); ++i) m.vp[i] = static_cast<float>(1.0 / s[i]);
  const auto [lo, hi] = std::minmax_element(m.vp.begin(), m.vp.end());
  m.vmin = *lo;
  m.vmax = *hi;
}

std::vector<float> reflector_perturbation(const VelocityModel& m, const GridConfig& g,
                                          double contrast) {
  std::vector<float> dm(m.vp.size(), 0.0f);
  const double depth = (m.nz - 1) * g.dz, width = (m.nx - 1) * g.dx;
  const double dip = std::tan(25.0 * M_PI / 180.0), cosd = std::cos(25.0 * M_PI / 180.0);
  const double h = g.dz;  // one cell across
  for (int z = 0; z < m.nz; ++z)
    for (int y = 0; y < m.ny; ++y)
      for (int x = 0; x < m.nx; ++x) {
        const double zz = z * g.dz, xx = x * g.dx;
        double shape = 0;
        for (double frac : {0.40, 0.65}) {
          const double d = zz - frac * depth;
          shape += std::exp(-0.5 * d * d / (h * h));
        }
        const double zd = 0.85 * depth + dip * (xx - 0.5 * width);  // the dipping plane at x
        if (zd > 0.75 * depth && zd < 0.95 * depth) {
          const double d = (zz - zd) * cosd;  // distance to the plane
          shape += std::exp(-0.5 * d * d / (h * h));
        }
        const size_t i = (static_cast<size_t>(z) * m.ny + y) * m.nx + x;
        const double m0 = 1.0 / (double(m.vp[i]) * m.vp[i]);
        dm[i] = static_cast<float>(contrast * m0 * shape);
      }
  return dm;
}

std::vector<float> physical_to_layout(const SimGrid& grid, const std::vector<float>& phys) {
  const Layout& l = grid.layout();
  std::vector<float> out(static_cast<size_t>(l.size()), 0.0f);
  const int n[3] = {grid.physical_size(0), grid.physical_size(1), grid.physical_size(2)};
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = 0; z < n[0]; ++z)
    for (int y = 0; y < n[1]; ++y)
      std::copy_n(&phys[(static_cast<size_t>(z) * n[1] + y) * n[2]], n[2],
                  &out[l.idx(z + grid.offset(0), y + grid.offset(1), grid.offset(2))]);
  return out;
}

namespace {
template <class T>
std::vector<T> physical_cells(const SimGrid& grid, const std::vector<T>& field) {
  const Layout& l = grid.layout();
  const int n[3] = {grid.physical_size(0), grid.physical_size(1), grid.physical_size(2)};
  std::vector<T> out = huge_vector<T>(static_cast<size_t>(n[0]) * n[1] * n[2]);
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = 0; z < n[0]; ++z)
    for (int y = 0; y < n[1]; ++y)
      std::copy_n(&field[l.idx(z + grid.offset(0), y + grid.offset(1), grid.offset(2))], n[2],
                  &out[(static_cast<size_t>(z) * n[1] + y) * n[2]]);
  return out;
}
}  // namespace

std::vector<float> layout_to_physical(const SimGrid& grid, const std::vector<float>& field) {
  return physical_cells(grid, field);
}
std::vector<double> layout_to_physical(const SimGrid& grid, const std::vector<double>& field) {
  return physical_cells(grid, field);
}

std::vector<float> negative_laplacian(const std::vector<float>& in, int nz, int ny, int nx,
                                      const double h[3]) {
  std::vector<float> out = huge_vector<float>(in.size());
  const int n[3] = {nz, ny, nx};
  const auto at = [&](int z, int y, int x) -> double {
    if (z < 0 || z >= nz || y < 0 || y >= ny || x < 0 || x >= nx) return 0.0;
    return in[(static_cast<size_t>(z) * ny + y) * nx + x];
  };
#pragma omp parallel for collapse(2)
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const double c = at(z, y, x);
        double lap = 0;
        if (n[0] > 1) lap += (at(z + 1, y, x) - 2 * c + at(z - 1, y, x)) / (h[0] * h[0]);
        if (n[1] > 1) lap += (at(z, y + 1, x) - 2 * c + at(z, y - 1, x)) / (h[1] * h[1]);
        if (n[2] > 1) lap += (at(z, y, x + 1) - 2 * c + at(z, y, x - 1)) / (h[2] * h[2]);
        out[(static_cast<size_t>(z) * ny + y) * nx + x] = static_cast<float>(-lap);
      }
  return out;
}

std::vector<float> imaging_condition(ImagingCondition c, const std::vector<float>& cc,
                                     const std::vector<float>& il, const std::vector<float>& zl,
                                     int nz, int ny, int nx, const double h[3]) {
  switch (c) {
    case ImagingCondition::kCrossCorrelation:
      return cc;
    case ImagingCondition::kNormalized: {
      const double il_max = *std::max_element(il.begin(), il.end());
      std::vector<float> img = huge_vector<float>(cc.size());
#pragma omp parallel for schedule(static)
      for (size_t j = 0; j < cc.size(); ++j)
        img[j] = static_cast<float>(double(cc[j]) / (double(il[j]) + 0.01 * il_max + 1e-300));
      return img;
    }
    case ImagingCondition::kInverseScattering: {
      std::vector<float> img = negative_laplacian(zl, nz, ny, nx, h);  // -lap(sum u psi)
#pragma omp parallel for schedule(static)
      for (size_t j = 0; j < img.size(); ++j) img[j] *= 0.5f;
      return img;
    }
  }
  return {};
}

}  // namespace seisfd
