// A TOML table of a case being read (io/case_reader): remembers which keys were used so that the
// rest can be reported as unknown (a typo is the commonest mistake), and names file, line and
// dotted key in every error (CaseError).
#pragma once
#include <fmt/format.h>
#include <toml++/toml.h>

#include <array>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "core/case_error.hpp"

namespace ondes {

class Section {
 public:
  Section(const toml::table& t, std::string file, std::string prefix)
      : t_(t), file_(std::move(file)), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const toml::node* n, const std::string& key, const std::string& msg) const {
    const auto& src = n ? n->source() : t_.source();
    throw CaseError(fmt::format("{}:{}: {}: {}", file_, src.begin.line, name(key), msg));
  }
  std::string name(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }
  bool has(const std::string& key) const { return t_.contains(key); }
  const toml::node* node(const std::string& key) {
    used_.insert(key);
    return t_.get(key);
  }
  const toml::node& required(const std::string& key) {
    const toml::node* n = node(key);
    if (!n) fail(nullptr, key, "missing (required)");
    return *n;
  }

  double number(const std::string& key, double lo, double hi, bool lo_open = false) {
    return checked(key, required(key), lo, hi, lo_open);
  }
  double number_or(const std::string& key, double def, double lo, double hi, bool lo_open = false) {
    const toml::node* n = node(key);
    return n ? checked(key, *n, lo, hi, lo_open) : def;
  }
  int integer(const std::string& key, long lo, long hi) { return checked_int(key, required(key), lo, hi); }
  int integer_or(const std::string& key, int def, long lo, long hi) {
    const toml::node* n = node(key);
    return n ? checked_int(key, *n, lo, hi) : def;
  }
  bool boolean_or(const std::string& key, bool def) {
    const toml::node* n = node(key);
    if (!n) return def;
    if (!n->is_boolean()) fail(n, key, "must be true or false");
    return **n->as_boolean();
  }
  std::string string(const std::string& key) {
    const toml::node& n = required(key);
    if (!n.is_string()) fail(&n, key, "must be a string");
    return **n.as_string();
  }
  std::string string_or(const std::string& key, const std::string& def) {
    return has(key) ? string(key) : def;
  }
  template <size_t N>
  std::array<double, N> vector(const std::string& key) {
    const toml::node& n = required(key);
    const toml::array* a = n.as_array();
    if (!a || a->size() != N) fail(&n, key, fmt::format("must be an array of {} numbers", N));
    std::array<double, N> v{};
    for (size_t i = 0; i < N; ++i) {
      auto x = (*a)[i].value<double>();
      if (!x || !std::isfinite(*x)) fail(&n, key, fmt::format("element {} is not a finite number", i));
      v[i] = *x;
    }
    return v;
  }
  Section table(const std::string& key) {
    const toml::node& n = required(key);
    if (!n.is_table()) fail(&n, key, "must be a table");
    return Section(*n.as_table(), file_, name(key));
  }
  // Elements of an array of tables ([[key]]); empty when absent.
  std::vector<Section> tables(const std::string& key) {
    std::vector<Section> out;
    const toml::node* n = node(key);
    if (!n) return out;
    const toml::array* a = n->as_array();
    if (!a) fail(n, key, "must be an array of tables ([[" + name(key) + "]])");
    for (size_t i = 0; i < a->size(); ++i) {
      const toml::table* t = (*a)[i].as_table();
      if (!t) fail(n, key, fmt::format("element {} is not a table", i));
      out.emplace_back(*t, file_, fmt::format("{}[{}]", name(key), i));
    }
    return out;
  }
  void reject_unknown() const {
    for (const auto& [k, v] : t_) {
      const std::string key(k.str());
      if (!used_.count(key)) fail(&v, key, "unknown key");
    }
  }
  const toml::node* self() const { return &t_; }
  // Each key of the table with its value as text: a string as it is, a boolean true / false, an
  // integer in decimal (other kinds fail), the key marked used.
  template <class Fn>
  void each_as_text(Fn&& fn) {
    for (const auto& [k, v] : t_) {
      const std::string key(k.str());
      used_.insert(key);
      if (v.is_string()) fn(key, &v, std::string(**v.as_string()));
      else if (v.is_boolean()) fn(key, &v, std::string(**v.as_boolean() ? "true" : "false"));
      else if (v.is_integer()) fn(key, &v, std::to_string(**v.as_integer()));
      else fail(&v, key, "must be a string, a boolean or an integer");
    }
  }

 private:
  double checked(const std::string& key, const toml::node& n, double lo, double hi, bool lo_open) {
    auto v = n.value<double>();
    if (!v || n.is_boolean() || n.is_string()) fail(&n, key, "must be a number");
    const bool below = lo_open ? !(*v > lo) : !(*v >= lo);
    if (!std::isfinite(*v) || below || *v > hi)
      fail(&n, key, fmt::format("{} is outside the allowed range {}{}, {}]", *v, lo_open ? "(" : "[", lo, hi));
    return *v;
  }
  int checked_int(const std::string& key, const toml::node& n, long lo, long hi) {
    if (!n.is_integer()) fail(&n, key, "must be an integer");
    const long v = static_cast<long>(**n.as_integer());
    if (v < lo || v > hi) fail(&n, key, fmt::format("{} is outside the allowed range [{}, {}]", v, lo, hi));
    return static_cast<int>(v);
  }

  const toml::table& t_;
  std::string file_, prefix_;
  std::set<std::string> used_;
};

}  // namespace ondes
