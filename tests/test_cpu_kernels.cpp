// The CPU backend's fast kernels against the readable reference (kernels/reference/): the same
// shot through an engine of each, acoustic, VTI and TTI, every order 2..16, every boundary (none,
// sponge, CPML, free surface with either), an odd-sized heterogeneous grid, 500 steps forward
// (and the adjoint direction where it exists). The blocked kernels: the traces and the last
// field are the reference's bit for bit (they sum in the reference's order and the build does
// not contract a * b + c into FMAs, CMakeLists.txt, so every operation is the same). The
// register-queue and simd kernels sum in another order with FMAs (kernels/cpu/cpu_kernels.hpp):
// the traces held to tol::kCpuKernelFp32 / kCpuKernelFp64 relative L2 after the same steps, the
// field to kCpuKernelFp64 in fp64 and to kCpuKernelFieldFp32 in fp32 (kCpuKernelFieldVtiCpmlFp32
// for VTI in a CPML; tolerances.hpp: fp32's own accuracy there).
// 500 steps at order 8, 120 at the other orders: after about 35 / R steps every cell of the
// grid holds a value the stencils reached, so a differing cell anywhere shows. The dot tests,
// the analytic solutions and the engine contract run through the fast kernels too (they use
// kernel.variant "auto", which picks them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/cpml_rows.hpp"
#include "kernels/cpu/cpu_variants.hpp"
#include "kernels/cpu/zmarch.hpp"
#include "kernels/huge_pages.hpp"
#include "kernels/reference/cpu_engine.hpp"
#include "solver/wavelet.hpp"
#include "tests/aniso_support.hpp"
#include "tests/support.hpp"
#include "tests/tolerances.hpp"

namespace seisfd {
namespace {

struct Case {
  std::string technique;  // blocked, regqueue, simd
  Physics physics;
  int order;
  std::string boundary;  // none, sponge, cpml, sponge_free, cpml_free
  bool fp64;
  Direction direction = Direction::kForward;
  TtiOperator op = TtiOperator::kNarrow;
  std::string label() const {
    return technique + "_" + to_string(physics) + (op == TtiOperator::kNested ? "_nested" : "") +
           "_o" + std::to_string(order) + "_" + boundary + (fp64 ? "_fp64" : "_fp32") +
           (direction == Direction::kAdjoint ? "_adjoint" : "");
  }
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.label();
}

BoundaryConfig boundary(const std::string& b) {
  const bool free = b.find("free") != std::string::npos;
  if (b.rfind("sponge", 0) == 0) return test::sponge(5, free);
  if (b.rfind("cpml", 0) == 0) return test::cpml(5, 20.0, free);
  return test::no_boundary();
}

class CpuKernels : public ::testing::TestWithParam<Case> {};

TEST_P(CpuKernels, BlockedMatchesTheReference) {
  const Case& c = GetParam();
  const BoundaryConfig b = boundary(c.boundary);
  test::Problem p = test::homogeneous(test::cube_grid(23, 19, 17, 10.0), b, c.order, 2000.0, 0.8);
  const Layout& l = p.spec.layout;
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x)
        p.velocity[l.idx(z, y, x)] =
            static_cast<float>(1700.0 + 300.0 * std::sin(0.3 * x + 0.2 * y + 0.1 * z));
  // VTI: the fastest direction v sqrt(1 + 2 eps) with eps up to 0.3.
  const double vmax = c.physics == Physics::kAcoustic ? 2000.0 : 2000.0 * std::sqrt(1.6);
  p.dt = 0.8 * stability_limit(vmax, c.order / 2, p.spec.h);
  p.spec = make_step_spec(p.grid, b, 2000.0, p.dt, 25.0, vmax);
  p.spec.tti_operator = c.op;
  Medium medium = p.medium();
  if (c.physics != Physics::kAcoustic) {
    std::mt19937 rng(5);
    medium = test::make_aniso_model(p, test::smooth_random_case(c.physics, rng));
  }
  const int nt = c.order == 8 ? 500 : 120;
  const SparsePoints src =
      make_points(p.grid, p.spec, {{101.3, 88.7, 70.2}}, PointInterp::kSinc, PointRole::kSource);
  // Receivers near the top (the free surface), inside and on the edge of the absorbing layer.
  const SparsePoints rec = make_points(p.grid, p.spec, {{30.0, 40.0, 15.0}, {210.5, 170.0, 150.0}},
                                       PointInterp::kSinc, PointRole::kReceiver);
  SourceConfig sc;
  sc.frequency = 25;
  const std::vector<double> w = make_wavelet(sc, p.dt, nt);

