#include "hopsim/traces/export.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hopsim/core/file_output.hpp"
#include "hopsim/traces/error.hpp"
#include "hopsim/traces/schema.hpp"

namespace hopsim::traces {

namespace {

// The widest time window: every row.
constexpr double kBeginOfTime = std::numeric_limits<double>::lowest();
constexpr double kEndOfTime = std::numeric_limits<double>::max();

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

// Calls `fn` for every transaction by id, a page at a time: traces can be far larger than
// memory wants to hold at once.
void for_each_transaction(const TraceReader& trace, const std::function<void(const Transaction&)>& fn) {
    for (std::int64_t next = 0;;) {
        const auto page = trace.transactions(next, 4096);
        if (page.empty()) break;
        std::int64_t last = next - 1;  // the page's highest id: a damaged file may list them out of order
        for (const Transaction& x : page) {
            last = std::max(last, x.id);
            fn(x);
        }
        if (last < next)
            throw TraceError(fmt::format("{}: transaction ids out of order (a damaged file)", trace.path().string()));
        if (last == std::numeric_limits<std::int64_t>::max()) break;
        next = last + 1;
    }
}

// A hop with its transaction's kind (empty when the transaction is not recorded).
struct KindedHop {
    std::int64_t txn = 0;
    std::int64_t link = 0;
    double enter = 0;
    double leave = 0;
    std::string kind;
};

// Calls `fn` for every hop by enter time, joined with its transaction's kind so slices are
// named (and coloured) by kind; streams from the database.
void for_each_kinded_hop(const TraceReader& trace, const std::function<void(const KindedHop&)>& fn) {
    sql::Stmt st(trace.db(), schema::kHopsWindowWithKind);
    st.bind(1, kBeginOfTime).bind(2, kBeginOfTime).bind(3, kEndOfTime);
    while (st.step()) fn({st.int64(0), st.int64(1), st.real(2), st.real(3), st.text(4)});
}

// Display names of the tracks: a node's name, a link's "name (net)"; "pe N" and "link N"
// for ids the trace does not declare (or names empty).
class TrackNames {
public:
    explicit TrackNames(const TraceReader& trace) {
        for (const Node& n : trace.nodes()) nodes_[n.id] = n.name;
        for (const Link& l : trace.links())
            links_[l.id] = l.name.empty() ? l.net : fmt::format("{} ({})", l.name, l.net);
    }
    std::string node(std::int64_t pe) const {
        const auto it = nodes_.find(pe);
        return it != nodes_.end() && !it->second.empty() ? it->second : fmt::format("pe {}", pe);
    }
    std::string link(std::int64_t link) const {
        const auto it = links_.find(link);
        return it != links_.end() && !it->second.empty() ? it->second : fmt::format("link {}", link);
    }
    /// The declared name as is (may be empty), for the JSON counters.
    std::string declared_link(std::int64_t link) const {
        const auto it = links_.find(link);
        return it != links_.end() ? it->second : std::string();
    }

private:
    std::map<std::int64_t, std::string> nodes_;
    std::map<std::int64_t, std::string> links_;
};

// Transactions as flows between node tracks: a zero-length slice where the
// packet leaves its source and one where it reaches its destination (a flow
// binds to slices), joined by a flow whose id is the transaction's. Adds the
// nodes it names to `pes`.
void emit_transactions(const TraceReader& trace, double us_per_cycle, EventStream& ev, std::set<std::int64_t>& pes) {
    for_each_transaction(trace, [&](const Transaction& x) {
        pes.insert(x.src);
        pes.insert(x.dst);
        const std::string name = json_string(x.kind.empty() ? "transaction" : x.kind);
        const double t0 = x.inject * us_per_cycle, t1 = x.arrive * us_per_cycle;
        ev.emit(fmt::format(
            R"({{"ph":"X","pid":{},"tid":{},"cat":"txn","name":{},"ts":{},"dur":0,"args":{{"txn":{},"bytes":{},"to":{}}}}})",
            kPePid, x.src, name, t0, x.id, x.bytes, x.dst));
        ev.emit(fmt::format(R"({{"ph":"s","pid":{},"tid":{},"cat":"txn","name":{},"ts":{},"id":{}}})", kPePid, x.src,
                            name, t0, x.id));
        ev.emit(fmt::format(
            R"({{"ph":"X","pid":{},"tid":{},"cat":"txn","name":{},"ts":{},"dur":0,"args":{{"txn":{},"bytes":{},"from":{}}}}})",
            kPePid, x.dst, name, t1, x.id, x.bytes, x.src));
        ev.emit(fmt::format(R"({{"ph":"f","bp":"e","pid":{},"tid":{},"cat":"txn","name":{},"ts":{},"id":{}}})", kPePid,
                            x.dst, name, t1, x.id));
    });
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

// Perfetto's protobuf trace format. Field numbers are those of the public schema in the
// google/perfetto repository, protos/perfetto/trace/: trace.proto (Trace), trace_packet.proto
// (TracePacket), track_event/track_event.proto (TrackEvent), track_event/track_descriptor.proto,
// track_event/process_descriptor.proto, track_event/thread_descriptor.proto,
// track_event/counter_descriptor.proto and track_event/debug_annotation.proto.
namespace pf {
constexpr int kTracePacket = 1;                           // Trace.packet
constexpr int kPacketTimestamp = 8;                       // TracePacket.timestamp (ns)
constexpr int kPacketSequenceId = 10;                     // TracePacket.trusted_packet_sequence_id
constexpr int kPacketTrackEvent = 11;                     // TracePacket.track_event
constexpr int kPacketSequenceFlags = 13;                  // TracePacket.sequence_flags
constexpr int kPacketTrackDescriptor = 60;                // TracePacket.track_descriptor
constexpr std::uint64_t kSeqIncrementalStateCleared = 1;  // TracePacket.SequenceFlags
constexpr int kTrackUuid = 1;                             // TrackDescriptor.uuid
constexpr int kTrackName = 2;                             // TrackDescriptor.name
constexpr int kTrackProcess = 3;                          // TrackDescriptor.process
constexpr int kTrackThread = 4;                           // TrackDescriptor.thread
constexpr int kTrackParentUuid = 5;                       // TrackDescriptor.parent_uuid
constexpr int kTrackCounter = 8;                          // TrackDescriptor.counter
constexpr int kProcessPid = 1;                            // ProcessDescriptor.pid
constexpr int kProcessName = 6;                           // ProcessDescriptor.process_name
constexpr int kThreadPid = 1;                             // ThreadDescriptor.pid
constexpr int kThreadTid = 2;                             // ThreadDescriptor.tid
constexpr int kThreadName = 5;                            // ThreadDescriptor.thread_name
constexpr int kCounterUnit = 3;                           // CounterDescriptor.unit
constexpr int kCounterUnitName = 6;                       // CounterDescriptor.unit_name
constexpr std::uint64_t kUnitSizeBytes = 3;               // CounterDescriptor.Unit
constexpr int kEventAnnotations = 4;                      // TrackEvent.debug_annotations
constexpr int kEventType = 9;                             // TrackEvent.type
constexpr int kEventTrackUuid = 11;                       // TrackEvent.track_uuid
constexpr int kEventCategories = 22;                      // TrackEvent.categories
constexpr int kEventName = 23;                            // TrackEvent.name
constexpr int kEventCounterValue = 30;                    // TrackEvent.counter_value
constexpr int kEventDoubleCounterValue = 44;              // TrackEvent.double_counter_value
constexpr int kEventFlowIds = 47;                         // TrackEvent.flow_ids (fixed64)
constexpr int kEventTerminatingFlowIds = 48;              // TrackEvent.terminating_flow_ids (fixed64)
constexpr std::uint64_t kSliceBegin = 1;                  // TrackEvent.Type
constexpr std::uint64_t kSliceEnd = 2;
constexpr std::uint64_t kCounter = 4;
constexpr int kAnnotationBool = 2;      // DebugAnnotation.bool_value
constexpr int kAnnotationInt = 4;       // DebugAnnotation.int_value
constexpr int kAnnotationDouble = 5;    // DebugAnnotation.double_value
constexpr int kAnnotationName = 10;     // DebugAnnotation.name
constexpr std::uint64_t kSequence = 1;  // the one packet sequence
}  // namespace pf

// A protobuf message being built (wire format: protobuf.dev/programming-guides/encoding).
// A field is a varint key (number << 3 | wire type), then a varint, 8 little-endian bytes,
// or a varint length and that many bytes.
class ProtoMessage {
public:
    ProtoMessage& varint(int field, std::uint64_t v) {
        key(field, kVarint);
        put_varint(v);
        return *this;
    }
    /// int32, int64 and enum fields: negatives are ten-byte two's complement varints.
    ProtoMessage& int64(int field, std::int64_t v) { return varint(field, static_cast<std::uint64_t>(v)); }
    ProtoMessage& fixed64(int field, std::uint64_t v) {
        key(field, kFixed64);
        for (int byte = 0; byte < 8; ++byte) buf_.push_back(static_cast<char>((v >> (8U * byte)) & 0xffU));
        return *this;
    }
    ProtoMessage& real(int field, double v) { return fixed64(field, std::bit_cast<std::uint64_t>(v)); }
    ProtoMessage& bytes(int field, std::string_view s) {
        length_prefix(field, s.size());
        buf_.append(s);
        return *this;
    }
    ProtoMessage& message(int field, const ProtoMessage& m) { return bytes(field, m.buf_); }
    /// The key and length of a length-delimited field whose `length` bytes the caller writes.
    ProtoMessage& length_prefix(int field, std::size_t length) {
        key(field, kLengthDelimited);
        put_varint(length);
        return *this;
    }
    const std::string& data() const noexcept { return buf_; }

private:
    static constexpr std::uint64_t kVarint = 0;
    static constexpr std::uint64_t kFixed64 = 1;
    static constexpr std::uint64_t kLengthDelimited = 2;

    void key(int field, std::uint64_t wire_type) { put_varint(static_cast<std::uint64_t>(field) << 3U | wire_type); }
    void put_varint(std::uint64_t v) {
        for (; v >= 0x80U; v >>= 7U) buf_.push_back(static_cast<char>((v & 0x7fU) | 0x80U));
        buf_.push_back(static_cast<char>(v));
    }

    std::string buf_;
};

// Writes TracePackets of one sequence as a Trace's fields, each as soon as it is made. The
// first packet clears the sequence's incremental state; nothing is interned, so no packet
// depends on another.
class PacketWriter {
public:
    explicit PacketWriter(std::ostream& out) : out_(out) {}
    /// A TrackDescriptor at time 0: sorted before every event, whenever it is written.
    void track_descriptor(const ProtoMessage& track) {
        ProtoMessage packet;
        packet.varint(pf::kPacketTimestamp, 0).message(pf::kPacketTrackDescriptor, track);
        write(packet);
    }
    /// A TrackEvent at `ns`.
    void track_event(std::uint64_t ns, const ProtoMessage& event) {
        ProtoMessage packet;
        packet.varint(pf::kPacketTimestamp, ns).message(pf::kPacketTrackEvent, event);
        write(packet);
    }

private:
    void write(ProtoMessage& packet) {
        packet.varint(pf::kPacketSequenceId, pf::kSequence);
        if (first_) packet.varint(pf::kPacketSequenceFlags, pf::kSeqIncrementalStateCleared);
        first_ = false;
        const std::string& body = packet.data();
        ProtoMessage head;
        head.length_prefix(pf::kTracePacket, body.size());
        out_.write(head.data().data(), static_cast<std::streamsize>(head.data().size()));
        out_.write(body.data(), static_cast<std::streamsize>(body.size()));
    }

    std::ostream& out_;
    bool first_ = true;
};

// Cycles to trace nanoseconds at meta clock_hz (1 cycle = 1 us without it, as the JSON), rounded
// to whole ns and kept within [0, 2^63) (Perfetto reads timestamps as int64).
class NsClock {
public:
    explicit NsClock(const TraceReader& trace) : ns_per_cycle_(trace.clock_hz() > 0 ? 1e9 / trace.clock_hz() : 1e3) {}
    std::uint64_t operator()(double cycles) const {
        const double ns = cycles * ns_per_cycle_;
        if (!(ns > 0)) return 0;  // also NaN, from a damaged file
        if (ns >= 9.2e18) return static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        return static_cast<std::uint64_t>(std::llround(ns));
    }

private:
    double ns_per_cycle_;
};

// The link counters, a counter track each per link.
enum class LinkCounterKind { bytes, busy, stall };

// The protobuf export's tracks, each described (a TrackDescriptor packet) just before its first
// event: the JSON's processes (PEs, links, launches), a thread track per PE, link and launch
// mode with the JSON's pid and tid, and per link a counter track for bytes, busy and stall
// cycles. Uuids count from 1 in order of first use.
class ProtoTracks {
public:
    ProtoTracks(const TraceReader& trace, PacketWriter& packets) : names_(trace), packets_(packets) {
        process(kPePid, "PEs");
        process(kLinkPid, "links");
    }
    /// PE (node) `pe`'s track, named by the node.
    std::uint64_t pe(std::int64_t pe) {
        const auto it = threads_.find({kPePid, pe});
        return it != threads_.end() ? it->second : add_thread(kPePid, pe, names_.node(pe));
    }
    /// Link `link`'s track of hops.
    std::uint64_t link(std::int64_t link) {
        const auto it = threads_.find({kLinkPid, link_tid(link)});
        return it != threads_.end() ? it->second : add_thread(kLinkPid, link_tid(link), names_.link(link));
    }
    /// The track of launch mode `mode` (tids in the order modes first appear).
    std::uint64_t launch_mode(const std::string& mode) {
        const auto it = launch_modes_.find(mode);
        if (it != launch_modes_.end()) return it->second;
        process(kLaunchPid, "launches");
        const std::int64_t tid = kLaunchTidBase + static_cast<std::int64_t>(launch_modes_.size());
        const std::uint64_t uuid = add_thread(kLaunchPid, tid, mode);
        launch_modes_[mode] = uuid;
        return uuid;
    }
    /// Link `link`'s counter track of `kind`, in process "links".
    std::uint64_t link_counter(std::int64_t link, LinkCounterKind kind) {
        const auto key = std::make_pair(link, kind);
        const auto it = counters_.find(key);
        if (it != counters_.end()) return it->second;
        const std::uint64_t uuid = add_counter(link, kind);
        counters_[key] = uuid;
        return uuid;
    }

private:
    std::uint64_t process(int pid, std::string_view name) {
        const auto it = processes_.find(pid);
        if (it != processes_.end()) return it->second;
        const std::uint64_t uuid = next_uuid_++;
        ProtoMessage process;
        process.int64(pf::kProcessPid, pid).bytes(pf::kProcessName, name);
        packets_.track_descriptor(ProtoMessage().varint(pf::kTrackUuid, uuid).message(pf::kTrackProcess, process));
        return processes_[pid] = uuid;
    }
    std::uint64_t add_thread(int pid, std::int64_t tid, std::string_view name) {
        const std::uint64_t uuid = next_uuid_++;
        ProtoMessage thread;
        thread.int64(pf::kThreadPid, pid).int64(pf::kThreadTid, tid).bytes(pf::kThreadName, name);
        packets_.track_descriptor(ProtoMessage().varint(pf::kTrackUuid, uuid).message(pf::kTrackThread, thread));
        return threads_[{pid, tid}] = uuid;
    }
    std::uint64_t add_counter(std::int64_t link, LinkCounterKind kind) {
        const std::uint64_t uuid = next_uuid_++;
        ProtoMessage counter;
        if (kind == LinkCounterKind::bytes)
            counter.varint(pf::kCounterUnit, pf::kUnitSizeBytes);
        else
            counter.bytes(pf::kCounterUnitName, "cycles");
        const char* what = kind == LinkCounterKind::bytes ? "bytes" : kind == LinkCounterKind::busy ? "busy" : "stall";
        ProtoMessage track;
        track.varint(pf::kTrackUuid, uuid)
            .varint(pf::kTrackParentUuid, process(kLinkPid, "links"))
            .bytes(pf::kTrackName, fmt::format("{} {}", names_.link(link), what))
            .message(pf::kTrackCounter, counter);
        packets_.track_descriptor(track);
        return uuid;
    }

    TrackNames names_;
    PacketWriter& packets_;
    std::uint64_t next_uuid_ = 1;
    std::map<int, std::uint64_t> processes_;
    std::map<std::pair<int, std::int64_t>, std::uint64_t> threads_;  // (pid, tid)
    std::map<std::string, std::uint64_t> launch_modes_;
    std::map<std::pair<std::int64_t, LinkCounterKind>, std::uint64_t> counters_;
};

// A slice's begin event: its track, category and name; args and flows are added to it.
ProtoMessage slice_begin(std::uint64_t track, std::string_view category, std::string_view name) {
    ProtoMessage e;
    e.varint(pf::kEventType, pf::kSliceBegin)
        .varint(pf::kEventTrackUuid, track)
        .bytes(pf::kEventCategories, category)
        .bytes(pf::kEventName, name);
    return e;
}

// Args as debug annotations (the slice's arguments in the UI).
void arg_int(ProtoMessage& event, std::string_view name, std::int64_t v) {
    event.message(pf::kEventAnnotations, ProtoMessage().bytes(pf::kAnnotationName, name).int64(pf::kAnnotationInt, v));
}
void arg_real(ProtoMessage& event, std::string_view name, double v) {
    event.message(pf::kEventAnnotations,
                  ProtoMessage().bytes(pf::kAnnotationName, name).real(pf::kAnnotationDouble, v));
}
void arg_bool(ProtoMessage& event, std::string_view name, bool v) {
    event.message(pf::kEventAnnotations,
                  ProtoMessage().bytes(pf::kAnnotationName, name).varint(pf::kAnnotationBool, v ? 1 : 0));
}

// Writes the protobuf export's events in the JSON's order: PE states, transactions, launches,
// hops, link counters.
class ProtoExport {
public:
    ProtoExport(const TraceReader& trace, std::ostream& out)
        : trace_(trace), ns_(trace), packets_(out), tracks_(trace, packets_) {}

    void pe_states() {
        trace_.for_each_pe_state(kBeginOfTime, kEndOfTime, [&](const PeStateSpan& s) {
            const std::uint64_t track = tracks_.pe(s.pe);
            slice(track, ns_(s.start), ns_(s.end), slice_begin(track, "pe", to_string(s.state)));
        });
    }

    // Transactions as flows between node tracks, as in the JSON: a zero-length slice at the source
    // at inject, starting the flow whose id is the transaction's, and one at the destination at
    // arrive, ending it.
    void transactions() {
        for_each_transaction(trace_, [&](const Transaction& x) {
            const std::string_view name = x.kind.empty() ? std::string_view("transaction") : x.kind;
            const std::uint64_t src = tracks_.pe(x.src);
            ProtoMessage leave = slice_begin(src, "txn", name);
            arg_int(leave, "txn", x.id);
            arg_int(leave, "bytes", x.bytes);
            arg_int(leave, "to", x.dst);
            leave.fixed64(pf::kEventFlowIds, static_cast<std::uint64_t>(x.id));
            const std::uint64_t t0 = ns_(x.inject);
            slice(src, t0, t0, leave);
            const std::uint64_t dst = tracks_.pe(x.dst);
            ProtoMessage reach = slice_begin(dst, "txn", name);
            arg_int(reach, "txn", x.id);
            arg_int(reach, "bytes", x.bytes);
            arg_int(reach, "from", x.src);
            reach.fixed64(pf::kEventTerminatingFlowIds, static_cast<std::uint64_t>(x.id));
            const std::uint64_t t1 = ns_(x.arrive);
            slice(dst, t1, t1, reach);
        });
    }

    // Launches with a recorded start, a track per mode.
    void launches() {
        for (const Launch& l : trace_.launches()) {
            if (!l.start) continue;
            const std::uint64_t track = tracks_.launch_mode(l.mode);
            ProtoMessage begin = slice_begin(track, "launch", fmt::format("{} n={}", l.method, l.n));
            arg_int(begin, "n", l.n);
            arg_real(begin, "cycles", l.cycles);
            arg_int(begin, "bytes", l.bytes);
            arg_bool(begin, "check_ok", l.check_ok);
            slice(track, ns_(*l.start), ns_(*l.start + l.cycles), begin);
        }
    }

    void hops() {
        for_each_kinded_hop(trace_, [&](const KindedHop& h) {
            const std::uint64_t track = tracks_.link(h.link);
            ProtoMessage begin = slice_begin(track, "hop", h.kind.empty() ? std::string_view("hop") : h.kind);
            arg_int(begin, "txn", h.txn);
            slice(track, ns_(h.enter), ns_(h.leave), begin);
        });
    }

    // Link counters, one link's buckets at a time, three counter events per bucket.
    void link_counters() {
        for (const Link& l : trace_.links()) {
            for (const LinkCounter& c : trace_.link_counters(l.id)) {
                const std::uint64_t ns = ns_(static_cast<double>(c.bucket) * trace_.bucket_cycles());
                packets_.track_event(
                    ns,
                    counter(tracks_.link_counter(l.id, LinkCounterKind::bytes)).int64(pf::kEventCounterValue, c.bytes));
                packets_.track_event(ns, counter(tracks_.link_counter(l.id, LinkCounterKind::busy))
                                             .real(pf::kEventDoubleCounterValue, c.busy));
                packets_.track_event(ns, counter(tracks_.link_counter(l.id, LinkCounterKind::stall))
                                             .real(pf::kEventDoubleCounterValue, c.stall));
            }
        }
    }

private:
    // Begin and end of a slice on `track`; an end before the begin (a damaged file) is moved to it.
    void slice(std::uint64_t track, std::uint64_t t0, std::uint64_t t1, const ProtoMessage& begin) {
        packets_.track_event(t0, begin);
        ProtoMessage end;
        end.varint(pf::kEventType, pf::kSliceEnd).varint(pf::kEventTrackUuid, track);
        packets_.track_event(std::max(t0, t1), end);
    }
    static ProtoMessage counter(std::uint64_t track) {
        ProtoMessage e;
        e.varint(pf::kEventType, pf::kCounter).varint(pf::kEventTrackUuid, track);
        return e;
    }

    const TraceReader& trace_;
    NsClock ns_;
    PacketWriter packets_;
    ProtoTracks tracks_;
};

}  // namespace

void export_perfetto(const TraceReader& trace, std::ostream& out) {
    const double us_per_cycle = trace.clock_hz() > 0 ? 1e6 / trace.clock_hz() : 1.0;
    const TrackNames names(trace);

    out << R"({"traceEvents":[)";
    EventStream ev(out);
    ev.emit(metadata(kPePid, 0, "process_name", R"("name":"PEs")"));
    ev.emit(metadata(kLinkPid, kLinkTidBase, "process_name", R"("name":"links")"));

    std::set<std::int64_t> pes;
    trace.for_each_pe_state(kBeginOfTime, kEndOfTime, [&](const PeStateSpan& s) {
        pes.insert(s.pe);
        ev.emit(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"cat":"pe","name":"{}","ts":{},"dur":{}}})", kPePid, s.pe,
                            to_string(s.state), s.start * us_per_cycle, (s.end - s.start) * us_per_cycle));
    });

    emit_transactions(trace, us_per_cycle, ev, pes);
    emit_launches(trace, us_per_cycle, ev);
    for (const std::int64_t pe : pes) {
        ev.emit(metadata(kPePid, pe, "thread_name", "\"name\":" + json_string(names.node(pe))));
        ev.emit(metadata(kPePid, pe, "thread_sort_index", fmt::format(R"("sort_index":{})", pe)));
    }

    std::set<std::int64_t> links;
    for_each_kinded_hop(trace, [&](const KindedHop& h) {
        links.insert(h.link);
        ev.emit(
            fmt::format(R"({{"ph":"X","pid":{},"tid":{},"cat":"hop","name":{},"ts":{},"dur":{},"args":{{"txn":{}}}}})",
                        kLinkPid, link_tid(h.link), json_string(h.kind.empty() ? "hop" : h.kind),
                        h.enter * us_per_cycle, (h.leave - h.enter) * us_per_cycle, h.txn));
    });
    for (const std::int64_t link : links) {
        ev.emit(metadata(kLinkPid, link_tid(link), "thread_name", "\"name\":" + json_string(names.link(link))));
        ev.emit(metadata(kLinkPid, link_tid(link), "thread_sort_index", fmt::format(R"("sort_index":{})", link)));
    }

    // Link counters as counter tracks: the only timeline a Detail::counters trace has.
    const double bucket_us = trace.bucket_cycles() * us_per_cycle;
    for (const Link& l : trace.links()) {
        const std::string name = json_string(names.declared_link(l.id));
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

void export_perfetto_proto(const TraceReader& trace, std::ostream& out) {
    ProtoExport x(trace, out);
    x.pe_states();
    x.transactions();
    x.launches();
    x.hops();
    x.link_counters();
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
