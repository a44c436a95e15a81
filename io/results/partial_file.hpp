// Every file (or folder) the program writes goes to <path>.partial first and is renamed to <path>
// once complete, so that a run that fails on the way leaves no file that looks finished.
#pragma once
#include <string>

namespace ondes {

class PartialFile {
 public:
  // Removes a stale <path>.partial left by an earlier failure.
  explicit PartialFile(std::string path);
  // Removes the partial file (or folder) unless committed.
  ~PartialFile();
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;

  const std::string& path() const { return path_; }
  const std::string& tmp() const { return tmp_; }  // where to write
  // Replaces <path> with what was written; throws std::runtime_error naming the path. A folder at
  // <path> gives way only to a folder that writes again every file it holds (nothing lost); else
  // both stay and the error says where this run's went.
  void commit();

 private:
  std::string path_, tmp_;
  bool committed_ = false;
};

// Throws CaseError (one line: `label`, then why) where `file` cannot be a result the program
// writes: its folder does not exist, a folder bears its name, or it is the file `input` (the case
// being run or converted). Called before the work that produces it, so that a bad path costs nothing.
void check_result_path(const std::string& label, const std::string& file, const std::string& input = {});

// Writes through write(tmp) and commits.
template <class Write>
void write_through(const std::string& path, Write&& write) {
  PartialFile f(path);
  write(f.tmp());
  f.commit();
}

}  // namespace ondes
