#include "io/results/partial_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "core/case_error.hpp"

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

namespace {

// Why the folder `old` may not give way to `fresh` ("" if it may): only a folder whose every entry
// is a file that `fresh` (a folder) writes again, as a rerun's SAC files; never a folder for a file
// (an output named after an existing folder), nor a folder holding anything else.
std::string unreplaceable(const std::filesystem::path& old, const std::filesystem::path& fresh) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(fresh, ec)) return "is a folder";
  for (const fs::directory_entry& e : fs::directory_iterator(old, ec))
    if (!e.is_regular_file(ec) || !fs::exists(fresh / e.path().filename(), ec))
      return fmt::format("is a folder holding {}, which this run does not write", e.path().filename().string());
  if (ec) return fmt::format("is a folder that cannot be read ({})", ec.message());
  return "";
}

}  // namespace

void check_result_path(const std::string& label, const std::string& file, const std::string& input) {
  namespace fs = std::filesystem;
  const auto dir = fs::absolute(file).parent_path();
  if (!fs::is_directory(dir)) throw CaseError(fmt::format("{}: directory {} does not exist", label, dir.string()));
  if (fs::is_directory(file)) throw CaseError(fmt::format("{}: is a directory (a file name is expected)", label));
  std::error_code ec;  // a path that cannot be resolved is not the input
  if (!input.empty() && fs::exists(file, ec) && fs::equivalent(file, input, ec))
    throw CaseError(fmt::format("{}: is the input file {} itself", label, input));
}

void PartialFile::commit() {
  std::error_code ec;
  // A file is replaced at once by the rename; a folder (SAC files) must go first, and only where
  // nothing in it is lost. Refused, what was written stays where it is, and the message says where.
  if (std::filesystem::is_directory(path_, ec)) {
    if (const std::string why = unreplaceable(path_, tmp_); !why.empty()) {
      committed_ = true;
      throw std::runtime_error(fmt::format("{} {}: left as it was; this run's is {}", path_, why, tmp_));
    }
    std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::rename(tmp_, path_, ec);
  if (ec) throw std::runtime_error(fmt::format("{}: cannot move {} into place ({})", path_, tmp_, ec.message()));
  committed_ = true;
}

}  // namespace ondes
