// The plan as text: `seisfd check`'s summary (describe_plan) and the points and domain that
// messages name.
#include <sstream>
#include <string>

#include "solver/backend.hpp"
#include "solver/plan.hpp"
#include "solver/text_format.hpp"

namespace seisfd {

std::string point_text(const Vec3& p) {
  return "(" + significant(p[0], 6) + ", " + significant(p[1], 6) + ", " + significant(p[2], 6) +
         ")";
}

std::string physical_domain_text(const SimGrid& g) {
  const Vec3 lo = g.physical().origin, hi = g.physical_max();
  return "x [" + significant(lo[0], 6) + ", " + significant(hi[0], 6) + "], y [" +
         significant(lo[1], 6) + ", " + significant(hi[1], 6) + "], z [" + significant(lo[2], 6) +
         ", " + significant(hi[2], 6) + "] m";
}

std::string describe_plan(const RunPlan& p) {
  const RunConfig& c = p.config;
  const Layout& l = p.grid.layout();
  std::ostringstream os;
  os << "grid        " << c.grid.nx << " x " << c.grid.ny << " x " << c.grid.nz
     << " physical cells (x, y, z), spacing " << c.grid.dx << ", " << c.grid.dy << ", " << c.grid.dz
     << " m\n";
  os << "            computational " << l.nx << " x " << l.ny << " x " << l.nz << " with absorbing "
     << p.grid.width_hi(2) << " cells/face"
     << (c.boundary.free_surface ? " (free surface on top)" : "") << " and halo " << p.grid.radius()
     << ", " << significant(double(l.cells()) / 1e6, 5) << " Mcells\n";
  const BoundaryConfig& b = c.boundary;
  os << "boundary    " << to_string(b.type);
  if (b.type != BoundaryType::kNone)
    os << ", " << b.width << " cells/face, target reflection " << significant(b.reflection, 3);
  if (p.spec.cpml_on())
    os << ", d0 " << significant(p.spec.cpml.d0[2], 4) << " 1/s (x), alpha_max "
       << significant(p.spec.cpml.alpha_max, 4) << " 1/s, power " << significant(b.power, 3)
       << "; auxiliary fields " << significant(p.aux_bytes / 1048576.0, 5) << " MiB";
  os << (b.free_surface ? "; free surface on top" : "") << "\n";
  os << "model       " << to_string(c.model.type) << ", v " << p.model.vmin << " .. "
     << p.model.vmax << " m/s\n";
  os << "physics     " << to_string(c.physics.equation) << ", order " << c.physics.order
     << (c.physics.equation == Physics::kTti
             ? std::string(", operator ") + to_string(c.physics.tti_operator)
             : std::string())
     << "\n";
  if (c.physics.equation != Physics::kAcoustic) {
    const auto range = [](const ValueRange& r, double scale) {
      return significant(r.lo * scale, 4) + " .. " + significant(r.hi * scale, 4);
    };
    os << "anisotropy  epsilon " << range(p.model.epsilon_range, 1) << ", delta "
       << range(p.model.delta_range, 1);
    if (c.physics.equation == Physics::kTti)
      os << ", theta " << range(p.model.theta_range, 180 / M_PI) << " deg, phi "
         << range(p.model.phi_range, 180 / M_PI) << " deg";
    os << "; source injected into p and q, receivers record p\n";
    os << "            coefficients stored " << to_string(c.kernel.model_precision)
       << (c.kernel.model_precision == ModelPrecision::kFp32
               ? "\n"
               : " (16-bit codes decoded to fp32; every backend runs the rounded model)\n");
  }
  os << "time        dt " << significant(p.dt, 6) << " s (stability limit "
     << significant_down(p.dt_limit, 6) << " s, ratio " << significant(p.dt / p.dt_limit, 3)
     << "), " << p.nt << " samples to " << significant((p.nt - 1) * p.dt, 6) << " s\n";
  if (c.physics.equation != Physics::kAcoustic)
    os << "            stability limit " << p.dt_bound_text << "\n";
  os << "wavelet     " << to_string(c.source.wavelet) << ", f_max " << significant(p.fmax, 4)
     << " Hz, " << significant(p.points_per_wavelength, 3) << " points per minimum wavelength\n";
  const bool shots = c.shots.present;
  const bool moving = shots && c.shots.receivers == ReceiverMode::kMoving;
  os << "source      " << (shots ? std::string("at each shot") : point_text(c.source.position))
     << ", " << to_string(c.source.injection) << " injection\n";
  size_t rmin = 0, rmax = 0;
  for (size_t k = 0; k < p.survey.shots.size(); ++k) {
    const size_t n = p.survey.shots[k].receivers.size();
    rmin = k == 0 ? n : std::min(rmin, n);
    rmax = std::max(rmax, n);
  }
  os << "shots       " << p.survey.shots.size() << " (layout "
     << (shots ? to_string(c.shots.layout) : "source.position") << ", receivers "
     << (moving ? "moving" : "fixed") << "), " << p.receivers.size() << " receivers per shot ("
     << rmin << ".." << rmax << ")\n";
  os << "receivers   " << p.receivers.size() << (moving ? " offsets from each shot" : "")
     << ", recorded every " << significant(p.out_every * p.dt, 6) << " s (" << p.nt_out()
     << " samples)\n";
  if (p.snapshots.enabled)
    os << "snapshots   every " << p.snapshots.every << " steps, " << p.snapshots.geometry.nx
       << " x " << p.snapshots.geometry.ny << " x " << p.snapshots.geometry.nz << " samples\n";
  std::string avail_what;
  const uint64_t avail = host_memory_available(&avail_what);
  os << "memory      " << significant(p.device_bytes / 1048576.0, 5) << " MiB per device, "
     << significant(p.host_bytes / 1048576.0, 5) << " MiB on the host ("
     << (auto_backend(c.kernel.backend) == Backend::kCpu ? "cpu backend: " : "")
     << p.host_need.text() << ")";
  if (!avail_what.empty()) os << " of " << bytes_text(double(avail)) << " available";
  os << "\n";
  std::string disk_where;
  const double disk = disk_free(c.output.directory, &disk_where);
  os << "disk        " << bytes_text(p.disk_need.total()) << " of outputs (" << p.disk_need.text()
     << ")";
  if (disk >= 0) os << ", " << bytes_text(disk) << " free in '" << disk_where << "'";
  os << (disk >= 0 && p.disk_need.total() > disk ? " (DOES NOT FIT)" : "") << "\n";
  for (const auto& w : p.warnings) os << "warning     " << w << "\n";
  return os.str();
}

}  // namespace seisfd
