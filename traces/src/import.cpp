#include "hopsim/traces/import.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace hopsim::traces {

namespace fs = std::filesystem;

namespace {

constexpr std::array<std::string_view, 12> kKnownUnits{"ticks", "cycles", "ns", "us",  "ms",  "s",
                                                       "MB/s",  "GB/s",   "B",  "KiB", "MiB", "bytes"};

std::string_view trim(std::string_view s) {
    const auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && ws(s.front())) s.remove_prefix(1);
    while (!s.empty() && ws(s.back())) s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// A finite number spanning the whole field (from_chars: no locale, no leading '+').
std::optional<double> parse_number(std::string_view s) {
    s = trim(s);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

// A positive integer spanning the whole field.
std::optional<unsigned long long> parse_positive(std::string_view s) {
    unsigned long long v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v == 0) return std::nullopt;
    return v;
}

std::ifstream open_input(const fs::path& path) {
    std::ifstream in(path);
    if (!in) throw ImportError(path, 0, fmt::format("cannot open: {}", std::strerror(errno)));
    return in;
}

void require_rows(const fs::path& path, const std::vector<ResultRow>& rows, std::string_view what) {
    if (rows.empty()) throw ImportError(path, 0, fmt::format("no {} found", what));
}

// RFC 4180 records with '#' comment lines; quoted fields may span lines.
class CsvReader {
public:
    CsvReader(std::istream& in, const fs::path& path) : in_(in), path_(path) {}

    /// Next record; false at end of input. `line` is where the record starts.
    bool next(std::vector<std::string>& fields, std::size_t& line) {
        std::string text;
        for (;;) {
            if (!std::getline(in_, text)) return false;
            ++line_;
            const std::string_view t = trim(text);
            if (!t.empty() && t.front() != '#') break;
        }
        line = line_;
        fields.clear();
        std::string field;
        bool in_quotes = false;
        bool was_quoted = false;
        bool after_quote = false;
        for (;;) {
            if (!text.empty() && text.back() == '\r') text.pop_back();
            for (std::size_t i = 0; i < text.size(); ++i) {
                const char c = text[i];
                if (in_quotes) {
                    if (c != '"') {
                        field += c;
                    } else if (i + 1 < text.size() && text[i + 1] == '"') {
                        field += '"';
                        ++i;
                    } else {
                        in_quotes = false;
                        after_quote = true;
                    }
                } else if (c == ',') {
                    fields.push_back(finish(field, was_quoted));
                    field.clear();
                    was_quoted = after_quote = false;
                } else if (after_quote) {
                    if (c != ' ' && c != '\t') {
                        throw ImportError(path_, line_,
                                          fmt::format("field {}: text after the closing quote", fields.size() + 1));
                    }
                } else if (c == '"' && trim(field).empty()) {
                    // A quote opens a quoted field only at its start; elsewhere it is literal
                    // (sources such as: blog "Title" stay readable unquoted).
                    field.clear();
                    in_quotes = was_quoted = true;
                } else {
                    field += c;
                }
            }
            if (!in_quotes) break;
            field += '\n';
            if (!std::getline(in_, text)) {
                throw ImportError(path_, line, fmt::format("field {}: quoted field never closed", fields.size() + 1));
            }
            ++line_;
        }
        fields.push_back(finish(field, was_quoted));
        return true;
    }

private:
    static std::string finish(const std::string& field, bool quoted) {
        return quoted ? field : std::string(trim(field));
    }

    std::istream& in_;
    const fs::path& path_;
    std::size_t line_ = 0;
};

std::vector<std::string> split(std::string_view s, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t pos = s.find(sep, start);
        out.emplace_back(s.substr(start, pos - start));
        if (pos == std::string_view::npos) return out;
        start = pos + 1;
    }
}

