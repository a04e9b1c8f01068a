// seisfd: 3D finite-difference seismic modelling. CLI11 subcommands, nothing else.
#include <CLI/CLI.hpp>

#include <csignal>

#include "app/bench.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "io/library.hpp"
#include "solver/parallel.hpp"

int main(int argc, char** argv) {
  // MPI where an MPI launcher started the process (mpirun, srun); else one rank.
  seisfd::parallel::Session mpi(&argc, &argv);
  seisfd::io::init_library();
  using seisfd::app::RunArgs;
  CLI::App app{"seisfd " SEISFD_VERSION ": 3D finite-difference seismic modelling and migration"};
  app.require_subcommand(1);
  app.set_version_flag("--version", SEISFD_VERSION);

  RunArgs run_args, check_args;
  auto add_common = [](CLI::App* c, RunArgs& a) {
    c->add_option("CONFIG", a.config, "TOML config file (keys: see README.md)")->required();
    c->add_option("--set", a.overrides,
                  "Override a config key, e.g. --set time.duration=0.5 (repeatable)")
        ->take_all()
        ->allow_extra_args(false);
    c->add_option("--backend", a.backend, "auto (GPU if present), cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  };
  auto* run = app.add_subcommand("run", "Run a modelling job from a config file");
  add_common(run, run_args);
  run->add_flag("--overwrite", run_args.overwrite,
                "Replace files in an existing, non-empty output directory");
  run->add_flag("-q,--quiet", run_args.quiet, "No progress or summary on stderr");
  run->add_flag("--no-graph", run_args.no_graph,
                "CUDA: launch every kernel from the host instead of replaying captured graphs");
  run->add_flag("--resume", run_args.resume,
                "Continue the run in the output directory from the first shot its gathers.h5 "
                "does not hold (the same config)");
  RunArgs born_args, migrate_args;
  auto* born = app.add_subcommand(
      "born", "Born modelling: the scattered data of a perturbation of 1/v^2 ([born])");
  add_common(born, born_args);
  born->add_flag("--overwrite", born_args.overwrite, "Replace files in the output directory");
  born->add_flag("-q,--quiet", born_args.quiet, "No progress or summary on stderr");
  auto* migrate = app.add_subcommand(
      "migrate", "Reverse time migration of observed gathers ([migration]) into image.h5");
  add_common(migrate, migrate_args);
  migrate->add_flag("--overwrite", migrate_args.overwrite, "Replace files in the output directory");
  migrate->add_flag("-q,--quiet", migrate_args.quiet, "No progress or summary on stderr");
  auto* check = app.add_subcommand(
      "check", "Validate a config and print the resolved config, dt, stability and memory");
  add_common(check, check_args);
  auto* info = app.add_subcommand("info", "Version, build options and devices found");
  auto* kernels = app.add_subcommand("kernels", "The GPU kernel registry");
  seisfd::app::BenchArgs bench_args;
  auto* bench = seisfd::app::add_bench_command(app, bench_args);

  // Progress written into a closed pipe (`seisfd run ... 2>&1 | head`) is not fatal, and a write
  // past the file-size limit (ulimit -f) fails with EFBIG, which the writers report, instead of
  // killing the process with no message.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // One line, and the exit code of a config error: the command line is part of the input.
    seisfd::app::print_error(std::string(e.what()) + " (seisfd --help lists the commands)");
    return seisfd::app::kExitConfig;
  }
  if (*run) return seisfd::app::cmd_run(run_args);
  if (*born) return seisfd::app::cmd_born(born_args);
  if (*migrate) return seisfd::app::cmd_migrate(migrate_args);
  if (*check) return seisfd::app::cmd_check(check_args);
  if (*info) return seisfd::app::cmd_info();
  if (*kernels) return seisfd::app::cmd_kernels();
  if (*bench) return seisfd::app::cmd_bench(bench_args);
  return 0;
}
