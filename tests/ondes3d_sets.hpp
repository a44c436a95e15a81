// Ondes3D's public sets and the original's outputs beside the clone (../shared/ondes3d-sets: CI has
// it there), and a fixture that skips where they are absent and works in a temporary folder of its
// own (dir_, removed after the test).
#pragma once
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace ondes::test {

inline std::filesystem::path ondes3d_sets() {
  return std::filesystem::path(ONDES_SOURCE_DIR).parent_path() / "shared" / "ondes3d-sets";
}

class WithOndes3dSets : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::is_directory(ondes3d_sets()))
      GTEST_SKIP() << ondes3d_sets() << " is missing (CI has it beside the clone)";
    dir_ = std::filesystem::temp_directory_path() /
           fmt::format("{}_{}", ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name(), getpid());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

}  // namespace ondes::test
