// Process-wide setup of the io layer, called once by main() before anything else.
#pragma once

namespace seisfd::io {

// Keeps HDF5 from closing files in its own exit handler: every file is closed by its owner
// before main returns, and a file whose write failed is discarded by its writer; HDF5's
// handler would try to flush such a file again after main and crash in it.
void init_library();

}  // namespace seisfd::io
