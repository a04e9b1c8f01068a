#include "solver/config_reader.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <sstream>

#include "solver/config_text.hpp"

namespace seisfd::config_detail {
namespace fs = std::filesystem;

Context::Context(std::string source) : source_(std::move(source)) {
  std::error_code ec;
  const fs::path parent = fs::path(source_).parent_path();
  dir_ = parent.empty() ? fs::current_path(ec) : fs::absolute(parent, ec);
  if (ec) dir_ = parent;
}

bool Context::is_override(const toml::node* node) const {
  if (overrides_.count(node)) return true;
  const auto& path = node->source().path;
  return path && *path == "--set";
}

fs::path Context::base_dir(const toml::node* node) const {
  if (!is_override(node)) return dir_;
  std::error_code ec;
  return fs::current_path(ec);
}

void Context::fail(const std::string& key, const std::string& message,
                   const toml::node* node) const {
  if (!node) throw ConfigError(key, message, source_, 0);
  if (is_override(node)) throw ConfigError(key, message, "--set", 0);
  throw ConfigError(key, message, source_, static_cast<int>(node->source().begin.line));
}

namespace {

std::string render(const toml::node& node) {
  if (auto* s = node.as_string()) return toml_string(s->get());
  if (auto* i = node.as_integer()) return std::to_string(i->get());
  if (auto* f = node.as_floating_point()) return toml_float(f->get());
  if (auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  if (auto* a = node.as_array()) {
    std::string out = "[";
    for (size_t i = 0; i < a->size(); ++i) out += (i ? ", " : "") + render(*a->get(i));
    return out + "]";
  }
  if (node.is_table()) return "{...}";
  std::ostringstream os;  // dates and times
  node.visit([&](auto&& v) { os << v; });
  return os.str();
}

// An integer or float node as a double. (node.value<double>() is empty for integers that a
// double cannot hold exactly.)
double number(const toml::node& node) {
  if (const auto* i = node.as_integer()) return static_cast<double>(i->get());
  return node.as_floating_point()->get();
}

const char* type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::array:
      return "array";
    case toml::node_type::table:
      return "table";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    default:
      return "value";
  }
}

}  // namespace

std::string describe(const toml::node& node) {
  if (node.is_table()) return "a table";
  std::string text = render(node);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return std::string(type_name(node)) + " " + text;
}

Section::Section(const Context& ctx, const toml::table& table, std::string name)
    : ctx_(&ctx), table_(&table), name_(std::move(name)) {}

std::string Section::key(std::string_view k) const {
  return name_.empty() ? std::string(k) : name_ + "." + std::string(k);
}

void Section::fail(std::string_view k, const std::string& message) const {
  const toml::node* at = find(k);
  if (!at && !name_.empty()) at = table_;  // a missing key: point at its table
  ctx_->fail(key(k), message, at);
}

void Section::type_error(std::string_view k, const char* expected) const {
  fail(k, std::string("expected ") + expected + ", got " + describe(*find(k)));
}

void Section::check_known(const std::vector<std::string>& known, std::string_view what) const {
  for (auto&& [k, node] : *table_) {
    const std::string name(k.str());
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string message = "unknown " + std::string(what) + " (known: " + join(known) + ")";
    const std::string guess = closest(name, known);
    if (!guess.empty()) message += "; did you mean '" + guess + "'?";
    ctx_->fail(key(name), message, &node);
  }
}

void Section::reject(std::string_view k, const std::string& why) const {
  if (has(k)) fail(k, why);
}

std::optional<int> Section::get_int(std::string_view k, int min) const {
  const toml::node* node = find(k);
  if (!node) return std::nullopt;
  if (!node->is_integer()) type_error(k, "an integer");
  const int64_t v = node->as_integer()->get();
  if (v < INT_MIN || v > INT_MAX)
    fail(k, "out of range for an integer (got " + render(*node) + ")");
  if (v < min) fail(k, "must be >= " + std::to_string(min) + " (got " + std::to_string(v) + ")");
  return static_cast<int>(v);
}

std::optional<std::vector<int>> Section::get_ints(std::string_view k, size_t n, int min) const {
  const toml::node* node = find(k);
  if (!node) return std::nullopt;
  const std::string expected = "an array of " + std::to_string(n) + " integers";
  const toml::array* a = node->as_array();
  if (!a || a->size() != n || !a->is_homogeneous(toml::node_type::integer))
    type_error(k, expected.c_str());
  std::vector<int> out;
  for (const auto& e : *a) {
    const int64_t v = e.as_integer()->get();
    if (v < min || v > INT_MAX)
      fail(k, "every value must be an integer >= " + std::to_string(min) + " (got " +
                  std::to_string(v) + ")");
    out.push_back(static_cast<int>(v));
  }
  return out;
}

