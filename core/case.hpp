// The simulation case as the user describes it (one TOML file), independent of the runtime.
// Coordinates in metres: x north, y east, z down (Aki & Richards); z = 0 is the top of the grid.
// Grid point (i, j, k) sits at (i h, j h, k h): normal stresses there, the other fields staggered.
#pragma once
#include <array>
#include <optional>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/execution_policy.hpp"
#include "core/stf_kind.hpp"

namespace ondes {

struct Grid {
  int nx = 0, ny = 0, nz = 0;
  double h = 0;  // spacing, metres
  double extent(int axis) const { return (axis == 0 ? nx - 1 : axis == 1 ? ny - 1 : nz - 1) * h; }
};

struct TimeStepping {
  double dt = 0;  // seconds
  int steps = 0;
  // A dt above the CFL limit of the fastest cell is a warning, not an error ([time] beyond_cfl):
  // Ondes3D checks none, and its own public sets run above it (the GPU port's chuetsu3d).
  bool beyond_cfl = false;
};

// How the free surface is computed. Imaging: stress imaging (szz = 0 on the normal-stress plane,
// sxz and syz odd above it) with 2nd-order z differences where the 4-point stencil would reach
// above the surface. Ondes3d: Ondes3D's (original/src/computeVeloAndSource.c, computeVelocity's
// FREESURFACE branch; computeStress.c): the same imaging, but velocities extrapolated above the
// surface (vz half a cell up from dt szz = 0, vx and vy a cell up after Graves 1996, in Ondes3D's
// loop order) so that the cells below keep 4th-order z differences; what its .prm files get.
enum class SurfaceScheme { Imaging, Ondes3d };

// Where the C-PML profile starts and how it is cut. Standard: the layer's inner edge at the width-th
// cell from each face (physics/pml.hpp). Ondes3d: the CPU Ondes3D's on the grid of its tagged .prm
// files (original/src/alloAndInit.c, CompABCCoef: d0 (x / (DELTA ds))^2 from XMIN ds and XMAX ds, which
// on that grid lie 1 cell (x here, its north) and 1/2 cell (y, its east) from the low faces and at
// the bottom 1/2 cell deeper than the standard edges), no damping where
// vp d < 1 / s (inlineFunctions.h CPML4 tests abs(vp * dump), C's integer abs), and the fields
// Ondes3D computes at the grid's faces (codelets/faces.hpp): its vx lies west of its normal
// stresses and its vz above them, so along y and z it computes one half-cell plane of fields more
// on the low side and one fewer on the high side than this grid; the .prm grid has one more cell on
// the y-low side, whose integer-y fields stay zero, and the last plane of half-y fields (y-high
// face) and of half-z fields (bottom) stays zero.
enum class PmlProfile { Standard, Ondes3d };

struct Boundaries {
  bool free_surface = true;  // false: absorbing (PML) on all six faces
  SurfaceScheme surface = SurfaceScheme::Imaging;
  PmlProfile pml_profile = PmlProfile::Standard;
  int pml_width = 10;        // cells
  double pml_reflection = 1e-3;  // target reflection coefficient R of the C-PML profile
  double pml_frequency = 0;      // Hz, for alpha_max = pi f; 0: the sources' dominant frequency
};

struct Layer {
  double top = 0;  // depth of the layer top, metres
  double vp = 0, vs = 0, rho = 0;
  double qp = 0, qs = 0;  // quality factors, constant over Medium::q_band; 0: elastic
  double q0 = 0;          // Ondes3D's simple damping (Medium::q0_frequency); 0: none
};

struct Model3D;

// How a layered medium's interfaces meet the grid. Average: a cell straddling an interface takes
// the volume average of its layers, and the staggered points between cells average them (the
// default). Ondes3d: every point takes the layer at its own depth, a point on an interface the
// upper one, both the cells (normal stresses, horizontal velocities) and the points half a cell
// below them (vz, sxz, syz): Ondes3D's layer model (original/src/alloAndInit_LayerModel.c,
// Initk2ly: k2ly0 and k2ly2), which its .prm files get. With a categorical 3D model (Ondes3D's
// geological ones) Ondes3d means its nodes: the model's samples are Ondes3D's nodes, each cell
// holds one (core/layout.hpp MaterialComponent) and the staggered points average them as Ondes3D
// does, vacuum keeping its density (Medium::ondes3d_nodes).
enum class LayerSampling { Average, Ondes3d };

// Ondes3D's Day and Bradley attenuation (its DAYandBRADLEY method: <taum> <tauM> <w0>; in a case
// q_scheme = "day_bradley", physics/attenuation.hpp day_bradley_relaxation): relaxation times (s),
// the reference angular frequency (rad/s), and the Ondes3D indices (jmp, imp, k counted up) of grid
// cell (0, 0, 0), whose signs and parities give each cell its relaxation time.
// yz_skew: Ondes3D's k - jmp of the cells whose yz memory its misplaced fyz drives (one process;
// codelets/day_bradley.hpp), none: no cell's; yz_levels: 0 where that drive lands in the next
// column (a layered grid), else its arrays' z levels, the drive landing in the column's own cell.
struct DayBradley {
  double tau_min = 0, tau_max = 0, w0 = 0;
  std::array<int, 3> origin{0, 0, 1};
  std::optional<int> yz_skew;
  int yz_levels = 0;
  bool on() const { return tau_min > 0; }
};

// Ondes3D's Kristek and Moczo attenuation (its KRISTEKandMOCZO method: <wmin> <wmax>, rad/s;
// physics/attenuation.hpp kristek_moczo, codelets/kristek_moczo.hpp): the band of its four relaxation
// pulsations, and the Ondes3D local array indices (j, i, k counted up) of grid cell (0, 0, 0)'s
// normal stresses, whose parities give each cell its pulsation (inlineFunctions.h IndexL).
struct KristekMoczo {
  double w_min = 0, w_max = 0;
  std::array<int, 3> origin{0, 0, 1};
  bool on() const { return w_min > 0; }
};

// Homogeneous media are one layer with top 0. A 3D model (medium.model) replaces the layers.
struct Medium {
  std::vector<Layer> layers;
  LayerSampling layer_sampling = LayerSampling::Average;
  std::shared_ptr<const Model3D> model;
  // Anelastic attenuation (issue 17): Q constant over [q_band[0], q_band[1]] Hz, the velocities being
  // those at q_reference Hz; per layer, or per sample of a 3D model (model_q).
  std::array<double, 2> q_band{0, 0};
  double q_reference = 0;
  bool q_coarse_grained = false;  // q_scheme = "coarse_grained" (physics/attenuation.hpp's QScheme)
  DayBradley day_bradley;         // q_scheme = "day_bradley" (q_band then reports its times' band)
  KristekMoczo kristek_moczo;     // Ondes3D's KRISTEKandMOCZO (q_band then reports its pulsations' band)
  // Ondes3D's `q0` (its "ANOTHER" method): after each velocity update the velocity is multiplied by
  // exp(-pi f0 dt / q0) of its layer, f0 = q0_frequency (Hz); an approximation (docs/user-guide.md).
  double q0_frequency = 0;
  bool damped() const {
    for (const Layer& l : layers)
      if (l.q0 > 0) return true;
    return false;
  }
  bool model_q = false;  // the 3D model carries /qp and /qs
  bool ondes3d_nodes() const { return model && layer_sampling == LayerSampling::Ondes3d; }
  bool attenuating() const {
    if (model_q) return true;
    for (const Layer& l : layers)
      if (l.qp > 0 || l.qs > 0) return true;
    return false;
  }
};

struct TimeFunction {
  StfKind kind = StfKind::Ricker;
  double f0 = 0;        // Hz (Gaussian, Ricker)
  double t0 = 0;        // s, delay of the centre (Gaussian, Ricker) or of the onset (Triangle, SmoothRamp)
  double duration = 0;  // s: Triangle's duration, SmoothRamp's rise time T
  // Sampled: samples[i] at t0 + i step, linearly interpolated, scaled to unit area (trapezoids).
  // Held: Ondes3D's moment-rate samples, held a step each (physics/stf.hpp; t0 unused), scaled to
  // unit sum(samples) x step.
  double step = 0;
  std::vector<double> samples;
};

enum class SourceKind { Force, Moment };

struct Source {
  SourceKind kind = SourceKind::Force;
  std::array<double, 3> position{};
  std::array<double, 3> force{};   // N (Force): F(t) = force * s(t)
  std::array<double, 6> moment{};  // N m, Mxx Myy Mzz Mxy Mxz Myz (Moment): dM/dt = M * s(t)
  TimeFunction stf;
  std::string label;  // where it was given, for messages ("file:line" of a fault file); empty: [[sources]]
};

// A kinematic finite fault read from a file of point sources (io/case/fault_reader.hpp); its points are
// appended to Case::sources.
struct Fault {
  std::string file;  // as resolved against the case file's folder
  std::string text;  // its full text, stored with the results as the case's is
  StfKind stf = StfKind::SmoothRamp;  // Held: Ondes3D's files (format = "ondes3d")
  std::string history;                // Ondes3D's moment-rate history file
  std::array<double, 3> offset{};     // Ondes3D's (x, y, z) go to (offset + (y, x, -z))
  // Where Ondes3D computes a point, in the files' coordinates: [region_min, region_max) along each
  // axis; the points outside are skipped with a warning (io/ondes3d/ondes3d_sources.hpp). Unbounded: all.
  std::array<double, 3> region_min{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL}, region_max{HUGE_VAL, HUGE_VAL, HUGE_VAL};
  size_t first = 0, count = 0;  // its points in Case::sources
};

struct Station {
  std::string name;
  std::array<double, 3> position{};
  // Where an Ondes3D station file put it, in that file's coordinates (x east, y north, z up; on a
  // geological model the ground's altitude): written beside `position` in the output.
  std::optional<std::array<double, 3>> file_position;
};

// Seismological exports beside the run's HDF5 file ([output]): ASDF and SAC need geographic
// coordinates and an absolute time, so the grid is placed on the Earth (x north, y east from the
// grid's corner at latitude/longitude, on a sphere of radius 6371 km) and its t = 0 at origin_time.
struct ExportOptions {
  bool asdf = false;  // <stem>.asdf.h5: ASDF 1.0.3 with StationXML and QuakeML
  bool sac = false;   // <stem>_sac/NET.STA..CHA.sac, one file per component
  bool ondes3d_text = false;  // obs<N>.dat: Ondes3D's station text files (step vx vy vz, its axes)
  std::string ondes3d_dir;    // their folder (a .prm case's <dir>); empty: <stem>_obs beside the output
  std::string network = "XX";  // FDSN network code (XX: synthetic)
  double latitude = 0, longitude = 0;  // degrees, of the grid point x = y = 0
  std::string origin_time = "2000-01-01T00:00:00Z";
  double origin_epoch = 946684800.0;  // origin_time in seconds since 1970-01-01 UTC
};

// Wavefield snapshots ([snapshots]): planes of the velocity or of the displacement (its running
// integral over the steps, as Ondes3D's ODISPL) every `every` steps, HDF5 + XDMF.
struct PlaneSpec {
  int axis = 2;      // normal: 0 x, 1 y, 2 z
  int index = 0;     // grid index along the normal
  std::string name;  // as given, e.g. "z=0"
  bool displacement = false;
  // Read by Ondes3D's files only, not written to the snapshot file: the plane above a free surface
  // (index -1) where Ondes3D's surface scheme keeps the velocities it extrapolates.
  bool hidden = false;
};
// Ondes3D's surface files (a .prm's <i0> <j0> <k0>; io/ondes3d/ondes3d_surface_files.hpp), written beside
// the planes they are cut from: its plane indices (k0: the level of its vx, 1 on a layered model's
// free surface), the level of its displacement's xy file (1 wherever its surface is FREE, its
// geological models included), its indices (j, i, k) of grid cell (0, 0, 0) (io/ondes3d/ondes3d_geology.hpp
// Geometry::indices), its lowest written i, j, k and highest i, j (the highest k is 2), its <dir>.
struct Ondes3dSurfaceFiles {
  bool on = false;
  int displacement_k = 1;
  std::array<int, 3> at{}, origin{}, lo{};
  std::array<int, 2> hi{};
  std::string dir;
};
struct SnapshotOptions {
  int every = 0;  // steps between frames; 0: no snapshots
  std::vector<PlaneSpec> requested;  // the case's planes (default: the top face z = 0)
  bool velocity = true, displacement = false;  // quantity = "velocity", "displacement" or "both"
  // What the run writes: each requested plane in each quantity, then Ondes3D's files' planes
  // (io/case/snapshot_plan.hpp resolve_snapshot_planes).
  std::vector<PlaneSpec> planes;
  bool pgv = true;  // peak ground velocity map of the top face over the whole run
  std::string file;  // default: <stem>_snapshots.h5 (and .xdmf)
  Ondes3dSurfaceFiles ondes3d;
  bool any_displacement() const {
    for (const PlaneSpec& p : planes)
      if (p.displacement) return true;
    return false;
  }
};

// The run's named choices (TOML values and command-line flags), each value with its one name.
enum class Balance { Pml, Even };       // run.balance
enum class Mapping { Tiles, Cyclic };   // run.mapping (partition/mapping.hpp)
enum class Placement { Auto, Any };     // run.small_tasks, run.cpu_compute
inline const char* name_of(Balance b) { return b == Balance::Pml ? "pml" : "even"; }
inline const char* name_of(Mapping m) { return m == Mapping::Tiles ? "tiles" : "cyclic"; }
inline const char* name_of(Placement p) { return p == Placement::Auto ? "auto" : "any"; }
// The value of E named `name` (false if none); `names` lists them all ("pml, even").
template <class E>
bool parse_choice(const std::string& name, E& value) {
  for (E v : {E(0), E(1)})
    if (name == name_of(v)) return value = v, true;
  return false;
}
template <class E>
std::string choice_names() {
  return std::string(name_of(E(0))) + ", " + name_of(E(1));
}

struct RunOptions {
  // The blocks, nbx x nby, unless choose_blocks: then the plan chooses them for the launch's workers
  // (plan/run_plan.hpp plan_blocks). The readers set choose_blocks for a case file that sets no
  // run.blocks (and for every .prm); a case built in code keeps its nbx x nby.
  int nbx = 1, nby = 1;
  bool choose_blocks = false;
  void set_blocks(int x, int y) { nbx = x, nby = y, choose_blocks = false; }
  // Cells of the block each side of every cut between blocks (0: none): partition/decomposition.hpp.
  int edge_strip = 0;
  // How the cuts between blocks are placed: Pml (default) gives every block about the same work,
  // PML cells counted at their cost (physics/pml.hpp: slice_costs), so that blocks at the faces,
  // thick with PML, are narrower; Even: blocks of equal size (within one cell).
  Balance balance = Balance::Pml;
  std::string scheduler;  // empty: StarPU's default or STARPU_SCHED
  Mapping mapping = Mapping::Tiles;  // blocks to MPI ranks (partition/mapping.hpp)
  // Where the small tasks (boundary saves, sources, recording, sampling, watchdog) may run: Auto
  // keeps them on the GPUs when there are CUDA workers (they would otherwise pull whole blocks to
  // the host for microseconds of work), Any leaves the choice to the scheduler.
  Placement small_tasks = Placement::Auto;
  // Where the blocks' compute tasks may run beside CUDA workers: Auto lets a CPU worker take a
  // block only if it would finish within the GPUs' shadow (perfmodels: cpu_may_compute), Any
  // leaves every block to the scheduler.
  Placement cpu_compute = Placement::Auto;
  int watchdog_every = 50;        // iterations between checks of the velocity; 0: no watchdog
  int window = 16;                // iterations of tasks submitted ahead of the ones running
  double watchdog_max_velocity = 1e4;  // m/s: above this (or not finite) the run is stopped
};

struct Case {
  std::string path;  // file it came from
  std::string text;  // its full text, stored with the results
  Grid grid;
  TimeStepping time;
  Boundaries boundaries;
  Medium medium;
  std::vector<Source> sources;
  std::vector<Fault> faults;
  std::vector<Station> stations;
  std::string output = "seismograms.h5";
  ExportOptions exports;
  SnapshotOptions snapshots;
  RunOptions run;
  ExecutionPolicy tuning;  // [tuning]: how it runs, never what it computes
};

}  // namespace ondes
