// libFuzzer target over the config parser and the plan's validation (cmake --preset fuzz):
// any input must either give a config and a plan, or be refused with one ConfigError,
// io::IoError or ResourceError whose message is one line. Anything else (another exception, a
// crash, a sanitizer report) is a defect. Plans are made only for problems small enough for the
// fuzzer's memory limit (the run's own memory check is against the machine's memory, which the
// fuzzer's 2 GB limit is not).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "io/error.hpp"
#include "io/library.hpp"
#include "solver/config.hpp"
#include "solver/plan.hpp"
#include "solver/resources.hpp"

namespace {

void require_one_line(const char* kind, const std::string& what) {
  if (what.empty() || what.find('\n') != std::string::npos) {
    std::fprintf(stderr, "%s message is not one line: [%s]\n", kind, what.c_str());
    std::abort();
  }
}

// Small enough to plan inside the fuzzer: cells, steps (from the slowest plausible velocity's
// stability limit), receivers and shots bounded.
bool small(const seisfd::RunConfig& c) {
  using seisfd::ReceiverLayout;
  const double pad = 2.0 * (c.boundary.width + c.physics.order / 2 + 32);
  const double cells = (c.grid.nx + pad) * (c.grid.ny + pad) * (c.grid.nz + pad);
  if (cells > 2e6) return false;
  double vmax = c.model.vp;
  for (double v : c.model.velocities) vmax = std::max(vmax, v);
  if (c.model.type == seisfd::ModelType::kSalt || c.model.type == seisfd::ModelType::kFile)
    vmax = std::max(vmax, 6000.0);
  const double h = std::min({c.grid.dx, c.grid.dy, c.grid.dz});
  const double dt = c.time.dt ? *c.time.dt : 0.1 * h / std::max(vmax, 1.0);
  if (!(dt > 0) || c.time.duration / dt > 2e5) return false;
  const double rec = c.receivers.layout == ReceiverLayout::kGrid
                         ? double(c.receivers.count[0]) * c.receivers.count[1]
                         : c.receivers.count[0];
  const double shots = double(c.shots.count[0]) * c.shots.count[1] + c.shots.positions.size();
  return rec <= 1e4 && shots <= 1e3;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  seisfd::io::init_library();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    seisfd::RunConfig c = seisfd::parse_config(text, "fuzz.toml");
    if (!small(c)) return 0;
    c.kernel.backend = seisfd::Backend::kCpu;
    const seisfd::RunPlan p = seisfd::make_plan(c);
    (void)seisfd::describe_plan(p);
  } catch (const seisfd::ConfigError& e) {
    require_one_line("ConfigError", e.what());
  } catch (const seisfd::io::IoError& e) {
    require_one_line("IoError", e.what());
  } catch (const seisfd::ResourceError& e) {
    require_one_line("ResourceError", e.what());
  }
  return 0;
}
