// hopsim: run kernels of message-passing accelerators natively and on
// cycle-approximate SystemC models, side by side.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/family.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/interrupt.hpp"
#include "hopsim/core/log.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/program.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/core/strict_json.hpp"
#include "hopsim/studies/validate.hpp"
#include "hopsim/traces/error.hpp"
#include "hopsim/traces/export.hpp"
#include "hopsim/traces/import.hpp"
#include "hopsim/traces/reader.hpp"

namespace {

int cmd_run(const std::string& path, const std::optional<std::string>& mode, const std::vector<std::string>& sets,
            const std::optional<std::string>& out_dir, const std::optional<std::string>& level,
            const std::optional<std::string>& trace, const std::optional<std::string>& detail) {
  auto overrides = sets;
  if (out_dir) overrides.push_back("outputs.dir=\"" + *out_dir + "\"");
  if (trace) overrides.push_back("outputs.trace=\"" + *trace + "\"");
  if (detail) overrides.push_back("outputs.trace_detail=\"" + *detail + "\"");
  hopsim::catch_interrupts();
  const auto sc = hopsim::load_scenario(path, overrides, mode);
  hopsim::log::set_level(level ? *level : sc.log_level);
  return hopsim::runner_of(sc).run(sc).exit_code;
}

int cmd_trace_stats(const std::string& file, int top) {
  hopsim::traces::TraceReader r(file);
  const auto links = r.links();
  std::map<std::int64_t, const hopsim::traces::Link*> by_id;
  for (const auto& l : links) by_id[l.id] = &l;
  auto totals = r.link_totals();
  std::sort(totals.begin(), totals.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  std::int64_t bytes = 0, packets = 0;
  for (const auto& t : totals) {
    bytes += t.bytes;
    packets += t.packets;
  }
  const auto meta = r.meta();
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
  r.for_each_pe_state(-1e300, 1e300, [&](const hopsim::traces::PeStateSpan& s) {
    per_pe[s.pe][std::string(hopsim::traces::to_string(s.state))] += s.end - s.start;
  });
  if (!per_pe.empty()) {
    std::cout << "\nper PE (cycles waiting):\n";
    for (const auto& [pe, states] : per_pe) {
      std::string line = fmt::format("  PE {:>3}:", pe);
      for (const auto& [state, cycles] : states) line += fmt::format(" {} {:.0f}", state, cycles);
      std::cout << line << "\n";
    }
  }
  return r.complete() ? 0 : 3;
}

int cmd_trace_export(const std::string& file, const std::optional<std::string>& perfetto,
                     const std::optional<std::string>& csv, const std::optional<std::string>& out) {
  hopsim::traces::TraceReader r(file);
  if (!perfetto && !csv) throw hopsim::ConfigError("trace export: give --perfetto OUT.json or --csv TABLE");
  if (perfetto) {
    hopsim::AtomicFile f(*perfetto);
    hopsim::traces::export_perfetto(r, f.stream());
    f.commit();
    std::cout << "wrote " << *perfetto << "\n";
  }
  if (csv) {
    if (out) {
      hopsim::AtomicFile f(*out);
      hopsim::traces::export_csv(r, *csv, f.stream());
      f.commit();
    } else {
      hopsim::traces::export_csv(r, *csv, std::cout);
    }
  }
  return 0;
}

int cmd_validate(const std::string& result, const std::string& reference, double tolerance) {
  const auto sim = hopsim::studies::load_result_metrics(result);
  std::vector<hopsim::traces::ResultRow> ref;
  try {
    ref = hopsim::traces::import_reference_csv(reference);
  } catch (const hopsim::traces::ImportError& e) {
    throw hopsim::ConfigError(e.what());
  }
  const auto v = hopsim::studies::validate(sim, ref, tolerance);
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
  if (v.rows.empty()) throw hopsim::ConfigError(result + ": no simulated figure matches a row of " + reference);
  return beyond ? 3 : 0;
}

int cmd_import(const std::string& file, const std::string& format, const std::string& system,
               const std::string& output) {
  std::vector<hopsim::traces::ResultRow> rows;
  try {
    if (format == "reference") rows = hopsim::traces::import_reference_csv(file);
    if (format == "passing") rows = hopsim::traces::import_passing_csv(file, system);
    if (format == "hpcc") rows = hopsim::traces::import_hpcc_ring(file, system);
    if (format == "ham") rows = hopsim::traces::import_ham_offload(file, system);
  } catch (const hopsim::traces::ImportError& e) {
    throw hopsim::ConfigError(e.what());
  }
  std::string csv = "system,experiment,configuration,metric,value,unit,source\n";
  for (const auto& r : rows)
    csv += hopsim::csv_row(std::vector<std::string>{r.system, r.experiment, r.configuration, r.metric,
                                                    fmt::format("{}", r.value), r.unit, r.source});
  if (output.empty()) {
    std::cout << csv;
  } else {
    hopsim::write_file_atomic(output, csv);
    std::cout << fmt::format("{} rows from {} written to {}\n", rows.size(), file, output);
  }
  return 0;
}

void list_machines() {
  for (const auto& p : hopsim::list_presets()) {
    std::cout << fmt::format("{:<12} {:<10} {}\n", p.name, p.family, p.description);
  }
}

void list_families() {
  const auto presets = hopsim::list_presets();
  for (const auto* f : hopsim::families()) {
    std::vector<std::string> names;
    for (const auto& p : presets)
      if (p.family == f->name) names.push_back(p.name);
    std::cout << fmt::format("{:<10} {}\n{:<10} presets: {}\n", f->name, f->summary, "",
                             names.empty() ? "-" : fmt::format("{}", fmt::join(names, ", ")));
  }
}

void list_kernels() {
  for (const auto* k : hopsim::programs()) {
    std::cout << fmt::format("{:<12} {:<10} {}\n", k->name, k->family, k->description);
    for (const auto& a : k->args)
      std::cout << fmt::format("    {:<14} default {:<40} {}\n", a.name, a.default_value.dump(), a.help);
  }
  for (const auto* f : hopsim::families())
    if (f->print_programs) f->print_programs(std::cout);
}

int list_params(const std::string& preset_name) {
  if (preset_name.empty()) throw hopsim::ConfigError("list params: name a preset (hopsim list machines shows them)");
  const auto preset = hopsim::load_preset(preset_name, "preset");
  hopsim::find_family(preset.family, "preset " + preset_name).print_params(preset_name, std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hopsim: runs accelerator kernels natively and on cycle-approximate SystemC models"};
  app.set_version_flag("--version", fmt::format("hopsim {} ({})", hopsim::version(), hopsim::git_revision()));
  app.require_subcommand(1);

  auto* run = app.add_subcommand("run", "run a scenario (JSON file)");
  std::string scenario;
  std::optional<std::string> mode, out_dir, level;
  std::vector<std::string> sets;
  run->add_option("scenario", scenario, "scenario file")->required();
  run->add_option("--mode", mode, "sim, native or both (overrides the scenario)")
      ->check(CLI::IsMember({"sim", "native", "both"}));
  run->add_option("--set", sets, "override a scenario key, e.g. --set kernel.args.repeat=1000");
  run->add_option("--out", out_dir, "output folder (overrides outputs.dir)");
  run->add_option("--log-level", level, "trace, debug, info, warn, error, critical or off");
  std::optional<std::string> trace_file, trace_detail;
  run->add_option("--trace", trace_file, "write an SQLite trace of the simulated run (outputs.trace)");
  run->add_option("--trace-detail", trace_detail, "counters, transactions (default) or hops")
      ->check(CLI::IsMember({"counters", "transactions", "hops"}));

  auto* val = app.add_subcommand("validate", "compare a run's figures with published device measurements");
  std::string val_result, val_reference;
  double tolerance = 25;
  val->add_option("result", val_result, "results.json of a simulated run")->required();
  val->add_option("--against", val_reference,
                  "reference CSV (system,experiment,configuration,metric,value,unit,source)")
      ->required();
  val->add_option("--tolerance", tolerance, "allowed error in percent (default 25)")->check(CLI::NonNegativeNumber);

  auto* imp = app.add_subcommand("import", "convert real-device results into the reference CSV format");
  std::string imp_file, imp_format, imp_system, imp_output;
  imp->add_option("file", imp_file, "results file")->required();
  imp->add_option("--format", imp_format,
                  "reference (system,...,source CSV), passing (n,method,ticks), hpcc (ring bandwidth output) or ham "
                  "(benchmark_ham_offload output)")
      ->required()
      ->check(CLI::IsMember({"reference", "passing", "hpcc", "ham"}));
  imp->add_option("--system", imp_system, "system name for the rows (default: the format's own system)");
  imp->add_option("--output", imp_output, "CSV file (default: standard output)");

  auto* trace = app.add_subcommand("trace", "inspect or export a trace database");
  trace->require_subcommand(1);
  std::string trace_in;
  int top = 10;
  auto* stats = trace->add_subcommand("stats", "hottest links, per-PE breakdown, totals");
  stats->add_option("file", trace_in, "trace database")->required();
  stats->add_option("--top", top, "links to list")->check(CLI::PositiveNumber);
  std::optional<std::string> perfetto, csv_table, csv_out;
  auto* exp = trace->add_subcommand("export", "export to Chrome/Perfetto trace-event JSON or CSV");
  exp->add_option("file", trace_in, "trace database")->required();
  exp->add_option("--perfetto", perfetto, "write trace-event JSON here (open in ui.perfetto.dev)");
  exp->add_option("--csv", csv_table,
                  "table to write as CSV (nodes, links, transactions, hops, link_counters, pe_states, meta)");
  exp->add_option("--output", csv_out, "CSV file (default: standard output)");

  auto* list = app.add_subcommand("list", "list machines, kernels or a machine's parameters");
  std::string what;
  std::string preset;
  list->add_option("what", what, "machines, families, kernels or params")
      ->required()
      ->check(CLI::IsMember({"machines", "families", "kernels", "params"}));
  list->add_option("preset", preset, "machine preset (for params)");

  hopsim::Commands commands{app, {}};
  // Further subcommands register here (see commands.hpp).
  hopsim::cli::add_compare_commands(commands);
  hopsim::cli::add_curve_commands(commands);
  hopsim::cli::add_sweep_commands(commands);
  for (const auto* f : hopsim::families())
    if (f->commands) f->commands(commands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (auto& [sub, action] : commands.actions)
      if (sub->parsed()) return action();
    if (run->parsed()) return cmd_run(scenario, mode, sets, out_dir, level, trace_file, trace_detail);
    if (stats->parsed()) return cmd_trace_stats(trace_in, top);
    if (val->parsed()) return cmd_validate(val_result, val_reference, tolerance);
    if (imp->parsed()) return cmd_import(imp_file, imp_format, imp_system, imp_output);
    if (exp->parsed()) return cmd_trace_export(trace_in, perfetto, csv_table, csv_out);
    if (what == "machines") list_machines();
    if (what == "families") list_families();
    if (what == "kernels") list_kernels();
    if (what == "params") return list_params(preset);
    return 0;
  } catch (const hopsim::ConfigError& e) {
    std::cerr << "hopsim: error: " << e.what() << "\n";
    return 2;
  } catch (const hopsim::KernelError& e) {
    std::cerr << "\nhopsim: kernel error: " << e.what() << "\n";
    return 5;
  } catch (const hopsim::DeadlockError& e) {
    std::cerr << "\nhopsim: " << e.what() << "\n";
    return 6;
  } catch (const hopsim::traces::TraceError& e) {
    std::cerr << "hopsim: trace error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "\nhopsim: error: " << e.what() << "\n";
    return 1;
  }
}
