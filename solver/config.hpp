// RunConfig: the validated content of a config file. Parsing and validation live in
// config_toml.cpp and config_{reader,sections,output}.cpp; every field here has been
// range-checked when a RunConfig leaves parse_config(). Coordinates are (x, y, z) in metres,
// z positive down.
#pragma once
#include <array>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/compression.hpp"
#include "kernels/model_precision.hpp"
#include "kernels/physics.hpp"
#include "kernels/step_spec.hpp"

namespace seisfd {

using Vec3 = std::array<double, 3>;  // (x, y, z), metres

// A user error in the config: names the key, and the file and line where known. An error in a
// file the config names (a model, wavelet, positions or gathers file: missing, unreadable or
// malformed) is marked input_file(), which seisfd reports with its own exit code.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string key, const std::string& message, std::string source = {}, int line = 0);
  static ConfigError input_file(std::string key, const std::string& message,
                                std::string source = {}, int line = 0);
  const std::string& key() const { return key_; }
  const std::string& source() const { return source_; }
  const std::string& message() const { return message_; }
  int line() const { return line_; }
  bool input_file() const { return input_file_; }

 private:
  std::string key_;
  std::string source_;
  std::string message_;
  int line_;
  bool input_file_ = false;
};

struct GridConfig {
  int nx = 0, ny = 0, nz = 0;     // physical cells per axis
  double dx = 0, dy = 0, dz = 0;  // spacing, m
  Vec3 origin{0.0, 0.0, 0.0};     // position of physical cell (0,0,0), m
  // grid.from_model: the above were taken from the headers of model.path, a SEG-Y cube
  // (a spacing given in [grid] is kept, for an axis of one sample in the cube).
  bool from_model = false;
};

enum class ModelType { kConstant, kLayered, kSalt, kFile };

// One anisotropy parameter of the model (physics.equation = "vti" or "tti"): a constant, one
// value per layer (model.type = "layered"), or an HDF5 dataset of the grid's shape [nz][ny][nx].
// Angles in degrees: theta is the tilt of the symmetry axis from vertical (z down), phi its
// azimuth from +x towards +y.
struct AnisoParam {
  enum class Kind { kDefault, kConstant, kLayers, kFile };
  Kind kind = Kind::kDefault;  // default: 0, or the salt demo's own field for model.type = salt
  double value = 0;
  std::vector<double> layers;
  std::string path, dataset;
};

struct ModelConfig {
  ModelType type = ModelType::kConstant;
  double vp = 0;  // constant: velocity, m/s
  std::vector<double>
      interfaces;  // layered: depth of the top of each layer, m (first = 0 or above top)
  std::vector<double> velocities;         // layered: one velocity per layer, m/s
  std::string path;                       // file: HDF5 file (resolved relative to the config file)
  std::string dataset = "vp";             // file: dataset name
  AnisoParam epsilon, delta, theta, phi;  // vti/tti only
};

struct PhysicsConfig {
  Physics equation = Physics::kAcoustic;  // physics.equation
  int order = 8;                          // even, 2..16
  // physics.tti_operator (TTI only): how H_z is discretized (kernels/step_spec.hpp).
  TtiOperator tti_operator = TtiOperator::kNarrow;
};

struct TimeConfig {
  double duration = 0;       // s, > 0
  std::optional<double> dt;  // s; absent: courant x stability bound
  double courant = 0.9;      // (0, 1]
};

enum class WaveletType { kRicker, kFile };
enum class PointInterp {
  kSinc,
  kTrilinear
};  // Kaiser-windowed sinc (Hicks 2002, radius 4) or trilinear

struct SourceConfig {
  Vec3 position{0.0, 0.0, 0.0};
  WaveletType wavelet = WaveletType::kRicker;
  double frequency = 0;         // ricker: peak frequency, Hz
  std::optional<double> delay;  // ricker: time of the peak, s (default 1.5 / frequency)
  double amplitude = 1.0;
  std::string file;    // file: one sample per line ('#' comments)
  double file_dt = 0;  // file: its sample interval, s
  PointInterp injection = PointInterp::kSinc;
};

enum class ReceiverLayout { kLine, kGrid, kFile };

struct ReceiverConfig {
  ReceiverLayout layout = ReceiverLayout::kLine;
  Vec3 start{0.0, 0.0, 0.0};       // line: first receiver; grid: corner
  Vec3 end{0.0, 0.0, 0.0};         // line: last receiver; grid: opposite corner (same z)
  std::array<int, 2> count{1, 1};  // line: count[0] receivers; grid: count[0] along x, count[1]
                                   // along y {0, 0} (layout line): the config has no [receivers]
  std::string file;                // file: one "x y z" per line ('#' comments)
  PointInterp interpolation = PointInterp::kSinc;
};

