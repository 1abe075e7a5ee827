// `hopsim validate`, `hopsim import` and `hopsim trace stats|export`:
// options only; the work is in hopsim/studies/tools.hpp.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "hopsim/studies/tools.hpp"

namespace hopsim::cli {
namespace {

struct ValidateOptions {
  std::string result;
  std::vector<std::string> reference;
  double tolerance = 25;
};

struct ImportOptions {
  std::string file, format, system, output;
};

struct TraceOptions {
  std::string file;
  int top = 10;
  std::optional<std::string> perfetto, csv_table, csv_out;
};

void add_validate(Commands& c) {
  auto o = std::make_shared<ValidateOptions>();
  auto* val = c.app.add_subcommand("validate", "compare a run's figures with published device measurements");
  val->add_option("result", o->result, "results.json of a simulated run")->required();
  val->add_option("--against", o->reference,
                  "reference CSV (system,experiment,configuration,metric,value,unit,source); may be given more than "
                  "once, the rows of all count")
      ->required();
  val->add_option("--tolerance", o->tolerance, "allowed error in percent (default 25)")->check(finite_at_least(0));
  c.on(val, [o] { return studies::validate_results(o->result, o->reference, o->tolerance); });
}

void add_import(Commands& c) {
  auto o = std::make_shared<ImportOptions>();
  auto* imp = c.app.add_subcommand("import", "convert real-device results into the reference CSV format");
  imp->add_option("file", o->file, "results file")->required();
  imp->add_option("--format", o->format,
                  "reference (system,...,source CSV), passing (n,method,ticks), hpcc (ring bandwidth output), ham "
                  "(benchmark_ham_offload output) or pcie (pcie_probe output, a real PCIe device)")
      ->required()
      ->check(CLI::IsMember({"reference", "passing", "hpcc", "ham", "pcie"}));
  imp->add_option("--system", o->system,
                  "system name for the rows (required for hpcc and ham; passing and pcie have defaults)");
  imp->add_option("--output", o->output, "CSV file (default: standard output)");
  c.on(imp, [o] { return studies::import_results(o->file, o->format, o->system, o->output); });
}

void add_trace(Commands& c) {
  auto o = std::make_shared<TraceOptions>();
  auto* trace = c.app.add_subcommand("trace", "inspect or export a trace database");
  trace->require_subcommand(1);
  auto* stats = trace->add_subcommand("stats", "hottest links, per-PE breakdown, totals");
  stats->add_option("file", o->file, "trace database")->required();
  stats->add_option("--top", o->top, "links to list")->check(finite_at_least(1));
  c.on(stats, [o] { return studies::trace_stats(o->file, o->top); });
  auto* exp = trace->add_subcommand("export", "export for Perfetto (trace-event JSON or protobuf) or as CSV");
  exp->add_option("file", o->file, "trace database")->required();
  exp->add_option("--perfetto", o->perfetto,
                  "write the trace for ui.perfetto.dev here, in the format its extension names: .json (trace-event "
                  "JSON) or .perfetto-trace / .pftrace (Perfetto's protobuf, about 2.5 times smaller)");
  exp->add_option("--csv", o->csv_table,
                  "table to write as CSV (nodes, links, transactions, hops, link_counters, pe_states, meta)");
  exp->add_option("--output", o->csv_out, "CSV file (default: standard output)");
  c.on(exp, [o] { return studies::trace_export(o->file, o->perfetto, o->csv_table, o->csv_out); });
}

}  // namespace

void add_tool_commands(Commands& c) {
  add_validate(c);
  add_import(c);
  add_trace(c);
}

}  // namespace hopsim::cli
