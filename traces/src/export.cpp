#include "hopsim/traces/export.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hopsim/core/file_output.hpp"
#include "hopsim/traces/error.hpp"
#include "hopsim/traces/schema.hpp"

namespace hopsim::traces {

namespace {

// Names come from the simulator; replace bad UTF-8 rather than fail the export.
std::string json_string(std::string_view s) {
    return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Streams the event array: traces can be far larger than memory wants to hold as one json value.
class EventStream {
public:
    explicit EventStream(std::ostream& out) : out_(out) {}
    void emit(const std::string& event) {
        out_ << (first_ ? "\n" : ",\n") << event;
        first_ = false;
    }

private:
    std::ostream& out_;
    bool first_ = true;
};

// Link `link`'s track; modulo 2^64 so that a damaged trace's huge ids stay defined.
std::int64_t link_tid(std::int64_t link) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(kLinkTidBase) + static_cast<std::uint64_t>(link));
}

std::string metadata(int pid, std::int64_t tid, std::string_view what, std::string_view args) {
    return fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"{}","args":{{{}}}}})", pid, tid, what, args);
}

// Transactions as flows between node tracks: a zero-length slice where the
// packet leaves its source and one where it reaches its destination (a flow
// binds to slices), joined by a flow whose id is the transaction's. Adds the
// nodes it names to `pes`.
void emit_transactions(const TraceReader& trace, double us_per_cycle, EventStream& ev, std::set<std::int64_t>& pes) {
    for (std::int64_t next = 0;;) {
        const auto page = trace.transactions(next, 4096);
        if (page.empty()) break;
        std::int64_t last = next - 1;  // the page's highest id: a damaged file may list them out of order
        for (const Transaction& x : page) {
            last = std::max(last, x.id);
            pes.insert(x.src);
            pes.insert(x.dst);
            const std::string name = json_string(x.kind.empty() ? "transaction" : x.kind);
            const double t0 = x.inject * us_per_cycle, t1 = x.arrive * us_per_cycle;
            ev.emit(fmt::format(
                R"({{"ph":"X","pid":{},"tid":{},"cat":"txn","name":{},"ts":{},"dur":0,"args":{{"txn":{},"bytes":{},"to":{}}}}})",
                kPePid, x.src, name, t0, x.id, x.bytes, x.dst));
            ev.emit(fmt::format(R"({{"ph":"s","pid":{},"tid":{},"cat":"txn","name":{},"ts":{},"id":{}}})", kPePid,
                                x.src, name, t0, x.id));
            ev.emit(fmt::format(
                R"({{"ph":"X","pid":{},"tid":{},"cat":"txn","name":{},"ts":{},"dur":0,"args":{{"txn":{},"bytes":{},"from":{}}}}})",
                kPePid, x.dst, name, t1, x.id, x.bytes, x.src));
            ev.emit(fmt::format(R"({{"ph":"f","bp":"e","pid":{},"tid":{},"cat":"txn","name":{},"ts":{},"id":{}}})",
                                kPePid, x.dst, name, t1, x.id));
        }
        if (last < next)
            throw TraceError(fmt::format("{}: transaction ids out of order (a damaged file)", trace.path().string()));
        if (last == std::numeric_limits<std::int64_t>::max()) break;
        next = last + 1;
    }
}

// Launches with a recorded start, a track per mode.
void emit_launches(const TraceReader& trace, double us_per_cycle, EventStream& ev) {
    std::map<std::string, std::int64_t> launch_tids;
    for (const Launch& l : trace.launches()) {
        if (!l.start) continue;
        const auto [it, added] =
            launch_tids.emplace(l.mode, kLaunchTidBase + static_cast<std::int64_t>(launch_tids.size()));
        if (added) {
            if (launch_tids.size() == 1)
                ev.emit(metadata(kLaunchPid, it->second, "process_name", R"("name":"launches")"));
            ev.emit(metadata(kLaunchPid, it->second, "thread_name", "\"name\":" + json_string(l.mode)));
        }
        ev.emit(fmt::format(
            R"({{"ph":"X","pid":{},"tid":{},"cat":"launch","name":{},"ts":{},"dur":{},"args":{{"n":{},"cycles":{},"bytes":{},"check_ok":{}}}}})",
            kLaunchPid, it->second, json_string(fmt::format("{} n={}", l.method, l.n)), *l.start * us_per_cycle,
            l.cycles * us_per_cycle, l.n, l.cycles, l.bytes, l.check_ok ? "true" : "false"));
    }
}

}  // namespace

