// benchmark_ham_offload: hopsim's counterpart of HAM-Offload's benchmark of
// the same name (options and output layout as the original), running on the
// native transport (two processes, shared memory) or the simulated PCIe path:
//   benchmark_ham_offload -c -r 1000                      native
//   benchmark_ham_offload -c -r 1000 --ham-mode sim --ham-preset knc-7120p --ham-cpu-affinity 0
// Extension: --bandwidth-table prints copy-in/copy-out bandwidth for 4 KiB .. 64 MiB.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "ham/offload.hpp"
#include "hopsim/core/error.hpp"
#include "statistics.hpp"

using ham::bench::statistics;
using namespace ham;

namespace {

constexpr node_t target_node = 1;
constexpr std::size_t host_alignment = 64;

void fun() {}
float fun_mul(float a, float b) { return a * b; }

struct Timer {
  std::int64_t start = offload::now_ps();
  double elapsed() const { return static_cast<double>(offload::now_ps() - start) * 1e-3; }  // ns
};

char* local_allocate(std::size_t size) {
  void* p = nullptr;
  if (posix_memalign(&p, host_alignment, size == 0 ? 1 : size) != 0) throw hopsim::Error("host allocation failed");
  return static_cast<char*>(p);
}

void print_config() {
  const auto& o = offload::detail::runtime().options();
  std::cout << "# HAM_COMM_SCIF                disabled\n"
            << "# HAM_COMM_ONE_SIDED           " << (o.mode == offload::detail::Mode::mpi ? "disabled" : "enabled")
            << "\n"
            << "# HAM_MESSAGE_SIZE             " << o.message_size << "\n"
            << "# HOST_ALIGNMENT               " << host_alignment << "\n"
            << offload::detail::runtime().describe() << "\n";
}

void report(const std::string& title, const std::string& name, const statistics& s, const std::string& file,
            std::size_t data_size, bool with_size) {
  std::cout << title << " \n"
            << "name\t" << statistics::header_string() << (with_size ? "\tdata_size" : "") << "\n"
            << name << ":\t" << s.string();
  if (with_size) std::cout << "\t" << data_size;
  std::cout << std::endl;
  if (!file.empty()) s.to_file(file);
}

}  // namespace

