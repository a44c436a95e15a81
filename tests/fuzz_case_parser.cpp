// libFuzzer target for the case reader: any byte string must either parse and validate, or be
// refused with a CaseError; anything else (another exception, a crash, a sanitizer report) is a
// finding. Built and run by tools/fuzz_case_parser.sh (ctest: fuzz.case_parser, 30 s).
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/case/case_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    ondes::Case c = ondes::parse_case(text, "<fuzz>");
    ondes::validate_case(c);
  } catch (const ondes::CaseError&) {
    // refused with a message: the expected outcome for most inputs
  }
  return 0;
}