void export_perfetto(const TraceReader& trace, std::ostream& out) {
    const double us_per_cycle = trace.clock_hz() > 0 ? 1e6 / trace.clock_hz() : 1.0;
    constexpr double lo = std::numeric_limits<double>::lowest();
    constexpr double hi = std::numeric_limits<double>::max();

    std::map<std::int64_t, std::string> node_names;
    for (const Node& n : trace.nodes()) node_names[n.id] = n.name;
    std::map<std::int64_t, std::string> link_names;
    for (const Link& l : trace.links())
        link_names[l.id] = l.name.empty() ? l.net : fmt::format("{} ({})", l.name, l.net);

    out << R"({"traceEvents":[)";
    EventStream ev(out);
    ev.emit(metadata(kPePid, 0, "process_name", R"("name":"PEs")"));
    ev.emit(metadata(kLinkPid, kLinkTidBase, "process_name", R"("name":"links")"));

    std::set<std::int64_t> pes;
    trace.for_each_pe_state(lo, hi, [&](const PeStateSpan& s) {
        pes.insert(s.pe);
        ev.emit(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"cat":"pe","name":"{}","ts":{},"dur":{}}})", kPePid, s.pe,
                            to_string(s.state), s.start * us_per_cycle, (s.end - s.start) * us_per_cycle));
    });

    emit_transactions(trace, us_per_cycle, ev, pes);
    emit_launches(trace, us_per_cycle, ev);
    for (const std::int64_t pe : pes) {
        const auto it = node_names.find(pe);
        const std::string name = it != node_names.end() && !it->second.empty() ? it->second : fmt::format("pe {}", pe);
        ev.emit(metadata(kPePid, pe, "thread_name", "\"name\":" + json_string(name)));
        ev.emit(metadata(kPePid, pe, "thread_sort_index", fmt::format(R"("sort_index":{})", pe)));
    }

    // Hops joined with their transaction's kind so slices are named (and coloured) by kind.
    std::set<std::int64_t> links;
    sql::Stmt st(trace.db(), schema::kHopsWindowWithKind);
    st.bind(1, lo).bind(2, lo).bind(3, hi);
    while (st.step()) {
        const std::int64_t txn = st.int64(0);
        const std::int64_t link = st.int64(1);
        const double enter = st.real(2);
        const double leave = st.real(3);
        const std::string kind = st.text(4);
        links.insert(link);
        ev.emit(
            fmt::format(R"({{"ph":"X","pid":{},"tid":{},"cat":"hop","name":{},"ts":{},"dur":{},"args":{{"txn":{}}}}})",
                        kLinkPid, link_tid(link), json_string(kind.empty() ? "hop" : kind), enter * us_per_cycle,
                        (leave - enter) * us_per_cycle, txn));
    }
    for (const std::int64_t link : links) {
        const auto it = link_names.find(link);
        const std::string name =
            it != link_names.end() && !it->second.empty() ? it->second : fmt::format("link {}", link);
        ev.emit(metadata(kLinkPid, link_tid(link), "thread_name", "\"name\":" + json_string(name)));
        ev.emit(metadata(kLinkPid, link_tid(link), "thread_sort_index", fmt::format(R"("sort_index":{})", link)));
    }

    // Link counters as counter tracks: the only timeline a Detail::counters trace has.
    const double bucket_us = trace.bucket_cycles() * us_per_cycle;
    for (const Link& l : trace.links()) {
        const std::string name = json_string(link_names[l.id]);
        for (const LinkCounter& c : trace.link_counters(l.id)) {
            ev.emit(fmt::format(R"({{"ph":"C","pid":{},"name":{},"ts":{},"args":{{"bytes":{},"busy":{},"stall":{}}}}})",
                                kLinkPid, name, static_cast<double>(c.bucket) * bucket_us, c.bytes, c.busy, c.stall));
        }
    }

    out << "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{";
    bool first = true;
    for (const auto& [key, value] : trace.meta()) {
        out << (first ? "" : ",") << json_string(key) << ':' << json_string(value);
        first = false;
    }
    out << "}}\n";
    if (!out) throw TraceError(fmt::format("{}: writing the Perfetto export failed", trace.path().string()));
}

void export_csv(const TraceReader& trace, std::string_view table, std::ostream& out) {
    const schema::Table* t = schema::find_table(table);
    if (!t) {
        std::string known;
        for (const schema::Table& k : schema::tables()) {
            if (!known.empty()) known += ", ";
            known.append(k.name.data(), k.name.size());
        }
        throw TraceError(fmt::format("{}: unknown table '{}' (tables: {})", trace.path().string(), table, known));
    }
    sql::Stmt st(trace.db(), fmt::format("SELECT {} FROM {} ORDER BY {}", t->columns, t->name, t->order_by));
    const int n = st.column_count();
    for (int c = 0; c < n; ++c) out << (c ? "," : "") << csv_field(st.column_name(c));
    out << '\n';
    while (st.step()) {
        for (int c = 0; c < n; ++c) {
            if (c) out << ',';
            switch (st.column_type(c)) {
                case SQLITE_INTEGER:
                    out << st.int64(c);
                    break;
                case SQLITE_FLOAT:
                    out << fmt::format("{}", st.real(c));
                    break;
                case SQLITE_NULL:
                    break;
                default:
                    out << csv_field(st.text(c));
                    break;
            }
        }
        out << '\n';
    }
    if (!out) throw TraceError(fmt::format("{}: writing the CSV export failed", trace.path().string()));
}

}  // namespace hopsim::traces