  std::vector<double> traces[2], field[2];
  const char* names[2] = {c.technique.c_str(), "reference"};
  for (int k = 0; k < 2; ++k) {
    auto e = reference::make_cpu_engine(p.spec, medium, p.dt, c.fp64, names[k]);
    EXPECT_NE(e->name().find(names[k]), std::string::npos) << e->name();
    Propagation prop(*e, c.direction);
    traces[k] = test::forward(prop, src, w, rec, nt);
    field[k] = test::whole_field(prop);
  }
  const double et = test::rel_l2(traces[0], traces[1]), ef = test::rel_l2(field[0], field[1]);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3e %.3e", et, ef);
  RecordProperty("rel_l2_traces_field", buf);
  if (c.technique == "blocked") {
    EXPECT_EQ(traces[0], traces[1]) << "relative L2 " << et;
    EXPECT_EQ(field[0], field[1]) << "relative L2 " << ef;
  } else {
    const double tol = c.fp64 ? tol::kCpuKernelFp64 : tol::kCpuKernelFp32;
    EXPECT_LE(et, tol);
    const bool vti_cpml = c.physics == Physics::kVti && c.boundary.rfind("cpml", 0) == 0;
    EXPECT_LE(ef, c.fp64     ? tol
                  : vti_cpml ? tol::kCpuKernelFieldVtiCpmlFp32
                             : tol::kCpuKernelFieldFp32);
  }
  double energy = 0;
  for (double v : field[1]) energy += v * v;
  EXPECT_GT(energy, 0.0);  // the wave is still on the grid: the comparison compares something
}

// Every CPU technique other than the reference that the physics has (cpu_variants()).
std::vector<std::string> techniques(Physics ph) {
  std::vector<std::string> out;
  for (const cpu::CpuVariant& v : cpu::cpu_variants())
    if (v.physics == ph && v.order == 8 && v.technique != cpu::Technique::kReference)
      out.push_back(v.technique_name);
  return out;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (Physics ph : {Physics::kAcoustic, Physics::kVti, Physics::kTti})
    for (const std::string& t : techniques(ph)) {
      for (int order = 2; order <= 16; order += 2)
        for (const char* b : {"none", "sponge", "cpml", "sponge_free", "cpml_free"})
          if (!(ph == Physics::kTti && b[0] == 'c'))  // TTI refuses CPML
            out.push_back({t, ph, order, b, false});
      for (int order : {2, 8, 16})
        for (const char* b : {"sponge_free", ph == Physics::kTti ? "none" : "cpml"})
          out.push_back({t, ph, order, b, true});
      // The transposed update (the acoustic one is the forward update itself).
      if (ph != Physics::kAcoustic)
        for (int order : {2, 4, 8, 12, 16})
          for (const char* b : {"none", "sponge_free"}) {
            out.push_back({t, ph, order, b, false, Direction::kAdjoint});
            if (order == 8) out.push_back({t, ph, order, b, true, Direction::kAdjoint});
          }
    }
  // TTI's nested operator (orders divisible by 4; simd is the fast variant that has it).
  const auto nested = [](int order, const char* b, bool fp64, Direction d) {
    return Case{"simd", Physics::kTti, order, b, fp64, d, TtiOperator::kNested};
  };
  for (int order : {4, 8, 12, 16}) {
    for (const char* b : {"none", "sponge", "sponge_free"})
      out.push_back(nested(order, b, false, Direction::kForward));
    for (const char* b : {"none", "sponge_free"})
      out.push_back(nested(order, b, false, Direction::kAdjoint));
  }
  out.push_back(nested(8, "sponge_free", true, Direction::kForward));
  out.push_back(nested(8, "none", true, Direction::kAdjoint));
  return out;
}

INSTANTIATE_TEST_SUITE_P(Orders, CpuKernels, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.label(); });