int main(int argc, char* argv[]) {
  std::cout << "# Command line was: \n# ";
  for (const std::string& a : offload::detail::command_line()) std::cout << a << " ";
  std::cout << "\n";

  unsigned runs = 1000, warmup_runs = 1;
  std::string filename;
  std::size_t data_size = 1024 * 1024;
  bool allocate = false, copy_in = false, copy_out = false, call = false, call_mul = false, async = false;
  bool table = false, all_targets = false;

  CLI::App app{"HAM-Offload benchmark (hopsim). Runtime options: --ham-help"};
  app.add_option("-f,--filename", filename, "filename prefix for the raw samples (not written when empty)");
  app.add_option("-r,--runs", runs, "number of measured runs")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100000000u));
  app.add_option("--warmup-runs", warmup_runs, "additional runs before measuring")->capture_default_str();
  app.add_option("-s,--size", data_size, "size of transferred data in bytes")->capture_default_str();
  app.add_flag("-a,--allocate", allocate, "benchmark memory allocation/deallocation on the target");
  app.add_flag("-i,--copy-in", copy_in, "benchmark data copy to the target");
  app.add_flag("-o,--copy-out", copy_out, "benchmark data copy from the target");
  app.add_flag("-c,--call", call, "benchmark an empty function call on the target");
  app.add_flag("-m,--call-mul", call_mul, "benchmark a call with two float arguments (multiplication)");
  app.add_flag("-y,--async", async, "make the calls asynchronously (async + get)");
  app.add_flag("--all-targets", all_targets,
               "hopsim: each run of -c and -i goes to every target at once (asynchronously) and waits for all; "
               "the time is the run's");
  app.add_flag("--bandwidth-table", table,
               "hopsim: copy-in and copy-out time and bandwidth for 4 KiB .. 64 MiB (runs per size: -r)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A bad argument exits 2 with one line naming it, as hopsim does.
    std::cerr << "benchmark_ham_offload: error: " << e.what() << " (try --help)\n";
    return 2;
  }
  if (!(allocate || copy_in || copy_out || call || call_mul || table)) {
    std::cerr << "benchmark_ham_offload: error: no test chosen: give -c, -m, -i, -o, -a or --bandwidth-table "
                 "(try --help)\n";
    return 2;
  }

  print_config();
  // The targets each run addresses: the first, or with --all-targets every one.
  std::vector<node_t> targets{target_node};
  for (node_t n = 2; all_targets && n < static_cast<node_t>(offload::num_nodes()); ++n) targets.push_back(n);
  std::cout << "# HOPSIM_TARGETS_PER_RUN       " << targets.size() << "\n";
  std::cout << "# times in nanoseconds (ns), sizes in bytes\n";
  char* data = local_allocate(std::max<std::size_t>(data_size, table ? std::size_t(64) << 20 : 0));
  std::memset(data, 1, std::max<std::size_t>(data_size, table ? std::size_t(64) << 20 : 0));
  auto file = [&](const char* what) { return filename.empty() ? std::string() : filename + what; };
  const std::size_t total = runs + warmup_runs;

  if (allocate) {
    statistics alloc_time(runs, warmup_runs), free_time(runs, warmup_runs);
    for (std::size_t i = 0; i < total; ++i) {
      Timer t;
      auto remote = offload::allocate<char>(target_node, data_size);
      alloc_time.add(t.elapsed());
      Timer u;
      offload::free(remote);
      free_time.add(u.elapsed());
    }
    report("HAM-Offload allocate time:", "allocate", alloc_time, file("allocate_time"), data_size, true);
    report("HAM-Offload free time:", "free", free_time, file("free_time"), data_size, true);
  }
  if (copy_in) {
    std::vector<offload::buffer_ptr<char>> remote;
    for (node_t n : targets) remote.push_back(offload::allocate<char>(n, data_size));
    statistics s(runs, warmup_runs);
    for (std::size_t i = 0; i < total; ++i) {
      Timer t;
      std::vector<offload::future<void>> done;
      for (auto& r : remote) done.push_back(offload::put(data, r, data_size));
      for (auto& d : done) d.get();
      s.add(t.elapsed());
    }
    for (auto& r : remote) offload::free(r);
    report("HAM-Offload copy-in time:", "copy-in", s, file("copy_in_time"), data_size, true);
  }
  if (copy_out) {
    auto remote = offload::allocate<char>(target_node, data_size);
    // Data check (not timed): the target buffer gets a pattern, every copy-out must bring it back.
    std::vector<char> pattern(data_size);
    for (std::size_t k = 0; k < data_size; ++k) pattern[k] = static_cast<char>(k * 131 % 251);
    offload::put_sync(pattern.data(), remote, data_size);
    statistics s(runs, warmup_runs);
    for (std::size_t i = 0; i < total; ++i) {
      std::memset(data, 0, data_size);
      Timer t;
      offload::get_sync(remote, data, data_size);
      s.add(t.elapsed());
      if (data_size && std::memcmp(data, pattern.data(), data_size) != 0)
        throw hopsim::DataMismatchError(
            fmt::format("copy-out run {}: the data got from the target differs from the "
                        "pattern put there",
                        i));
    }
    std::memset(data, 1, data_size);
    offload::free(remote);
    report("HAM-Offload copy-out time:", "copy-out", s, file("copy_out_time"), data_size, true);
  }
  if (call) {
    statistics s(runs, warmup_runs);
    auto func = f2f(&fun);
    for (std::size_t i = 0; i < total; ++i) {
      Timer t;
      if (targets.size() > 1) {
        std::vector<offload::future<void>> done;
        for (node_t n : targets) done.push_back(offload::async(n, func));
        for (auto& d : done) d.get();
      } else if (async) {
        auto f = offload::async(target_node, func);
        f.get();
      } else {
        offload::sync(target_node, func);
      }
      s.add(t.elapsed());
    }
    report("HAM-Offload function call runtime:", "call", s, file("call_time"), 0, false);
  }
  if (call_mul) {
    statistics s(runs, warmup_runs);
    const float a = 2.0f, b = 4.0f;
    float res = 0;
    auto func = f2f(&fun_mul, a, b);
    for (std::size_t i = 0; i < total; ++i) {
      Timer t;
      if (async) {
        auto f = offload::async(target_node, func);
        res = f.get();
      } else {
        res = offload::sync(target_node, func);
      }
      s.add(t.elapsed());
    }
    if (res != a * b) throw hopsim::DataMismatchError(fmt::format("call-mul returned {}, expected {}", res, a * b));
    report("HAM-Offload function call mul runtime:", "call-mul", s, file("call_mul_time"), 0, false);
  }
  if (table) {
    // hopsim extension: median time and bandwidth (bytes / median time) per size.
    std::cout << "HAM-Offload copy bandwidth: \n"
              << "size\tcopy_in_median_ns\tcopy_in_GB/s\tcopy_out_median_ns\tcopy_out_GB/s\n";
    auto remote = offload::allocate<char>(target_node, std::size_t(64) << 20);
    for (std::size_t size = 4096; size <= (std::size_t(64) << 20); size *= 2) {
      statistics in(runs, warmup_runs), out(runs, warmup_runs);
      for (std::size_t i = 0; i < total; ++i) {
        Timer t;
        offload::put_sync(data, remote, size);
        in.add(t.elapsed());
        Timer u;
        offload::get_sync(remote, data, size);
        out.add(u.elapsed());
      }
      std::cout << fmt::format("{}\t{:e}\t{:.3f}\t{:e}\t{:.3f}\n", size, in.median(), size / in.median(), out.median(),
                               size / out.median());
    }
    offload::free(remote);
  }
  std::free(data);
  return EXIT_SUCCESS;
}
