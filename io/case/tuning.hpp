// The [tuning] table of a case and `--tune KEY=VALUE` on the command line: one reader of the
// ExecutionPolicy's keys (core/execution_policy.hpp) for both.
#pragma once
#include <string>
#include <string_view>

#include "core/execution_policy.hpp"

namespace ondes {

// Sets key `key` of p from its text form ("8x2x4", "apart", "true", "3"). Returns an error message
// naming the allowed keys or values, or an empty string.
std::string set_tuning(ExecutionPolicy& p, std::string_view key, std::string_view value);

// Applies "KEY=VALUE"; throws CaseError naming `where` (e.g. "--tune") on a bad one.
void apply_tuning(ExecutionPolicy& p, std::string_view assignment, std::string_view where);

// The settings that differ from the defaults, as "key = value" lines of a [tuning] table (empty
// when none): for the log and `check`.
std::string describe_tuning(const ExecutionPolicy& p);

}  // namespace ondes
