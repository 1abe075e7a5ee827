#include "hopsim/traces/schema.hpp"

#include <array>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/traces/error.hpp"
#include "hopsim/traces/records.hpp"

namespace hopsim::traces {

namespace meta_key {

std::span<const std::string_view> reserved() noexcept {
    static constexpr std::array keys{
        schema_version,   hopsim_version, git_revision,  scenario, machine,           mode,           seed,   detail,
        complete,         created,        bucket_cycles, clock_hz, incomplete_reason, max_hop_cycles, window, max_bytes,
        detail_stopped_at};
    return keys;
}

}  // namespace meta_key

namespace schema {

std::span<const Table> tables() noexcept {
    static constexpr std::array<Table, 8> all{{
        {"meta", "key, value", "key"},
        {"nodes", "id, name, kind, coords", "id"},
        {"links", "id, net, src, dst, name", "id"},
        {"transactions", "id, src, dst, bytes, inject, arrive, kind", "id"},
        {"hops", "txn, link, enter, leave", "rowid"},
        {"link_counters", "link, bucket, bytes, packets, busy, stall", "link, bucket"},
        {"pe_states", "pe, state, start, \"end\"", "pe, start"},
        {"launches", "mode, method, n, seconds, cycles, bytes, check_ok, start", "rowid"},
    }};
    return all;
}

const Table* find_table(std::string_view name) noexcept {
    for (const Table& t : tables()) {
        if (t.name == name) return &t;
    }
    return nullptr;
}

}  // namespace schema

std::string_view to_string(Detail d) noexcept {
    switch (d) {
        case Detail::counters:
            return "counters";
        case Detail::transactions:
            return "transactions";
        case Detail::hops:
            return "hops";
    }
    return "?";
}

std::optional<Detail> parse_detail(std::string_view s) noexcept {
    for (Detail d : {Detail::counters, Detail::transactions, Detail::hops}) {
        if (to_string(d) == s) return d;
    }
    return std::nullopt;
}

std::string_view to_string(PeState s) noexcept {
    switch (s) {
        case PeState::compute:
            return "compute";
        case PeState::waiting:
            return "waiting";
        case PeState::barrier:
            return "barrier";
        case PeState::polling:
            return "polling";
    }
    return "?";
}

std::optional<PeState> parse_pe_state(std::string_view s) noexcept {
    for (PeState p : {PeState::compute, PeState::waiting, PeState::barrier, PeState::polling}) {
        if (to_string(p) == s) return p;
    }
    return std::nullopt;
}

TraceError::TraceError(const std::string& message, Reason reason)
    : std::runtime_error(hopsim::printable(message)), reason_(reason) {}

ImportError::ImportError(const std::filesystem::path& file, std::size_t line, const std::string& what)
    : std::runtime_error(hopsim::printable(line ? fmt::format("{}:{}: {}", file.string(), line, what)
                                                : fmt::format("{}: {}", file.string(), what))),
      file_(file),
      line_(line) {}

Meta run_meta(std::string family, std::string scenario, std::string machine, std::string mode, std::uint64_t seed,
              double clock_hz) {
    Meta m;
    m.hopsim_version = version();
    m.git_revision = git_revision();
    m.scenario = std::move(scenario);
    m.machine = std::move(machine);
    m.mode = std::move(mode);
    m.seed = seed;
    m.clock_hz = clock_hz;
    m.extra["family"] = std::move(family);
    return m;
}

}  // namespace hopsim::traces
