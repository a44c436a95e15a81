// `ondes3d convert`: an Ondes3D parameter file as the equivalent TOML case (io/ondes3d/ondes3d_prm.hpp).
#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/ondes3d/ondes3d_prm.hpp"
#include "io/results/model_reader.hpp"

namespace ondes {
namespace {

// The shortest text that reads back as the same double (0.008, not 0.0080000000000000002), kept a
// TOML float.
std::string g17(double x) {
  std::string t = fmt::format("{}", x);
  if (t.find_first_of(".eEn") == std::string::npos) t += ".0";
  return t;
}
std::string from(const std::vector<Provenance>& where, const std::string& key) {
  for (const Provenance& p : where)
    if (p.key == key) return "  # from " + p.origin;
  return "";
}
// A path as the TOML file at toml_path should name it.
std::string relative_to(const std::string& file, const std::string& toml_path) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::absolute(toml_path).parent_path();
  return fs::absolute(file).lexically_normal().lexically_relative(dir).string();
}
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out.push_back('\\');
    out.push_back(ch);
  }
  return out + "\"";
}

// The [medium] section: a geological model written beside the TOML file, its sampling, the
// attenuation and the layers.
std::string medium_toml(const Medium& m, const std::vector<Provenance>& where, const std::string& toml_path) {
  std::string t = "[medium]\n";
  if (const std::string note = from(where, "medium.model_type"); !note.empty()) t += note.substr(2) + "\n";
  if (m.model) {  // a geological model: its materials per cell, beside the TOML file
    const std::string h5 = (std::filesystem::path(toml_path).parent_path() /
                            (std::filesystem::path(toml_path).stem().string() + "_model.h5")).string();
    write_model(h5, *m.model);
    t += fmt::format("model = {}{}, nearest-sample materials (HDF5, written by convert)\n", quoted(relative_to(h5, toml_path)),
                     from(where, "medium.model"));
  }
  if (m.layer_sampling == LayerSampling::Ondes3d)
    t += fmt::format("layer_sampling = \"ondes3d\"{}\n", from(where, "medium.layer_sampling"));
  if (m.q0_frequency > 0) t += fmt::format("q0_frequency = {}{}\n", g17(m.q0_frequency), from(where, "medium.q0_frequency"));
  if (const DayBradley& d = m.day_bradley; d.on()) {
    t += fmt::format("q_scheme = \"day_bradley\"{}\nq_tau = [{}, {}]\nq_w0 = {}\nq_origin = [{}, {}, {}]\n",
                     from(where, "medium.day_bradley"), g17(d.tau_min), g17(d.tau_max), g17(d.w0), d.origin[0],
                     d.origin[1], d.origin[2]);
    if (d.yz_skew) t += fmt::format("q_yz_skew = {}\n", *d.yz_skew);
    if (d.yz_levels) t += fmt::format("q_yz_levels = {}\n", d.yz_levels);
  } else if (const KristekMoczo& k = m.kristek_moczo; k.on()) {
    t += fmt::format("q_scheme = \"kristek_moczo\"{}\nq_w = [{}, {}]\nq_origin = [{}, {}, {}]\n",
                     from(where, "medium.kristek_moczo"), g17(k.w_min), g17(k.w_max), k.origin[0], k.origin[1],
                     k.origin[2]);
  } else if (m.q_band[1] > 0) {
    t += fmt::format("q_band = [{}, {}]{}\nq_reference = {}{}\n", g17(m.q_band[0]), g17(m.q_band[1]),
                     from(where, "medium.q_band"), g17(m.q_reference), from(where, "medium.q_reference"));
  }
  for (size_t l = 0; l < m.layers.size(); ++l) {
    const Layer& L = m.layers[l];
    t += fmt::format("[[medium.layers]]{}\ntop = {}\nvp = {}\nvs = {}\nrho = {}\n", from(where, fmt::format("medium.layers[{}]", l)),
                     g17(L.top), g17(L.vp), g17(L.vs), g17(L.rho));
    if (L.q0 > 0) t += fmt::format("q0 = {}\n", g17(L.q0));
    if (L.qp > 0) t += fmt::format("qp = {}\nqs = {}\n", g17(L.qp), g17(L.qs));
  }
  return t;
}

}  // namespace