std::optional<double> Section::get_double(std::string_view k) const {
  const toml::node* node = find(k);
  if (!node) return std::nullopt;
  if (!node->is_number()) type_error(k, "a number");
  const double v = number(*node);
  if (!std::isfinite(v)) fail(k, "must be a finite number (got " + render(*node) + ")");
  return v;
}

std::optional<double> Section::get_positive(std::string_view k) const {
  const auto v = get_double(k);
  if (v && !(*v > 0)) fail(k, "must be > 0 (got " + format_number(*v) + ")");
  return v;
}

std::optional<bool> Section::get_bool(std::string_view k) const {
  const toml::node* node = find(k);
  if (!node) return std::nullopt;
  if (!node->is_boolean()) type_error(k, "a boolean (true or false)");
  return node->as_boolean()->get();
}

std::optional<std::string> Section::get_string(std::string_view k) const {
  const toml::node* node = find(k);
  if (!node) return std::nullopt;
  if (!node->is_string()) type_error(k, "a string");
  std::string v = node->as_string()->get();
  if (v.empty()) fail(k, "must not be empty");
  return v;
}

std::optional<Vec3> Section::get_vec3(std::string_view k) const {
  const toml::node* node = find(k);
  if (!node) return std::nullopt;
  const toml::array* a = node->as_array();
  bool ok = a && a->size() == 3;
  for (size_t i = 0; ok && i < 3; ++i) ok = a->get(i)->is_number();
  if (!ok) type_error(k, "an array of 3 numbers [x, y, z]");
  Vec3 v{};
  for (size_t i = 0; i < 3; ++i) v[i] = number(*a->get(i));
  for (double x : v)
    if (!std::isfinite(x)) fail(k, "must be finite numbers (got " + render(*node) + ")");
  return v;
}

std::optional<std::vector<double>> Section::get_doubles(std::string_view k) const {
  const toml::node* node = find(k);
  if (!node) return std::nullopt;
  const toml::array* a = node->as_array();
  bool ok = a != nullptr;
  for (size_t i = 0; ok && i < a->size(); ++i) ok = a->get(i)->is_number();
  if (!ok) type_error(k, "an array of numbers");
  if (a->empty()) fail(k, "must not be empty");
  std::vector<double> v;
  for (const auto& e : *a) {
    v.push_back(number(e));
    if (!std::isfinite(v.back())) fail(k, "must be finite numbers (got " + render(*node) + ")");
  }
  return v;
}

std::optional<Section> Section::get_table(std::string_view k) const {
  const toml::node* node = find(k);
  if (!node) return std::nullopt;
  if (!node->is_table()) type_error(k, "a table");
  return Section(*ctx_, *node->as_table(), key(k));
}

std::optional<std::string> Section::get_path(std::string_view k) const {
  const auto given = get_string(k);
  if (!given) return std::nullopt;
  fs::path p(*given);
  if (p.is_relative()) p = ctx_->base_dir(find(k)) / p;
  p = p.lexically_normal();
  // A missing input file is a file error (its own exit code), located like a config error.
  const auto fail_file = [&](const std::string& message) {
    try {
      fail(k, message);
    } catch (const ConfigError& e) {
      throw ConfigError::input_file(e.key(), e.message(), e.source(), e.line());
    }
  };
  std::error_code ec;
  if (!fs::exists(p, ec)) {
    std::string message = "file '" + *given + "' not found";
    if (p.string() != *given) message += " (looked for '" + p.string() + "')";
    fail_file(message);
  }
  if (!fs::is_regular_file(p, ec)) fail_file("'" + p.string() + "' is not a regular file");
  return p.string();
}

std::optional<size_t> Section::get_choice(std::string_view k,
                                          const std::vector<std::string>& names) const {
  std::vector<std::string> quoted;
  for (const auto& n : names) quoted.push_back("\"" + n + "\"");
  const toml::node* node = find(k);
  if (!node) return std::nullopt;
  if (!node->is_string()) type_error(k, ("a string, one of " + join(quoted)).c_str());
  const std::string& v = node->as_string()->get();
  for (size_t i = 0; i < names.size(); ++i)
    if (v == names[i]) return i;
  std::string message = "must be one of " + join(quoted) + " (got " + toml_string(v) + ")";
  const std::string guess = closest(v, names);
  if (!guess.empty()) message += "; did you mean \"" + guess + "\"?";
  fail(k, message);
}

}  // namespace seisfd::config_detail
