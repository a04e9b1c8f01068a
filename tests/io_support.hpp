// What the io tests of surveys and images share: the HDF5 read-back helpers, a temporary
// directory per test, and an io error's message checked to be one line.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "io/error.hpp"
#include "tests/h5_read.hpp"
#include "tests/temp_dir.hpp"

namespace seisfd::test {

// The io::IoError message of f(), or a test failure when it does not throw one.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const seisfd::io::IoError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
    return msg;
  }
  ADD_FAILURE() << "no IoError";
  return {};
}

}  // namespace seisfd::test

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << (msg)
