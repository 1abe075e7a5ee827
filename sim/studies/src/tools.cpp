// The result and trace tools behind `hopsim trace stats|export`,
// `hopsim validate` and `hopsim import`.
#include "hopsim/studies/tools.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/studies/validate.hpp"
#include "hopsim/traces/error.hpp"
#include "hopsim/traces/export.hpp"
#include "hopsim/traces/import.hpp"
#include "hopsim/traces/reader.hpp"

namespace hopsim::studies {

int trace_stats(const std::string& file, int top) {
  traces::TraceReader r(file);
  const auto links = r.links();
  std::map<std::int64_t, const traces::Link*> by_id;
  for (const auto& l : links) by_id[l.id] = &l;
  auto totals = r.link_totals();
  std::sort(totals.begin(), totals.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  std::int64_t bytes = 0, packets = 0;
  for (const auto& t : totals) {
    bytes += t.bytes;
    packets += t.packets;
  }
  const auto& meta = r.meta();
  auto get = [&](const char* k) {
    const auto it = meta.find(k);
    return it == meta.end() ? std::string("?") : it->second;
  };
  std::cout << fmt::format("trace {}: machine {}, mode {}, detail {}, {}\n", file, get("machine"), get("mode"),
                           get("detail"), r.complete() ? "complete" : "INCOMPLETE");
  std::cout << fmt::format("{} nodes, {} links, {} transactions, {} hops; {} packets, {} bytes over all links\n",
                           r.nodes().size(), links.size(), r.transaction_count(), r.hop_count(), packets, bytes);
  if (bytes == 0 && get("mode") == "native")
    std::cout << "(a native trace: transactions, PE states and launches; links are not observed natively)\n";
  std::cout << fmt::format("\nhottest links (by bytes):\n{:<8} {:<22} {:>12} {:>10} {:>12} {:>12}\n", "net", "link",
                           "bytes", "packets", "busy cyc", "stall cyc");
  for (std::size_t i = 0; i < totals.size() && static_cast<int>(i) < top; ++i) {
    const auto& t = totals[i];
    const auto* l = by_id.count(t.link) ? by_id[t.link] : nullptr;
    std::cout << fmt::format("{:<8} {:<22} {:>12} {:>10} {:>12.0f} {:>12.0f}\n", l ? l->net : "?", l ? l->name : "?",
                             t.bytes, t.packets, t.busy, t.stall);
  }
  std::map<std::int64_t, std::map<std::string, double>> per_pe;
  r.for_each_pe_state(-1e300, 1e300, [&](const traces::PeStateSpan& s) {
    per_pe[s.pe][std::string(traces::to_string(s.state))] += s.end - s.start;
  });
  // Counted compute: the instructions each PE ran (meta "instructions", by PE id).
  const auto instructions = r.instructions();
  for (const auto& [pe, n] : instructions) per_pe[pe];
  if (!per_pe.empty()) {
    std::map<std::int64_t, std::string> names;
    std::size_t width = 0;
    for (const auto& n : r.nodes()) {
      if (!per_pe.count(n.id)) continue;
      names[n.id] = n.name.empty() ? fmt::format("PE {}", n.id) : n.name;
      width = std::max(width, names[n.id].size());
    }
    std::cout << "\nper PE (cycles in each state):\n";
    for (const auto& [pe, states] : per_pe) {
      const auto name = names.count(pe) ? names[pe] : fmt::format("PE {}", pe);
      std::string line = fmt::format("  {:<{}}:", name, width);
      for (const auto& [state, cycles] : states) line += fmt::format(" {} {:.0f}", state, cycles);
      if (const auto n = instructions.find(pe); n != instructions.end())
        line += fmt::format("{} {} instructions", states.empty() ? "" : ",", n->second);
      std::cout << line << "\n";
    }
  }
  return r.complete() ? 0 : 3;
}

namespace {

// --perfetto's format from the file's extension: trace-event JSON or Perfetto's protobuf.
enum class PerfettoFormat { json, proto };

PerfettoFormat perfetto_format(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".json") return PerfettoFormat::json;
  if (ext == ".perfetto-trace" || ext == ".pftrace") return PerfettoFormat::proto;
  throw ConfigError(
      fmt::format("trace export: --perfetto {}: {} (use .json for trace-event JSON, or .perfetto-trace or .pftrace for "
                  "Perfetto's protobuf format)",
                  path, ext.empty() ? std::string("no extension") : fmt::format("unknown extension '{}'", ext)));
}

}  // namespace

int trace_export(const std::string& file, const std::optional<std::string>& perfetto,
                 const std::optional<std::string>& csv, const std::optional<std::string>& out) {
  if (!perfetto && !csv) throw ConfigError("trace export: give --perfetto OUT.json or --csv TABLE");
  const auto format = perfetto ? std::optional(perfetto_format(*perfetto)) : std::nullopt;
  traces::TraceReader r(file);
  if (perfetto) {
    AtomicFile f(*perfetto);
    if (format == PerfettoFormat::proto)
      traces::export_perfetto_proto(r, f.stream());
    else
      traces::export_perfetto(r, f.stream());
    f.commit();
    std::cout << "wrote " << *perfetto << "\n";
  }
  if (csv) {
    if (out) {
      AtomicFile f(*out);
      traces::export_csv(r, *csv, f.stream());
      f.commit();
    } else {
      traces::export_csv(r, *csv, std::cout);
    }
  }
  return 0;
}

int validate_results(const std::string& result, const std::vector<std::string>& references, double tolerance) {
  const auto sim = load_result_metrics(result);
  std::vector<traces::ResultRow> ref;
  for (const auto& file : references) {
    try {
      const auto rows = traces::import_reference_csv(file);
      ref.insert(ref.end(), rows.begin(), rows.end());
    } catch (const traces::ImportError& e) {
      throw ConfigError(e.what());
    }
  }
  const std::string reference = fmt::format("{}", fmt::join(references, ", "));
  const auto v = validate(sim, ref, tolerance);
  std::cout << fmt::format("validate {} against {} (tolerance {}%)\n", result, reference, tolerance);
  std::cout << fmt::format("{:<18} {:<10} {:<40} {:<16} {:>14} {:>14} {:>9}\n", "system", "experiment", "configuration",
                           "metric", "hopsim", "reference", "error");
  std::size_t beyond = 0;
  for (const auto& r : v.rows) {
    beyond += r.within ? 0 : 1;
    std::cout << fmt::format("{:<18} {:<10} {:<40} {:<16} {:>14.10g} {:>14.10g} {:>+8.2f}% {}\n", r.sim.system,
                             r.sim.experiment, r.sim.configuration, r.sim.metric, r.sim.value, r.ref.value, r.error_pct,
                             r.within ? "ok" : "BEYOND TOLERANCE");
  }
  for (const auto& p : v.predictions)
    std::cout << fmt::format("{:<18} {:<10} {:<40} {:<16} {:>14.10g} {:>14} {:>9} prediction\n", p.system, p.experiment,
                             p.configuration, p.metric, p.value, "-", "-");
  std::cout << fmt::format(
      "{} rows matched: {} within {}%, {} beyond; {} predictions without a reference; {} reference "
      "rows without a simulated figure\n",
      v.rows.size(), v.rows.size() - beyond, tolerance, beyond, v.predictions.size(), v.unmatched_refs);
  if (v.rows.empty()) throw ConfigError(result + ": no simulated figure matches a row of " + reference);
  return beyond ? 3 : 0;
}

int import_results(const std::string& file, const std::string& format, const std::string& system,
                   const std::string& output) {
  std::vector<traces::ResultRow> rows;
  // hpcc and HAM-Offload outputs do not say which machine they ran on, and validate matches rows by system.
  if ((format == "hpcc" || format == "ham") && system.empty())
    throw ConfigError(
        fmt::format("import --format {}: give --system NAME, the machine the output was measured on "
                    "(validate matches rows by system; e.g. {})",
                    format, format == "ham" ? "xeonphi-knc" : "power6-32way"));
  try {
    if (format == "reference") rows = traces::import_reference_csv(file);
    if (format == "passing") rows = traces::import_passing_csv(file, system);
    if (format == "hpcc") rows = traces::import_hpcc_ring(file, system);
    if (format == "ham") rows = traces::import_ham_offload(file, system);
    if (format == "pcie") rows = traces::import_pcie_probe(file, system);
  } catch (const traces::ImportError& e) {
    throw ConfigError(e.what());
  }
  std::string csv = "system,experiment,configuration,metric,value,unit,source\n";
  for (const auto& r : rows)
    csv += csv_row(std::vector<std::string>{r.system, r.experiment, r.configuration, r.metric,
                                            fmt::format("{}", r.value), r.unit, r.source});
  if (output.empty()) {
    std::cout << csv;
  } else {
    write_file_atomic(output, csv);
    std::cout << fmt::format("{} rows from {} written to {}\n", rows.size(), file, output);
  }
  return 0;
}

}  // namespace hopsim::studies
