// Reading HDF5 files back in the tests, through the HDF5 C API rather than seisfd::io (so that
// a file is checked by what wrote it only where a test says so): files, shapes, datasets,
// attributes. Shared by the io tests and the command-line tests.
#pragma once
#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/h5.hpp"

namespace seisfd::test {

namespace h5 = seisfd::io::h5;

inline h5::File open_h5(const std::filesystem::path& p, unsigned flags = H5F_ACC_RDONLY) {
  h5::silence_errors();
  return h5::File{H5_CHECK(H5Fopen(p.c_str(), flags, H5P_DEFAULT))};
}

// The shape of an open dataset.
inline std::vector<hsize_t> shape_of(hid_t dset) {
  const h5::Dataspace space{H5_CHECK(H5Dget_space(dset))};
  std::vector<hsize_t> dims(static_cast<size_t>(H5_CHECK(H5Sget_simple_extent_ndims(space.get()))));
  H5_CHECK(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr));
  return dims;
}

inline std::vector<hsize_t> dataset_shape(hid_t loc, const char* name) {
  const h5::Dataset d{H5_CHECK(H5Dopen2(loc, name, H5P_DEFAULT))};
  return shape_of(d.get());
}

// True when the dataset's on-disk type is an IEEE float of `bytes` bytes.
inline bool dataset_is_float(hid_t loc, const char* name, size_t bytes) {
  const h5::Dataset d{H5_CHECK(H5Dopen2(loc, name, H5P_DEFAULT))};
  const h5::Datatype t{H5_CHECK(H5Dget_type(d.get()))};
  return H5Tget_class(t.get()) == H5T_FLOAT && H5Tget_size(t.get()) == bytes;
}

// The whole dataset as `mem_type`; its shape into `shape` where given.
template <class T>
std::vector<T> read_dataset(hid_t loc, const char* name, hid_t mem_type,
                            std::vector<hsize_t>* shape = nullptr) {
  const h5::Dataset d{H5_CHECK(H5Dopen2(loc, name, H5P_DEFAULT))};
  const std::vector<hsize_t> dims = shape_of(d.get());
  size_t n = 1;
  for (hsize_t s : dims) n *= s;
  std::vector<T> v(n);
  H5_CHECK(H5Dread(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()));
  if (shape) *shape = dims;
  return v;
}

// A float32 dataset (a test failure where it is stored as another type).
inline std::vector<float> read_floats(hid_t loc, const char* name, std::vector<hsize_t>* shape) {
  EXPECT_TRUE(dataset_is_float(loc, name, 4)) << name << " is not float32";
  return read_dataset<float>(loc, name, H5T_NATIVE_FLOAT, shape);
}

template <class T>
std::vector<T> read_attr(hid_t obj, const char* name, hid_t mem_type) {
  const h5::Attribute a{H5_CHECK(H5Aopen(obj, name, H5P_DEFAULT))};
  const h5::Dataspace space{H5_CHECK(H5Aget_space(a.get()))};
  std::vector<T> v(static_cast<size_t>(H5_CHECK(H5Sget_simple_extent_npoints(space.get()))));
  H5_CHECK(H5Aread(a.get(), mem_type, v.data()));
  return v;
}

inline int read_int_attr(hid_t obj, const char* name) {
  const auto v = read_attr<int>(obj, name, H5T_NATIVE_INT);
  EXPECT_EQ(v.size(), 1u) << name;
  return v.at(0);
}

inline std::string read_string_attr(hid_t obj, const char* name) {
  const h5::Attribute a{H5_CHECK(H5Aopen(obj, name, H5P_DEFAULT))};
  const h5::Datatype type{H5_CHECK(H5Aget_type(a.get()))};
  EXPECT_EQ(H5Tget_class(type.get()), H5T_STRING) << name;
  std::string buf(H5Tget_size(type.get()), '\0');
  H5_CHECK(H5Aread(a.get(), type.get(), buf.data()));
  return buf.c_str();
}

// How often `sub` occurs in `s` (overlapping occurrences counted).
inline size_t count_substr(const std::string& s, const std::string& sub) {
  size_t n = 0;
  for (size_t pos = s.find(sub); pos != std::string::npos; pos = s.find(sub, pos + 1)) ++n;
  return n;
}

}  // namespace seisfd::test