// hpcc's spellings of the units it prints, canonicalised; "" when unknown.
std::string_view ring_unit(bool bandwidth, std::string_view lowered) {
    struct Spelling {
        bool bandwidth;
        std::string_view text;
        std::string_view unit;
    };
    static constexpr std::array<Spelling, 12> kSpellings{{
        {true, "mb/s", "MB/s"},
        {true, "mbytes/s", "MB/s"},
        {true, "mbyte/s", "MB/s"},
        {true, "gb/s", "GB/s"},
        {true, "gbytes/s", "GB/s"},
        {true, "gbyte/s", "GB/s"},
        {false, "usec", "us"},
        {false, "usecs", "us"},
        {false, "us", "us"},
        {false, "msec", "ms"},
        {false, "msecs", "ms"},
        {false, "ms", "ms"},
    }};
    for (const Spelling& s : kSpellings) {
        if (s.bandwidth == bandwidth && s.text == lowered) return s.unit;
    }
    return {};
}

}  // namespace

bool is_known_unit(std::string_view unit) noexcept {
    return std::find(kKnownUnits.begin(), kKnownUnits.end(), unit) != kKnownUnits.end();
}

std::vector<ResultRow> import_reference_csv(const fs::path& path) {
    static constexpr std::array<std::string_view, 7> kColumns{"system", "experiment", "configuration", "metric",
                                                              "value",  "unit",       "source"};
    std::ifstream in = open_input(path);
    CsvReader csv(in, path);
    std::vector<ResultRow> rows;
    std::vector<std::string> f;
    std::size_t line = 0;
    bool first = true;
    while (csv.next(f, line)) {
        if (first && f.size() == kColumns.size() && std::equal(f.begin(), f.end(), kColumns.begin())) {
            first = false;
            continue;  // optional header row
        }
        first = false;
        if (f.size() != kColumns.size()) {
            throw ImportError(path, line,
                              fmt::format("expected 7 fields (system,experiment,configuration,metric,"
                                          "value,unit,source), found {}",
                                          f.size()));
        }
        for (std::size_t i : {0u, 1u, 3u, 4u, 5u, 6u}) {
            if (f[i].empty()) throw ImportError(path, line, fmt::format("{} is empty", kColumns[i]));
        }
        const auto value = parse_number(f[4]);
        if (!value) throw ImportError(path, line, fmt::format("value '{}' is not a number", f[4]));
        if (!is_known_unit(f[5])) {
            throw ImportError(path, line,
                              fmt::format("unknown unit '{}' (known: {})", f[5], fmt::join(kKnownUnits, " ")));
        }
        rows.push_back({f[0], f[1], f[2], f[3], *value, f[5], f[6]});
    }
    require_rows(path, rows, "result rows");
    return rows;
}

std::vector<ResultRow> import_passing_csv(const fs::path& path, std::string system) {
    if (system.empty()) system = "epiphany-e16g301";
    std::ifstream in = open_input(path);
    CsvReader csv(in, path);
    std::vector<ResultRow> rows;
    std::vector<std::string> f;
    std::size_t line = 0;
    bool first = true;
    while (csv.next(f, line)) {
        if (first && f == std::vector<std::string>{"n", "method", "ticks"}) {
            first = false;
            continue;
        }
        first = false;
        if (f.size() != 3)
            throw ImportError(path, line, fmt::format("expected n,method,ticks, found {} fields", f.size()));
        const auto n = parse_positive(f[0]);
        if (!n) throw ImportError(path, line, fmt::format("n '{}' is not a positive integer", f[0]));
        if (f[1].empty()) throw ImportError(path, line, "method is empty");
        const auto ticks = parse_number(f[2]);
        if (!ticks || *ticks < 0) throw ImportError(path, line, fmt::format("ticks '{}' is not a number >= 0", f[2]));
        rows.push_back(
            {system, "passing", fmt::format("{} n={}", f[1], *n), "host_ticks", *ticks, "ticks", path.string()});
    }
    require_rows(path, rows, "n,method,ticks lines");
    return rows;
}

