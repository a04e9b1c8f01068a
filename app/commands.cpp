#include "app/commands.hpp"

#include <omp.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <new>
#include <optional>
#include <thread>

#include "app/exit_codes.hpp"
#include "io/error.hpp"
#include "io/segy.hpp"
#include "kernels/cpu/cpu_variants.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/registry.hpp"
#include "solver/backend.hpp"
#include "solver/migrate.hpp"
#include "solver/parallel.hpp"
#include "solver/resources.hpp"
#include "solver/plan.hpp"
#include "solver/run.hpp"
#include "solver/time_loop.hpp"

namespace seisfd::app {

Backend parse_backend(const std::string& s) {
  if (s == "cpu") return Backend::kCpu;
  if (s == "cuda") return Backend::kCuda;
  return Backend::kAuto;
}

namespace {

std::atomic<bool> g_stop{false};
std::atomic<bool> g_checkpoint{false};  // SIGTERM, SIGUSR1: checkpoint before stopping
std::atomic<int> g_signal{0};           // the signal that asked the run to stop

// SIGINT, SIGTERM and SIGUSR1 (what batch systems send ahead of the time limit or a
// preemption) and SIGHUP (the terminal went away) all ask the run to stop at the next step
// boundary, keeping what it recorded; SIGTERM and SIGUSR1 also ask `run` for a checkpoint to
// resume from. A second signal of the same kind ends the process at once (SIGUSR1: is ignored).
extern "C" void on_stop_signal(int sig) {
  g_signal.store(sig);
  if (sig == SIGTERM || sig == SIGUSR1) g_checkpoint.store(true);
  g_stop.store(true);
  std::signal(sig, sig == SIGUSR1 ? SIG_IGN : SIG_DFL);
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      return "SIGINT";
  }
}

void install_stop_handlers() {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1}) {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(sig, &sa, nullptr);
  }
}

// The config of the command being run, kept beyond the command's scope so that errors raised
// after parsing can be given the line of the key they name.
std::optional<RunConfig> g_config;

// The config with --backend applied, so that the plan (its host memory estimate counts the
// fields only on the cpu backend) sees the backend the run will use.
RunConfig& load(const RunArgs& a) {
  RunConfig& c = g_config.emplace(load_config(a.config, a.overrides));
  if (a.backend != "auto") c.kernel.backend = parse_backend(a.backend);
  return c;
}

// One line per error on stderr, and an exit code per kind of failure (README's table).
template <class F>
int guarded_rank(F&& f);

// In a launch of several ranks, an error on any rank ends every rank (MPI_Abort with the exit
// code), never a hang: rank 0 says what happened; another rank says it too, prefixed with its
// number, unless it is an error every rank meets alike (the config's, a stop or a non-finite
// field: rank 0 reports those), and gives rank 0 a moment to leave its files marked incomplete.
template <class F>
int guarded(F&& f) {
  const parallel::Comm world = parallel::Comm::world();
  if (world.size() == 1) return guarded_rank(f);
  error_prefix() = world.root() ? "" : "rank " + std::to_string(world.rank()) + ": ";
  quiet_common_errors() = !world.root();
  const int code = guarded_rank(f);
  if (code == 0) return 0;
  if (!world.root()) std::this_thread::sleep_for(std::chrono::seconds(2));
  std::fflush(stderr);
  world.abort(code);
}