TEST(CpuVariants, ResolvedByNameTechniqueOrAuto) {
  using cpu::resolve_cpu_variant;
  EXPECT_EQ(resolve_cpu_variant("auto", Physics::kAcoustic, 8).name, "acoustic/o8/regqueue");
  EXPECT_EQ(resolve_cpu_variant("blocked", Physics::kAcoustic, 8).name, "acoustic/o8/blocked");
  EXPECT_EQ(resolve_cpu_variant("reference", Physics::kAcoustic, 4).name, "acoustic/o4/reference");
  EXPECT_EQ(resolve_cpu_variant("acoustic/o16/blocked", Physics::kAcoustic, 16).name,
            "acoustic/o16/blocked");
  EXPECT_EQ(resolve_cpu_variant("auto", Physics::kVti, 2).name, "vti/o2/simd");
  EXPECT_EQ(resolve_cpu_variant("blocked", Physics::kVti, 8).name, "vti/o8/blocked");
  EXPECT_EQ(resolve_cpu_variant("auto", Physics::kTti, 8).name, "tti/o8/simd");
  EXPECT_EQ(resolve_cpu_variant("blocked", Physics::kTti, 8).name, "tti/o8/blocked");
  EXPECT_EQ(resolve_cpu_variant("reference", Physics::kTti, 8).name, "tti/o8/reference");
  // A variant of another order or physics, or no variant at all: one message naming it.
  for (const char* bad : {"acoustic/o4/blocked", "nonsense", "smem_regqueue"}) {
    try {
      resolve_cpu_variant(bad, Physics::kAcoustic, 8);
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(resolve_cpu_variant("tti/o8/blocked", Physics::kVti, 8), std::invalid_argument);
  // The nested TTI operator: simd by auto, reference by name, blocked refused naming both.
  const TtiOperator nested = TtiOperator::kNested;
  EXPECT_EQ(resolve_cpu_variant("auto", Physics::kTti, 8, nested).name, "tti/o8/simd");
  EXPECT_EQ(resolve_cpu_variant("reference", Physics::kTti, 8, nested).name, "tti/o8/reference");
  try {
    resolve_cpu_variant("blocked", Physics::kTti, 8, nested);
    ADD_FAILURE() << "blocked accepted for the nested operator";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("tti/o8/blocked"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nested"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace seisfd

namespace seisfd {
namespace {

// A rank's grid: the halo holds the neighbours' cells, written between steps (docs/parallel.md).
// The fast kernels must read it as the reference does: every technique against the reference
// with random halo values (the same for both) written into both levels before every step.
TEST(CpuKernelsHalo, NeighbourValuesInTheHalo) {
  for (int kind = 0; kind < 4; ++kind) {
    // acoustic, VTI, TTI and TTI's nested operator
    const Physics ph = kind == 0 ? Physics::kAcoustic : kind == 1 ? Physics::kVti : Physics::kTti;
    const BoundaryConfig b = test::no_boundary();
    test::Problem p = test::homogeneous(test::cube_grid(21, 19, 17, 10.0), b, 8, 2000.0, 0.8);
    const double vmax = 2000.0 * std::sqrt(1.6);
    p.dt = 0.8 * stability_limit(vmax, 4, p.spec.h);
    p.spec = make_step_spec(p.grid, b, 2000.0, p.dt, 25.0, vmax);
    if (kind == 3) p.spec.tti_operator = TtiOperator::kNested;
    Medium medium = p.medium();
    if (ph != Physics::kAcoustic) {
      std::mt19937 rng(7);
      medium = test::make_aniso_model(p, test::smooth_random_case(ph, rng));
    }
    const Layout& l = p.spec.layout;
    const int R = p.spec.radius;
    // The six halo slabs.
    std::vector<Box> halo;
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        Box bx{{0, 0, 0}, {l.nz, l.ny, l.nx}};
        const int n = a == 0 ? l.nz : a == 1 ? l.ny : l.nx;
        bx.lo[a] = side ? n - R : 0;
        bx.hi[a] = side ? n : R;
        halo.push_back(bx);
      }
    int64_t cells = 0;
    for (const Box& bx : halo) cells += bx.cells();
    for (const std::string& t : techniques(ph)) {
      if (kind == 3 && t == "blocked") continue;  // the nested operator is simd's and reference's
      SCOPED_TRACE(t + " " + to_string(ph) + " " + to_string(p.spec.tti_operator));
      std::vector<float> out[2];
      const char* names[2] = {t.c_str(), "reference"};
      for (int k = 0; k < 2; ++k) {
        auto e = reference::make_cpu_engine(p.spec, medium, p.dt, false, names[k]);
        auto st = e->make_state();
        std::mt19937 rng(11);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        std::vector<float> v(static_cast<size_t>(cells));
        const StepIo io;
        for (int n = 0; n < 40; ++n) {
          for (int f = 0; f < traits(ph).fields; ++f)
            for (Level lv : {Level::kCurrent, Level::kPrevious}) {
              for (float& x : v) x = u(rng);
              st->write_boxes(FieldRef{f, lv}, halo, v);
            }
          e->advance(*st, n, n + 1, io);
        }
        const std::vector<Box> all = {Box{{0, 0, 0}, {l.nz, l.ny, l.nx}}};
        st->read_boxes(FieldRef{0, Level::kCurrent}, all, out[k]);
      }
      const std::vector<double> a(out[0].begin(), out[0].end()), r(out[1].begin(), out[1].end());
      const double err = test::rel_l2(a, r);
      if (t == "blocked")
        EXPECT_EQ(a, r);
      else
        EXPECT_LE(err, tol::kCpuKernelFp32);
    }
  }
}

// The CPML correction by rows (kernels/cpu/cpml_rows.hpp) against the readable one it
// restructures, on the same random fields and memory: bit for bit (the same operations in the
// same order), for orders 2, 8 and 16, fp32 and fp64, the single and the coupled form (a second
// field, per-cell weights on some axes), a free surface, and layers of uneven width on the
// faces (as a subdomain's: none on one side, thinner than the stencil on another).
template <class T>
void cpml_rows_case(int order, bool free_surface, bool coupled, bool uneven) {
  SCOPED_TRACE("order " + std::to_string(order) + (sizeof(T) == 8 ? " fp64" : " fp32") +
               (free_surface ? " free" : "") + (coupled ? " coupled" : "") +
               (uneven ? " uneven" : ""));
  const BoundaryConfig b = test::cpml(7, 20.0, free_surface);
  test::Problem p = test::homogeneous(test::cube_grid(23, 19, 21, 10.0), b, order, 2000.0, 0.5);
  StepSpec s = p.spec;
  if (uneven) {
    s.sponge.width_hi[2] = 0;  // the x layer on the low side only
    s.sponge.width_lo[1] = 2;  // thinner than the radius at orders 8 and 16
    s.sponge.phys_lo[1] = s.sponge.width_lo[1] + s.begin[1];
  }
  const reference::CpmlLayers<T> layers(s);
  const int64_t n = s.layout.size();
  std::mt19937 rng(5);
  std::uniform_real_distribution<T> u(T(-1), T(1));
  auto random = [&](int64_t count) {
    std::vector<T> v(static_cast<size_t>(count));
    for (T& x : v) x = u(rng);
    return v;
  };
  const std::vector<T> f0 = random(n), f1 = random(n), vdt2 = random(n), w0 = random(n),
                       w1 = random(n);
  const T* src[3] = {f0.data(), coupled ? f1.data() : f0.data(), f0.data()};
  const T* wa[3] = {nullptr, coupled ? w0.data() : nullptr, nullptr};
  const T* wb[3] = {w1.data(), nullptr, coupled ? w0.data() : nullptr};
  reference::CpmlMemory<T> mem[2] = {layers.make_memory(), layers.make_memory()};
  for (int ax = 0; ax < 3; ++ax) {
    const std::vector<T> psi = random(static_cast<int64_t>(mem[0].psi[ax].size()));
    const std::vector<T> zeta = random(static_cast<int64_t>(mem[0].zeta[ax].size()));
    for (auto& m : mem) {
      m.psi[ax] = psi;
      m.zeta[ax] = zeta;
    }
  }
  std::vector<T> next[2][2] = {{random(n), random(n)}, {}};
  next[1][0] = next[0][0];
  next[1][1] = next[0][1];
  const std::vector<T> before = next[0][0];
  for (int step = 0; step < 3; ++step) {
    layers.update_psi(mem[0], src);
    layers.correct(mem[0], src, vdt2.data(), next[0][0].data(), wa,
                   coupled ? next[0][1].data() : nullptr, wb);
    cpu::cpml_update_psi(layers, mem[1], src);
    cpu::cpml_correct(layers, mem[1], src, vdt2.data(), next[1][0].data(), wa,
                      coupled ? next[1][1].data() : nullptr, wb);
  }
  for (int ax = 0; ax < 3; ++ax) {
    EXPECT_EQ(mem[0].psi[ax], mem[1].psi[ax]) << "psi, axis " << ax;
    EXPECT_EQ(mem[0].zeta[ax], mem[1].zeta[ax]) << "zeta, axis " << ax;
  }
  EXPECT_EQ(next[0][0], next[1][0]);
  EXPECT_EQ(next[0][1], next[1][1]);
  EXPECT_NE(next[0][0], before) << "no correction reached the field";
}

TEST(CpuCpmlRows, SameBitsAsTheReadableCorrection) {
  for (int order : {2, 8, 16})
    for (bool free_surface : {false, true})
      for (bool coupled : {false, true})
        for (bool uneven : {false, true}) {
          cpml_rows_case<float>(order, free_surface, coupled, uneven);
          cpml_rows_case<double>(order, free_surface, coupled, uneven);
        }
}

// The large temporaries and the CPU engine's arrays: storage faulted in on the host's threads
// (populate_pages, from 32 MB up) and then filled must hold exactly what was asked for, at sizes
// that end inside a page and a huge page.
TEST(HugePages, LargeFreshStorageHoldsWhatWasAsked) {
  const size_t n = (size_t{40} << 20) / sizeof(double) + 1234;  // 40 MB and a partial page
  const std::vector<double> z = huge_vector<double>(n);
  ASSERT_EQ(z.size(), n);
  for (size_t i = 0; i < n; i += 4099) ASSERT_EQ(z[i], 0.0) << i;
  EXPECT_EQ(z.back(), 0.0);
  std::vector<float> v;
  assign_huge(v, 3 * n, 3.5f);
  ASSERT_EQ(v.size(), 3 * n);
  for (size_t i = 0; i < v.size(); i += 4099) ASSERT_EQ(v[i], 3.5f) << i;
  EXPECT_EQ(v.back(), 3.5f);
  std::vector<float> src(n);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<float>(i % 977) - 400.0f;
  std::vector<double> w;
  assign_huge(w, src);
  ASSERT_EQ(w.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(w[i], static_cast<double>(src[i])) << i;
}

// tti/oN/simd's y-block target is measured on the machine (cpu::BlockTuner): each candidate
// whose tiles differ runs kRounds calls, the fastest is kept from then on, for each region
// shape on its own; a region too small for the candidates to differ is not measured.
TEST(BlockTuner, KeepsTheFastestCandidateOfEachShape) {
  StepSpec s;
  s.layout = Layout::make(209, 209, 209);
  s.radius = 4;
  for (int a = 0; a < 3; ++a) {
    s.begin[a] = 4;
    s.end[a] = 205;
  }
  cpu::BlockTuner tuner({64, 32, 16});
  const double cost[3] = {3.0, 1.0, 2.0};  // seconds a call of 64, 32, 16 rows
  std::vector<int> asked;
  for (int call = 0; call < 3 * cpu::BlockTuner::kRounds; ++call) {
    const int t = tuner.pick(s, 2);
    asked.push_back(t);
    tuner.report(s, 2, t, cost[t == 64 ? 0 : t == 32 ? 1 : 2]);
  }
  EXPECT_EQ(asked, (std::vector<int>{64, 32, 16, 64, 32, 16}));
  for (int call = 0; call < 4; ++call) EXPECT_EQ(tuner.pick(s, 2), 32);

  // Another shape is measured apart: there 16 rows win.
  StepSpec t = s;
  t.end[1] = 181;
  for (int call = 0; call < 3 * cpu::BlockTuner::kRounds; ++call) {
    const int k = tuner.pick(t, 2);
    tuner.report(t, 2, k, k == 16 ? 0.5 : 1.0);
  }
  EXPECT_EQ(tuner.pick(t, 2), 16);
  EXPECT_EQ(tuner.pick(s, 2), 32);

  // 40 rows on 2 threads: 64 and 32 give the same two blocks; 16 gives four.
  StepSpec small = s;
  small.end[1] = small.begin[1] + 40;
  std::vector<int> tried;
  for (int call = 0; call < 2 * cpu::BlockTuner::kRounds; ++call) {
    const int k = tuner.pick(small, 2);
    tried.push_back(k);
    tuner.report(small, 2, k, 1.0);
  }
  EXPECT_EQ(tried, (std::vector<int>{64, 16, 64, 16}));
  // 8 rows: every candidate one block a thread: nothing to measure.
  small.end[1] = small.begin[1] + 8;
  EXPECT_EQ(tuner.pick(small, 2), 64);
  tuner.report(small, 2, 64, 1.0);
  EXPECT_EQ(tuner.pick(small, 2), 64);
  // An empty region: nothing to tile, nothing measured.
  small.end[1] = small.begin[1];
  EXPECT_EQ(tuner.pick(small, 2), 64);
}

}  // namespace
}  // namespace seisfd
