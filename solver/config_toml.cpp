// parse_config / load_config: TOML text -> toml++ tree -> --set overrides -> RunConfig.
#include <cctype>
#include <fstream>
#include <sstream>

#include "solver/config.hpp"
#include "solver/config_reader.hpp"

namespace seisfd {
namespace {
using config_detail::Context;

std::string trim(std::string_view s) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

bool bare_key(const std::string& k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  return true;
}

// "section.key=value" -> (["section", "key"], value); throws ConfigError when malformed.
std::pair<std::vector<std::string>, std::string> split_override(const std::string& text) {
  const auto eq = text.find('=');
  const std::string key = trim(std::string_view(text).substr(0, eq));
  const auto malformed = [&](const std::string& why) {
    return ConfigError(
        key.empty() ? text : key,
        "malformed override '" + text + "': " + why + " (expected section.key=value)", "--set", 0);
  };
  if (eq == std::string::npos) throw malformed("no '='");
  if (key.empty()) throw malformed("empty key");
  std::vector<std::string> parts;
  std::istringstream in(key);
  for (std::string part; std::getline(in, part, '.');) parts.push_back(trim(part));
  if (key.back() == '.') parts.emplace_back();
  for (const auto& p : parts)
    if (!bare_key(p)) throw malformed("'" + p + "' is not a valid key name");
  return {parts, trim(std::string_view(text).substr(eq + 1))};
}

// Sets one override into root. The value is TOML ("0.5", "\"file\"", "[1, 2, 3]"); text that
// does not parse as one TOML value is taken as a bare string ("out2").
void apply_override(toml::table& root, const std::string& text, Context& ctx) {
  const auto [parts, value] = split_override(text);
  toml::table* table = &root;
  std::string prefix;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    prefix += (i ? "." : "") + parts[i];
    toml::node* child = table->get(parts[i]);
    if (!child) {
      child = &table->insert_or_assign(parts[i], toml::table{}).first->second;
      ctx.mark_override(child);
    }
    if (!child->is_table())
      throw ConfigError(prefix, "cannot set '" + text + "': " + prefix + " is not a table", "--set",
                        0);
    table = child->as_table();
  }
  const std::string& leaf = parts.back();
  bool parsed = false;
  try {
    toml::table doc = toml::parse("v = " + value, std::string_view("--set"));
    if (doc.size() == 1 && doc.contains("v")) {
      table->insert_or_assign(leaf, std::move(*doc.get("v")));  // moving keeps its source
      parsed = true;
    }
  } catch (const toml::parse_error&) {
  }
  if (!parsed) table->insert_or_assign(leaf, value);
  ctx.mark_override(table->get(leaf));
}

// Every key and table of root with the line it was given on (-1: a --set override), so that
// errors found after parsing can point at the key.
void record_lines(const toml::table& table, const std::string& prefix, const Context& ctx,
                  std::map<std::string, int>& out) {
  for (auto&& [k, node] : table) {
    const std::string key =
        prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    out[key] = ctx.is_override(&node) ? -1 : static_cast<int>(node.source().begin.line);
    if (const toml::table* t = node.as_table()) record_lines(*t, key, ctx, out);
  }
}

}  // namespace

RunConfig parse_config(const std::string& text, const std::string& source,
                       const std::vector<std::string>& overrides) {
  toml::table root;
  try {
    root = toml::parse(std::string_view(text), std::string_view(source));
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    throw ConfigError("",
                      "TOML syntax error: " + std::string(e.description()) + " (column " +
                          std::to_string(at.column) + ")",
                      source, static_cast<int>(at.line));
  }
  Context ctx(source);
  for (const auto& o : overrides) apply_override(root, o, ctx);
  RunConfig c = config_detail::read_config(ctx, root);
  record_lines(root, "", ctx, c.key_lines);
  return c;
}

RunConfig load_config(const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError("", "cannot read config file '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const bool exists = std::filesystem::exists(path, ec);
    throw ConfigError("", "cannot read config file '" + path + "': " +
                              (exists ? "permission denied or unreadable" : "no such file"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError("", "cannot read config file '" + path + "': read error");
  return parse_config(text.str(), path, overrides);
}

}  // namespace seisfd
