// Compiled only by the test layering.wrong_way_include_fails, as part of the io library's layer:
// io sits below tasks, so this include must not resolve.
#include "tasks/iteration.hpp"
