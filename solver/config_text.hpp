// Text helpers shared by the config parser and writers (internal to seisfd_config).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace seisfd::config_detail {

// Shortest decimal text that reads back as exactly v ("0.1", "1500", "1e-05").
std::string format_number(double v);
// format_number, made a TOML float where it would read as an integer ("1500.0").
std::string toml_float(double v);
// A TOML basic string, quoted and escaped.
std::string toml_string(std::string_view s);

// Edit distance (optimal string alignment: a transposition costs 1), case-insensitive.
int edit_distance(std::string_view a, std::string_view b);
// The closest name within edit distance 2 of word, or "" when there is none.
std::string closest(std::string_view word, const std::vector<std::string>& names);
// "a, b, c"
std::string join(const std::vector<std::string>& names, std::string_view sep = ", ");

}  // namespace seisfd::config_detail
