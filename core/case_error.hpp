// A case (or a file it names) that the program refuses, with a message naming the file, line and
// key. main() turns it into exit status 2 before anything large is allocated.
#pragma once
#include <stdexcept>

namespace ondes {

struct CaseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ondes
