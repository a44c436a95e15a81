// Compiled only by the test layering.engine_below_app, as part of the engine library's layer: the
// engine (the library tests and bench use) sits below the program, so this include must not resolve.
#include "app/driver.hpp"
