#pragma once
#include "core/case.hpp"
#include "physics/attenuation.hpp"

namespace ondes {

// Elastic properties at depth z (metres): the deepest layer whose top is at or above z.
const Layer& layer_at(const Medium& m, double z);

// Elastic properties at (x, y, z) metres: the 3D model's, else the layer's at depth z.
Layer properties_at(const Medium& m, double x, double y, double z);

// Properties of the grid point at depth z of a layered medium, over its cell [z - h/2, z + h/2]
// (clipped at the surface): where the cell straddles interfaces, density is averaged
// arithmetically and the moduli mu and lambda + 2 mu harmonically (Backus' averages for a layered
// cell, Moczo et al. 2002), so an interface between grid points sits where it is, not at the next
// point: this keeps the scheme's error second order at interfaces instead of first. Elsewhere, the
// layer's own values. With LayerSampling::Ondes3d, the layer at the point itself (layer_above).
Layer cell_properties(const Medium& m, double z, double h);
// The last layer whose top lies strictly above depth z (the first if none): a point on an interface
// belongs to the upper layer (Ondes3D's alloAndInit_LayerModel.c, Initk2ly: z < laydep).
const Layer& layer_above(const Medium& m, double z);

// The fastest P velocity: in an attenuating medium, that of the unrelaxed modulus (the highest
// frequencies'), which sets the stability limit.
double vp_max(const Medium& m);

// The medium's attenuation: the solver's fits of its quality factors (its q_band, q_reference and
// scheme), and the memory sets a cell keeps (AnelasticShape::mechanisms; 0 when elastic).
QFits q_fits(const Medium& m);
int memory_sets(const Medium& m);
// The slowest propagating wave speed: S in solids, P in fluids (vs = 0); vacuum is left out.
double vs_min(const Medium& m);

}  // namespace ondes
