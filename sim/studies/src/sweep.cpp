// hopsim sweep: the cartesian product of swept scenario keys, one result
// table, resumable, with progress; split across MPI ranks when launched by
// mpirun (docs/traffic.md, "Sweeps").
//
// A point is a set of key=value assignments applied to a base scenario:
//  * kind "traffic": a traffic scenario, run in this process (the traffic
//    model does not use SystemC);
//  * kind "run": a `hopsim run` scenario, run as a child process of this
//    binary (SystemC elaborates once per process).
// Each finished point is written atomically to OUT/points/NNNNN.json with
// its identity (kind, base scenario, assignments); a later sweep with the
// same identity skips it. The table is OUT/results.csv.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "hopsim/studies/sweep.hpp"

#include "stats.hpp"

#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/process.hpp"
#include "hopsim/core/program.hpp"
#include "hopsim/core/progress.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/core/strict_json.hpp"
#include "hopsim/network/model/scenario.hpp"
#include "hopsim/network/model/traffic.hpp"

#ifdef HOPSIM_HAVE_MPI
// NOLINTBEGIN(cppcoreguidelines-macro-usage): mpi.h reads these macros
#define OMPI_SKIP_MPICXX 1  // the C API only
#define MPICH_SKIP_MPICXX 1
// NOLINTEND(cppcoreguidelines-macro-usage)
#include <mpi.h>
#endif

namespace hopsim::studies {

namespace fs = std::filesystem;

namespace {

struct Axis {
  std::string key;
  std::vector<nlohmann::json> values;
};

struct Point {
  std::size_t index = 0;
  std::vector<std::pair<std::string, nlohmann::json>> values;  // key, value
  std::vector<std::string> overrides() const {
    std::vector<std::string> o;
    for (const auto& [k, v] : values) o.push_back(k + "=" + v.dump());
    return o;
  }
  std::string label() const {
    std::string s;
    for (const auto& [k, v] : values) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, cell(v));
    return s;
  }
  static std::string cell(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }
};

// A point's result: named columns and one or more rows of cells.
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  nlohmann::json to_json() const { return {{"columns", columns}, {"rows", rows}}; }
  static Table from_json(const nlohmann::json& j) {
    Table t;
    t.columns = j.at("columns").get<std::vector<std::string>>();
    t.rows = j.at("rows").get<std::vector<std::vector<std::string>>>();
    return t;
  }
};

std::string num(double v) { return fmt::format("{}", v); }

// Ranks of one sweep may finish the same point: each writes its own partial file.
void write_atomic(const fs::path& path, const std::string& text) { write_file_atomic(path, text, true); }

