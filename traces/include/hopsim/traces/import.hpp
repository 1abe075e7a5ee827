// Importers of results measured on real devices, into one row type that
// validation compares simulated figures against. Malformed input throws
// ImportError "file:line: what"; a file without any result is an error too.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "hopsim/traces/error.hpp"

namespace hopsim::traces {

/// One measured figure.
struct ResultRow {
    std::string system;         ///< e.g. "epiphany-e16g301"
    std::string experiment;     ///< e.g. "passing", "hpcc-ring-natural", "ham-offload-call"
    std::string configuration;  ///< free text, e.g. "broadcast n=3"
    std::string metric;         ///< e.g. "host_ticks_mean", "bandwidth", "average"
    double value = 0;
    std::string unit;    ///< see is_known_unit for the reference CSV
    std::string source;  ///< citation, or the imported file
    bool operator==(const ResultRow&) const = default;
};

/// Units accepted by import_reference_csv: ticks cycles ns us ms s MB/s GB/s B KiB MiB bytes.
bool is_known_unit(std::string_view unit) noexcept;

/// Reads the reference CSV "system,experiment,configuration,metric,value,unit,source":
/// '#' comment lines and blank lines skipped, an optional header row, RFC 4180 quoting
/// (a quote inside an unquoted field is literal). Every field but configuration must be
/// non-empty; value must be a finite number; unit must be known.
std::vector<ResultRow> import_reference_csv(const std::filesystem::path& path);

/// Reads the Epiphany passing host program's "n,method,ticks" lines into rows
/// {system, "passing", "<method> n=<n>", "host_ticks", ticks, "ticks", file}.
/// An empty `system` is the passing experiment's own board, "epiphany-e16g301".
std::vector<ResultRow> import_passing_csv(const std::filesystem::path& path, std::string system);

/// Reads hpcc output lines "<Naturally|Randomly> Ordered Ring <Bandwidth|Latency> [extra]: <value> <unit>"
/// into rows {system, "hpcc-ring-natural|random", extra without parentheses, "bandwidth|latency",
/// value, "MB/s"|"GB/s"|"us"|"ms", file}; every other line is ignored.
std::vector<ResultRow> import_hpcc_ring(const std::filesystem::path& path, const std::string& system = {});

/// Reads HAM-Offload benchmark output ('#' configuration lines; per test a title line, a
/// tab-separated header starting with "name", rows "call:\t<stats>...") into one row per
/// statistic: {system, "ham-offload-<name>", configuration or else the title, column name,
/// value, unit, file}. Units: ns for times, "ns^2" for variance, "1" for relative errors and
/// count, "bytes" for data_size.
std::vector<ResultRow> import_ham_offload(const std::filesystem::path& path, const std::string& system = {},
                                          const std::string& configuration = {});

/// Reads pcie_probe output (kernels/xeonphi/pcie-probe: '#' lines, the header
/// "test,direction,memory,bytes,runs,median_ns,min_ns,mean_ns,median_GBps", one row per
/// measured cell) into rows {system, "pcie-<test>", "<direction> <memory> <bytes> B", metric,
/// value, unit, file} with the metrics median, min, mean (ns) and bandwidth (GB/s, of the
/// median). test is copy, latency, flag-round-trip, mapped-read, copy-event or
/// host-memcpy; bytes and runs are positive integers; times are positive. An empty
/// `system` is "pcie-device".
std::vector<ResultRow> import_pcie_probe(const std::filesystem::path& path, std::string system = {});

}  // namespace hopsim::traces
