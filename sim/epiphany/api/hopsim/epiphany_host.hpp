#pragma once
// What a host program sees of hopsim besides the device API: its resolved
// arguments, where to write files, and where to report each launch.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hopsim/core/progress.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/epiphany/device.hpp"
#include "hopsim/epiphany_package.hpp"

namespace hopsim::epiphany {

struct LaunchRecord {
  std::string method;  // e.g. "unicast"
  int n = 0;           // problem size of this launch
  double ticks = 0;    // what the host program measured (clock() ticks)
  double seconds = 0;  // launch duration (simulated or wall)
  double cycles = 0;   // device cycles (simulated) or wall time x clock (native)
  // Cycle the launch began on the device's clock; record() fills it from the
  // device's last launch when the host program leaves it negative.
  double start = -1;
  std::uint64_t digest = 0;             // hash of the data the host read back
  std::size_t checked = 0;              // values checked against expectations
  std::vector<std::string> mismatches;  // "core 3 slot 7: expected 107, got 0"
  std::size_t mismatch_count = 0;
  bool known_faulty = false;  // the kernel reproduces a known bug of the original: mismatches expected
  // Bytes the PEs wrote to other PEs during this launch; record() fills it
  // from the device's counters when the host program leaves it 0.
  std::uint64_t bytes = 0;
};

class HostContext {
 public:
  HostContext(const KernelPackage& pkg, nlohmann::json args, Device& device, std::string output_dir, Mode mode);
  // Removes the temporary files of a run that did not reach commit_files()
  // (failed or interrupted): the folder keeps only the previous results.
  ~HostContext();
  HostContext(const HostContext&) = delete;
  HostContext& operator=(const HostContext&) = delete;

  const nlohmann::json& args() const { return args_; }
  Device& device() { return device_; }
  Mode mode() const { return mode_; }
  const KernelPackage& package() const { return pkg_; }
  // Where to write a file of the run's output folder, tagged with the mode
  // ("pass-sim.csv"). The path returned is a temporary one; commit_files()
  // renames it into place once the host program succeeded, so a failed run
  // never truncates the previous result.
  std::string output_file(const std::string& stem, const std::string& ext);
  void commit_files();
  void record(LaunchRecord r);
  const std::vector<LaunchRecord>& records() const { return records_; }
  // Progress of a long run on stderr (hopsim/core/progress.hpp: "[sim] 12/64 unicast n=3, 4 s
  // elapsed, ETA 17 s"), with the progress note when one is set. `fraction`, when given, is
  // the share of the run's work done (launches of unequal size); else done / total.
  void progress(std::size_t done, std::size_t total, const std::string& what, double fraction = -1) const;
  // A note on each progress update from the fraction done (a trace's projected size); it is
  // called on every update, shown or not.
  void set_progress_note(std::function<std::string(double fraction)> note) { progress_note_ = std::move(note); }

  // The host context of the run in progress (stdcl's clsym needs it).
  static HostContext& current();

 private:
  const KernelPackage& pkg_;
  nlohmann::json args_;
  Device& device_;
  std::string output_dir_;
  Mode mode_;
  std::vector<LaunchRecord> records_;
  std::uint64_t bytes_recorded_ = 0;            // device write_bytes total at the previous record()
  std::vector<std::string> pending_;            // final paths of files written as PATH.partial
  mutable std::unique_ptr<Progress> progress_;  // from the first progress() call
  std::function<std::string(double)> progress_note_;
  friend class HostScope;
};

class HostScope {
 public:
  explicit HostScope(HostContext& h);
  ~HostScope();
  HostScope(const HostScope&) = delete;
  HostScope& operator=(const HostScope&) = delete;

 private:
  HostContext* prev_;
};

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t seed = 1469598103934665603ull);

}  // namespace hopsim::epiphany
