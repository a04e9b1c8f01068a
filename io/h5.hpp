// Move-only owners for HDF5 handles and a checked-call macro. Private to io/ and tests: the
// rest of seisfd never sees hid_t. Only the HDF5 C API is used.
#pragma once
#include <hdf5.h>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "io/error.hpp"

namespace seisfd::io::h5 {

// Turns off HDF5's automatic printing of its error stack on the calling thread, so errors
// reach the user only through IoError. The Debian library is thread-safe, which makes the
// setting per thread; call at every io entry point (it is cheap after the first time).
void silence_errors();

// The current thread's HDF5 error stack as one line: the failing API call's description and
// the innermost (most specific) one. Empty when the stack is empty.
std::string error_stack_message();

// Throws IoError("HDF5 <function> failed (<file name>:<line>): <what>: <system error>"), one
// short line without HDF5's internal call stack or build paths.
[[noreturn]] void throw_error(const char* expr, const char* file, int line);

// hid_t (invalid < 0), herr_t (failure < 0) and htri_t (failure < 0) share the convention.
template <typename T>
T check(T result, const char* expr, const char* file, int line) {
  if (result < 0) throw_error(expr, file, line);
  return result;
}

// An owned hid_t closed by Close. close() reports a failed close (e.g. a file whose final
// flush fails); the destructor ignores it, since destructors never throw.
template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void reset() noexcept {
    if (id_ >= 0) Close(id_);
    id_ = H5I_INVALID_HID;
  }
  // Closes now and returns the HDF5 status, so callers can H5_CHECK it.
  herr_t close() {
    const herr_t status = id_ >= 0 ? Close(id_) : 0;
    id_ = H5I_INVALID_HID;
    return status;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using Attribute = Handle<H5Aclose>;
using PropList = Handle<H5Pclose>;
using Datatype = Handle<H5Tclose>;

// After a write into `path` failed: closes `file` (errors ignored) and removes `path`, since
// HDF5 does not promise a readable file after a failed write, and a file that cannot be read
// must not be left to look like a result. Returns the words for the error message.
std::string discard_after_failed_write(File& file, const std::string& path);

// A simple dataspace of the given shape; an empty shape gives a scalar dataspace.
Dataspace make_space(std::initializer_list<hsize_t> dims);

// Writes (creating, or overwriting when it already exists with the same shape) an attribute.
// file_type is the on-disk type (H5T_IEEE_F64LE, H5T_STD_I32LE, ...), mem_type the type of
// data. An empty shape writes a scalar.
void write_attribute(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, const void* data,
                     std::initializer_list<hsize_t> dims);
void write_attribute(hid_t obj, const char* name, int value);
void write_attribute(hid_t obj, const char* name, double value);
// A fixed-length, null-terminated ASCII string (what h5py, h5dump and ParaView all read).
void write_attribute(hid_t obj, const char* name, const std::string& value);

// ---- Reading (shared by the gathers, image and state readers). Errors are IoErrors naming the
// attribute or dataset; callers prefix the file.

// "[4][11]", or "scalar".
std::string shape_string(const std::vector<hsize_t>& dims);
// Whether loc/name exists and is an object of the given kind (H5I_GROUP, H5I_DATASET).
bool has_object(hid_t loc, const std::string& name, H5I_type_t kind);
std::vector<hsize_t> dataset_shape(hid_t dset);
// Link names of the children of a group of the given kind, in name order.
std::vector<std::string> children(hid_t loc, H5I_type_t kind);
Attribute open_attribute(hid_t obj, const char* name);
// Every value of a numeric attribute, as doubles.
std::vector<double> read_numbers(hid_t obj, const char* name);
double read_scalar(hid_t obj, const char* name);
// Fixed-length (as write_attribute writes) or variable-length (h5py's default) strings.
std::string read_string(hid_t obj, const char* name);
// "shot_0007": the group of a shot in gathers.h5 and image.h5.
std::string shot_group_name(int shot);

}  // namespace seisfd::io::h5

// Evaluates an HDF5 C call once; throws IoError carrying the call text, file, line and the
// HDF5 error stack if it returns a negative value; otherwise yields the value (an id or
// status), so `h5::File f{H5_CHECK(H5Fopen(...))};` works.
#define H5_CHECK(expr) ::seisfd::io::h5::check((expr), #expr, __FILE__, __LINE__)
