// Compiled only by the test layering.io_results_below_case, as part of io's results layer: the
// files a run writes sit below the Ondes3D readers and the case reader, so this include must not
// resolve.
#include "io/case/case_reader.hpp"
