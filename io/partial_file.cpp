#include "io/partial_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

namespace ondes {

PartialFile::PartialFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".partial") {
  std::error_code ec;
  std::filesystem::remove_all(tmp_, ec);
}

PartialFile::~PartialFile() {
  if (committed_) return;
  std::error_code ec;
  std::filesystem::remove_all(tmp_, ec);
}

void PartialFile::commit() {
  std::error_code ec;
  // A file is replaced at once by the rename; a folder (SAC files) must go first.
  if (std::filesystem::is_directory(path_, ec)) std::filesystem::remove_all(path_, ec);
  std::filesystem::rename(tmp_, path_, ec);
  if (ec) throw std::runtime_error(fmt::format("{}: cannot move {} into place ({})", path_, tmp_, ec.message()));
  committed_ = true;
}

}  // namespace ondes
