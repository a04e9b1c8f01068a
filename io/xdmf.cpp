// XDMF 2 (the format ParaView's default "XDMF Reader" handles most reliably) for snapshots.h5:
// a temporal collection of uniform grids, one per snapshot, each reading its slice of /p
// through a HyperSlab, so the heavy data exists once, in the HDF5 file. For image.h5 and
// model.h5: one uniform grid whose attributes are the images and the illumination, or the
// model's fields.
#include <iomanip>
#include <locale>
#include <sstream>
#include <utility>
#include <vector>

#include "io/error.hpp"
#include "io/files.hpp"
#include "io/image.hpp"
#include "io/model_file.hpp"
#include "io/snapshots.hpp"

namespace seisfd::io {

namespace {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

void write_snapshots_xdmf(const std::string& xmf_path, const std::string& h5_name,
                          const SnapshotGeometry& g, const double* times, int nsnap) {
  if (nsnap < 0 || (nsnap > 0 && times == nullptr)) {
    throw IoError("xdmf '" + xmf_path + "': invalid snapshot count " + std::to_string(nsnap));
  }
  std::ostringstream x;
  x.imbue(std::locale::classic());  // '.' as the decimal point whatever the user's locale
  x << std::setprecision(17);       // round-trips every double
  const std::string dims =
      std::to_string(g.nz) + " " + std::to_string(g.ny) + " " + std::to_string(g.nx);
  const std::string h5_ref = xml_escape(h5_name) + ":/p";

  x << "<?xml version=\"1.0\" ?>\n"
    << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    << "<Xdmf Version=\"2.0\">\n"
    << "  <Domain>\n"
    << "    <Grid Name=\"snapshots\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (int i = 0; i < nsnap; ++i) {
    // 3DCoRectMesh and ORIGIN_DXDYDZ list axes slowest first: z y x, like the HDF5 arrays.
    x << "      <Grid Name=\"p_" << i << "\" GridType=\"Uniform\">\n"
      << "        <Time Value=\"" << times[i] << "\" />\n"
      << "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims << "\" />\n"
      << "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
      << "          <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" "
         "Precision=\"8\" Format=\"XML\">"
      << g.origin[0] << " " << g.origin[1] << " " << g.origin[2] << "</DataItem>\n"
      << "          <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" "
         "Precision=\"8\" Format=\"XML\">"
      << g.spacing[0] << " " << g.spacing[1] << " " << g.spacing[2] << "</DataItem>\n"
      << "        </Geometry>\n"
      << "        <Attribute Name=\"p\" AttributeType=\"Scalar\" Center=\"Node\">\n"
      << "          <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << dims
      << "\" Type=\"HyperSlab\">\n"
      << "            <DataItem Dimensions=\"3 4\" Format=\"XML\">" << i << " 0 0 0 1 1 1 1 1 "
      << dims << "</DataItem>\n"
      << "            <DataItem Dimensions=\"" << nsnap << " " << dims
      << "\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">" << h5_ref << "</DataItem>\n"
      << "          </DataItem>\n"
      << "        </Attribute>\n"
      << "      </Grid>\n";
  }
  x << "    </Grid>\n"
    << "  </Domain>\n"
    << "</Xdmf>\n";
  write_text_atomic(xmf_path, x.str());
}

namespace {

// One uniform 3DCoRectMesh grid whose attributes are whole datasets of h5_name: (name, dataset).
void write_uniform_xdmf(const std::string& xmf_path, const std::string& grid_name,
                        const std::string& h5_name, const std::array<int, 3>& zyx,
                        const std::array<double, 3>& spacing, const std::array<double, 3>& origin,
                        const std::vector<std::pair<std::string, std::string>>& attributes) {
  std::ostringstream x;
  x.imbue(std::locale::classic());  // '.' as the decimal point whatever the user's locale
  x << std::setprecision(17);       // round-trips every double
  const std::string dims =
      std::to_string(zyx[0]) + " " + std::to_string(zyx[1]) + " " + std::to_string(zyx[2]);
  x << "<?xml version=\"1.0\" ?>\n"
    << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    << "<Xdmf Version=\"2.0\">\n"
    << "  <Domain>\n"
    << "    <Grid Name=\"" << xml_escape(grid_name)
    << "\" GridType=\"Uniform\">\n"
    // 3DCoRectMesh and ORIGIN_DXDYDZ list axes slowest first: z y x, like the HDF5 arrays.
    << "      <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims << "\" />\n"
    << "      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
    << "        <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" "
       "Precision=\"8\" Format=\"XML\">"
    << origin[0] << " " << origin[1] << " " << origin[2] << "</DataItem>\n"
    << "        <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" "
       "Precision=\"8\" Format=\"XML\">"
    << spacing[0] << " " << spacing[1] << " " << spacing[2] << "</DataItem>\n"
    << "      </Geometry>\n";
  for (const auto& [name, dataset] : attributes) {
    x << "      <Attribute Name=\"" << xml_escape(name)
      << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
      << "        <DataItem Dimensions=\"" << dims
      << "\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">" << xml_escape(h5_name) << ":"
      << xml_escape(dataset) << "</DataItem>\n"
      << "      </Attribute>\n";
  }
  x << "    </Grid>\n"
    << "  </Domain>\n"
    << "</Xdmf>\n";
  write_text_atomic(xmf_path, x.str());
}

}  // namespace

void write_image_xdmf(const std::string& xmf_path, const std::string& h5_name,
                      const ImageGeometry& g, const std::vector<std::string>& images,
                      bool illumination) {
  std::vector<std::pair<std::string, std::string>> attributes;
  for (const std::string& name : images) attributes.emplace_back(name, "/image/" + name);
  if (illumination) attributes.emplace_back("illumination", "/illumination");
  write_uniform_xdmf(xmf_path, "image", h5_name, {g.nz, g.ny, g.nx}, g.spacing, g.origin,
                     attributes);
}

void write_model_xdmf(const std::string& xmf_path, const std::string& h5_name,
                      const ModelGeometry& g, const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, std::string>> attributes;
  for (const std::string& name : names) attributes.emplace_back(name, "/" + name);
  write_uniform_xdmf(xmf_path, "model", h5_name, {g.nz, g.ny, g.nx}, g.spacing, g.origin,
                     attributes);
}

}  // namespace seisfd::io
