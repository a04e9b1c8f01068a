// gathers.h5 (docs/outputs.md §1): one group per shot /shot_NNNN (NNNN = shot index, zero-padded
// to 4 digits; 10000 and above simply get more digits) with dataset p float32
// [nreceivers][nt], receivers float64 [nreceivers][3] (x, y, z in m), attributes source [3],
// dt, t0, units, complete (0 for the shot a stopped run was modelling: its traces up to where it
// stopped; such a shot is refused by the reader and modelled again by --resume). Root attributes:
// format = "seisfd-gathers-1", complete (0/1), config_digest (a string identifying the
// configuration the file was started with; "" when not given). Written as <path>.partial with
// complete = 0, flushed after every shot; finish() sets complete = 1 and renames to <path>. A
// writer destroyed before finish() leaves the .partial file with complete = 0. Writing the same
// shot twice is an IoError. GatherWriter::resume reopens such a .partial file (docs/migration.md
// §1, `--resume`) and GatherReader reads a gathers file, whole or .partial (docs/migration.md §3,
// the observed data).
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

namespace seisfd::io {

// One shot of a gathers file, as GatherReader::read_shot returns it.
struct ShotData {
  int shot = 0;
  std::array<double, 3> source{};                // (x, y, z), m
  std::vector<std::array<double, 3>> receivers;  // (x, y, z) of each receiver, m
  int nt = 0;                                    // samples per trace
  double dt = 0, t0 = 0;                         // s; sample k is at t0 + k dt
  std::string units;
  std::vector<float> traces;  // [receivers.size()][nt], row-major
};

class GatherWriter {
 public:
  // Creates <path>.partial (replacing any) with complete = 0 and config_digest stored.
  explicit GatherWriter(const std::string& path, const std::string& config_digest = "");
  // Reopens <path>.partial, left by a writer destroyed before finish(), to append further
  // shots; finish() then works as for a new file. IoError (naming the file) when it does not
  // exist, is not a gathers file, is already complete, or was started with a config_digest
  // other than this one. A shot group left incomplete by a failed write is removed, so that
  // the shot can be written again; shots() lists the shots kept.
  static GatherWriter resume(const std::string& path, const std::string& config_digest = "");
  ~GatherWriter();
  GatherWriter(GatherWriter&&) noexcept;
  GatherWriter& operator=(GatherWriter&&) noexcept;
  GatherWriter(const GatherWriter&) = delete;
  GatherWriter& operator=(const GatherWriter&) = delete;

  // traces: nrec x nt, row-major; receivers: nrec x 3 (x, y, z). complete = false writes the
  // traces of a shot that was stopped (nt: the samples it recorded) with the group attribute
  // complete = 0: readers refuse it and a resumed run models the shot again.
  void write_shot(int shot, const float* traces, int nrec, int nt, const double* receivers,
                  const std::array<double, 3>& source, double dt, double t0,
                  const std::string& units = "Pa", bool complete = true);
  // The shots the file holds (resumed and written), ascending.
  std::vector<int> shots() const;
  void finish();
  const std::string& final_path() const { return path_; }

 private:
  struct Impl;
  GatherWriter(std::unique_ptr<Impl> impl, std::string path);
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

// Reads a gathers file: the final file or a .partial one (pass the name it has on disk). Every
// error is an IoError of one line naming the file and, for a shot, the shot.
class GatherReader {
 public:
  explicit GatherReader(const std::string& path);
  ~GatherReader();
  GatherReader(GatherReader&&) noexcept;
  GatherReader& operator=(GatherReader&&) noexcept;
  GatherReader(const GatherReader&) = delete;
  GatherReader& operator=(const GatherReader&) = delete;

  bool complete() const;
  const std::string& config_digest() const;  // "" when the file has none
  // Indices of the /shot_NNNN groups, ascending, without a shot left by a stopped run.
  std::vector<int> shots() const;
  // Reads and checks one shot: shapes, finite positions, finite positive dt, finite t0.
  ShotData read_shot(int shot) const;
  const std::string& path() const { return path_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

}  // namespace seisfd::io
