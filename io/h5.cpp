#include "io/h5.hpp"

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

herr_t collect(unsigned n, const H5E_error2_t* err, void* client) {
  auto* walk = static_cast<StackWalk*>(client);
  std::string text = err->desc != nullptr ? err->desc : "";
  if (err->func_name != nullptr) text = std::string(err->func_name) + "(): " + text;
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
  return one_line(walk.first + " <- " + walk.last);
}

void throw_error(const char* expr, const char* file, int line) {
  const std::string stack = error_stack_message();
  std::string msg =
      std::string("HDF5 call ") + expr + " failed at " + file + ":" + std::to_string(line);
  if (!stack.empty()) msg += ": " + stack;
  throw IoError(msg);
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

}  // namespace seisfd::io::h5
