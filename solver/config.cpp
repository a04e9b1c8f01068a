// ConfigError and the enum names (the resolved config is written back in config_write.cpp).
#include "solver/config.hpp"

#include <cstdio>

namespace seisfd {
namespace {

// Control characters (a newline in a value, or in the TOML parser's quote of the input) written
// as escapes, so that an error is always one line.
std::string one_line(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}

// SOURCE:LINE: KEY: MESSAGE, leaving out the parts that are empty or 0; one line.
std::string format_error(const std::string& key, const std::string& message,
                         const std::string& source, int line) {
  std::string out;
  if (!source.empty()) out += source + ":";
  if (line > 0) out += std::to_string(line) + ":";
  if (!out.empty()) out += " ";
  if (!key.empty()) out += key + ": ";
  return one_line(out + message);
}

}  // namespace

ConfigError::ConfigError(std::string key, const std::string& message, std::string source, int line)
    : std::runtime_error(format_error(key, message, source, line)),
      key_(std::move(key)),
      source_(std::move(source)),
      message_(message),
      line_(line) {}

ConfigError ConfigError::input_file(std::string key, const std::string& message, std::string source,
                                    int line) {
  ConfigError e(std::move(key), message, std::move(source), line);
  e.input_file_ = true;
  return e;
}

ConfigError locate(const ConfigError& e, const RunConfig& c) {
  if (e.line() > 0 || e.key().empty() || e.source() != c.source_path || c.source_path.empty())
    return e;
  for (std::string key = e.key(); !key.empty();) {
    const auto it = c.key_lines.find(key);
    if (it != c.key_lines.end() && it->second != 0) {
      ConfigError out = it->second < 0 ? ConfigError(e.key(), e.message(), "--set", 0)
                                       : ConfigError(e.key(), e.message(), e.source(), it->second);
      return e.input_file()
                 ? ConfigError::input_file(out.key(), out.message(), out.source(), out.line())
                 : out;
    }
    const auto dot = key.rfind('.');
    key = dot == std::string::npos ? std::string() : key.substr(0, dot);
  }
  return e;
}

const char* to_string(ModelType t) {
  switch (t) {
    case ModelType::kConstant:
      return "constant";
    case ModelType::kLayered:
      return "layered";
    case ModelType::kSalt:
      return "salt";
    case ModelType::kFile:
      return "file";
  }
  return "?";
}
const char* to_string(WaveletType t) {
  return t == WaveletType::kRicker ? "ricker" : "file";
}
const char* to_string(PointInterp t) {
  return t == PointInterp::kSinc ? "sinc" : "trilinear";
}
const char* to_string(ReceiverLayout t) {
  switch (t) {
    case ReceiverLayout::kLine:
      return "line";
    case ReceiverLayout::kGrid:
      return "grid";
    case ReceiverLayout::kFile:
      return "file";
  }
  return "?";
}
const char* to_string(ShotLayout t) {
  switch (t) {
    case ShotLayout::kList:
      return "list";
    case ShotLayout::kGrid:
      return "grid";
    case ShotLayout::kFile:
      return "file";
  }
  return "?";
}
const char* to_string(ReceiverMode t) {
  return t == ReceiverMode::kFixed ? "fixed" : "moving";
}
const char* to_string(DirectArrival t) {
  switch (t) {
    case DirectArrival::kKeep:
      return "keep";
    case DirectArrival::kModel:
      return "model";
    case DirectArrival::kMute:
      return "mute";
  }
  return "?";
}
const char* to_string(ImagingCondition t) {
  switch (t) {
    case ImagingCondition::kCrossCorrelation:
      return "crosscorrelation";
    case ImagingCondition::kNormalized:
      return "normalized";
    case ImagingCondition::kInverseScattering:
      return "inverse_scattering";
  }
  return "?";
}
const char* to_string(StorageKind t) {
  switch (t) {
    case StorageKind::kAuto:
      return "auto";
    case StorageKind::kStore:
      return "store";
    case StorageKind::kBoundary:
      return "boundary";
    case StorageKind::kCheckpoint:
      return "checkpoint";
    case StorageKind::kHost:
      return "host";
  }
  return "?";
}
const char* to_string(StorePrecision t) {
  return t == StorePrecision::kFp32 ? "fp32" : "fp16";
}
const char* to_string(PerturbationType t) {
  return t == PerturbationType::kReflectors ? "reflectors" : "file";
}
const char* to_string(BackgroundType t) {
  return t == BackgroundType::kModel ? "model" : "smooth";
}
const char* to_string(BoundaryType t) {
  switch (t) {
    case BoundaryType::kNone:
      return "none";
    case BoundaryType::kSponge:
      return "sponge";
    case BoundaryType::kCpml:
      return "cpml";
  }
  return "?";
}
const char* to_string(Backend t) {
  switch (t) {
    case Backend::kAuto:
      return "auto";
    case Backend::kCpu:
      return "cpu";
    case Backend::kCuda:
      return "cuda";
  }
  return "?";
}
const char* to_string(Precision t) {
  return t == Precision::kFp32 ? "fp32" : "fp64";
}

const char* to_string(Exchange t) {
  return t == Exchange::kAuto   ? "auto"
         : t == Exchange::kMpi  ? "mpi"
         : t == Exchange::kPeer ? "peer"
         : t == Exchange::kNccl ? "nccl"
                                : "host";
}
const char* to_string(OutputFormat t) {
  return t == OutputFormat::kHdf5 ? "hdf5" : "segy";
}

}  // namespace seisfd