// [shots]: the shot positions of a survey (docs/migration.md §1). Absent: one shot at
// source.position.
enum class ShotLayout { kList, kGrid, kFile };
enum class ReceiverMode {
  kFixed,   // [receivers] as given, the same for every shot
  kMoving,  // [receivers] positions are offsets (x, y, z) from each shot's source
};
struct ShotsConfig {
  bool present = false;
  ShotLayout layout = ShotLayout::kList;
  std::vector<Vec3> positions;      // list
  Vec3 start{0.0, 0.0, 0.0};        // grid: the first shot
  std::array<double, 2> spacing{};  // grid: between shots along x and along y, m
  std::array<int, 2> count{1, 1};   // grid: shots along x and along y
  std::string file;                 // file: one "x y z" per line ('#' comments)
  ReceiverMode receivers = ReceiverMode::kFixed;
};

// [migration] (seisfd migrate; docs/migration.md §3).
enum class DirectArrival {
  kKeep,   // migrate the data as they are
  kModel,  // subtract the data modelled in the migration model
  kMute,   // zero the samples before offset / mute_velocity + mute_time, cosine taper after
};
enum class ImagingCondition { kCrossCorrelation, kNormalized, kInverseScattering };
enum class StorageKind { kAuto, kStore, kBoundary, kCheckpoint, kHost };
enum class StorePrecision { kFp32, kFp16 };
struct MigrationConfig {
  bool present = false;
  std::string data;      // observed gathers.h5 (resolved path); required by migrate
  double smoothing = 0;  // m: Gaussian smoothing (standard deviation) of the migration model
  DirectArrival direct_arrival = DirectArrival::kKeep;
  double mute_velocity = 0;  // m/s; 0: the model's minimum velocity
  double mute_time = 0;      // s after offset / velocity where the data start (wavelet length)
  double mute_taper = 0.02;  // s of cosine taper
  std::vector<ImagingCondition> conditions{ImagingCondition::kCrossCorrelation,
                                           ImagingCondition::kNormalized,
                                           ImagingCondition::kInverseScattering};
  bool laplacian = false;  // a Laplacian post-filter on every image
  StorageKind storage = StorageKind::kAuto;
  StorePrecision store_precision = StorePrecision::kFp32;
  int imaging_interval = 0;  // steps between imaging steps; 0: from the wavelet's f_max
  double memory_budget = 0;  // GiB for the source-wavefield storage; 0: free memory less 10%
  bool shot_images = false;  // also write each shot's image
};

// [born] (seisfd born; docs/migration.md §2): the perturbation of m = 1/v^2 and the background.
enum class PerturbationType {
  kReflectors,  // the built-in set: two flat and one dipping thin reflector
  kFile,        // an HDF5 dataset of dm (s^2/m^2), shape [nz][ny][nx]
};
enum class BackgroundType {
  kModel,
  kSmooth
};  // [model] as given, or smoothed by
    // migration.smoothing
struct BornConfig {
  bool present = false;
  PerturbationType perturbation = PerturbationType::kReflectors;
  double contrast = 0.1;  // reflectors: dm / m of each reflector
  std::string path, dataset = "dm";
  BackgroundType background = BackgroundType::kModel;
};

enum class BoundaryType { kNone, kSponge, kCpml };

struct BoundaryConfig {
  static constexpr double kSpongeReflection = 1e-3;
  static constexpr double kCpmlReflection = 1e-5;
  static constexpr double kCpmlPower = 3;

  BoundaryType type = BoundaryType::kSponge;
  int width = 20;                         // absorbing cells per face (0 for none)
  double reflection = kSpongeReflection;  // target reflection coefficient, normal incidence
  // cpml: complex-frequency shift alpha_max = pi * cfs_frequency at the inner edge of the
  // layer (0: the source's peak frequency), and the exponent of the damping profile.
  double cfs_frequency = 0;
  double power = kCpmlPower;
  bool free_surface = false;  // pressure-release top at z = origin z
};

struct SnapshotConfig {
  bool enabled = false;
  double interval = 0;                     // s; rounded to a whole number of steps
  std::array<int, 3> decimation{1, 1, 1};  // (x, y, z) keep every n-th cell
  std::optional<std::array<Vec3, 2>> box;  // sub-volume (min, max corners), default whole domain
};

// output.formats: the files gathers and images are written as (docs/outputs.md §8).
enum class OutputFormat { kHdf5, kSegy };

