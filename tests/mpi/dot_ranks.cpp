// The dot test over ranks: <F s, d> = <s, F* d> for the modelling operator F (wavelet -> traces)
// and its adjoint when each rank computes its part of the grid and the halos are exchanged
// (docs/parallel.md). Run under mpirun; every rank builds the same random medium, sources,
// receivers, s and d, keeps its own cells and points, and the two inner products are summed over
// the ranks (each is linear in the ranks' partial traces, so no trace needs merging first).
//
//   mpirun -np N dot_ranks [pz,py,px]      (default "auto")
//
// Acoustic, VTI and TTI (smooth random anisotropy), no boundary, sponge and sponge with a free
// surface, sinc points on and off the grid and on the cuts; fp64 to 1e-12 and fp32 to 1e-5 of
// the larger side. Rank 0 prints one line a case; the exit status is the number of failures.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "kernels/propagation.hpp"
#include "kernels/reference/cpu_engine.hpp"
#include "solver/decomposition.hpp"
#include "solver/halo.hpp"
#include "solver/parallel.hpp"
#include "tests/aniso_support.hpp"
#include "tests/support.hpp"
#include "tests/tolerances.hpp"

namespace seisfd {
namespace {

struct Case {
  const char* name;
  Physics physics;
  BoundaryConfig boundary;
  bool fp64;
};

// The rows of `all` ([points][nt]) that `ids` name, in that order.
std::vector<double> rows(const std::vector<double>& all, const std::vector<int>& ids, int nt) {
  std::vector<double> out;
  for (int id : ids) out.insert(out.end(), all.begin() + id * nt, all.begin() + (id + 1) * nt);
  return out;
}

// sum_p <part[p], all[ids[p]]>
double partial_dot(const std::vector<double>& part, const std::vector<double>& all,
                   const std::vector<int>& ids, int nt) {
  double s = 0;
  for (size_t p = 0; p < ids.size(); ++p)
    for (int t = 0; t < nt; ++t) s += part[p * nt + t] * all[ids[p] * nt + t];
  return s;
}

int run_case(const Case& c, const parallel::Comm& world, const std::array<int, 3>& dims) {
  const int order = 8;
  auto p = test::homogeneous(test::cube_grid(22, 18, 16, 10.0), c.boundary, order, 1800.0, 0.9);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> vel(1500.f, 3000.f);
  for (auto& v : p.velocity) v = vel(rng);
  p.dt = 0.6 * stability_limit(3000.0, order / 2, p.spec.h);
  Medium medium = acoustic_medium(p.velocity);
  if (c.physics != Physics::kAcoustic)
    medium = test::make_aniso_model(p, test::smooth_random_case(c.physics, rng));
  const int nt = 150;
  // Off grid, on grid, and on the middle planes where the cuts of 2 x 2 x 2 fall.
  const std::vector<Vec3> src{{61.3, 83.7, 40.2}, {110.0, 90.0, 80.0}};
  const std::vector<Vec3> rec{{5.5, 10.0, 0.0},
                              {101.0, 55.0, 4.0},
                              {200.0, 170.0, 150.0},
                              {120.4, 90.1, 70.7},
                              {105.0, 85.0, 75.0}};
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> s(src.size() * nt), d(rec.size() * nt);
  for (auto& x : s) x = g(rng);
  for (auto& x : d) x = g(rng);

  const int halo = halo_width(c.physics, order / 2);
  const Decomposition dec = decompose(p.spec, world.size(), dims, halo);
  const Subdomain sub = dec.subdomain(world.rank(), p.spec);
  const StepSpec local = local_spec(p.spec, sub);
  const Medium mine = restrict_medium(medium, p.spec.layout, sub, local.layout);
  const auto e = reference::make_cpu_engine(local, mine, p.dt, c.fp64, "auto");
  MpiHaloExchange x(world, sub, local, halo);
  const auto S =
      make_points(p.grid, p.spec, src, PointInterp::kSinc, PointRole::kSource, sub, local.layout);
  const auto R =
      make_points(p.grid, p.spec, rec, PointInterp::kSinc, PointRole::kReceiver, sub, local.layout);
  const auto Fs = apply_forward(*e, S, rows(s, S.id, nt), R, nt, &x);
  const auto Ftd = apply_adjoint(*e, R, rows(d, R.id, nt), S, nt, &x);
  const double lhs = world.sum(partial_dot(Fs, d, R.id, nt));
  const double rhs = world.sum(partial_dot(Ftd, s, S.id, nt));
  const double rel = std::fabs(lhs - rhs) / std::max(std::fabs(lhs), std::fabs(rhs));
  const double tol = c.fp64 ? tol::kDotFp64 : tol::kDotFp32;
  const bool ok = rel <= tol && std::fabs(lhs) > 0;
  if (world.root())
    std::printf(
        "[dot over %d ranks, %s] %-24s %s: <Fs,d> = %.15e  <s,F*d> = %.15e  relative "
        "%.2e (limit %.0e) %s\n",
        world.size(), dec.text().c_str(), c.name, c.fp64 ? "fp64" : "fp32", lhs, rhs, rel, tol,
        ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace seisfd

int main(int argc, char** argv) {
  using namespace seisfd;
  parallel::Session session(&argc, &argv);
  const parallel::Comm world = parallel::Comm::world();
  std::array<int, 3> dims{0, 0, 0};
  if (argc > 1 && std::string(argv[1]) != "auto" &&
      std::sscanf(argv[1], "%d,%d,%d", &dims[0], &dims[1], &dims[2]) != 3) {
    std::fprintf(stderr, "usage: dot_ranks [pz,py,px | auto]\n");
    return 2;
  }
  const Case cases[] = {
      {"acoustic_none", Physics::kAcoustic, test::no_boundary(), true},
      {"acoustic_sponge", Physics::kAcoustic, test::sponge(6), true},
      {"acoustic_freesurf", Physics::kAcoustic, test::sponge(6, true), true},
      {"acoustic_freesurf", Physics::kAcoustic, test::sponge(6, true), false},
      {"vti_sponge", Physics::kVti, test::sponge(6), true},
      {"vti_freesurf", Physics::kVti, test::sponge(6, true), true},
      {"tti_none", Physics::kTti, test::no_boundary(), true},
      {"tti_freesurf", Physics::kTti, test::sponge(6, true), true},
      {"tti_freesurf", Physics::kTti, test::sponge(6, true), false},
  };
  int failures = 0;
  for (const Case& c : cases) failures += run_case(c, world, dims);
  return failures;
}
