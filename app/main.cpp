// seisfd: 3D finite-difference seismic modelling. CLI11 subcommands, nothing else.
#include <CLI/CLI.hpp>

#include "app/bench.hpp"
#include "app/commands.hpp"

int main(int argc, char** argv) {
  using seisfd::app::RunArgs;
  CLI::App app{"seisfd " SEISFD_VERSION ": 3D finite-difference seismic modelling (acoustic)"};
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
  auto* check = app.add_subcommand(
      "check", "Validate a config and print the resolved config, dt, stability and memory");
  add_common(check, check_args);
  auto* info = app.add_subcommand("info", "Version, build options and devices found");
  auto* kernels = app.add_subcommand("kernels", "The GPU kernel registry");
  seisfd::app::BenchArgs bench_args;
  auto* bench = seisfd::app::add_bench_command(app, bench_args);

  CLI11_PARSE(app, argc, argv);
  if (*run) return seisfd::app::cmd_run(run_args);
  if (*check) return seisfd::app::cmd_check(check_args);
  if (*info) return seisfd::app::cmd_info();
  if (*kernels) return seisfd::app::cmd_kernels();
  if (*bench) return seisfd::app::cmd_bench(bench_args);
  return 0;
}