struct OutputConfig {
  std::string directory = "seisfd_out";  // resolved relative to the current directory
  bool gathers = true;
  std::vector<OutputFormat> formats{OutputFormat::kHdf5};  // distinct, non-empty
  bool has(OutputFormat f) const {
    for (OutputFormat g : formats)
      if (g == f) return true;
    return false;
  }
  std::optional<double>
      sample_interval;  // s; gather sampling (default dt); dt is rounded so it divides evenly
  SnapshotConfig snapshots;
  bool model = false;  // write model.h5 + model.xmf: the model the run used
};

enum class Backend { kAuto, kCpu, kCuda };
enum class Precision { kFp32, kFp64 };

struct KernelConfig {
  Backend backend = Backend::kAuto;
  std::string variant = "auto";            // registry name, e.g. "acoustic/o8/naive", or "auto"
  Precision precision = Precision::kFp32;  // cpu backend only; cuda is fp32
  int diagnostics_interval = 10;           // steps between NaN/energy checks
  Compressible compressible = Compressible::kAuto;  // cuda: arrays in compressible memory
  // How the update's coefficients are stored (VTI, TTI; kernels/model_precision.hpp): every
  // backend runs the rounded model, the GPU's fast variants read the 16-bit codes.
  ModelPrecision model_precision = ModelPrecision::kFp32;
};

// [run]: how a run survives being stopped. checkpoint_interval = N (steps) or "T s" / "T min"
// (wall-clock): a checkpoint of the running shot into output.directory/checkpoint.h5 at that
// interval; seisfd run --resume continues from it. Not part of the config digest.
struct RunSection {
  int checkpoint_steps = 0;       // 0: none by steps
  double checkpoint_seconds = 0;  // 0: none by wall-clock time
};

// [parallel]: how the ranks of an MPI launch share the work (docs/parallel.md). Ignored by a
// run of one rank. Not part of the config digest: the results do not depend on it.
enum class Exchange { kAuto, kMpi, kHost, kPeer, kNccl };
struct ParallelConfig {
  // Ranks per axis (z, y, x) of one shot group's decomposition; {0, 0, 0}: "auto", the split
  // that moves the fewest halo bytes.
  std::array<int, 3> decomposition{0, 0, 0};
  int shot_groups = 1;  // groups of size / shot_groups ranks, each running whole shots
  Exchange exchange = Exchange::kAuto;
  // The exchange during each step, beside the interior's update, where the exchange and the
  // kernel variant can (peer); off: after each step (to measure what overlap hides).
  bool overlap = true;
  bool auto_decomposition() const { return decomposition[0] == 0; }
};

struct RunConfig {
  std::string source_path;  // the config file ("" when built in code)
  // Where each key and table was given: its line in source_path, or -1 for a --set override.
  // Errors found after parsing (by the plan) are located through it (locate()).
  std::map<std::string, int> key_lines;
  GridConfig grid;
  ModelConfig model;
  PhysicsConfig physics;
  TimeConfig time;
  SourceConfig source;  // position unused with [shots]
  ShotsConfig shots;
  ReceiverConfig receivers;
  BoundaryConfig boundary;
  OutputConfig output;
  KernelConfig kernel;
  RunSection run;
  ParallelConfig parallel;
  MigrationConfig migration;
  BornConfig born;
};

// Parses TOML text (source names it in errors) and applies "section.key=value" overrides
// (values in TOML syntax; a bare word is taken as a string). Throws ConfigError.
RunConfig parse_config(const std::string& text, const std::string& source,
                       const std::vector<std::string>& overrides = {});
RunConfig load_config(const std::string& path, const std::vector<std::string>& overrides = {});

// e located at its key's line (or the nearest enclosing table's) when it names the config file
// without a line; --set keys are reported as "--set". Other errors are returned unchanged.
ConfigError locate(const ConfigError& e, const RunConfig& c);

// The resolved config as TOML text (every key, defaults filled in) and as JSON text.
std::string config_to_toml(const RunConfig& c);
std::string config_to_json(const RunConfig& c);

// Names used in configs and messages.
const char* to_string(ModelType);
const char* to_string(WaveletType);
const char* to_string(PointInterp);
const char* to_string(ReceiverLayout);
const char* to_string(ShotLayout);
const char* to_string(ReceiverMode);
const char* to_string(DirectArrival);
const char* to_string(ImagingCondition);
const char* to_string(StorageKind);
const char* to_string(StorePrecision);
const char* to_string(PerturbationType);
const char* to_string(BackgroundType);
const char* to_string(BoundaryType);
const char* to_string(Backend);
const char* to_string(Precision);
const char* to_string(Exchange);
const char* to_string(OutputFormat);

}  // namespace seisfd
