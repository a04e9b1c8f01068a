#include "io/h5.hpp"
#include "io/library.hpp"

#include <cstdio>

#include <vector>

namespace seisfd::io::h5 {

void silence_errors() {
  thread_local const bool silenced = H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0;
  (void)silenced;
}

namespace {

struct StackWalk {
  std::string first;  // the API call that failed
  std::string last;   // where the error was first detected
};

// The system's words from a low-level description ("... errno = 27, error message = 'File too
// large', ..."), else the description cut at its first comma (the rest is addresses and sizes).
std::string short_text(const std::string& desc) {
  const std::string tag = "error message = '";
  const auto at = desc.find(tag);
  if (at != std::string::npos) {
    const auto end = desc.find('\'', at + tag.size());
    return desc.substr(at + tag.size(),
                       end == std::string::npos ? std::string::npos : end - at - tag.size());
  }
  std::string s = desc.substr(0, desc.find(','));
  if (s.size() > 120) s = s.substr(0, 117) + "...";
  return s;
}

herr_t collect(unsigned n, const H5E_error2_t* err, void* client) {
  auto* walk = static_cast<StackWalk*>(client);
  const std::string text = short_text(err->desc != nullptr ? err->desc : "");
  if (n == 0) walk->first = text;
  walk->last = text;
  return 0;
}

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace

std::string error_stack_message() {
  StackWalk walk;
  // Walking does not clear the stack, and must happen before any other HDF5 API call (each
  // call clears it on entry), which is why throw_error does it first.
  if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect, &walk) < 0) return {};
  if (walk.first.empty() || walk.first == walk.last) return one_line(walk.last);
  return one_line(walk.first + ": " + walk.last);
}

void throw_error(const char* expr, const char* file, int line) {
  const std::string stack = error_stack_message();
  const std::string call(expr, std::string(expr).find('('));
  const std::string base = std::string(file).substr(std::string(file).find_last_of('/') + 1);
  std::string msg = "HDF5 " + call + " failed (" + base + ":" + std::to_string(line) + ")";
  if (!stack.empty()) msg += ": " + stack;
  throw IoError(msg);
}

std::string discard_after_failed_write(File& file, const std::string& path) {
  file.reset();
  std::remove(path.c_str());
  return " ('" + path + "' was removed: a file whose write failed is not kept)";
}

Dataspace make_space(std::initializer_list<hsize_t> dims) {
  if (dims.size() == 0) return Dataspace{H5_CHECK(H5Screate(H5S_SCALAR))};
  const std::vector<hsize_t> d(dims);
  return Dataspace{H5_CHECK(H5Screate_simple(static_cast<int>(d.size()), d.data(), nullptr))};
}

void write_attribute(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, const void* data,
                     std::initializer_list<hsize_t> dims) {
  Attribute attr;
  if (H5_CHECK(H5Aexists(obj, name)) > 0) {
    attr = Attribute{H5_CHECK(H5Aopen(obj, name, H5P_DEFAULT))};
  } else {
    const Dataspace space = make_space(dims);
    attr = Attribute{
        H5_CHECK(H5Acreate2(obj, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT))};
  }
  H5_CHECK(H5Awrite(attr.get(), mem_type, data));
  H5_CHECK(attr.close());
}

void write_attribute(hid_t obj, const char* name, int value) {
  write_attribute(obj, name, H5T_STD_I32LE, H5T_NATIVE_INT, &value, {});
}

void write_attribute(hid_t obj, const char* name, double value) {
  write_attribute(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, {});
}

void write_attribute(hid_t obj, const char* name, const std::string& value) {
  // The stored size includes the terminating NUL, as most writers do.
  Datatype type{H5_CHECK(H5Tcopy(H5T_C_S1))};
  H5_CHECK(H5Tset_size(type.get(), value.size() + 1));
  H5_CHECK(H5Tset_strpad(type.get(), H5T_STR_NULLTERM));
  write_attribute(obj, name, type.get(), type.get(), value.c_str(), {});
}

std::string shot_group_name(int shot) {
  char name[32];
  std::snprintf(name, sizeof name, "shot_%04d", shot);
  return name;
}