std::string ondes3d_to_toml(const Case& c, const std::vector<Provenance>& where, const std::string& toml_path) {
  std::string t = fmt::format(
      "# Converted by `ondes3d convert` from the Ondes3D parameter file {}.\n"
      "# Axes: Ondes3D's x (east), y (north), z (up) are y, x and -z here (x north, y east, z down from the\n"
      "# top of the grid); Ondes3D's C-PML (10 cells outside its index ranges) is inside this grid.\n"
      "# Running this file gives the same seismograms as running the .prm, bit for bit.\n\n",
      c.path);
  t += fmt::format("[grid]\nnx = {}{}\nny = {}{}\nnz = {}{}\nh = {}{}\n\n", c.grid.nx, from(where, "grid.nx"), c.grid.ny,
                   from(where, "grid.ny"), c.grid.nz, from(where, "grid.nz"), g17(c.grid.h), from(where, "grid.h"));
  t += fmt::format("[time]\ndt = {}{}\nsteps = {}{}\nbeyond_cfl = true  # Ondes3D checks no stability limit\n\n",
                   g17(c.time.dt), from(where, "time.dt"), c.time.steps, from(where, "time.steps"));
  t += fmt::format("[boundaries]\nfree_surface = {}{}\n", c.boundaries.free_surface,
                   from(where, "boundaries.free_surface"));
  if (c.boundaries.surface == SurfaceScheme::Ondes3d)
    t += fmt::format("surface = \"ondes3d\"{}\n", from(where, "boundaries.surface"));
  if (c.boundaries.pml_profile == PmlProfile::Ondes3d)
    t += fmt::format("pml_profile = \"ondes3d\"{}\n", from(where, "boundaries.pml_profile"));
  t += fmt::format("pml_width = {}{}\npml_frequency = {}{}\n\n", c.boundaries.pml_width,
                   from(where, "boundaries.pml_width"), g17(c.boundaries.pml_frequency),
                   from(where, "boundaries.pml_frequency"));
  t += medium_toml(c.medium, where, toml_path);
  t += "\n";
  for (size_t i = 0; i < c.faults.size(); ++i) {
    const Fault& f = c.faults[i];
    t += fmt::format("[[faults]]{}\nformat = \"ondes3d\"\nfile = {}\nhistory = {}\noffset = [{}, {}, {}]\n",
                     from(where, fmt::format("faults[{}]", i)), quoted(relative_to(f.file, toml_path)),
                     quoted(relative_to(f.history, toml_path)), g17(f.offset[0]), g17(f.offset[1]), g17(f.offset[2]));
    t += fmt::format("region_min = [{}, {}, {}]  # Ondes3D computes the points in [min, max) (file coordinates)\n"
                     "region_max = [{}, {}, {}]\n\n",
                     g17(f.region_min[0]), g17(f.region_min[1]), g17(f.region_min[2]), g17(f.region_max[0]),
                     g17(f.region_max[1]), g17(f.region_max[2]));
  }
  const std::string st = from(where, "stations");
  for (const Station& s : c.stations)
    t += fmt::format("[[stations]]{}\nname = {}\nposition = [{}, {}, {}]\n", st, quoted(s.name), g17(s.position[0]),
                     g17(s.position[1]), g17(s.position[2]));
  // A case's paths are from its own folder, its outputs' too (io/case/case_reader.cpp read_output): the
  // TOML runs from any folder, writing where the .prm run from here does.
  t += fmt::format("\n[output]\nfile = {}{}\nondes3d_text = true  # Ondes3D's obs<N>.dat station files too\n"
                   "ondes3d_dir = {}\n",
                   quoted(relative_to(c.output, toml_path)), from(where, "output.file"),
                   quoted(relative_to(c.exports.ondes3d_dir, toml_path)));
  if (const Ondes3dSurfaceFiles& o = c.snapshots.ondes3d; o.on)
    t += fmt::format("\n[snapshots]{}\nevery = {}  # Ondes3D's SURFACE_STEP\npgv = false\nquantity = \"velocity\"\n\n"
                     "[snapshots.ondes3d]  # its surfacexy/xz/yz files: i0 j0 k0, where grid cell (0, 0, 0) is in its "
                     "indices (j i k), its files' first i j k and last i j\nat = [{}, {}, {}]\ndisplacement_k = {}\n"
                     "origin = [{}, {}, {}]\nlo = [{}, {}, {}]\nhi = [{}, {}]\ndir = {}\n",
                     from(where, "snapshots"), c.snapshots.every, o.at[0], o.at[1], o.at[2], o.displacement_k,
                     o.origin[0], o.origin[1], o.origin[2], o.lo[0], o.lo[1], o.lo[2], o.hi[0], o.hi[1],
                     quoted(relative_to(o.dir, toml_path)));
  return t;
}

}  // namespace ondes
