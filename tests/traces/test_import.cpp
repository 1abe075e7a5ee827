// Importers of real-device results: good files and malformed ones with line numbers.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using namespace trace_test;

namespace {

fs::path data(const std::string& name) { return fs::path(HOPSIM_TRACES_TEST_DATA) / name; }

// Runs `fn` and returns the ImportError it must throw.
template <typename Fn>
ImportError import_error(Fn fn) {
    try {
        fn();
    } catch (const ImportError& e) {
        return e;
    }
    FAIL("no ImportError");
    throw std::logic_error("unreachable");
}

const ResultRow* find(const std::vector<ResultRow>& rows, std::string_view configuration, std::string_view metric) {
    for (const auto& r : rows) {
        if (r.configuration == configuration && r.metric == metric) return &r;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("reference csv of the repository imports", "[import]") {
    const auto rows = import_reference_csv(HOPSIM_TRACES_REFERENCE_CSV);
    CHECK(rows.size() >= 20);
    const ResultRow* broadcast = find(rows, "broadcast (barrier after each target)", "host_ticks_mean");
    REQUIRE(broadcast != nullptr);
    CHECK(broadcast->system == "epiphany-e16g301");
    CHECK(broadcast->experiment == "passing");
    CHECK(broadcast->value == 2545798);
    CHECK(broadcast->unit == "ticks");
    CHECK_THAT(broadcast->source, Catch::Contains("\"Intercore Communication and Profiling\""));
    const ResultRow* call = find(rows, "scif host pinned near the card", "average");
    REQUIRE(call != nullptr);
    CHECK(call->value == Approx(1786.359));
}

TEST_CASE("reference csv supports quoting and comments", "[import]") {
    const auto rows = import_reference_csv(data("reference-sample.csv"));
    REQUIRE(rows.size() == 4);
    CHECK(rows[0] == ResultRow{"testchip", "passing", "unicast, ring (n=4)", "host_ticks_mean", 12345, "ticks",
                               "notes \"v2\", page 3"});
    CHECK(rows[1].source == "lab notebook \"blue\" p. 7");
    CHECK(rows[1].value == 14.25);
    CHECK(rows[2].configuration == "two\nlines");
    CHECK(rows[2].unit == "MB/s");
    CHECK(rows[3].configuration.empty());
    CHECK(rows[3].unit == "KiB");
}

TEST_CASE("reference csv with a wrong field count names the line", "[import]") {
    const auto e = import_error([] { import_reference_csv(data("reference-bad-fields.csv")); });
    CHECK(e.line() == 3);
    CHECK_THAT(e.what(), Catch::Contains("reference-bad-fields.csv:3") && Catch::Contains("found 6"));
}

TEST_CASE("reference csv with an unknown unit names the unit and line", "[import]") {
    const auto e = import_error([] { import_reference_csv(data("reference-bad-unit.csv")); });
    CHECK(e.line() == 3);
    CHECK_THAT(e.what(), Catch::Contains("reference-bad-unit.csv:3") && Catch::Contains("'furlongs/s'"));
}

TEST_CASE("reference csv with a bad number names the line", "[import]") {
    const auto e = import_error([] { import_reference_csv(data("reference-bad-value.csv")); });
    CHECK(e.line() == 2);
    CHECK_THAT(e.what(), Catch::Contains("'12x4'"));
}

TEST_CASE("reference csv with an unclosed quote names where it opened", "[import]") {
    const auto e = import_error([] { import_reference_csv(data("reference-unterminated.csv")); });
    CHECK(e.line() == 2);
    CHECK_THAT(e.what(), Catch::Contains("never closed"));
}

TEST_CASE("passing csv becomes host_ticks rows", "[import]") {
    const auto rows = import_passing_csv(data("passing.csv"), "epiphany-e16g301");
    REQUIRE(rows.size() == 5);
    CHECK(rows[0] == ResultRow{"epiphany-e16g301", "passing", "unicast n=1", "host_ticks", 2601, "ticks",
                               data("passing.csv").string()});
    CHECK(rows[4].configuration == "broadcastNoWait n=16");
    CHECK(rows[4].value == 33);
}

TEST_CASE("passing csv malformed lines are named", "[import]") {
    auto e = import_error([] { import_passing_csv(data("passing-bad-ticks.csv"), "x"); });
    CHECK(e.line() == 3);
    CHECK_THAT(e.what(), Catch::Contains("passing-bad-ticks.csv:3") && Catch::Contains("'fast'"));
    e = import_error([] { import_passing_csv(data("passing-bad-fields.csv"), "x"); });
    CHECK(e.line() == 2);
    e = import_error([] { import_passing_csv(data("passing-bad-n.csv"), "x"); });
    CHECK(e.line() == 1);
    CHECK_THAT(e.what(), Catch::Contains("positive integer"));
}

TEST_CASE("hpcc ring output yields bandwidth and latency rows", "[import]") {
    const auto rows = import_hpcc_ring(data("hpcc-ring.txt"), "power6-32way");
    REQUIRE(rows.size() == 4);
    CHECK(rows[0] ==
          ResultRow{"power6-32way", "hpcc-ring-random", "", "latency", 1.45, "us", data("hpcc-ring.txt").string()});
    CHECK(rows[1].experiment == "hpcc-ring-natural");
    CHECK(rows[1].configuration == "per process");
    CHECK(rows[1].metric == "bandwidth");
    CHECK(rows[1].value == 1150.25);
    CHECK(rows[1].unit == "MB/s");
    CHECK(rows[2].experiment == "hpcc-ring-random");
    CHECK(rows[2].value == 600.5);
    CHECK(rows[3].unit == "ms");
}

TEST_CASE("hpcc ring malformed lines are named", "[import]") {
    auto e = import_error([] { import_hpcc_ring(data("hpcc-ring-bad-number.txt")); });
    CHECK(e.line() == 3);
    CHECK_THAT(e.what(), Catch::Contains("hpcc-ring-bad-number.txt:3") && Catch::Contains("'n/a'"));
    e = import_error([] { import_hpcc_ring(data("hpcc-ring-bad-unit.txt")); });
    CHECK(e.line() == 3);
    CHECK_THAT(e.what(), Catch::Contains("'fortnights'"));
}

TEST_CASE("hpcc ring figures below or at zero are refused", "[import]") {
    const auto e = import_error([] { import_hpcc_ring(data("hpcc-ring-negative.txt")); });
    CHECK(e.line() == 3);
    CHECK_THAT(e.what(), Catch::Contains("'-5' is not a positive number"));
}

TEST_CASE("ham offload output yields one row per statistic", "[import]") {
    const auto rows = import_ham_offload(data("ham-offload.txt"), "xeonphi-knc");
    REQUIRE(rows.size() == 10 + 11);
    CHECK(rows[0] == ResultRow{"xeonphi-knc", "ham-offload-call", "HAM-Offload function call runtime", "average", 1800,
                               "ns", data("ham-offload.txt").string()});
    CHECK(rows[1].metric == "median");
    CHECK(rows[4].metric == "variance");
    CHECK(rows[4].unit == "ns^2");
    CHECK(rows[9].metric == "count");
    CHECK(rows[9].value == 10000);
    CHECK(rows[9].unit == "1");
    CHECK(rows[10].experiment == "ham-offload-copy-in");
    CHECK(rows[20].metric == "data_size");
    CHECK(rows[20].value == 1048576);
    CHECK(rows[20].unit == "bytes");
    const auto named = import_ham_offload(data("ham-offload.txt"), "xeonphi-knc", "scif pinned near");
    CHECK(named[0].configuration == "scif pinned near");
}

TEST_CASE("ham offload malformed rows are named", "[import]") {
    auto e = import_error([] { import_ham_offload(data("ham-offload-bad-columns.txt")); });
    CHECK(e.line() == 7);
    CHECK_THAT(e.what(), Catch::Contains("ham-offload-bad-columns.txt:7") && Catch::Contains("4 columns") &&
                             Catch::Contains("line 6 has 11"));
    e = import_error([] { import_ham_offload(data("ham-offload-no-header.txt")); });
    CHECK(e.line() == 3);
    CHECK_THAT(e.what(), Catch::Contains("before a header"));
    e = import_error([] { import_ham_offload(data("ham-offload-bad-number.txt")); });
    CHECK(e.line() == 7);
    CHECK_THAT(e.what(), Catch::Contains("median 'fast'"));
}

TEST_CASE("ham offload statistics below zero are refused", "[import]") {
    const auto e = import_error([] { import_ham_offload(data("ham-offload-negative.txt")); });
    CHECK(e.line() == 7);
    CHECK_THAT(e.what(), Catch::Contains("median '-5' is not a number >= 0"));
}

TEST_CASE("pcie probe output yields median, min, mean and bandwidth per cell", "[import]") {
    const auto rows = import_pcie_probe(data("pcie-probe.csv"), "nvidia-h200");
    REQUIRE(rows.size() == 4 * 4);
    CHECK(rows[0] == ResultRow{"nvidia-h200", "pcie-copy", "h2d pinned 4096 B", "median", 8192, "ns",
                               data("pcie-probe.csv").string()});
    CHECK(rows[1].metric == "min");
    CHECK(rows[1].value == 8000);
    CHECK(rows[2].metric == "mean");
    CHECK(rows[2].value == 8500.5);
    CHECK(rows[3].metric == "bandwidth");
    CHECK(rows[3].unit == "GB/s");
    CHECK(rows[3].value == Approx(0.5));  // 4096 B / 8192 ns
    CHECK(rows[4].configuration == "d2h pageable 1048576 B");
    CHECK(rows[7].value == Approx(20.0));
    CHECK(rows[8].experiment == "pcie-latency");
    CHECK(rows[12].experiment == "pcie-flag-round-trip");
    CHECK(rows[12].configuration == "host-device-host mapped 8 B");
    CHECK(import_pcie_probe(data("pcie-probe.csv"))[0].system == "pcie-device");
}

TEST_CASE("pcie probe malformed rows are named", "[import]") {
    auto e = import_error([] { import_pcie_probe(data("pcie-probe-min-above-median.csv")); });
    CHECK(e.line() == 3);
    CHECK_THAT(e.what(), Catch::Contains("min_ns 9000 is above median_ns 8192"));
    e = import_error([] { import_pcie_probe(data("pcie-probe-bad-test.csv")); });
    CHECK(e.line() == 4);
    CHECK_THAT(e.what(), Catch::Contains("unknown test 'teleport'"));
    e = import_error([] { import_pcie_probe(data("pcie-probe-bad-bytes.csv")); });
    CHECK(e.line() == 2);
    CHECK_THAT(e.what(), Catch::Contains("bytes '4k' is not a positive integer"));
    e = import_error([] { import_pcie_probe(data("pcie-probe-no-header.csv")); });
    CHECK(e.line() == 1);
    CHECK_THAT(e.what(), Catch::Contains("expected the header test,direction"));
    e = import_error([] { import_pcie_probe(data("pcie-probe-bad-time.csv")); });
    CHECK_THAT(e.what(), Catch::Contains("median_ns '-3' is not a positive number"));
    e = import_error([] { import_pcie_probe(data("empty-results.txt")); });
    CHECK(e.line() == 0);
    CHECK_THAT(e.what(), Catch::Contains("no pcie_probe header"));
}

TEST_CASE("importers reject missing and empty files", "[import]") {
    auto e = import_error([] { import_reference_csv(data("absent.csv")); });
    CHECK(e.line() == 0);
    CHECK_THAT(e.what(), Catch::Contains("absent.csv") && Catch::Contains("cannot open"));
    e = import_error([] { import_hpcc_ring(data("empty-results.txt")); });
    CHECK_THAT(e.what(), Catch::Contains("empty-results.txt") && Catch::Contains("no ring"));
    e = import_error([] { import_ham_offload(data("empty-results.txt")); });
    CHECK(e.line() == 0);
    e = import_error([] { import_passing_csv(data("empty-results.txt"), "x"); });
    CHECK(e.line() == 0);
    e = import_error([] { import_reference_csv(data("empty-results.txt")); });
    CHECK(e.line() == 0);
}
