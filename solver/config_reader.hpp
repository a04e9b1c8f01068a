// Typed, located access to the tables of a parsed config (internal to seisfd_config).
// Every failure throws ConfigError naming the full key ("output.snapshots.interval") and the
// file and line of the offending node; nodes that came from a --set override report
// source "--set" and line 0.
#pragma once
#include <toml++/toml.h>

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "solver/config.hpp"

namespace seisfd::config_detail {

// Where the nodes of one parse came from.
class Context {
 public:
  explicit Context(std::string source);
  const std::string& source() const { return source_; }
  // Nodes created by --set overrides (their descendants carry the source path "--set").
  void mark_override(const toml::node* node) { overrides_.insert(node); }
  bool is_override(const toml::node* node) const;
  // Relative paths in the file resolve against its directory; those given with --set
  // resolve against the current directory, as a shell user expects.
  std::filesystem::path base_dir(const toml::node* node) const;
  // Throws ConfigError located at node (no line when node is null).
  [[noreturn]] void fail(const std::string& key, const std::string& message,
                         const toml::node* node) const;

 private:
  std::string source_;
  std::filesystem::path dir_;
  std::unordered_set<const toml::node*> overrides_;
};

// "integer 5", "string \"100\"", "array [1, 2]": for "expected X, got Y" messages.
std::string describe(const toml::node& node);

// One table of the config (a section, or a sub-table such as output.snapshots).
class Section {
 public:
  Section(const Context& ctx, const toml::table& table, std::string name);

  std::string key(std::string_view k) const;  // "grid" + "nx" -> "grid.nx"
  const toml::node* find(std::string_view k) const { return table_->get(k); }
  bool has(std::string_view k) const { return find(k) != nullptr; }

  // Fails at the key's node, or at the table when the key is absent.
  [[noreturn]] void fail(std::string_view k, const std::string& message) const;
  // Any key not in known is an error ("unknown key (known: ...); did you mean 'nx'?").
  void check_known(const std::vector<std::string>& known, std::string_view what = "key") const;
  // Fails if k is present: it belongs to another type ("not used by model.type = ...").
  void reject(std::string_view k, const std::string& why) const;

  template <class T>
  T need(std::string_view k, std::optional<T> value, const std::string& hint = {}) const {
    if (!value) fail(k, "required key is missing" + (hint.empty() ? "" : " (" + hint + ")"));
    return *value;
  }

  // Typed getters: nullopt when absent, ConfigError when present with the wrong type/range.
  std::optional<int> get_int(std::string_view k, int min) const;  // fits in int, >= min
  std::optional<std::vector<int>> get_ints(std::string_view k, size_t n, int min) const;
  std::optional<double> get_double(std::string_view k) const;    // integer or float, finite
  std::optional<double> get_positive(std::string_view k) const;  // > 0
  std::optional<bool> get_bool(std::string_view k) const;
  std::optional<std::string> get_string(std::string_view k) const;  // non-empty
  std::optional<Vec3> get_vec3(std::string_view k) const;
  std::optional<std::vector<double>> get_doubles(std::string_view k) const;  // non-empty
  std::optional<Section> get_table(std::string_view k) const;
  // A file path: resolved to an absolute path, which must name an existing file.
  std::optional<std::string> get_path(std::string_view k) const;
  // One of values, matched by its to_string() name.
  template <class E>
  std::optional<E> get_enum(std::string_view k, std::initializer_list<E> values) const {
    std::vector<std::string> names;
    for (E v : values) names.emplace_back(to_string(v));
    const auto index = get_choice(k, names);
    if (!index) return std::nullopt;
    return *(values.begin() + *index);
  }

 private:
  std::optional<size_t> get_choice(std::string_view k, const std::vector<std::string>& names) const;
  [[noreturn]] void type_error(std::string_view k, const char* expected) const;

  const Context* ctx_;
  const toml::table* table_;
  std::string name_;
};

// Reads and validates every section of root (config_sections.cpp, config_output.cpp).
RunConfig read_config(const Context& ctx, const toml::table& root);
GridConfig read_grid(const Section& s);
ModelConfig read_model(const Section& s, const GridConfig& grid);
PhysicsConfig read_physics(const Section& s);
TimeConfig read_time(const Section& s);
SourceConfig read_source(const Section& s);
ReceiverConfig read_receivers(const Section& s);
BoundaryConfig read_boundary(const Section& s);
OutputConfig read_output(const Section& s, bool have_receivers);
KernelConfig read_kernel(const Section& s);
RunSection read_run(const Section& s);
ParallelConfig read_parallel(const Section& s);
// config_rtm.cpp: [shots], [migration], [born] (docs/migration.md §1-§3).
ShotsConfig read_shots(const Section& s, bool have_receivers);
MigrationConfig read_migration(const Section& s);
BornConfig read_born(const Section& s, const MigrationConfig& migration);

}  // namespace seisfd::config_detail
