#pragma once
// The hopsim host subcommands (calibrate, ring, simulate, predict) and the
// host family's scenario run, with the ring options and the native and
// simulated ring runs they share. Internal to the host family: family.cpp
// registers them.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hopsim/core/report.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/host/model/model.hpp"
#include "hopsim/host/model/profile.hpp"
#include "hopsim/host/node.hpp"
#include "hopsim/host/ring.hpp"

namespace hopsim::host::commands {

// The options of hopsim host ring, simulate and predict.
struct RingArgs {
  std::vector<int> procs{2, 4, 8};
  std::vector<std::string> sizes{"4KiB", "64KiB", "1MiB", "4MiB"};
  std::string sizes_key = "--sizes";  // what a bad size is reported as (a scenario: kernel.args.sizes)
  std::vector<std::string> transports{"double-copy", "cma", "zero-copy"};
  std::string order = "natural";
  bool two_way = false;  // hpcc's pattern: each step a message each way (RingOptions::two_way)
  std::uint64_t seed = 1;
  int reps = 3;
  std::string bytes = "16MiB";
  int min_steps = 16;
  bool remap = false;
  std::string chunk = "64KiB";  // double copy: bounce-buffer slot size
  int slots = 4;                // double copy: slots per channel
  int cma_buffers = 4;          // CMA: send buffers from the transport (0: rendezvous)
  bool deny_cma = false;
  bool small_pages = false;  // native: 4 KiB pages for the message buffers
  std::string bind = "spread";
  std::optional<std::string> profile;
  std::optional<std::string> csv;
};

// hpcc's ring message (bench_lat_bw: 2,000,000 bytes), the size the
// published ring tables are for.
constexpr std::size_t kHpccRingMessage = 2000000;

// A ring cell's name in the reference CSVs' configuration column, as the
// CMA posting's table names them: "<path> <n> procs" ("base" is double
// copy, the MPI's own shared-memory path), then the size unless it is
// kHpccRingMessage, then " one-way" unless the ring is hpcc's two-way one.
[[nodiscard]] std::string cell_configuration(Kind kind, int procs, std::size_t size, bool two_way);

// One cell to simulate: what the native ring ran.
struct Key {
  int procs = 0;
  Kind kind = Kind::double_copy;
  std::size_t size = 0;
  int iters = 0;
  bool random = false;  // the randomly ordered ring (RingArgs::seed)
  [[nodiscard]] const char* order() const { return random ? "random" : "natural"; }
};

// Probes the CPUs' rates (host::checksum_rates), B/s per CPU.
using Probe = std::function<std::vector<double>()>;

// --order (natural, random or both), checked; `key` names it in the message.
void check_order(const std::string& order, const char* key);
// The orders --order runs, natural first: whether each is the random one.
[[nodiscard]] std::vector<bool> orders_of(const std::string& order);

// The largest ring message, in bytes (1 GiB).
inline constexpr double kMaxRingMessage = 1073741824.0;
// --sizes and --transport, checked: whole numbers of bytes from 8 to
// kMaxRingMessage; `key` names the option or scenario key in a refusal.
[[nodiscard]] std::vector<std::size_t> parse_sizes(const std::vector<std::string>& v,
                                                   const std::string& key = "--sizes");
[[nodiscard]] std::vector<Kind> parse_kinds(const std::vector<std::string>& v);

// Native cells for every procs x transport x order, in that order. With a
// probe, the CPUs are probed before the first launch and after each, and
// every cell gets the mean of the probes around its launch in `rates`.
[[nodiscard]] std::vector<RingCell> run_native(const RingArgs& a, const Probe& probe = {},
                                               std::vector<std::vector<double>>* rates = nullptr);

// The cells procs x transport x size with the iterations of --bytes and
// --min-steps (`bytes_key` names the bytes option in errors).
[[nodiscard]] std::vector<Key> ring_keys(const RingArgs& a, const char* bytes_key);
// Checks every option of `a` a launch would refuse (process counts, message
// sizes, repetitions, steps) before anything runs; returns the bytes per
// repetition (`bytes_key` names the option in messages).
double checked_ring_args(const RingArgs& a, const char* bytes_key);

// Simulated cells, each with the native ring's iterations and repetitions
// (the fastest repetition counts, as natively); `speeds` per cell, when
// given, replaces the profile's core speeds.
[[nodiscard]] std::vector<model::SimResult> simulate(const model::Profile& p, const std::vector<Key>& keys,
                                                     const RingArgs& a,
                                                     const std::vector<std::vector<double>>& speeds = {});

// The transport a cell used, "(fallback)" after it when CMA was refused.
[[nodiscard]] std::string used_text(const RingCell& c);
// One line saying where the ranks ran.
[[nodiscard]] std::string placement_text(const RingArgs& a);
// One line saying how CMA senders used their buffers ("" unless a cell
// ran over CMA: not requested, or refused and fallen back).
[[nodiscard]] std::string cma_text(const RingArgs& a, const std::vector<RingCell>& cells);

// hopsim host calibrate: measures this machine into the profile `out`.
int cmd_calibrate(const std::string& out, bool quick, const std::optional<std::string>& rounds_csv);
// hopsim host ring: the native ring table.
int cmd_ring(const RingArgs& a);
// hopsim host simulate: the ring table on the host model of --profile.
int cmd_simulate(const RingArgs& a);

// The options of hopsim host predict beyond the ring's.
struct PredictArgs {
  bool check = false;
  double max_error = 0.25;
  int runs = 3;
  std::string cpu_speed = "calibrated";
  std::string placement = "calibrated";
};
// hopsim host predict: the native ring and its prediction, the error per
// cell; 3 when --check and a cell is off by more than --max-error.
int cmd_predict(RingArgs a, const PredictArgs& o);

// The options of hopsim host fit.
struct FitArgs {
  std::string profile;                           // a described machine of several chips
  std::string against;                           // reference CSV (system,experiment,configuration,...)
  std::string low, high;                         // two cells of one path, e.g. "zero-copy 4 procs"
  std::string experiment = "hpcc-ring-natural";  // or hpcc-ring-random
  std::uint64_t seed = 1;                        // the random ring's order
  std::string out = "fitted-profile.json";
};
// hopsim host fit: the path's rate at the cells' message size from --low
// and coherence_bw from --high, so the model gives both published figures;
// writes the profile to --out. ConfigError when a cell is missing or
// malformed, or no coherence gives the published fall.
int cmd_fit(const FitArgs& f);

// `hopsim run` of a host scenario (the ring program natively and on the
// host model of the scenario's machine).
[[nodiscard]] RunReport run_ring_scenario(const Scenario& sc);

}  // namespace hopsim::host::commands
