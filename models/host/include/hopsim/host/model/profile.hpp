#pragma once
// A host machine profile: the parameters of the host model, written by
// `hopsim host calibrate` for this machine or kept as a preset for a
// described machine (presets/host-*.json). Every parameter carries its unit
// and its source; tables are indexed by message/working-set size.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hopsim::host::model {

struct Profile {
  std::string name;
  std::string description;
  // The system name under which reference measurements of this machine are
  // filed (traces/reference/*.csv, column `system`): what `hopsim validate`
  // matches the model's figures by. Optional in the file; empty: `name`.
  std::string system;
  int cores = 1;
  std::vector<double> core_speed;  // per core: work takes its time / core_speed[c] (1: as fast as the tables)
  // B/s of the ring's checksum over 256 KiB on the first core alone when the
  // tables were measured: what core_speed is relative to, so that a later
  // probe of the cores (checksum_rates) gives their speed then; 0: unknown.
  double checksum_rate = 0;
  std::vector<double> sizes;          // bytes, ascending
  std::vector<double> memcpy_bw;      // B/s, one process copying `size` bytes
  std::vector<double> memcpy_bw_all;  // B/s, all cores copying at once (sum)
  std::vector<double> read_bw;        // B/s, checksum pass over `size` bytes
  std::vector<double> cma_bw;         // B/s, process_vm_readv of `size` bytes (0: CMA unavailable)
  // Two processes on two cores exchanging at once (a ring's neighbours):
  std::vector<double> xwrite_bw;  // B/s, memcpy into a shared slot the other core read last
  std::vector<double> xcopy_bw;   // B/s, memcpy out of a shared slot the other core just wrote
  std::vector<double> xcma_bw;    // B/s, process_vm_readv of the other core's send buffer into mine (0: no CMA)
  std::vector<double> xread_bw;   // B/s, checksum of my receive buffer right after my CMA pull filled it
  // Seconds per step of two processes on two cores exchanging 8-byte
  // messages over each transport (its protocol alone); 0: not measured.
  double step8_double = 0, step8_cma = 0, step8_zero = 0;
  double c2c_latency = 0;  // s
  // One-way cache-line hand-over between the two CPUs around the exchange
  // whose tables the profile keeps (s): tells whether the x*_bw tables were
  // measured with the CPUs near or apart (Rank::handover); 0: unknown (an
  // older profile, a described machine). Optional in the file.
  double exchange_handover = 0;
  // The same exchange measured with the two CPUs apart (a cache-line
  // hand-over over host::kApartRatio times c2c_latency: a hypervisor
  // running them on distant cores), when the calibration met that
  // placement besides the near one; empty / 0 otherwise. Optional.
  std::vector<double> xwrite_bw_apart, xcopy_bw_apart, xcma_bw_apart, xread_bw_apart;
  double apart_handover = 0;      // s, the hand-over around those
  double syscall = 0;             // s
  double switch_cost = 0;         // s, a hand-over between two processes sharing a core
  double switch_cost_many = 0;    // s, a switch among four or more sharing a core (0: switch_cost)
  double cma_call = 0;            // s
  double cma_per_page = 0;        // s
  double remap_call = 0;          // s
  double remap_per_page = 0;      // s
  double spin_time = 0;           // s, the transports' spin before they yield (200 pause instructions)
  double yield_delay = 0;         // s, how late a waiter that spun out and yields sees its flag (mean)
  double yield_delay_median = 0;  // s, ... its median
  double preempt_slice = 0;       // s, mean time another runnable process holds a core it took (0: none seen)
  double background_load = 0;     // other runnable processes competing for the cores (measured)
  bool cma_ok = true;
  // Topology of a large SMP (optional; 0 in the file's absence, read as 1):
  // the cores are split evenly over `chips` chips, the chips evenly over
  // `nodes` nodes (books, boards). Ranks are placed over them as Linux
  // spreads new processes (place_ranks in model.hpp).
  double chips = 0;
  double nodes = 0;
  // B/s each way between two nodes (the fabric links joining them); a copy
  // whose data come from another node loads that pair's links, shared by
  // all the copies crossing them at once. 0: the fabric is not modelled.
  double node_link_bw = 0;
  // B/s of reads from another chip, all chips together, at which such a
  // read takes twice as long as on an idle machine: a broadcast-coherent
  // fabric queues every cross-chip line's request machine-wide, and to
  // first order a line's latency grows linearly with that traffic. Every
  // copy whose data come from another chip's cache goes 1 + X / this
  // times slower, X the cross-chip reads of all the copies running.
  // 0: not modelled.
  double coherence_bw = 0;
  std::map<std::string, std::string> sources;  // parameter -> where its value came from

  // Log-log interpolation of a table at `size`, clamped at the ends.
  [[nodiscard]] double at(const std::vector<double>& table, double size) const;

  // Chips and nodes, at least 1; the chip and node of a core.
  [[nodiscard]] int chip_count() const { return chips >= 1 ? static_cast<int>(chips) : 1; }
  [[nodiscard]] int node_count() const { return nodes >= 1 ? static_cast<int>(nodes) : 1; }
  [[nodiscard]] int chip_of(int core) const { return core / (cores / chip_count()); }
  [[nodiscard]] int node_of(int core) const { return chip_of(core) / (chip_count() / node_count()); }

  // Whether the apart exchange tables are there (and complete).
  [[nodiscard]] bool has_apart() const;
  // This profile for a ring run with the CPUs apart: the apart exchange
  // tables in place of the x*_bw ones, flags visible apart_handover after
  // they are set (c2c_latency), and the 8-byte steps longer by the
  // difference (one flag hand-over on their critical path). Requires
  // has_apart() (else ConfigError).
  [[nodiscard]] Profile as_apart() const;

  [[nodiscard]] nlohmann::json to_json() const;
  // Strict reading: unknown keys, wrong units, missing parameters, unequal
  // table lengths and non-positive values each throw ConfigError naming the
  // file and key.
  static Profile from_json(const nlohmann::json& j, const std::string& origin);
};

// Reads a profile from a file path, or from a preset name (presets/<name>.json).
[[nodiscard]] Profile load_profile(const std::string& path_or_preset);
void save_profile(const Profile& p, const std::string& path);

}  // namespace hopsim::host::model