// Removes the partial point files (NAME.partial.HOST.PID) that an earlier
// run killed while writing left behind: written on this host before this run
// started, by a process that no longer exists. Files of live processes stay,
// and so do those of other hosts (ranks of this sweep, or another sweep,
// writing into a shared folder): this host cannot tell whether they live.
void remove_stale_partials(const fs::path& points, fs::file_time_type started) {
  const std::string host = partial_host();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(points, ec)) {
    const std::string name = e.path().filename().string();
    const auto at = name.rfind(".partial.");
    if (at == std::string::npos) continue;
    const std::string owner = name.substr(at + 9);  // HOST.PID
    const auto dot = owner.rfind('.');
    if (dot == std::string::npos || owner.compare(0, dot, host) != 0) continue;
    pid_t pid = 0;
    const char* first = owner.data() + dot + 1;
    const char* last = owner.data() + owner.size();
    const auto [end, err] = std::from_chars(first, last, pid);
    if (err != std::errc() || end != last || pid <= 0) continue;
    if (pid == ::getpid() || (::kill(pid, 0) == 0 || errno != ESRCH)) continue;
    const auto written = fs::last_write_time(e.path(), ec);
    if (!ec && written < started) fs::remove(e.path(), ec);
  }
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw ConfigError(p.string() + ": cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Splits "v1,v2,[1,2],{...}" at top-level commas.
std::vector<std::string> split_values(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  bool quoted = false;
  for (char c : s) {
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == '[' || c == '{')) ++depth;
    if (!quoted && (c == ']' || c == '}')) --depth;
    if (c == ',' && depth == 0 && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// "low:high:step": appends the inclusive numeric range to `a` and returns
// true; false when `text` is not of that form.
bool add_range(Axis& a, const std::string& text, const std::string& where) {
  const auto c1 = text.find(':'), c2 = text.rfind(':');
  if (c1 == std::string::npos || c2 == c1) return false;
  double lo = 0, hi = 0, step = 0;
  try {
    std::size_t u1 = 0, u2 = 0, u3 = 0;
    const std::string sa = text.substr(0, c1), sb = text.substr(c1 + 1, c2 - c1 - 1), ss = text.substr(c2 + 1);
    lo = std::stod(sa, &u1);
    hi = std::stod(sb, &u2);
    step = std::stod(ss, &u3);
    if (u1 != sa.size() || u2 != sb.size() || u3 != ss.size()) return false;
  } catch (const std::invalid_argument&) {
    return false;
  } catch (const std::out_of_range&) {
    return false;
  }
  if (!(step > 0) || !(hi >= lo)) throw ConfigError(where + ": range " + text + " needs low <= high and a step > 0");
  if ((hi - lo) / step > 100000)
    throw ConfigError(where + ": range " + text + " has more than 100000 values (raise the step)");
  const auto n = static_cast<long>(std::floor((hi - lo) / step + 1e-9));
  // Whole bounds and step give whole values, as integers (for keys such as traffic.seed).
  auto whole = [](double x) { return std::abs(x) < 9e15 && std::floor(x) == x; };
  const bool integers = whole(lo) && whole(hi) && whole(step);
  for (long i = 0; i <= n; ++i) {
    const double v = lo + static_cast<double>(i) * step;
    if (integers)
      a.values.emplace_back(static_cast<std::int64_t>(v));
    else
      a.values.emplace_back(std::round(v * 1e12) / 1e12);  // 0.1 + 2 * 0.1 prints as 0.3
  }
  return true;
}

// One --sweep value: JSON if it parses, "a:b:step" as an inclusive numeric range, else a string.
void add_value(Axis& a, const std::string& text, const std::string& where) {
  if (text.empty()) throw ConfigError(where + ": empty value");
  try {
    a.values.push_back(nlohmann::json::parse(text));
    return;
  } catch (const nlohmann::json::exception&) {
  }
  if (!add_range(a, text, where)) a.values.emplace_back(text);
}

Axis parse_sweep_option(const std::string& opt) {
  const auto eq = opt.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--sweep " + opt + ": expected key=v1,v2,... (e.g. traffic.load=0.1,0.2)");
  Axis a{opt.substr(0, eq), {}};
  for (const auto& v : split_values(opt.substr(eq + 1))) add_value(a, v, "--sweep " + a.key);
  return a;
}

#ifdef HOPSIM_HAVE_MPI
// MPI only when launched by mpirun, so a plain hopsim never initialises it.
struct Mpi {
  bool active = false;
  int rank = 0, size = 1;
  Mpi() {
    if (!std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMI_SIZE") && !std::getenv("PMIX_RANK")) return;
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) MPI_Init(nullptr, nullptr);
    active = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  ~Mpi() {
    if (active) MPI_Finalize();
  }
  Mpi(const Mpi&) = delete;
  Mpi& operator=(const Mpi&) = delete;
  // Every rank's text, in rank order, on rank 0 (empty elsewhere).
  std::vector<std::string> gather(const std::string& mine) const {
    if (!active) return {mine};
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(static_cast<std::size_t>(size)), offs(static_cast<std::size_t>(size));
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string all;
    if (rank == 0) {
      int total = 0;
      for (int r = 0; r < size; ++r) {
        offs[static_cast<std::size_t>(r)] = total;
        total += lens[static_cast<std::size_t>(r)];
      }
      all.resize(static_cast<std::size_t>(total));
    }
    MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    std::vector<std::string> out;
    if (rank == 0)
      for (int r = 0; r < size; ++r)
        out.push_back(all.substr(static_cast<std::size_t>(offs[static_cast<std::size_t>(r)]),
                                 static_cast<std::size_t>(lens[static_cast<std::size_t>(r)])));
    return out;
  }
};
#else
struct Mpi {
  bool active = false;
  int rank = 0, size = 1;
  Mpi() {
    if (std::getenv("OMPI_COMM_WORLD_SIZE") && std::string(std::getenv("OMPI_COMM_WORLD_SIZE")) != "1")
      throw ConfigError("hopsim sweep: launched by mpirun, but this hopsim was built without MPI (libopenmpi-dev)");
  }
  std::vector<std::string> gather(const std::string& mine) const { return {mine}; }
};
#endif

// Every key of a sweep file (docs/traffic.md, "Sweeps"); the reader accepts exactly these.
constexpr std::array<ScenarioKey, 5> kSweepKeys = {{
    {"kind", "string", "\"traffic\"",
     "traffic (each point a traffic scenario, in process) or run (each point a hopsim run scenario, a child "
     "process); --kind"},
    {"scenario", "path or object", "required",
     "the base scenario, relative to the sweep file's folder; kind traffic also takes the scenario itself; "
     "--scenario"},
    {"sweep", "object", "{}", "swept keys: {\"KEY\": [v1, v2, ...]} or \"low:high:step\"; --sweep KEY=v1,v2"},
    {"sweep.*", "list", "-", "one swept key of the base scenario, e.g. traffic.load; the first key varies slowest"},
    {"out", "path", "\"out/NAME\"", "the results folder, relative to the sweep file's folder; --out"},
}};

class Sweep {
 public:
  explicit Sweep(const SweepOptions& o) : o_(o) {
    nlohmann::ordered_json file = nlohmann::ordered_json::object();
    fs::path base_dir = fs::current_path();
    if (!o.file.empty()) {
      const std::string path = find_data_file(o.file, "sweep file");
      const std::string text = read_text(path);
      (void)parse_json_text(text, path);  // syntax errors with a line number
      file = nlohmann::ordered_json::parse(text);
      if (!file.is_object()) throw ConfigError(path + ": expected a JSON object");
      const auto known = key_names(kSweepKeys, "");
      for (const auto& [k, v] : file.items())
        if (std::find(known.begin(), known.end(), k) == known.end())
          throw ConfigError(fmt::format("{}: {}: unknown key (known keys: {})", path, k, fmt::join(known, ", ")));
      base_dir = fs::absolute(path).parent_path();
    }
    if (file.contains("kind") && !file["kind"].is_string()) throw ConfigError("kind: expected \"traffic\" or \"run\"");
    if (file.contains("out") && !file["out"].is_string()) throw ConfigError("out: expected a folder name");
    kind_ = !o.kind.empty() ? o.kind : file.contains("kind") ? file["kind"].get<std::string>() : "traffic";
    if (kind_ != "traffic" && kind_ != "run")
      throw ConfigError(fmt::format("kind: expected \"traffic\" or \"run\", got \"{}\"", kind_));
    // The base scenario.
    if (!o.scenario.empty()) {
      scenario_path_ = fs::absolute(find_data_file(o.scenario, "--scenario")).string();
    } else if (file.contains("scenario")) {
      if (file["scenario"].is_string()) {
        scenario_path_ = (base_dir / file["scenario"].get<std::string>()).lexically_normal().string();
      } else if (file["scenario"].is_object() && kind_ == "traffic") {
        base_ = nlohmann::json::parse(file["scenario"].dump());
      } else {
        throw ConfigError("scenario: expected a file name (or, for kind traffic, a traffic scenario object)");
      }
    }
    if (kind_ == "run" && scenario_path_.empty())
      throw ConfigError("scenario: a sweep of kind run needs a hopsim run scenario file (--scenario FILE)");
    if (kind_ == "traffic" && !scenario_path_.empty()) base_ = read_json_file(scenario_path_);
    if (kind_ == "traffic" && !base_.is_object()) throw ConfigError("scenario: expected a traffic scenario object");
    identity_base_ = kind_ + "|" + (kind_ == "run" ? scenario_path_ + "|" + read_text(scenario_path_) : base_.dump());
    if (o.seeds < 1 || o.seeds > 1000) throw ConfigError(fmt::format("--seeds {}: must be in 1..1000", o.seeds));
    if (o.seeds > 1 && kind_ != "traffic")
      throw ConfigError("--seeds: only for traffic sweeps (a run's results do not depend on its seed)");
    if (o.seeds > 1) identity_base_ += fmt::format("|seeds={}", o.seeds);
    // Axes: the file's, then the options' (an option replaces a file axis of the same key).
    if (file.contains("sweep")) {
      if (!file["sweep"].is_object()) throw ConfigError("sweep: expected an object of key: [values]");
      for (const auto& [k, v] : file["sweep"].items()) {
        Axis a{k, {}};
        if (v.is_array()) {
          for (const auto& e : v) a.values.push_back(nlohmann::json::parse(e.dump()));
        } else if (v.is_string() && add_range(a, v.get<std::string>(), "sweep." + k)) {  // "low:high:step"
        } else {
          a.values.push_back(nlohmann::json::parse(v.dump()));
        }
        if (a.values.empty()) throw ConfigError("sweep." + k + ": no values");
        axes_.push_back(std::move(a));
      }
    }
    for (const auto& s : o.sweeps) {
      auto a = parse_sweep_option(s);
      auto it = std::find_if(axes_.begin(), axes_.end(), [&](const Axis& x) { return x.key == a.key; });
      if (it != axes_.end()) {
        *it = std::move(a);
      } else {
        axes_.push_back(std::move(a));
      }
    }
    if (axes_.empty()) throw ConfigError("nothing to sweep: give a sweep file with \"sweep\" or --sweep key=v1,v2");
    // The results folder: --out (current folder), the file's "out" (the file's folder), else out/NAME in
    // the current folder (NAME: the sweep file's name without .json, or "sweep").
    out_ = !o.out.empty()         ? o.out
           : file.contains("out") ? file["out"].get<std::string>()
           : o.file.empty()       ? std::string("out/sweep")
                                  : "out/" + fs::path(o.file).stem().string();
    if (o.out.empty() && file.contains("out")) out_ = (base_dir / out_).lexically_normal().string();
    expand();
    check();
  }

  int run(const Mpi& mpi) {
    const auto started = fs::file_time_type::clock::now();
    make_output_folder(fs::path(out_) / "points", "--out");
    remove_stale_partials(fs::path(out_) / "points", started);
    // Points already done (same identity) are skipped.
    std::map<std::size_t, Table> results;
    std::vector<std::size_t> todo;
    for (const auto& p : points_) {
      if (!o_.fresh) {
        if (auto t = load_point(p)) {
          results.emplace(p.index, std::move(*t));
          continue;
        }
      }
      todo.push_back(p.index);
    }
    if (mpi.rank == 0 && !results.empty())
      std::cerr << fmt::format("sweep: {} of {} points already done in {}, skipped\n", results.size(), points_.size(),
                               out_);
    // Round-robin over ranks.
    std::vector<std::size_t> mine;
    for (std::size_t i = 0; i < todo.size(); ++i)
      if (static_cast<int>(i % static_cast<std::size_t>(mpi.size)) == mpi.rank) mine.push_back(todo[i]);
    if (mpi.active && mpi.rank == 0)
      std::cerr << fmt::format("sweep: {} points over {} ranks, {} on rank 0\n", todo.size(), mpi.size, mine.size());
    Progress progress(mpi.active ? "rank 0: sweep:" : "sweep:", mine.size(),
                      mpi.rank == 0 ? progress_mode() : ProgressMode::off);
    std::size_t finished = 0;
    nlohmann::json done_here = nlohmann::json::array();
    for (auto i : mine) {
      const Point& p = points_[i];
      nlohmann::json entry = {{"index", i}};
      try {
        const Table t = run_point(p);
        save_point(p, t);
        entry["table"] = t.to_json();
      } catch (const std::exception& e) {
        entry["error"] = e.what();
      }
      progress.update(++finished, p.label() + (entry.contains("error") ? " FAILED" : ""));
      done_here.push_back(std::move(entry));
    }
    // Gather on rank 0.
    const auto all = mpi.gather(done_here.dump());
    if (mpi.rank != 0) return 0;
    std::vector<std::string> failures;
    for (const auto& text : all)
      for (const auto& e : nlohmann::json::parse(text)) {
        const auto i = e["index"].get<std::size_t>();
        if (e.contains("error")) {
          failures.push_back(fmt::format("point {} ({}): {}", i, points_[i].label(), e["error"].get<std::string>()));
        } else {
          const Table t = Table::from_json(e["table"]);
          if (mpi.active) save_point(points_[i], t);  // rank 0 holds every result even without a shared folder
          results.emplace(i, t);
        }
      }
    write_table(results);
    for (const auto& f : failures) std::cerr << "hopsim: sweep: " << f << "\n";
    if (!failures.empty()) {
      std::cerr << fmt::format("hopsim: sweep: {} of {} points failed; run the sweep again to retry them\n",
                               failures.size(), points_.size());
      return 1;
    }
    return 0;
  }

 private:
  void expand() {
    std::size_t total = 1;
    for (const auto& a : axes_) {
      total *= a.values.size();
      if (total > 1000000) throw ConfigError("sweep: more than a million points");
    }
    for (std::size_t i = 0; i < total; ++i) {
      Point p;
      p.index = i;
      std::size_t rest = i;
      // The first axis varies slowest.
      std::vector<std::size_t> pick(axes_.size());
      for (std::size_t k = axes_.size(); k-- > 0;) {
        pick[k] = rest % axes_[k].values.size();
        rest /= axes_[k].values.size();
      }
      for (std::size_t k = 0; k < axes_.size(); ++k) p.values.emplace_back(axes_[k].key, axes_[k].values[pick[k]]);
      points_.push_back(std::move(p));
    }
  }

  void load(const std::vector<std::string>& overrides) const {
    if (kind_ == "traffic") {
      nlohmann::json doc = base_;
      for (const auto& o : overrides) apply_override(doc, o);
      (void)network::model::load_traffic_scenario(doc, "sweep point");
    } else {
      const auto sc = load_scenario(scenario_path_, overrides, std::nullopt);
      // Built-in kernels check their arguments here (kernel libraries when they load, in the child).
      if (sc.kernel_library.empty()) (void)hopsim::resolve_args(find_program(sc.kernel), sc.kernel_args);
    }
  }

  // Every key exists and every point is a valid scenario, before anything runs.
  void check() const {
    for (const auto& a : axes_) {
      try {
        load({a.key + "=" + a.values.front().dump()});
      } catch (const ConfigError& e) {
        throw ConfigError(fmt::format("sweep key '{}': {}", a.key, e.what()));
      }
    }
    for (const auto& p : points_) {
      try {
        load(p.overrides());
      } catch (const ConfigError& e) {
        throw ConfigError(fmt::format("sweep point {}: {}", p.label(), e.what()));
      }
    }
  }

  std::string identity(const Point& p) const {
    std::string s = identity_base_;
    for (const auto& o : p.overrides()) s += "|" + o;
    return s;
  }
  fs::path point_file(const Point& p) const { return fs::path(out_) / "points" / fmt::format("{:06}.json", p.index); }

  std::optional<Table> load_point(const Point& p) const {
    std::error_code ec;
    if (!fs::exists(point_file(p), ec)) return std::nullopt;
    try {
      const auto j = nlohmann::json::parse(read_text(point_file(p)));
      if (j.at("identity").get<std::string>() != identity(p)) return std::nullopt;
      return Table::from_json(j.at("result"));
    } catch (const std::exception&) {
      return std::nullopt;  // unreadable: run it again
    }
  }
  void save_point(const Point& p, const Table& t) const {
    nlohmann::json values = nlohmann::json::object();
    for (const auto& [k, v] : p.values) values[k] = v;
    const nlohmann::json j = {{"identity", identity(p)}, {"values", values}, {"result", t.to_json()}};
    write_atomic(point_file(p), j.dump(1) + "\n");
  }

  Table run_point(const Point& p) const {
    if (kind_ == "traffic") {
      nlohmann::json doc = base_;
      for (const auto& o : p.overrides()) apply_override(doc, o);
      const auto sc = network::model::load_traffic_scenario(doc, "sweep point");
      if (o_.seeds == 1) return traffic_table(network::model::run_traffic(sc.config));
      // Over the seeds: each column's mean and its 95% interval; saturated: how many seeds.
      std::vector<Table> runs;
      for (int k = 0; k < o_.seeds; ++k) {
        auto c = sc.config;
        c.seed += static_cast<std::uint64_t>(k);
        runs.push_back(traffic_table(network::model::run_traffic(c)));
      }
      Table t;
      std::vector<std::string> row;
      for (std::size_t c = 0; c < runs.front().columns.size(); ++c) {
        const std::string& name = runs.front().columns[c];
        std::vector<double> v;
        v.reserve(runs.size());
        for (const auto& r : runs) v.push_back(std::stod(r.rows.front()[c]));
        const auto iv = interval(v);
        if (name == "saturated") {
          t.columns.push_back(name);
          row.push_back(num(iv.mean * static_cast<double>(v.size())));
          continue;
        }
        t.columns.push_back(name);
        row.push_back(num(iv.mean));
        t.columns.push_back(name + "_ci95");
        row.push_back(num(iv.half));
      }
      t.rows.push_back(std::move(row));
      return t;
    }
    return run_child(p);
  }

  // One traffic run's row.
  static Table traffic_table(const network::model::TrafficResult& r) {
    const auto j = network::model::result_json(r);
    Table t;
    t.columns = {"offered",
                 "accepted",
                 "avg_latency",
                 "p50_latency",
                 "p99_latency",
                 "avg_network_latency",
                 "avg_hops",
                 "avg_zero_load",
                 "max_link_utilisation",
                 "mean_link_utilisation",
                 "packets",
                 "saturated"};
    std::vector<std::string> row;
    for (const auto& c : t.columns) {
      const auto& v = j[c];
      row.push_back(v.is_boolean()           ? (v.get<bool>() ? "1" : "0")
                    : v.is_number_unsigned() ? std::to_string(v.get<std::uint64_t>())
                                             : num(v.get<double>()));
    }
    t.rows.push_back(std::move(row));
    return t;
  }

  // A `hopsim run` point: this binary as a child process, results.csv read back.
  Table run_child(const Point& p) const {
    const fs::path dir = fs::absolute(fs::path(out_) / "runs" / fmt::format("{:06}", p.index));
    fs::create_directories(dir);
    std::vector<std::string> args = {"/proc/self/exe", "run",  scenario_path_, "--out", dir.string(),
                                     "--log-level",    "warn", "--progress",   "off"};
    for (const auto& o : p.overrides()) {
      args.emplace_back("--set");
      args.push_back(o);
    }
    args.emplace_back("--set");
    args.emplace_back("outputs.csv=true");
    const std::string log = (dir / "log.txt").string();
    const auto child = hopsim::run_child(args, log, true);
    if (child.exit_code != 0) {
      std::string tail = read_text(log);
      if (tail.size() > 400) tail = "..." + tail.substr(tail.size() - 400);
      throw Error(fmt::format("hopsim run exited with {} (log {}): {}", child.exit_code, log, tail));
    }
    std::istringstream csv(read_text(dir / "results.csv"));
    Table t;
    std::string line;
    auto split = [](const std::string& l) {
      std::vector<std::string> f;
      std::string cur;
      for (char c : l) {
        if (c == ',') {
          f.push_back(cur);
          cur.clear();
        } else if (c != '\r') {
          cur += c;
        }
      }
      f.push_back(cur);
      return f;
    };
    if (std::getline(csv, line)) t.columns = split(line);
    while (std::getline(csv, line))
      if (!line.empty()) t.rows.push_back(split(line));
    if (t.columns.empty()) throw Error("hopsim run wrote an empty results.csv in " + dir.string());
    return t;
  }

  void write_table(const std::map<std::size_t, Table>& results) const {
    std::vector<std::string> cols;
    for (const auto& a : axes_) cols.push_back(a.key);
    const std::size_t nkeys = cols.size();
    // A result column named like a swept key (a run's "mode") is shown as "result.mode".
    auto result_name = [&](const std::string& c) {
      return std::find(cols.begin(), cols.begin() + static_cast<std::ptrdiff_t>(nkeys), c) !=
                     cols.begin() + static_cast<std::ptrdiff_t>(nkeys)
                 ? "result." + c
                 : c;
    };
    for (const auto& [i, t] : results)
      for (const auto& c : t.columns)
        if (std::find(cols.begin() + static_cast<std::ptrdiff_t>(nkeys), cols.end(), result_name(c)) == cols.end())
          cols.push_back(result_name(c));
    std::vector<std::vector<std::string>> rows;
    for (const auto& [i, t] : results)
      for (const auto& r : t.rows) {
        std::vector<std::string> row;
        for (const auto& [k, v] : points_[i].values) row.push_back(Point::cell(v));
        for (std::size_t c = nkeys; c < cols.size(); ++c) {
          const auto it = std::find_if(t.columns.begin(), t.columns.end(),
                                       [&](const std::string& x) { return result_name(x) == cols[c]; });
          const auto k = static_cast<std::size_t>(it - t.columns.begin());
          row.push_back(it != t.columns.end() && k < r.size() ? r[k] : "");
        }
        rows.push_back(std::move(row));
      }
    std::string csv = csv_row(cols);
    for (const auto& r : rows) csv += csv_row(r);
    const fs::path path = fs::path(out_) / "results.csv";
    write_atomic(path, csv);
    // Terminal: numbers shortened to 5 significant digits.
    auto show = [](const std::string& s) {
      try {
        std::size_t used = 0;
        const double v = std::stod(s, &used);
        if (used == s.size() && s.find_first_of(".eE") != std::string::npos) return fmt::format("{:.5g}", v);
      } catch (const std::exception&) {
      }
      return s;
    };
    std::vector<std::size_t> width(cols.size());
    for (std::size_t c = 0; c < cols.size(); ++c) width[c] = cols[c].size();
    for (const auto& r : rows)
      for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], show(r[c]).size());
    for (std::size_t c = 0; c < cols.size(); ++c) std::cout << fmt::format("{:>{}} ", cols[c], width[c]);
    std::cout << "\n";
    for (const auto& r : rows) {
      for (std::size_t c = 0; c < r.size(); ++c) std::cout << fmt::format("{:>{}} ", show(r[c]), width[c]);
      std::cout << "\n";
    }
    std::cout << fmt::format("{} points, {} rows: {}\n", results.size(), rows.size(), path.string());
  }

  SweepOptions o_;
  std::string kind_, scenario_path_, out_, identity_base_;
  nlohmann::json base_ = nlohmann::json::object();
  std::vector<Axis> axes_;
  std::vector<Point> points_;
};

}  // namespace

std::span<const ScenarioKey> sweep_file_keys() { return kSweepKeys; }

int run_sweep(const SweepOptions& o) {
  Mpi mpi;
  Sweep s(o);
  return s.run(mpi);
}

}  // namespace hopsim::studies
