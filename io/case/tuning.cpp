#include "io/case/tuning.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>

#include "core/case_error.hpp"

namespace ondes {
namespace {

std::string march_text(const MarchGeometry& g) {
  if (g.rows == kDeviceRows) return fmt::format("{}x{}x{}", g.ty, g.kz, g.min_blocks);
  return fmt::format("{}x{}x{}x{}", g.ty, g.kz, g.min_blocks, g.rows);
}

// "auto", or TYxKZxB[xR]: TY 8 with B 3-4, TY 16 with B 2; KZ >= 0 (0: the default planes);
// R >= -1 (tile rows a band, 0 a 3D grid, -1 a wave's rows).
std::string set_march(MarchGeometry& g, std::string_view v) {
  if (v == "auto") {
    g = MarchGeometry{};
    return {};
  }
  MarchGeometry r;
  char tail = 0;
  const std::string s(v);
  const int got = std::sscanf(s.c_str(), "%dx%dx%dx%d%c", &r.ty, &r.kz, &r.min_blocks, &r.rows, &tail);
  const bool ok = (got == 3 || got == 4) && r.kz >= 0 && (got == 3 || r.rows >= -1) &&
                  ((r.ty == 8 && r.min_blocks >= 3 && r.min_blocks <= 4) || (r.ty == 16 && r.min_blocks == 2));
  if (!ok)
    return fmt::format("'{}': allowed values are auto or TYxKZxB[xR] (TY 8 with B 3 or 4, TY 16 with B 2; "
                       "KZ >= 0, 0 for the default planes; R tile rows a band, 0 a 3D grid, -1 a wave's rows)",
                       v);
  if (got == 3) r.rows = kDeviceRows;
  g = r;
  return {};
}

std::string set_bool(bool& b, std::string_view v) {
  if (v == "true" || v == "on") return b = true, std::string{};
  if (v == "false" || v == "off") return b = false, std::string{};
  return fmt::format("'{}': must be true or false", v);
}

std::string set_edges(EdgeSaving& e, std::string_view v) {
  if (v == "auto") return e = EdgeSaving::Auto, std::string{};
  if (v == "apart") return e = EdgeSaving::Apart, std::string{};
  if (v == "update") return e = EdgeSaving::Update, std::string{};
  return fmt::format("'{}': allowed values are auto, apart, update", v);
}

// A whole number in [0, most].
std::string set_count(int& n, std::string_view v, int most) {
  int x = -1;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || end != v.data() + v.size() || x < 0 || x > most)
    return fmt::format("'{}': must be a whole number in [0, {}]", v, most);
  n = x;
  return {};
}

const char* edges_text(EdgeSaving e) {
  return e == EdgeSaving::Apart ? "apart" : e == EdgeSaving::Update ? "update" : "auto";
}

}  // namespace

std::string set_tuning(ExecutionPolicy& p, std::string_view key, std::string_view value) {
  if (key == "march") return set_march(p.march, value);
  if (key == "edge_saving") return set_edges(p.edges, value);
  if (key == "gpu_affinity") return set_bool(p.gpu_affinity, value);
  if (key == "peer_halos") return set_bool(p.peer_halos, value);
  if (key == "park_cpus") return set_bool(p.park_cpus, value);
  if (key == "lone_block_step") return set_bool(p.lone_block_step, value);
  if (key == "stress_station_slots") return set_count(p.stress_station_slots, value, kMaxStressSlots);
  if (key == "chain_steps") return set_count(p.chain_steps, value, kMaxChainSteps);
  if (key == "chain_side_stream") return set_bool(p.chain_side_stream, value);
  if (key == "chain_on_cpus") return set_bool(p.chain_on_cpus, value);
  return fmt::format("unknown key '{}'; allowed: march, edge_saving, gpu_affinity, peer_halos, park_cpus, "
                     "lone_block_step, stress_station_slots, chain_steps, chain_side_stream, chain_on_cpus",
                     key);
}

void apply_tuning(ExecutionPolicy& p, std::string_view assignment, std::string_view where) {
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos)
    throw CaseError(fmt::format("{}: '{}' is not KEY=VALUE (e.g. --tune march=8x2x4)", where, assignment));
  const std::string err = set_tuning(p, assignment.substr(0, eq), assignment.substr(eq + 1));
  if (!err.empty()) throw CaseError(fmt::format("{} {}: {}", where, assignment.substr(0, eq), err));
}

std::string describe_tuning(const ExecutionPolicy& p) {
  const ExecutionPolicy d;
  std::string s;
  auto line = [&](const char* key, const std::string& v) { s += fmt::format("{} = {}\n", key, v); };
  if (march_text(p.march) != march_text(d.march)) line("march", '"' + march_text(p.march) + '"');
  if (p.edges != d.edges) line("edge_saving", fmt::format("\"{}\"", edges_text(p.edges)));
  if (p.gpu_affinity != d.gpu_affinity) line("gpu_affinity", p.gpu_affinity ? "true" : "false");
  if (p.peer_halos != d.peer_halos) line("peer_halos", p.peer_halos ? "true" : "false");
  if (p.park_cpus != d.park_cpus) line("park_cpus", p.park_cpus ? "true" : "false");
  if (p.lone_block_step != d.lone_block_step) line("lone_block_step", p.lone_block_step ? "true" : "false");
  if (p.stress_station_slots != d.stress_station_slots) line("stress_station_slots", std::to_string(p.stress_station_slots));
  if (p.chain_steps != d.chain_steps) line("chain_steps", std::to_string(p.chain_steps));
  if (p.chain_side_stream != d.chain_side_stream) line("chain_side_stream", p.chain_side_stream ? "true" : "false");
  if (p.chain_on_cpus != d.chain_on_cpus) line("chain_on_cpus", p.chain_on_cpus ? "true" : "false");
  return s;
}

}  // namespace ondes
