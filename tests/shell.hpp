// Running a command line as a user would, for the tests of the program itself.
#pragma once
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ondes::test {

struct CommandResult {
  int code;            // exit status, -1 when killed by a signal
  std::string output;  // stdout and stderr together
  double seconds;
};

// Runs `cmd` through the shell with its output in `log` (kept for a failing test's message).
inline CommandResult shell(const std::string& cmd, const std::filesystem::path& log) {
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system((cmd + " > " + log.string() + " 2>&1").c_str());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ss.str(), seconds};
}

// The ondes3d program with these arguments.
inline CommandResult ondes3d(const std::string& args, const std::filesystem::path& log) {
  return shell(std::string(ONDES_BINARY) + " " + args, log);
}

}  // namespace ondes::test
