// Cubes: write_segy_cube, read_segy_cube, segy_cube_geometry (docs/outputs.md §8).
#include <cmath>
#include <cstdio>
#include <vector>

#include "io/files.hpp"
#include "io/segy.hpp"
#include "io/segy_file.hpp"

namespace seisfd::io {

using namespace segy_detail;

// ----------------------------------------------------------------------------- cubes

void write_segy_cube(const std::string& path, const ImageGeometry& g, const float* data,
                     const std::string& description, const std::string& units,
                     const std::string& producer) {
  const std::string partial = path + ".partial";
  const std::string what = "SEG-Y '" + path + "'";
  if (g.nz < 1 || g.ny < 1 || g.nx < 1 || !data) throw IoError(what + ": empty cube");
  const std::string problem = segy_cube_problem(g);
  if (!problem.empty()) throw IoError(what + ": " + problem);
  const int dz_mm = segy_interval_units(g.spacing[0], 1e-3);
  const double z0 = g.origin[0];
  const double x1 = g.origin[2] + (g.nx - 1) * g.spacing[2],
               y1 = g.origin[1] + (g.ny - 1) * g.spacing[1];
  const int s = choose_scalar({g.origin[2], g.origin[1], x1, y1});
  SegyHandle file = create(partial);
  try {
    const std::vector<std::string> lines = {
        "SEISFD " + description + ", " + producer,
        "3D CUBE: INLINE (189) = Y INDEX + 1, CROSSLINE (193) = X INDEX + 1",
        "TRACES SORTED BY INLINE, THEN CROSSLINE; SAMPLES ALONG Z (DEPTH, DOWN)",
        "SAMPLES: IEEE FLOAT32 (FORMAT 5), BIG-ENDIAN; UNITS " + units,
        "GRID: NX " + std::to_string(g.nx) + " NY " + std::to_string(g.ny) + " NZ " +
            std::to_string(g.nz),
        "SPACING (X, Y, Z) " + num(g.spacing[2]) + " " + num(g.spacing[1]) + " " +
            num(g.spacing[0]) + " M",
        "ORIGIN (X, Y, Z) " + num(g.origin[2]) + " " + num(g.origin[1]) + " " + num(g.origin[0]) +
            " M",
        "DEPTH: SAMPLE INTERVAL (117, 3217) = DZ IN MM; DELAY (109) = ORIGIN Z IN M",
        "  (SAMPLES READ AS MILLISECONDS ARE DEPTHS IN METRES)",
        "CDP X/Y (181/185), SOURCE AND GROUP X/Y: CELL POSITION IN METRES,",
        "  SCALED BY BYTE 71 (-1000: VALUE / 1000, MM)",
        "SEG-Y REV 1",
    };
    const int sorting = 4;  // horizontally stacked
    write_headers(file.f, lines, g.nz, dz_mm, 1, sorting, what);
    const int bsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, g.nz);
    std::vector<float> trace(g.nz), buf;
    const size_t plane = static_cast<size_t>(g.ny) * g.nx;
    for (int iy = 0; iy < g.ny; ++iy)
      for (int ix = 0; ix < g.nx; ++ix) {
        const int k = iy * g.nx + ix;
        const double x = g.origin[2] + ix * g.spacing[2], y = g.origin[1] + iy * g.spacing[1];
        char h[SEGY_TRACE_HEADER_SIZE] = {};
        set(h, SEGY_TR_SEQ_LINE, k + 1, what);
        set(h, SEGY_TR_SEQ_FILE, k + 1, what);
        set(h, SEGY_TR_ENSEMBLE, k + 1, what);  // CDP number
        set(h, SEGY_TR_TRACE_ID, 1, what);
        set(h, SEGY_TR_SOURCE_GROUP_SCALAR, s, what);
        set(h, SEGY_TR_ELEV_SCALAR, 1, what);
        for (int f : {SEGY_TR_SOURCE_X, SEGY_TR_GROUP_X, SEGY_TR_CDP_X})
          set(h, f, scaled(x, s), what);
        for (int f : {SEGY_TR_SOURCE_Y, SEGY_TR_GROUP_Y, SEGY_TR_CDP_Y})
          set(h, f, scaled(y, s), what);
        set(h, SEGY_TR_COORD_UNITS, 1, what);
        set(h, SEGY_TR_DELAY_REC_TIME, static_cast<int>(z0), what);
        set(h, SEGY_TR_SAMPLE_COUNT, g.nz, what);
        set(h, SEGY_TR_SAMPLE_INTER, dz_mm, what);
        set(h, SEGY_TR_INLINE, iy + 1, what);
        set(h, SEGY_TR_CROSSLINE, ix + 1, what);
        for (int z = 0; z < g.nz; ++z) trace[z] = data[z * plane + static_cast<size_t>(k)];
        write_trace(file.f, k, h, trace.data(), g.nz, 3600, bsize, buf, what);
      }
    check(segy_flush(file.f, false), what + ": flush");
    check(file.close(), what + ": close");
  } catch (...) {
    file.close();
    std::remove(partial.c_str());
    throw;
  }
  detail::rename_file(partial, path);
}