std::vector<ResultRow> import_hpcc_ring(const fs::path& path, const std::string& system) {
    // hpcc pads with spaces ("Randomly  Ordered") and words units variously; match loosely.
    static const std::regex kLine(R"(^\s*(naturally|randomly)\s+ordered\s+ring\s+(bandwidth|latency)\b([^:]*):(.*)$)",
                                  std::regex::icase | std::regex::optimize);
    std::ifstream in = open_input(path);
    std::vector<ResultRow> rows;
    std::string text;
    std::size_t line = 0;
    while (std::getline(in, text)) {
        ++line;
        std::smatch m;
        if (!std::regex_match(text, m, kLine)) continue;
        const bool natural = lower(m.str(1)) == "naturally";
        const bool bandwidth = lower(m.str(2)) == "bandwidth";
        std::string config(trim(m.str(3)));
        if (config.size() >= 2 && config.front() == '(' && config.back() == ')') {
            config = std::string(trim(std::string_view(config).substr(1, config.size() - 2)));
        }
        const std::string rest(trim(m.str(4)));
        const auto space = rest.find_first_of(" \t");
        const std::string number = rest.substr(0, space);
        const std::string raw_unit = space == std::string::npos ? "" : std::string(trim(rest.substr(space)));
        const auto value = parse_number(number);
        if (!value || !(*value > 0))
            throw ImportError(path, line, fmt::format("'{}' is not a positive number", number));
        const std::string_view unit = ring_unit(bandwidth, lower(raw_unit));
        if (unit.empty()) {
            throw ImportError(path, line,
                              fmt::format("unknown {} unit '{}'", bandwidth ? "bandwidth" : "latency", raw_unit));
        }
        rows.push_back({system, natural ? "hpcc-ring-natural" : "hpcc-ring-random", config,
                        bandwidth ? "bandwidth" : "latency", *value, std::string(unit), path.string()});
    }
    require_rows(path, rows, "ring bandwidth or latency lines");
    return rows;
}

std::vector<ResultRow> import_ham_offload(const fs::path& path, const std::string& system,
                                          const std::string& configuration) {
    std::ifstream in = open_input(path);
    std::vector<ResultRow> rows;
    std::vector<std::string> header;
    std::size_t header_line = 0;
    std::string title;
    std::string text;
    std::size_t line = 0;
    while (std::getline(in, text)) {
        ++line;
        const std::string_view t = trim(text);
        if (t.empty() || t.front() == '#') continue;
        if (t.find('\t') == std::string_view::npos) {
            // A test's title, e.g. "HAM-Offload function call runtime: ".
            title = std::string(t.back() == ':' ? trim(t.substr(0, t.size() - 1)) : t);
            header.clear();
            continue;
        }
        std::vector<std::string> cols = split(t, '\t');
        if (cols.front() == "name") {
            for (const std::string& c : cols) {
                static constexpr std::array<std::string_view, 12> kKnown{"name",         "average",
                                                                         "median",       "min",
                                                                         "max",          "variance",
                                                                         "std_error",    "relative_std_error",
                                                                         "conf95_error", "relative_conf95_error",
                                                                         "count",        "data_size"};
                if (std::find(kKnown.begin(), kKnown.end(), c) == kKnown.end()) {
                    throw ImportError(path, line, fmt::format("unknown column '{}' in the header", c));
                }
            }
            header = std::move(cols);
            header_line = line;
            continue;
        }
        if (header.empty()) throw ImportError(path, line, "data row before a header line starting with 'name'");
        if (cols.size() != header.size()) {
            throw ImportError(
                path, line,
                fmt::format("{} columns, but the header on line {} has {}", cols.size(), header_line, header.size()));
        }
        std::string name(trim(cols[0]));
        if (!name.empty() && name.back() == ':') name.pop_back();
        if (name.empty()) throw ImportError(path, line, "row without a name");
        for (std::size_t i = 1; i < cols.size(); ++i) {
            const auto value = parse_number(cols[i]);
            if (!value || *value < 0) {
                throw ImportError(path, line, fmt::format("{} '{}' is not a number >= 0", header[i], cols[i]));
            }
            const std::string& metric = header[i];
            const char* unit = "ns";
            if (metric == "variance") unit = "ns^2";
            if (metric == "count" || metric.starts_with("relative_")) unit = "1";
            if (metric == "data_size") unit = "bytes";
            rows.push_back({system, "ham-offload-" + name, configuration.empty() ? title : configuration, metric,
                            *value, unit, path.string()});
        }
    }
    require_rows(path, rows, "benchmark rows");
    return rows;
}

