// Shared by the survey and imaging config tests (test_config_rtm.cpp, test_config_survey.cpp):
// kMinimal without a source position, a [shots] section appended to it, a line of receivers, and
// the fixture that writes data files beside the config and catches the plan's errors.
#pragma once
#include <fstream>
#include <string>
#include <vector>

#include "solver/plan.hpp"
#include "solver/survey.hpp"
#include "tests/config_support.hpp"

// kMinimal without source.position: [source] is line 11, its last line 12, so a section
// appended to it starts at line 13. Physical domain: x [0, 45], y [0, 55], z [0, 65] m.
inline const std::string kNoPosition = remove_line(kMinimal, 12);

inline std::string with_shots(const std::string& body) {
  return kNoPosition + "[shots]\n" + body;  // [shots] at line 13, body from line 14
}

// Receivers along x at the depth of the sources, from -20 to 20 m: offsets when moving.
inline const std::string kReceiverLine =
    "[receivers]\nlayout = \"line\"\nstart = [-20, 0, 0]\nend = [20, 0, 0]\ncount = 5\n";

class ConfigRtm : public Config {
 protected:
  static std::string write_file(const char* name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return in_dir(name);
  }
  static ConfigError plan_error(const std::string& text) {
    try {
      make_plan(parse(text));
    } catch (const ConfigError& e) {
      return e;
    }
    ADD_FAILURE() << "no ConfigError from make_plan for:\n" << text;
    return ConfigError("", "no error");
  }
};

inline std::vector<Vec3> sources(const Survey& s) {
  std::vector<Vec3> out;
  for (const Shot& shot : s.shots) out.push_back(shot.source);
  return out;
}
