// What a checkpoint checks a case against: everything in it that decides the numbers (not the
// layout, scheduler, output or steps), as text and as the hash the checkpoint file keeps.
#pragma once
#include <string>

#include "core/case.hpp"

namespace ondes {

std::string physics_fingerprint(const Case& c);
// The fingerprint's hash: an attribute of fixed size, however many sources and stations the case
// has (the whole fingerprint of a 16,000-point fault outgrew an HDF5 object header).
std::string physics_hash(const Case& c);

}  // namespace ondes