template <class F>
int guarded_rank(F&& f) {
  try {
    return f();
  } catch (const ConfigError& e) {
    if (quiet_common_errors()) return e.input_file() ? kExitFile : kExitConfig;
    const ConfigError located = g_config ? locate(e, *g_config) : e;
    print_error(located.what());
    return e.input_file() ? kExitFile : kExitConfig;
  } catch (const io::IoError& e) {
    print_error(e.what());
    return kExitFile;
  } catch (const ResourceError& e) {
    print_error(e.what());
    return kExitResources;
  } catch (const NumericalError& e) {
    if (!quiet_common_errors()) print_error(e.what());
    return kExitNumerical;
  } catch (const Interrupted& e) {
    const int sig = g_signal.load() > 0 ? g_signal.load() : SIGINT;
    if (quiet_common_errors()) return 128 + sig;
    if (e.checkpointed()) {
      const std::string dir = g_config ? g_config->output.directory : std::string(".");
      std::fprintf(stderr,
                   "seisfd: stopped at step %lld by %s with a checkpoint in '%s/checkpoint.h5'; "
                   "continue with `seisfd run CONFIG --resume` (same config)\n",
                   static_cast<long long>(e.step()), signal_name(sig), dir.c_str());
      return kExitCheckpointed;
    }
    if (sig == SIGUSR1) {  // no checkpoint here (born, migrate): stopped as by SIGTERM
      std::fprintf(stderr,
                   "seisfd: interrupted at step %lld by SIGUSR1; output files were left as "
                   "*.partial with attribute complete = 0\n",
                   static_cast<long long>(e.step()));
      return 128 + SIGTERM;
    }
    std::fprintf(stderr,
                 "seisfd: interrupted at step %lld by %s; output files were left as *.partial "
                 "with attribute complete = 0 (with the traces recorded so far)\n",
                 static_cast<long long>(e.step()), signal_name(sig));
    return 128 + sig;
  } catch (const std::bad_alloc&) {
    print_error(
        "out of host memory (an allocation failed); `seisfd check` prints what the "
        "run needs");
    return kExitResources;
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitOther;
  }
}

}  // namespace

RunOptions run_options(const RunArgs& a) {
  RunOptions o;
  o.backend = parse_backend(a.backend);
  o.overwrite = a.overwrite;
  o.quiet = a.quiet;
  o.graphs = !a.no_graph;
  o.resume = a.resume;
  o.stop = &g_stop;
  o.checkpoint_on_stop = &g_checkpoint;
  install_stop_handlers();
  return o;
}

int cmd_born(const RunArgs& a) {
  return guarded([&] {
    const RunConfig& c = load(a);
    const RunSummary s = execute_born(c, run_options(a));
    if (!a.quiet && s.reports)
      std::fprintf(
          stderr,
          "seisfd: Born modelling of %d shots in %.2f s on %s (%s, %s). Scattered data "
          "in '%s' (gathers.h5 and/or gathers.sgy, as output.formats asks), report.json beside "
          "it.\n",
          s.shots, s.seconds, s.device.c_str(), s.backend.c_str(), s.kernel.c_str(),
          s.directory.c_str());
    return 0;
  });
}

int cmd_migrate(const RunArgs& a) {
  return guarded([&] {
    const RunConfig& c = load(a);
    const RunSummary s = execute_migrate(c, run_options(a));
    if (!a.quiet && s.reports)
      std::fprintf(
          stderr,
          "seisfd: migrated %d shots in %.2f s on %s (%s, %s): %.3f Gcells/s. Image in "
          "'%s' (image.h5 with image.xmf, which opens in ParaView, and/or image_<condition>.sgy, "
          "as output.formats asks), report.json beside it.\n",
          s.shots, s.seconds, s.device.c_str(), s.backend.c_str(), s.kernel.c_str(), s.gcells_per_s,
          s.directory.c_str());
    return 0;
  });
}

int cmd_run(const RunArgs& a) {
  return guarded([&] {
    const RunConfig& c = load(a);
    const RunSummary s = execute_run(c, run_options(a));
    if (!a.quiet && s.reports) {
      std::fprintf(stderr,
                   "seisfd: %lld steps in %.2f s on %s (%s, %s): %.3f Gcells/s. Outputs in '%s': "
                   "gathers.h5 and/or gathers.sgy (shot gathers, per output.formats), snapshots.h5 "
                   "+ snapshots.xmf (wavefield, opens "
                   "in ParaView) when enabled, report.json (config, timings, diagnostics).\n",
                   static_cast<long long>(s.steps), s.seconds, s.device.c_str(), s.backend.c_str(),
                   s.kernel.c_str(), s.gcells_per_s, s.directory.c_str());
    }
    return 0;
  });
}