std::string shape_string(const std::vector<hsize_t>& dims) {
  std::string s;
  for (hsize_t d : dims) s += "[" + std::to_string(d) + "]";
  return s.empty() ? "scalar" : s;
}

bool has_object(hid_t loc, const std::string& name, H5I_type_t kind) {
  if (H5Lexists(loc, name.c_str(), H5P_DEFAULT) <= 0) return false;
  const hid_t obj = H5Oopen(loc, name.c_str(), H5P_DEFAULT);
  if (obj < 0) return false;  // a dangling link
  const bool match = H5Iget_type(obj) == kind;
  H5Oclose(obj);
  return match;
}

std::vector<hsize_t> dataset_shape(hid_t dset) {
  const Dataspace space{H5_CHECK(H5Dget_space(dset))};
  std::vector<hsize_t> dims(H5_CHECK(H5Sget_simple_extent_ndims(space.get())));
  if (!dims.empty()) H5_CHECK(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr));
  return dims;
}

Attribute open_attribute(hid_t obj, const char* name) {
  if (H5_CHECK(H5Aexists(obj, name)) <= 0) throw IoError(std::string("no attribute ") + name);
  return Attribute{H5_CHECK(H5Aopen(obj, name, H5P_DEFAULT))};
}

std::vector<double> read_numbers(hid_t obj, const char* name) {
  const Attribute a = open_attribute(obj, name);
  const Datatype type{H5_CHECK(H5Aget_type(a.get()))};
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_FLOAT && cls != H5T_INTEGER) {
    throw IoError(std::string("attribute ") + name + " is not a number");
  }
  const Dataspace space{H5_CHECK(H5Aget_space(a.get()))};
  std::vector<double> v(static_cast<size_t>(H5_CHECK(H5Sget_simple_extent_npoints(space.get()))));
  H5_CHECK(H5Aread(a.get(), H5T_NATIVE_DOUBLE, v.data()));
  return v;
}

double read_scalar(hid_t obj, const char* name) {
  const std::vector<double> v = read_numbers(obj, name);
  if (v.size() != 1) {
    throw IoError(std::string("attribute ") + name + " has " + std::to_string(v.size()) +
                  " values, expected 1");
  }
  return v[0];
}

std::string read_string(hid_t obj, const char* name) {
  const Attribute a = open_attribute(obj, name);
  const Datatype type{H5_CHECK(H5Aget_type(a.get()))};
  if (H5Tget_class(type.get()) != H5T_STRING) {
    throw IoError(std::string("attribute ") + name + " is not a string");
  }
  const Datatype mem{H5_CHECK(H5Tcopy(H5T_C_S1))};
  if (H5_CHECK(H5Tis_variable_str(type.get())) > 0) {
    H5_CHECK(H5Tset_size(mem.get(), H5T_VARIABLE));
    char* p = nullptr;
    H5_CHECK(H5Aread(a.get(), mem.get(), &p));
    std::string s = p != nullptr ? p : "";
    H5free_memory(p);
    return s;
  }
  const size_t n = H5Tget_size(type.get());
  std::string buf(n + 1, '\0');
  H5_CHECK(H5Tset_size(mem.get(), n + 1));
  H5_CHECK(H5Aread(a.get(), mem.get(), buf.data()));
  return buf.c_str();
}

std::vector<std::string> children(hid_t loc, H5I_type_t kind) {
  H5G_info_t info;
  H5_CHECK(H5Gget_info(loc, &info));
  std::vector<std::string> out;
  for (hsize_t k = 0; k < info.nlinks; ++k) {
    const ssize_t n = H5_CHECK(
        H5Lget_name_by_idx(loc, ".", H5_INDEX_NAME, H5_ITER_INC, k, nullptr, 0, H5P_DEFAULT));
    std::string name(static_cast<size_t>(n) + 1, '\0');
    H5_CHECK(H5Lget_name_by_idx(loc, ".", H5_INDEX_NAME, H5_ITER_INC, k, name.data(), name.size(),
                                H5P_DEFAULT));
    name.resize(static_cast<size_t>(n));
    if (has_object(loc, name, kind)) out.push_back(name);
  }
  return out;
}

}  // namespace seisfd::io::h5

namespace seisfd::io {

void init_library() {
  H5dont_atexit();
  h5::silence_errors();
}

}  // namespace seisfd::io
