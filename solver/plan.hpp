// RunPlan: everything derived from a validated RunConfig before any wavefield exists: grid,
// model, dt from the stability bound, sources, receivers, output sampling, memory. `seisfd
// check` prints it; `seisfd run` executes it. Errors that need the model (dt above the bound,
// points outside the domain) are ConfigErrors naming the key.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "io/snapshots.hpp"
#include "kernels/engine.hpp"
#include "kernels/medium.hpp"
#include "solver/config.hpp"
#include "solver/grid.hpp"
#include "solver/model.hpp"
#include "solver/resources.hpp"
#include "solver/survey.hpp"

namespace seisfd {

// dt <= 2 / (v_max sqrt(lambda_max)), lambda_max = sum_d (|a_0| + 2 sum |a_k|) / h_d^2.
double stability_limit(double vmax, int radius, const double h[3]);

// Sponge damping per axis (z, y, x) as the backends take it, g_max = eta_max dt / 2 with
// eta_max = 3 v_max ln(1/R) / (2 W h) (the PML-style estimate); zeros when off.
std::array<double, 3> sponge_damping(const BoundaryConfig& b, double vmax, const double h[3],
                                     double dt);

// CPML profile (kernels/cpml.hpp): d0 = (N + 1) v_max ln(1/R) / (2 W h) per axis,
// alpha_max = pi f_cfs (boundary.cfs_frequency, else f_peak); d0 = 0 when off.
// vmax_horizontal (<= 0: vmax) sets d0 of the x and y layers, vmax that of the z layers.
CpmlSpec cpml_parameters(const BoundaryConfig& b, double vmax, const double h[3], double dt,
                         double f_peak, double vmax_horizontal = 0);

// The backends' step description for a boundary config (sponge or CPML on the layers).
StepSpec make_step_spec(const SimGrid& g, const BoundaryConfig& b, double vmax, double dt,
                        double f_peak, double vmax_horizontal = 0);

struct SnapshotPlan {
  bool enabled = false;
  int every = 0;                                                 // steps between snapshots
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, dec[3] = {1, 1, 1};  // computational (z, y, x)
  io::SnapshotGeometry geometry;
};

struct RunPlan {
  RunPlan(const RunConfig& c, const SimGrid& g, VelocityModel m)
      : config(c), grid(g), model(std::move(m)) {}
  RunConfig config;
  SimGrid grid;
  VelocityModel model;
  double dt = 0, dt_limit = 0;
  int nt = 0;         // time samples, t = 0 .. (nt - 1) dt
  int out_every = 1;  // gathers keep every out_every-th sample
  double fmax = 0, f_peak = 0, points_per_wavelength = 0;
  std::vector<std::string> warnings;
  std::string dt_bound_text;    // the stability limit and what it was computed from
  std::vector<double> wavelet;  // nt samples at dt
  std::vector<Vec3> receivers;  // [receivers]; offsets from each shot with moving receivers
  Survey survey;                // the shots, each with its receivers
  StepSpec spec;
  SnapshotPlan snapshots;
  size_t device_bytes = 0, host_bytes = 0;
  HostMemoryNeed host_need;  // host_bytes by part
  DiskNeed disk_need;        // what `seisfd run` writes
  size_t aux_bytes = 0;      // CPML auxiliary fields (fp32), included in device_bytes

  int nt_out() const { return (nt - 1) / out_every + 1; }
};

// With `summary_only`, the plan's model has its statistics and no arrays (summarize_model):
// what `seisfd check` needs, in memory that does not grow with the grid; layout_medium and the
// runs need the arrays.
RunPlan make_plan(const RunConfig& c, bool summary_only = false);
// The plan's medium over its layout (physical values extended over layers and halo), as the
// engines take it.
Medium layout_medium(const RunPlan& p);
// The same over a rank's layout `l`, whose cell (0, 0, 0) is the grid's computational cell `at`
// (Subdomain::layout_lo), without building the whole grid's.
Medium layout_medium(const RunPlan& p, const Layout& l, const std::array<int, 3>& at);
std::string describe_plan(const RunPlan& p);  // multi-line text for `seisfd check`

std::vector<Vec3> receiver_positions(const ReceiverConfig& r, bool present,
                                     const std::string& source_path);

// Text for messages: "(x, y, z)" and "x [lo, hi], y [lo, hi], z [lo, hi] m".
std::string point_text(const Vec3& p);
std::string physical_domain_text(const SimGrid& g);

}  // namespace seisfd