namespace {

// Checks a cube's headers (order, coordinates, sampling) and returns its geometry.
ImageGeometry scan_cube(const Opened& o) {
  const int n = o.traces;
  struct Head {
    int il, xl;
    double x, y;
    int s;
  };
  std::vector<Head> hs(n);
  int32_t delay = 0;
  for (int k = 0; k < n; ++k) {
    const std::vector<char> hv = o.header(k);
    const char* h = hv.data();
    check_sampling(o, k, h);
    const int s = get(h, SEGY_TR_SOURCE_GROUP_SCALAR);
    hs[k] = {get(h, SEGY_TR_INLINE), get(h, SEGY_TR_CROSSLINE), unscaled(get(h, SEGY_TR_CDP_X), s),
             unscaled(get(h, SEGY_TR_CDP_Y), s), s};
    if (k == 0) delay = get(h, SEGY_TR_DELAY_REC_TIME);
    if (get(h, SEGY_TR_DELAY_REC_TIME) != delay)
      o.fail_trace(k, "delay " + std::to_string(get(h, SEGY_TR_DELAY_REC_TIME)) +
                          " (bytes 109-110, the origin z in m) differs from trace 1's " +
                          std::to_string(delay));
  }
  const auto order_hint = [&](int k) {
    const bool none = hs[k].il == 0 && hs[k].xl == 0;
    return std::string(none ? " (inline and crossline numbers, bytes 189-196, missing?)" : "");
  };
  // The first inline's crosslines, ascending; every other inline has the same.
  int nx = 1;
  while (nx < n && hs[nx].il == hs[0].il) {
    if (hs[nx].xl <= hs[nx - 1].xl)
      o.fail_trace(nx, "crossline " + std::to_string(hs[nx].xl) + " after crossline " +
                           std::to_string(hs[nx - 1].xl) + " in inline " +
                           std::to_string(hs[0].il) +
                           ": the cube must be sorted by inline, then crossline, ascending" +
                           order_hint(nx));
    ++nx;
  }
  if (n % nx != 0)
    o.fail_trace(n - 1, "the file's " + std::to_string(n) + " traces are not whole inlines of " +
                            std::to_string(nx) + " crosslines (inline " + std::to_string(hs[0].il) +
                            " has " + std::to_string(nx) + ")");
  const int ny = n / nx;
  for (int k = nx; k < n; ++k) {
    const int ix = k % nx;
    // The first trace of an inline starts a higher inline; the others continue it.
    const bool il_ok = ix == 0 ? hs[k].il > hs[k - 1].il : hs[k].il == hs[k - 1].il;
    if (!il_ok || hs[k].xl != hs[ix].xl)
      o.fail_trace(
          k, "inline " + std::to_string(hs[k].il) + ", crossline " + std::to_string(hs[k].xl) +
                 " where a cube sorted by inline, then "
                 "crossline (" +
                 std::to_string(nx) + " crosslines per inline, as inline " +
                 std::to_string(hs[0].il) + ") has " + (ix == 0 ? "an inline above " : "inline ") +
                 std::to_string(hs[k - 1].il) + ", crossline " + std::to_string(hs[ix].xl) +
                 order_hint(k));
  }
  // Axis-aligned coordinates: x along the crossline, y along the inline, regular steps.
  const double x0 = hs[0].x, y0 = hs[0].y;
  const double dx = nx > 1 ? hs[1].x - hs[0].x : 0, dy = ny > 1 ? hs[nx].y - hs[0].y : 0;
  if (nx > 1 && !(dx > 0))
    o.fail_trace(1, "CDP x " + num(hs[1].x) +
                        " m (bytes 181-184) does not increase from trace 1's " + num(x0) +
                        " m along the inline: coordinates missing, or x is not along "
                        "the crossline axis");
  if (ny > 1 && !(dy > 0))
    o.fail_trace(nx, "CDP y " + num(hs[nx].y) +
                         " m (bytes 185-188) does not increase from trace "
                         "1's " +
                         num(y0) +
                         " m across inlines: coordinates missing, or y is not "
                         "along the inline axis");
  for (int k = 0; k < n; ++k) {
    const int iy = k / nx, ix = k % nx;
    const double ex = x0 + ix * dx, ey = y0 + iy * dy;
    const double unit = hs[k].s < 0 ? 1.0 / -hs[k].s : hs[k].s > 0 ? hs[k].s : 1.0;
    const double tol = unit + 1e-6 * (std::fabs(ex) + std::fabs(ey));
    if (std::fabs(hs[k].x - ex) > tol || std::fabs(hs[k].y - ey) > tol)
      o.fail_trace(k, "CDP at (" + num(hs[k].x) + ", " + num(hs[k].y) +
                          ") m, where a regular "
                          "axis-aligned grid from trace 1 has (" +
                          num(ex) + ", " + num(ey) + ") (inline " + std::to_string(hs[k].il) +
                          ", crossline " + std::to_string(hs[k].xl) + ")");
  }
  ImageGeometry g;
  g.nz = o.samples;
  g.ny = ny;
  g.nx = nx;
  g.spacing = {o.interval * 1e-3, dy, dx};
  g.origin = {static_cast<double>(delay), y0, x0};
  return g;
}

}  // namespace

ImageGeometry segy_cube_geometry(const std::string& path) {
  return scan_cube(open_checked(path));
}

SegyCube read_segy_cube(const std::string& path) {
  const Opened o = open_checked(path);
  const int n = o.traces;
  SegyCube c;
  c.geometry = scan_cube(o);
  const ImageGeometry& g = c.geometry;
  c.data.resize(static_cast<size_t>(g.nz) * n);
  std::vector<float> trace(o.samples);
  for (int k = 0; k < n; ++k) {
    o.read(k, trace.data());
    for (int z = 0; z < g.nz; ++z) c.data[static_cast<size_t>(z) * n + k] = trace[z];
  }
  return c;
}

}  // namespace seisfd::io
