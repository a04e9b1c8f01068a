// h5_compare A.h5 B.h5 TOLERANCE [TRACE_TOLERANCE]: every dataset of A is in B with the same
// shape, and the two hold the same values: bit for bit, or within TOLERANCE of the largest
// magnitude in A's dataset (TRACE_TOLERANCE for datasets whose path ends in "/p" under a
// shot group, which may sum a receiver's weights on two ranks in another order). Prints one
// line per dataset; exit 0 when all agree, 1 otherwise, 2 on a file error. What the rank tests
// (decomposed_equal.py) compare with, so they need no Python HDF5 module.
#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Dataset {
  std::vector<hsize_t> shape;
  std::vector<double> values;
  bool numeric = true;
};

herr_t collect(hid_t, const char* name, const H5O_info_t* info, void* out) {
  if (info->type == H5O_TYPE_DATASET) static_cast<std::vector<std::string>*>(out)->push_back(name);
  return 0;
}

bool read(hid_t file, const std::string& name, Dataset& d) {
  const hid_t ds = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  if (ds < 0) return false;
  const hid_t space = H5Dget_space(ds);
  const int rank = H5Sget_simple_extent_ndims(space);
  d.shape.assign(rank, 0);
  H5Sget_simple_extent_dims(space, d.shape.data(), nullptr);
  hsize_t n = 1;
  for (hsize_t s : d.shape) n *= s;
  const hid_t type = H5Dget_type(ds);
  const H5T_class_t cls = H5Tget_class(type);
  d.numeric = cls == H5T_FLOAT || cls == H5T_INTEGER;
  if (d.numeric) {
    d.values.resize(n);
    if (n > 0 && H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d.values.data()) < 0)
      d.numeric = false;
  }
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(ds);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: h5_compare A.h5 B.h5 TOLERANCE [TRACE_TOLERANCE]\n");
    return 2;
  }
  const double tol = std::stod(argv[3]);
  const double trace_tol = argc > 4 ? std::stod(argv[4]) : tol;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t a = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t b = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
  if (a < 0 || b < 0) {
    std::printf("cannot open %s\n", a < 0 ? argv[1] : argv[2]);
    return 2;
  }
  std::vector<std::string> names;
  H5Ovisit2(a, H5_INDEX_NAME, H5_ITER_NATIVE, collect, &names, H5O_INFO_BASIC);
  bool ok = !names.empty();
  for (const std::string& name : names) {
    Dataset x, y;
    read(a, name, x);
    if (!read(b, name, y)) {
      std::printf("%s: missing in %s\n", name.c_str(), argv[2]);
      ok = false;
      continue;
    }
    if (x.shape != y.shape || x.numeric != y.numeric) {
      std::printf("%s: shape or type differs\n", name.c_str());
      ok = false;
      continue;
    }
    if (!x.numeric) continue;
    double peak = 0, diff = 0;
    bool same = true;
    for (size_t i = 0; i < x.values.size(); ++i) {
      peak = std::fmax(peak, std::fabs(x.values[i]));
      const double d = std::fabs(x.values[i] - y.values[i]);
      if (!(d == 0) || std::isnan(x.values[i]) != std::isnan(y.values[i])) same = false;
      if (!(d <= diff)) diff = d;
    }
    const double rel = diff / (peak > 0 ? peak : 1);
    const bool trace = name.size() > 2 && name.compare(name.size() - 2, 2, "/p") == 0 &&
                       name.rfind("shot_", 0) == 0;
    const bool pass = same || rel <= (trace ? trace_tol : tol);
    std::printf("%s: %s (max difference %.3e of the peak, which is %.3e)\n", name.c_str(),
                same   ? "identical"
                : pass ? "within tolerance"
                       : "DIFFERS",
                rel, peak);
    ok = ok && pass;
  }
  H5Fclose(a);
  H5Fclose(b);
  return ok ? 0 : 1;
}