std::vector<ResultRow> import_pcie_probe(const fs::path& path, std::string system) {
    if (system.empty()) system = "pcie-device";
    static const std::vector<std::string> kHeader{"test",      "direction", "memory",  "bytes",      "runs",
                                                  "median_ns", "min_ns",    "mean_ns", "median_GBps"};
    static constexpr std::array<std::string_view, 6> kTests{"copy",        "latency",    "flag-round-trip",
                                                            "mapped-read", "copy-event", "host-memcpy"};
    std::ifstream in = open_input(path);
    CsvReader csv(in, path);
    std::vector<ResultRow> rows;
    std::vector<std::string> f;
    std::size_t line = 0;
    bool header = false;
    const auto positive_int = [&](const std::string& s, std::string_view what) {
        const auto v = parse_positive(s);
        if (!v) throw ImportError(path, line, fmt::format("{} '{}' is not a positive integer", what, s));
        return *v;
    };
    while (csv.next(f, line)) {
        if (!header) {
            if (f != kHeader)
                throw ImportError(path, line, fmt::format("expected the header {}", fmt::join(kHeader, ",")));
            header = true;
            continue;
        }
        if (f.size() != kHeader.size())
            throw ImportError(path, line, fmt::format("expected {} fields, found {}", kHeader.size(), f.size()));
        if (std::find(kTests.begin(), kTests.end(), f[0]) == kTests.end())
            throw ImportError(path, line, fmt::format("unknown test '{}' (known: {})", f[0], fmt::join(kTests, " ")));
        for (std::size_t i : {1u, 2u}) {
            if (f[i].empty() || f[i].find(' ') != std::string::npos)
                throw ImportError(path, line, fmt::format("{} '{}' is empty or has a space", kHeader[i], f[i]));
        }
        const unsigned long long bytes = positive_int(f[3], "bytes");
        positive_int(f[4], "runs");
        const std::string config = fmt::format("{} {} {} B", f[1], f[2], bytes);
        const std::string experiment = "pcie-" + f[0];
        std::array<double, 3> times{};
        for (std::size_t i = 0; i < 3; ++i) {
            const auto v = parse_number(f[5 + i]);
            if (!v || *v <= 0)
                throw ImportError(path, line,
                                  fmt::format("{} '{}' is not a positive number", kHeader[5 + i], f[5 + i]));
            times[i] = *v;
        }
        if (times[1] > times[0])
            throw ImportError(path, line, fmt::format("min_ns {} is above median_ns {}", times[1], times[0]));
        rows.push_back({system, experiment, config, "median", times[0], "ns", path.string()});
        rows.push_back({system, experiment, config, "min", times[1], "ns", path.string()});
        rows.push_back({system, experiment, config, "mean", times[2], "ns", path.string()});
        rows.push_back(
            {system, experiment, config, "bandwidth", static_cast<double>(bytes) / times[0], "GB/s", path.string()});
    }
    if (!header) throw ImportError(path, 0, "no pcie_probe header (test,direction,memory,...) found");
    require_rows(path, rows, "pcie_probe rows");
    return rows;
}

}  // namespace hopsim::traces
