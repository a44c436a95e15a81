// Seismograms in the formats seismologists' tools read: ASDF (with StationXML and QuakeML, for
// pyasdf and ObsPy) and SAC (one file per station and component). Both are written beside the
// run's HDF5 file, through a temporary name, so a failed write leaves nothing half-written.
//
// Channels: band code from the sampling rate (SEED), instrument X (synthetic), components N = vx,
// E = vy, Z = -vz (up; the solver's z points down). Samples in m/s; the first at origin_time plus
// dt/2 (velocity lives at half steps), as in /seismograms/velocity.
#pragma once
#include <string>
#include <vector>

#include "core/case.hpp"

namespace ondes {

// The SEED channel code of component c (0 x, 1 y, 2 z) sampled every dt seconds, e.g. "BXN".
std::string channel_code(double dt, int c);

// The event (QuakeML 1.2) and one station (FDSN StationXML 1.1) as documents.
std::string quakeml(const Case& c);
std::string station_xml(const Case& c, size_t station);

// seismograms: [station][3][steps] as the run's HDF5 file holds them.
void write_asdf(const std::string& path, const Case& c, const std::vector<float>& seismograms, int steps);
void write_sac(const std::string& dir, const Case& c, const std::vector<float>& seismograms, int steps);
// Ondes3D's station files (original/src/IO.c, OutSeismogramsbis), so that scripts written for it
// read ours: a line per step, "%d %15e %15e %15e" = step (from 1) and vx vy vz in m/s in Ondes3D's
// axes (x east, y north, z up). A station named obs<N> (a .prm case's: N its line in Ondes3D's
// station file) goes to obs<N>.dat, any other to obs<its place in the case, from 1>.dat. Each file
// is written whole then renamed into `dir`, which may hold other files (Ondes3D's output folder).
void write_ondes3d_text(const std::string& dir, const Case& c, const std::vector<float>& seismograms, int steps);

// Paths beside the run's output: <stem>.asdf.h5, <stem>_sac/; Ondes3D's station files in
// [output] ondes3d_dir (a .prm case's <dir>), else <stem>_obs/.
std::string asdf_path(const Case& c);
std::string sac_dir(const Case& c);
std::string ondes3d_text_dir(const Case& c);

}  // namespace ondes