int cmd_check(const RunArgs& a) {
  return guarded([&] {
    RunConfig& c = load(a);
    resolve_backend(c, Backend::kAuto);  // refuses what `run` would refuse
    const RunPlan p = make_plan(c, /*summary_only=*/true);
    std::cout << "# resolved config\n" << config_to_toml(c) << "\n# plan\n" << describe_plan(p);
    if (c.migration.present)
      std::cout << describe_migration(
          p, c.kernel.backend == Backend::kCpu ||
                     (c.kernel.backend == Backend::kAuto && cuda_devices().empty())
                 ? Backend::kCpu
                 : Backend::kCuda);
    for (const auto& d : cuda_devices()) {
      const double need = p.device_bytes / 1048576.0, have = d.free_bytes / 1048576.0;
      std::printf("device %d    %s: needs %.0f MiB of %.0f MiB free%s\n", d.id, d.name.c_str(),
                  need, have, need > have ? " (DOES NOT FIT)" : "");
    }
    std::cout.flush();
    require_disk(p.disk_need, c.output.directory);  // as `run` would refuse it
    std::printf("config OK\n");
    return 0;
  });
}

int cmd_info() {
  std::printf("seisfd %s\n", SEISFD_VERSION);
  std::printf("build       %s, CUDA backend %s%s%s\n", SEISFD_BUILD_TYPE,
              cuda_built() ? "on (runtime " : "off",
              cuda_built() ? (cuda_runtime_version() + ", sm_" SEISFD_CUDA_ARCHS ")").c_str() : "",
              "");
  std::printf("cpu         %d OpenMP threads\n", omp_get_max_threads());
  std::printf("segy        %s\n", io::segy_built() ? "yes (segyio: SEG-Y gathers, images, models)"
                                                   : "no (built without libsegyio)");
  std::printf("mpi         %s\n",
              parallel::mpi_built()
                  ? "yes (mpirun -np N seisfd run|...: decomposition, shot groups)"
                  : "no (built without MPI: one rank)");
  if (parallel::mpi_built())
    std::printf("            CUDA-aware: %s\n", parallel::cuda_aware_mpi().c_str());
  std::printf("nccl        %s\n",
              nccl_built() ? ("yes (" + nccl_version() + "): parallel.exchange = \"nccl\"").c_str()
                           : "no (built without NCCL)");
  const auto devs = cuda_devices();
  if (devs.empty()) std::printf("devices     no CUDA device found (runs use the cpu backend)\n");
  for (const auto& d : devs)
    std::printf("device %d    %s, compute capability %d.%d, %d SMs, %.1f GiB (%.1f GiB free)\n",
                d.id, d.name.c_str(), d.compute_capability / 10, d.compute_capability % 10,
                d.multiprocessors, d.total_bytes / 1073741824.0, d.free_bytes / 1073741824.0);
  return 0;
}

int cmd_kernels() {
  const auto& reg = kernel_registry();
  std::printf("GPU (cuda backend):\n");
  if (reg.empty()) {
    std::printf("  none: this build has no CUDA backend\n");
  } else {
    std::printf("  %-28s %-10s %-6s %-16s %-6s %s\n", "name", "physics", "order", "technique",
                "min_cc", "description");
    for (const auto& v : reg)
      std::printf("  %-28s %-10s %-6d %-16s %-6d %s\n", v.name.c_str(), to_string(v.physics),
                  v.order, v.technique.c_str(), v.min_compute_capability, v.description.c_str());
  }
  std::printf("\nCPU (cpu backend; \"auto\" takes the first of a physics and order):\n");
  std::printf("  %-28s %-10s %-6s %-16s %s\n", "name", "physics", "order", "technique",
              "description");
  for (const auto& v : cpu::cpu_variants())
    std::printf("  %-28s %-10s %-6d %-16s %s\n", v.name.c_str(), to_string(v.physics), v.order,
                v.technique_name.c_str(), v.description.c_str());
  return 0;
}

}  // namespace seisfd::app
