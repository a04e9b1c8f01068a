// Domain decomposition (docs/parallel.md): the updated region of the computational grid cut
// into pz x py x px boxes, one per rank of a shot group, and what one rank's engine computes on:
// its local step description (the same spec over its box plus a halo) and its part of the
// medium. Plain C++: no MPI here.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "kernels/medium.hpp"
#include "kernels/step_spec.hpp"
#include "solver/grid.hpp"

namespace seisfd {

// Cells a rank needs from each neighbour, per face: the stencil's radius R; TTI 2R (its cross
// terms differentiate intermediates made of first derivatives of the fields, which the engine
// computes over its whole layout).
int halo_width(Physics p, int radius);

struct Decomposition {
  std::array<int, 3> dims{1, 1, 1};      // ranks per axis (z, y, x)
  std::array<std::vector<int>, 3> cuts;  // axis a, part k: global cells [cuts[a][k], cuts[a][k+1])
  int halo = 0;                          // cells exchanged across each interior face

  int ranks() const { return dims[0] * dims[1] * dims[2]; }
  // rank = (cz * py + cy) * px + cx
  std::array<int, 3> coords(int rank) const;
  int rank_at(const std::array<int, 3>& c) const;  // -1 outside
  // Rank `rank`'s subdomain of the grid `global` describes.
  Subdomain subdomain(int rank, const StepSpec& global) const;
  // Cells all ranks send per exchange of one field, an x face's counted `x_weight` times (what
  // "auto" minimises).
  long long halo_cells(const StepSpec& global, int x_weight = 1) const;
  std::string text() const;  // "2 x 1 x 1 (z x y x x)"
  // text() and the cuts: "2 x 1 x 1 (z x y x x), cuts z 4 280 556, y 4 556, x 4 556" (what a
  // checkpoint of the ranks' states names: the same counts may be cut elsewhere on the GPU).
  std::string split_text() const;
};

// Cuts the updated region of `global` into `dims` parts per axis ({0, 0, 0}: "auto", the split
// of `ranks` that sends the fewest halo cells), each part as even as the cells allow, no cut
// inside an absorbing layer (a layer belongs to the rank at its edge of the grid). `x_tiles`:
// the widths in cells of the x tiles the backend's kernels launch (the GPU's; empty for the
// CPU): the x cuts move to whole tiles of the first where that saves tiles and gives no part
// more tiles of any width than the even split's largest. `x_weight`: how many times "auto"
// counts an x face's cells (auto_x_weight). Throws ConfigError (key parallel.decomposition,
// `source` the config file) when dims does not multiply to `ranks` or leaves a part thinner than
// the halo.
Decomposition decompose(const StepSpec& global, int ranks, const std::array<int, 3>& dims, int halo,
                        const std::string& source = {}, const std::vector<int>& x_tiles = {},
                        int x_weight = 1);
// The weight of x faces in "auto"'s choice: 1, but kHostStagedXWeight for ranks on GPUs whose
// faces go through host memory (`gpu` and `host_staged`). The CUDA engine exchanges an x cut's
// faces before the whole step (its interior is not split around them: a face is a few cells of
// each 32- or 64-cell tile) but hides a z or y cut's behind the interior, and through the host the
// exposed exchange costs more than the overlapped one of a face twice as large: on 2 H200s, a
// 512^3-a-GPU acoustic run cut in x ran at 0.83 of one GPU, cut in z (twice the face) at 0.97.
inline constexpr int kHostStagedXWeight = 4;
int auto_x_weight(bool gpu, bool host_staged);
// The x tile widths of the GPU variants `auto` picks among for a physics.
std::vector<int> gpu_x_tiles(Physics p);

// One rank's part of a decomposed run: what its engine and its points are made for.
struct RankDomain {
  Subdomain sub;
  StepSpec spec;   // local_spec(global, sub)
  int halo = 0;    // cells exchanged across each face
  int device = 0;  // the CUDA device (the node-local rank modulo the devices)
  // With a compact kernel.model_precision: the range of each encoded coefficient array over the
  // whole grid (Medium::coefficient_range); empty otherwise.
  std::vector<std::array<float, 2>> coefficient_range;
};

// The step description of one rank: `global` over the subdomain's layout, the layers and the
// free surface only where the subdomain reaches them.
StepSpec local_spec(const StepSpec& global, const Subdomain& d);

// A per-cell array of the global layout restricted to a subdomain's layout.
std::vector<float> restrict_array(const std::vector<float>& global, const Layout& global_layout,
                                  const Subdomain& d, const Layout& local);
Medium restrict_medium(const Medium& global, const Layout& global_layout, const Subdomain& d,
                       const Layout& local);

}  // namespace seisfd
