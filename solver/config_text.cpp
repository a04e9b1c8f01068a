#include "solver/config_text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace seisfd::config_detail {

std::string format_number(double v) {
  const auto text = [v](int precision) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    return std::string(buf);
  };
  const auto exact = [v](const std::string& s) { return std::strtod(s.c_str(), nullptr) == v; };
  int precision = 1;
  while (precision < 17 && !exact(text(precision))) ++precision;
  std::string best = text(precision);
  // %g writes 10 as "1e+01" at precision 1: prefer plain digits where a longer precision gives
  // them ("10", "1500"), keeping exponents for very large or small values.
  for (int p = precision + 1; best.find('e') != std::string::npos && p <= 17; ++p)
    if (text(p).find('e') == std::string::npos && exact(text(p))) best = text(p);
  return best;
}

std::string toml_float(double v) {
  std::string s = format_number(v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // 'n': nan, inf
  return s;
}

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04X", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

int edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: insertions, deletions, substitutions and adjacent
  // transpositions ("cdua" -> "cuda") each cost 1.
  const auto same = [&](size_t i, size_t j) {
    return std::tolower(static_cast<unsigned char>(a[i])) ==
           std::tolower(static_cast<unsigned char>(b[j]));
  };
  std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same(i - 1, j - 1) ? 0 : 1)});
      if (i > 1 && j > 1 && same(i - 1, j - 2) && same(i - 2, j - 1))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string closest(std::string_view word, const std::vector<std::string>& names) {
  std::string best;
  int best_distance = 3;  // suggest only within distance 2
  for (const auto& name : names) {
    const int d = edit_distance(word, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

std::string join(const std::vector<std::string>& names, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += sep;
    out += names[i];
  }
  return out;
}

}  // namespace seisfd::config_detail
