#include "io/results/seismo_export.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>

#include "io/results/geo.hpp"
#include "io/results/h5util.hpp"
#include "io/results/partial_file.hpp"
#include "physics/source.hpp"

namespace ondes {
namespace {

using h5::check;
using h5::Id;

const char* kEventId = "smi:local/ondes3d/event";
const char* kOriginId = "smi:local/ondes3d/origin";

// The sample of component c, in the channel's sense (Z up).
float channel_sample(const std::vector<float>& s, size_t station, int c, int steps, int t) {
  const float v = s[(station * 3 + c) * steps + t];
  return c == 2 ? -v : v;
}

// The event as one point: the hypocentre is the source that starts first (a fault's nucleation),
// the moment tensor the sum of every moment source's.
struct EventSummary {
  const Source* hypocentre = nullptr;
  std::array<double, 6> moment{};  // Mxx Myy Mzz Mxy Mxz Myz
  bool has_moment = false;
  double scalar_moment() const { return ondes::scalar_moment(moment); }
};

EventSummary summarise(const Case& c) {
  EventSummary e;
  for (const Source& s : c.sources) {
    if (!e.hypocentre || s.stf.t0 < e.hypocentre->stf.t0) e.hypocentre = &s;
    if (s.kind != SourceKind::Moment) continue;
    e.has_moment = true;
    for (int i = 0; i < 6; ++i) e.moment[i] += s.moment[i];
  }
  return e;
}

std::string value(const char* tag, double v) { return fmt::format("<{0}><value>{1:.9g}</value></{0}>", tag, v); }

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

void write_bytes(hid_t where, const char* name, const std::string& text) {
  hsize_t n[1] = {text.size()};
  Id space{H5Screate_simple(1, n, nullptr), H5Sclose};
  Id ds{H5Dcreate2(where, name, H5T_STD_I8LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  check(H5Dwrite(ds, H5T_NATIVE_CHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()), name);
}

// pyasdf reads its string attributes as zero-padded fixed-length ASCII.
void attr_ascii(hid_t obj, const char* name, const std::string& v) {
  Id type{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(type, v.size() + 1);
  H5Tset_strpad(type, H5T_STR_NULLPAD);
  Id space{H5Screate(H5S_SCALAR), H5Sclose};
  Id a{H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  std::vector<char> buf(v.begin(), v.end());
  buf.push_back('\0');
  check(H5Awrite(a, type, buf.data()), name);
}

void attr_i64(hid_t obj, const char* name, int64_t v) {
  Id space{H5Screate(H5S_SCALAR), H5Sclose};
  Id a{H5Acreate2(obj, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  check(H5Awrite(a, H5T_NATIVE_INT64, &v), name);
}

// ObsPy's "%Y-%m-%dT%H:%M:%S" of a time, as pyasdf names waveforms.
std::string name_time(double epoch) { return utc_iso(std::floor(epoch)).substr(0, 19); }

double first_sample_epoch(const Case& c) { return c.exports.origin_epoch + 0.5 * c.time.dt; }


}  // namespace

std::string channel_code(double dt, int c) {
  const double rate = 1.0 / dt;
  const char band = rate >= 1000 ? 'F' : rate >= 250 ? 'C' : rate >= 80 ? 'H' : rate >= 10 ? 'B' : rate > 1 ? 'M' : 'L';
  return fmt::format("{}X{}", band, "NEZ"[c]);
}

std::string quakeml(const Case& c) {
  const EventSummary e = summarise(c);
  const Source& h = *e.hypocentre;
  const GeoPosition g = geographic(c.exports, h.position);
  std::string ev = fmt::format(
      "    <event publicID=\"{0}\">\n"
      "      <preferredOriginID>{1}</preferredOriginID>\n"
      "      <type>{2}</type>\n"
      "      <description><text>{3}</text><type>earthquake name</type></description>\n"
      "      <origin publicID=\"{1}\">\n"
      "        <time><value>{4}</value></time>\n"
      "        {5}\n        {6}\n        {7}\n"
      "        <depthType>operator assigned</depthType>\n"
      "        <evaluationMode>manual</evaluationMode>\n"
      "      </origin>\n",
      kEventId, kOriginId, e.has_moment ? "earthquake" : "other event",
      xml_escape("ondes3d: " + c.path + (c.faults.empty() ? "" : fmt::format(", finite fault of {} points", c.sources.size()))),
      utc_iso(c.exports.origin_epoch + h.stf.t0), value("latitude", g.latitude), value("longitude", g.longitude),
      value("depth", g.depth));
  if (e.has_moment) {
    // Harvard convention (r up, t south, p east) from x north, y east, z down.
    const auto& m = e.moment;
    const double m0 = e.scalar_moment();
    ev += fmt::format(
        "      <focalMechanism publicID=\"smi:local/ondes3d/focal_mechanism\">\n"
        "        <momentTensor publicID=\"smi:local/ondes3d/moment_tensor\">\n"
        "          <derivedOriginID>{0}</derivedOriginID>\n"
        "          {1}\n"
        "          <tensor>{2}{3}{4}{5}{6}{7}</tensor>\n"
        "        </momentTensor>\n"
        "      </focalMechanism>\n"
        "      <magnitude publicID=\"smi:local/ondes3d/magnitude\">\n"
        "        {8}\n        <type>Mw</type>\n        <originID>{0}</originID>\n"
        "      </magnitude>\n",
        kOriginId, value("scalarMoment", m0), value("Mrr", m[2]), value("Mtt", m[0]), value("Mpp", m[1]),
        value("Mrt", m[4]), value("Mrp", -m[5]), value("Mtp", -m[3]),
        value("mag", m0 > 0 ? moment_magnitude(m0) : 0.0));
  }
  ev += "    </event>\n";
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<q:quakeml xmlns=\"http://quakeml.org/xmlns/bed/1.2\" xmlns:q=\"http://quakeml.org/xmlns/quakeml/1.2\">\n"
         "  <eventParameters publicID=\"smi:local/ondes3d/catalog\">\n" +
         ev + "  </eventParameters>\n</q:quakeml>\n";
}

std::string station_xml(const Case& c, size_t station) {
  const Station& s = c.stations[station];
  const GeoPosition g = geographic(c.exports, s.position);
  const std::string place = fmt::format("<Latitude>{:.9f}</Latitude><Longitude>{:.9f}</Longitude><Elevation>0</Elevation>",
                                        g.latitude, g.longitude);
  std::string channels;
  const double az[3] = {0, 90, 0}, dip[3] = {0, 0, -90};
  for (int comp = 0; comp < 3; ++comp)
    channels += fmt::format(
        "      <Channel code=\"{}\" locationCode=\"\">\n"
        "        {}<Depth>{:.6f}</Depth><Azimuth>{}</Azimuth><Dip>{}</Dip>\n"
        "        <SampleRate>{:.9g}</SampleRate>\n"
        "      </Channel>\n",
        channel_code(c.time.dt, comp), place, g.depth, az[comp], dip[comp], 1.0 / c.time.dt);
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<FDSNStationXML xmlns=\"http://www.fdsn.org/xml/station/1\" schemaVersion=\"1.1\">\n"
      "  <Source>ondes3d</Source>\n"
      "  <Created>{0}</Created>\n"
      "  <Network code=\"{1}\">\n"
      "    <Station code=\"{2}\">\n"
      "      {3}\n"
      "      <Site><Name>{2} (x {4} m, y {5} m, z {6} m)</Name></Site>\n"
      "{7}"
      "    </Station>\n"
      "  </Network>\n"
      "</FDSNStationXML>\n",
      utc_iso(c.exports.origin_epoch), c.exports.network, xml_escape(s.name), place, s.position[0], s.position[1],
      s.position[2], channels);
}

std::string asdf_path(const Case& c) {
  return std::filesystem::path(c.output).replace_extension().string() + ".asdf.h5";
}
std::string sac_dir(const Case& c) { return std::filesystem::path(c.output).replace_extension().string() + "_sac"; }
std::string ondes3d_text_dir(const Case& c) {
  if (!c.exports.ondes3d_dir.empty()) return c.exports.ondes3d_dir;
  return std::filesystem::path(c.output).replace_extension().string() + "_obs";
}

void write_ondes3d_text(const std::string& dir, const Case& c, const std::vector<float>& seis, int steps) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir)) throw std::runtime_error(fmt::format("{}: cannot create the folder", dir));
  static const std::regex numbered(R"(obs\d+)");
  for (size_t s = 0; s < c.stations.size(); ++s) {
    const std::string& name = c.stations[s].name;
    const std::string file = std::regex_match(name, numbered) ? name : fmt::format("obs{}", s + 1);
    write_through(fmt::format("{}/{}.dat", dir, file), [&](const std::string& tmp) {
      std::FILE* f = std::fopen(tmp.c_str(), "w");
      if (!f) throw std::runtime_error(fmt::format("{}: cannot create", tmp));
      auto at = [&](int comp, int t) { return double(seis[(s * 3 + comp) * steps + t]); };
      for (int t = 0; t < steps; ++t)  // Ondes3D's x east, y north, z up from x north, y east, z down
        std::fprintf(f, "%d %15e %15e %15e \n", t + 1, at(1, t), at(0, t), 0.0 - at(2, t));  // 0 - v: no -0
      if (std::fclose(f) != 0) throw std::runtime_error(fmt::format("{}: write failed", tmp));
    });
  }
}

void write_asdf(const std::string& path, const Case& c, const std::vector<float>& seis, int steps) {
  write_through(path, [&](const std::string& tmp) {
    Id file{H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
    if (file < 0) throw std::runtime_error(fmt::format("{}: cannot create the ASDF file", path));
    attr_ascii(file, "file_format", "ASDF");
    attr_ascii(file, "file_format_version", "1.0.3");
    write_bytes(file, "QuakeML", quakeml(c));
    Id wf{H5Gcreate2(file, "Waveforms", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    Id prov{H5Gcreate2(file, "Provenance", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    Id aux{H5Gcreate2(file, "AuxiliaryData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    const double start = first_sample_epoch(c), end = start + (steps - 1) * c.time.dt;
    const int64_t start_ns = std::llround(start * 1e9);
    std::vector<float> trace(steps);
    for (size_t s = 0; s < c.stations.size(); ++s) {
      const std::string net_sta = c.exports.network + "." + c.stations[s].name;
      Id g{H5Gcreate2(wf, net_sta.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
      if (g < 0) throw std::runtime_error(fmt::format("{}: cannot create group {}", path, net_sta));
      write_bytes(g, "StationXML", station_xml(c, s));
      for (int comp = 0; comp < 3; ++comp) {
        for (int t = 0; t < steps; ++t) trace[t] = channel_sample(seis, s, comp, steps, t);
        const std::string name = fmt::format("{}..{}__{}__{}__synthetic", net_sta, channel_code(c.time.dt, comp),
                                             name_time(start), name_time(end));
        hsize_t n[1] = {static_cast<hsize_t>(steps)};
        Id space{H5Screate_simple(1, n, nullptr), H5Sclose};
        Id ds{H5Dcreate2(g, name.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
        check(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, trace.data()), name);
        attr_i64(ds, "starttime", start_ns);
        h5::attr_double(ds, "sampling_rate", 1.0 / c.time.dt);
        attr_ascii(ds, "event_id", kEventId);
        attr_ascii(ds, "origin_id", kOriginId);
      }
    }
  });
}

namespace {

// SAC's binary header (version 6): 70 floats, 40 integers, 23 text fields (kevnm 16 characters, the
// others 8) in 192 bytes; -12345 is "undefined". Little-endian, as ObsPy and SAC read it on x86.
struct SacHeader {
  float f[70];
  int32_t i[40];
  char k[192];
  SacHeader() {
    std::fill(std::begin(f), std::end(f), -12345.0f);
    std::fill(std::begin(i), std::end(i), -12345);
    for (int q = 0; q < 23; ++q) text(q == 0 ? 0 : q == 1 ? 8 : 8 * (q + 1), q == 1 ? 16 : 8, "-12345");
  }
  void text(int offset, int width, const std::string& s) {
    std::memset(k + offset, ' ', width);
    std::memcpy(k + offset, s.data(), std::min<size_t>(s.size(), width));
  }
};
static_assert(sizeof(SacHeader) == 632, "SAC header is 632 bytes");

enum SacF { kDelta = 0, kDepmin = 1, kDepmax = 2, kB = 5, kE = 6, kO = 7, kStla = 31, kStlo = 32, kStel = 33,
            kStdp = 34, kEvla = 35, kEvlo = 36, kEvdp = 38, kMag = 39, kDepmen = 56, kCmpaz = 57, kCmpinc = 58 };
enum SacI { kNzyear = 0, kNzjday = 1, kNzhour = 2, kNzmin = 3, kNzsec = 4, kNzmsec = 5, kNvhdr = 6, kNpts = 9,
            kIftype = 15, kIdep = 16, kIztype = 17, kLeven = 35, kLpspol = 36, kLovrok = 37, kLcalda = 38 };
enum SacK { kKstnm = 0, kKevnm = 8, kKcmpnm = 160, kKnetwk = 168 };

void set_reference_time(SacHeader& h, double epoch) {
  const double whole = std::floor(epoch);
  const time_t t = static_cast<time_t>(whole);
  std::tm u{};
  gmtime_r(&t, &u);
  h.i[kNzyear] = u.tm_year + 1900;
  h.i[kNzjday] = u.tm_yday + 1;
  h.i[kNzhour] = u.tm_hour;
  h.i[kNzmin] = u.tm_min;
  h.i[kNzsec] = u.tm_sec;
  h.i[kNzmsec] = static_cast<int32_t>(std::lround((epoch - whole) * 1000));
}

}  // namespace

void write_sac(const std::string& dir, const Case& c, const std::vector<float>& seis, int steps) {
  const EventSummary e = summarise(c);
  const GeoPosition ev = geographic(c.exports, e.hypocentre->position);
  write_through(dir, [&](const std::string& tmp) {
    std::filesystem::create_directory(tmp);
    std::vector<float> trace(steps);
    for (size_t s = 0; s < c.stations.size(); ++s) {
      const GeoPosition st = geographic(c.exports, c.stations[s].position);
      for (int comp = 0; comp < 3; ++comp) {
        for (int t = 0; t < steps; ++t) trace[t] = channel_sample(seis, s, comp, steps, t);
        SacHeader h;
        h.f[kDelta] = static_cast<float>(c.time.dt);
        h.f[kB] = static_cast<float>(0.5 * c.time.dt);  // relative to the reference time, origin_time
        h.f[kE] = static_cast<float>(0.5 * c.time.dt + (steps - 1) * c.time.dt);
        h.f[kO] = static_cast<float>(e.hypocentre->stf.t0);
        const auto [lo, hi] = std::minmax_element(trace.begin(), trace.end());
        h.f[kDepmin] = steps ? *lo : 0.0f;
        h.f[kDepmax] = steps ? *hi : 0.0f;
        double sum = 0;
        for (float v : trace) sum += v;
        h.f[kDepmen] = steps ? static_cast<float>(sum / steps) : 0.0f;
        h.f[kStla] = static_cast<float>(st.latitude);
        h.f[kStlo] = static_cast<float>(st.longitude);
        h.f[kStel] = 0.0f;
        h.f[kStdp] = static_cast<float>(st.depth);
        h.f[kEvla] = static_cast<float>(ev.latitude);
        h.f[kEvlo] = static_cast<float>(ev.longitude);
        h.f[kEvdp] = static_cast<float>(ev.depth);  // metres, as SAC's evdp
        if (e.has_moment && e.scalar_moment() > 0) h.f[kMag] = static_cast<float>(2.0 / 3.0 * (std::log10(e.scalar_moment()) - 9.1));
        h.f[kCmpaz] = comp == 1 ? 90.0f : 0.0f;
        h.f[kCmpinc] = comp == 2 ? 0.0f : 90.0f;  // from the vertical (up)
        set_reference_time(h, c.exports.origin_epoch);
        h.i[kNvhdr] = 6;
        h.i[kNpts] = steps;
        h.i[kIftype] = 1;   // ITIME
        h.i[kIdep] = 7;     // IVEL
        h.i[kIztype] = 5;  // IUNKN: the reference is origin_time, the event is at o
        h.i[kLeven] = 1;
        h.i[kLpspol] = 1;
        h.i[kLovrok] = 1;
        h.i[kLcalda] = 1;
        const std::string cha = channel_code(c.time.dt, comp);
        h.text(kKstnm, 8, c.stations[s].name);
        h.text(kKevnm, 16, "ondes3d");
        h.text(kKcmpnm, 8, cha);
        h.text(kKnetwk, 8, c.exports.network);
        const std::string file = fmt::format("{}/{}.{}..{}.sac", tmp, c.exports.network, c.stations[s].name, cha);
        std::ofstream out(file, std::ios::binary);
        out.write(reinterpret_cast<const char*>(&h), sizeof(h));
        out.write(reinterpret_cast<const char*>(trace.data()), sizeof(float) * trace.size());
        if (!out) throw std::runtime_error(fmt::format("{}: cannot write the SAC file", file));
      }
    }
  });
}

}  // namespace ondes
