// Perfetto and CSV exports.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "helpers.hpp"

using namespace trace_test;
using nlohmann::json;

namespace {

json perfetto_of(const fs::path& path) {
    std::ostringstream out;
    export_perfetto(TraceReader(path), out);
    return json::parse(out.str());
}

std::vector<json> events(const json& doc, std::string_view ph) {
    std::vector<json> out;
    for (const auto& e : doc.at("traceEvents")) {
        if (e.at("ph") == ph) out.push_back(e);
    }
    return out;
}

}  // namespace

TEST_CASE("perfetto export parses and has X and M events", "[export]") {
    TempDir dir;
    const auto path = dir / "p.trace";
    write_small_trace(path, Detail::hops);
    const json doc = perfetto_of(path);
    const auto x = events(doc, "X");
    CHECK(x.size() == 4 + 3 + 2 * 2);  // PE states + hops + both ends of the 2 transactions
    std::size_t pe_slices = 0;
    std::size_t hop_slices = 0;
    for (const auto& e : x) {
        if (e.at("pid") == kPePid && e.at("cat") == "pe") ++pe_slices;
        if (e.at("pid") == kLinkPid) {
            ++hop_slices;
            CHECK(e.at("tid").get<std::int64_t>() >= kLinkTidBase);
            CHECK(e.at("args").contains("txn"));
        }
    }
    CHECK(pe_slices == 4);
    CHECK(hop_slices == 3);
    std::map<std::int64_t, std::string> thread_names;
    for (const auto& e : events(doc, "M")) {
        if (e.at("name") == "thread_name") thread_names[e.at("tid")] = e.at("args").at("name");
    }
    CHECK(thread_names.at(0) == "core 0");
    CHECK(thread_names.at(3) == "core 3");
    CHECK(thread_names.at(kLinkTidBase + 10) == "0->1, east (cmesh)");
    CHECK(thread_names.at(kLinkTidBase + 11) == "1->3 (cmesh)");
    CHECK(doc.at("otherData").at("machine") == "e16g301");
    // Transaction 1 (0 -> 3, cycles 10 to 25.5): a flow from core 0's track to core 3's.
    const auto s = events(doc, "s");
    const auto f = events(doc, "f");
    REQUIRE(s.size() == 2);
    REQUIRE(f.size() == 2);
    CHECK(s[0].at("tid") == 0);
    CHECK(f[0].at("tid") == 3);
    CHECK(s[0].at("id") == f[0].at("id"));
    CHECK(f[0].at("bp") == "e");
    CHECK(s[0].at("ts").get<double>() == Approx(10.0 * 1e6 / sample_meta().clock_hz));
    CHECK(f[0].at("ts").get<double>() == Approx(25.5 * 1e6 / sample_meta().clock_hz));
}

TEST_CASE("perfetto export shows launches with a start as slices, a track per mode", "[export]") {
    TempDir dir;
    const auto path = dir / "launch.trace";
    {
        TraceWriter w(path, sample_meta(), Detail::counters, quiet());
        w.add_launch({"native", "unicast", 3, 2.5e-3, 1.5e6, 4096, true, 0.0});
        w.add_launch({"sim", "unicast", 3, 1.0e-5, 6000, 4096, true, 100.0});
        w.add_launch({"sim", "broadcast", 3, 1.0e-5, 6000, 4096, true, 6100.0});
        w.add_launch({"sim", "old", 1, 1.0e-5, 6000, 4096, true});  // no start: not placed
        w.finish();
    }
    const json doc = perfetto_of(path);
    std::vector<json> launches;
    for (const auto& e : events(doc, "X"))
        if (e.at("cat") == "launch") launches.push_back(e);
    REQUIRE(launches.size() == 3);
    CHECK(launches[0].at("pid") == kLaunchPid);
    CHECK(launches[0].at("tid") == kLaunchTidBase);
    CHECK(launches[1].at("tid") == kLaunchTidBase + 1);
    CHECK(launches[2].at("tid") == kLaunchTidBase + 1);
    CHECK(launches[2].at("name") == "broadcast n=3");
    const double us = 1e6 / sample_meta().clock_hz;
    CHECK(launches[2].at("ts").get<double>() == Approx(6100.0 * us));
    CHECK(launches[2].at("dur").get<double>() == Approx(6000.0 * us));
}

TEST_CASE("perfetto export converts cycles with clock_hz", "[export]") {
    TempDir dir;
    const auto path = dir / "clk.trace";
    Meta meta = sample_meta();
    meta.clock_hz = 500e6;  // 2 ns per cycle
    write_small_trace(path, Detail::hops, meta);
    bool seen = false;
    for (const auto& e : events(perfetto_of(path), "X")) {
        if (e.at("name") == "dma" && e.at("cat") == "hop") {  // hop of txn 2: cycles 31.5 to 39.5
            CHECK(e.at("ts").get<double>() == Approx(0.063));
            CHECK(e.at("dur").get<double>() == Approx(0.016));
            seen = true;
        }
    }
    CHECK(seen);
}

TEST_CASE("perfetto export takes one microsecond per cycle without a clock", "[export]") {
    TempDir dir;
    const auto path = dir / "noclk.trace";
    Meta meta = sample_meta();
    meta.clock_hz = 0;
    write_small_trace(path, Detail::hops, meta);
    bool seen = false;
    for (const auto& e : events(perfetto_of(path), "X")) {
        if (e.at("pid") == kPePid && e.at("tid") == 3 && e.at("name") == "barrier") {
            CHECK(e.at("ts").get<double>() == Approx(25.5));
            CHECK(e.at("dur").get<double>() == Approx(34.5));
            seen = true;
        }
    }
    CHECK(seen);
}

TEST_CASE("csv export of links has a header and quoted fields", "[export]") {
    TempDir dir;
    const auto path = dir / "l.trace";
    write_small_trace(path, Detail::counters);
    std::ostringstream out;
    export_csv(TraceReader(path), "links", out);
    CHECK(out.str() ==
          "id,net,src,dst,name\n"
          "10,cmesh,0,1,\"0->1, east\"\n"
          "11,cmesh,1,3,1->3\n");
}

TEST_CASE("csv export covers every table", "[export]") {
    TempDir dir;
    const auto path = dir / "all.trace";
    write_small_trace(path, Detail::hops);
    const TraceReader r(path);
    const std::map<std::string, std::string> headers{
        {"meta", "key,value"},
        {"nodes", "id,name,kind,coords"},
        {"links", "id,net,src,dst,name"},
        {"transactions", "id,src,dst,bytes,inject,arrive,kind"},
        {"hops", "txn,link,enter,leave"},
        {"link_counters", "link,bucket,bytes,packets,busy,stall"},
        {"pe_states", "pe,state,start,end"},
    };
    for (const auto& [table, header] : headers) {
        std::ostringstream out;
        export_csv(r, table, out);
        const std::string text = out.str();
        CHECK(text.substr(0, text.find('\n')) == header);
    }
    std::ostringstream nodes;
    export_csv(r, "nodes", nodes);
    CHECK_THAT(nodes.str(), Catch::Contains("2,core 2,core,\"[1,0]\"\n"));
    std::ostringstream hops;
    export_csv(r, "hops", hops);
    CHECK_THAT(hops.str(), Catch::EndsWith("1,11,13,14.5\n2,10,31.5,39.5\n"));
}

TEST_CASE("csv export rejects unknown tables", "[export]") {
    TempDir dir;
    const auto path = dir / "u.trace";
    write_small_trace(path, Detail::counters);
    std::ostringstream out;
    CHECK_THROWS_WITH(export_csv(TraceReader(path), "sqlite_master", out),
                      Catch::Contains("unknown table 'sqlite_master'") && Catch::Contains("link_counters"));
}

TEST_CASE("perfetto export of a counters trace has counter tracks", "[export]") {
    TempDir dir;
    const auto path = dir / "cnt.trace";
    Meta meta = sample_meta();
    meta.clock_hz = 1e6;  // 1 us per cycle, buckets of 100 cycles
    write_small_trace(path, Detail::counters, meta);
    const json doc = perfetto_of(path);
    CHECK(events(doc, "X").empty());
    const auto c = events(doc, "C");
    REQUIRE(c.size() == 3);  // link 10: buckets 0 and 1; link 11: bucket 0
    CHECK(c[0].at("name") == "0->1, east (cmesh)");
    CHECK(c[0].at("args").at("bytes") == 72);
    CHECK(c[1].at("ts").get<double>() == Approx(100));
}

// --- Perfetto's protobuf format, read back with a decoder of the wire format written here ---

namespace {

// One field of a protobuf message: number, wire type and value (varint or fixed64 bits, or bytes).
struct PbField {
    std::uint64_t number = 0;
    std::uint64_t wire = 0;
    std::uint64_t value = 0;
    std::string_view bytes;
};

std::uint64_t read_varint(std::string_view data, std::size_t& pos) {
    std::uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        REQUIRE(pos < data.size());
        REQUIRE(shift < 64);
        const auto byte = static_cast<unsigned char>(data[pos++]);
        v |= static_cast<std::uint64_t>(byte & 0x7fU) << shift;
        if ((byte & 0x80U) == 0) return v;
    }
}

// The fields of `data`, which must be a well-formed message of varint, fixed64 and
// length-delimited fields (the only wire types the exporter writes).
std::vector<PbField> pb_fields(std::string_view data) {
    std::vector<PbField> fields;
    for (std::size_t pos = 0; pos < data.size();) {
        const std::uint64_t key = read_varint(data, pos);
        PbField f{key >> 3U, key & 7U, 0, {}};
        REQUIRE(f.number > 0);
        if (f.wire == 0) {
            f.value = read_varint(data, pos);
        } else if (f.wire == 1) {
            REQUIRE(pos + 8 <= data.size());
            for (unsigned i = 0; i < 8; ++i)
                f.value |= static_cast<std::uint64_t>(static_cast<unsigned char>(data[pos + i])) << (8U * i);
            pos += 8;
        } else {
            REQUIRE(f.wire == 2);
            const std::uint64_t length = read_varint(data, pos);
            REQUIRE(length <= data.size() - pos);
            f.bytes = data.substr(pos, length);
            pos += length;
        }
        fields.push_back(f);
    }
    return fields;
}

struct PbTrack {
    std::string name;
    std::optional<std::uint64_t> parent;
    bool counter = false;
    std::optional<std::int64_t> pid, tid;  // process or thread track
    std::string process_or_thread_name;
};

struct PbEvent {
    std::uint64_t ts = 0;
    std::uint64_t type = 0;
    std::uint64_t track = 0;
    std::string name, category;
    std::optional<std::int64_t> counter;
    std::optional<double> double_counter;
    std::vector<std::uint64_t> flows, terminating_flows;
    std::map<std::string, double> args;  // ints, doubles and bools alike
};

struct PbTrace {
    std::map<std::uint64_t, PbTrack> tracks;
    std::vector<PbEvent> events;
    std::size_t packets = 0;
    std::vector<std::string> problems;  // sequence and descriptor rules broken
};

PbTrack pb_track(std::string_view data, std::uint64_t& uuid) {
    PbTrack t;
    for (const PbField& f : pb_fields(data)) {
        if (f.number == 1) uuid = f.value;
        if (f.number == 2) t.name = f.bytes;
        if (f.number == 5) t.parent = f.value;
        if (f.number == 8) t.counter = true;
        if (f.number == 3 || f.number == 4) {  // process: pid 1, name 6; thread: pid 1, tid 2, name 5
            for (const PbField& g : pb_fields(f.bytes)) {
                if (g.number == 1) t.pid = static_cast<std::int64_t>(g.value);
                if (f.number == 4 && g.number == 2) t.tid = static_cast<std::int64_t>(g.value);
                if ((f.number == 3 && g.number == 6) || (f.number == 4 && g.number == 5))
                    t.process_or_thread_name = g.bytes;
            }
        }
    }
    return t;
}

void pb_arg(std::string_view data, PbEvent& e) {
    std::string name;
    double value = 0;
    for (const PbField& g : pb_fields(data)) {
        if (g.number == 10) name = g.bytes;
        if (g.number == 4 || g.number == 2) value = static_cast<double>(static_cast<std::int64_t>(g.value));
        if (g.number == 5) value = std::bit_cast<double>(g.value);
    }
    e.args[name] = value;
}

PbEvent pb_event(std::string_view data, std::uint64_t ts) {
    PbEvent e;
    e.ts = ts;
    for (const PbField& f : pb_fields(data)) {
        switch (f.number) {
            case 4:
                pb_arg(f.bytes, e);
                break;
            case 9:
                e.type = f.value;
                break;
            case 11:
                e.track = f.value;
                break;
            case 22:
                e.category = f.bytes;
                break;
            case 23:
                e.name = f.bytes;
                break;
            case 30:
                e.counter = static_cast<std::int64_t>(f.value);
                break;
            case 44:
                e.double_counter = std::bit_cast<double>(f.value);
                break;
            case 47:
                e.flows.push_back(f.value);
                break;
            case 48:
                e.terminating_flows.push_back(f.value);
                break;
            default:
                FAIL("unexpected TrackEvent field " << f.number);
        }
    }
    return e;
}

// Trace.packet (1) -> TracePacket: timestamp 8, trusted_packet_sequence_id 10, track_event 11,
// sequence_flags 13, track_descriptor 60.
PbTrace pb_decode(std::string_view data) {
    PbTrace trace;
    for (const PbField& p : pb_fields(data)) {
        REQUIRE(p.number == 1);
        REQUIRE(p.wire == 2);
        std::uint64_t ts = 0, sequence = 0, flags = 0;
        std::optional<std::string_view> event, track;
        for (const PbField& f : pb_fields(p.bytes)) {
            if (f.number == 8) ts = f.value;
            if (f.number == 10) sequence = f.value;
            if (f.number == 13) flags = f.value;
            if (f.number == 11) event = f.bytes;
            if (f.number == 60) track = f.bytes;
        }
        if (sequence != 1) trace.problems.push_back("a packet off sequence 1");
        if ((trace.packets == 0) != (flags == 1)) trace.problems.push_back("sequence_flags wrong");
        ++trace.packets;
        if (track) {
            std::uint64_t uuid = 0;
            PbTrack t = pb_track(*track, uuid);
            if (!trace.tracks.emplace(uuid, t).second) trace.problems.push_back("a track described twice");
        }
        if (event) {
            trace.events.push_back(pb_event(*event, ts));
            if (!trace.tracks.count(trace.events.back().track))
                trace.problems.push_back("track " + std::to_string(trace.events.back().track) + " used undescribed");
        }
    }
    return trace;
}

PbTrace perfetto_proto_of(const fs::path& path, std::size_t* bytes = nullptr) {
    std::ostringstream out;
    export_perfetto_proto(TraceReader(path), out);
    if (bytes) *bytes = out.str().size();
    return pb_decode(out.str());
}

// A 2x2 mesh run at Detail::hops as write_small_trace writes it, with a transaction whose
// source has no declared node and launches: three with a start (one native, two sim), one without.
void write_trace_with_launches(const fs::path& path, Meta meta) {
    TraceWriter w(path, std::move(meta), Detail::hops, quiet());
    for (int id = 0; id < 4; ++id) w.add_node({id, "core " + std::to_string(id), "core", "[0,0]"});
    w.add_link({10, "cmesh", 0, 1, "0->1, east"});
    w.add_link({11, "cmesh", 1, 3, "1->3"});
    const auto t1 = w.add_transaction({0, 0, 3, 8, 10.0, 25.5, "write"});
    const auto t2 = w.add_transaction({0, 0, 1, 64, 30.0, 50.0, "dma"});
    w.add_transaction({0, 7, 2, 4, 40.0, 40.0, ""});  // node 7 undeclared, delivered at once
    w.add_hop({t1, 10, 11.5, 13.0});
    w.add_hop({t1, 11, 13.0, 14.5});
    w.add_hop({t2, 10, 31.5, 39.5});
    w.add_link_sample(10, 11.5, 8, 1.5, 0);
    w.add_link_sample(11, 13.0, 8, 1.5, 0.5);
    w.add_link_sample(10, 31.5, 64, 8, 2);
    w.add_link_sample(10, 150, 16, 2, 0);  // second bucket (bucket_cycles = 100)
    w.add_pe_state(0, PeState::compute, 0, 10);
    w.add_pe_state(0, PeState::waiting, 10, 26);
    w.add_pe_state(3, PeState::polling, 0, 25.5);
    w.add_pe_state(3, PeState::barrier, 25.5, 60);
    w.add_launch({"native", "unicast", 3, 2.5e-3, 1.5e6, 4096, true, 0.0});
    w.add_launch({"sim", "unicast", 3, 1.0e-5, 6000, 4096, true, 100.0});
    w.add_launch({"sim", "broadcast", 3, 1.0e-5, 6000.5, 2048, false, 6100.0});
    w.add_launch({"sim", "old", 1, 1.0e-5, 6000, 4096, true, std::nullopt});  // no start: not placed
    w.finish();
}

}  // namespace

namespace {

// The uuid of the thread (or, without tid, process) track of pid/tid; 0 if none.
std::uint64_t track_of(const PbTrace& pb, std::int64_t pid, std::optional<std::int64_t> tid) {
    for (const auto& [uuid, t] : pb.tracks)
        if (t.pid == pid && t.tid == tid) return uuid;
    return 0;
}

// The begin event of each slice (its end must follow on the same track, not before it in time),
// counting the slices per category in `count`.
std::vector<const PbEvent*> slices(const PbTrace& pb, std::map<std::string, std::size_t>& count) {
    std::vector<const PbEvent*> begins;
    std::map<std::uint64_t, std::vector<const PbEvent*>> open;
    for (const PbEvent& e : pb.events) {
        if (e.type == 1) {
            open[e.track].push_back(&e);
            begins.push_back(&e);
        } else if (e.type == 2) {
            REQUIRE(!open[e.track].empty());
            CHECK(e.name.empty());
            CHECK(e.ts >= open[e.track].back()->ts);
            ++count[open[e.track].back()->category];
            open[e.track].pop_back();
        }
    }
    for (const auto& [track, stack] : open) CHECK(stack.empty());
    return begins;
}

}  // namespace

TEST_CASE("perfetto protobuf export holds the JSON's events, one per row", "[export][proto]") {
    TempDir dir;
    const auto path = dir / "pb.trace";
    Meta meta = sample_meta();
    meta.clock_hz = 500e6;  // 2 ns per cycle: every time in the trace is a whole ns
    write_trace_with_launches(path, meta);
    const TraceReader r(path);
    const PbTrace pb = perfetto_proto_of(path);
    CHECK(pb.problems == std::vector<std::string>{});  // one sequence, every track described before use

    std::map<std::string, std::size_t> count;
    const auto begins = slices(pb, count);
    const auto launches = r.launches();
    CHECK(count.size() == 4);
    CHECK(count["pe"] == r.pe_states(-1e300, 1e300).size());
    CHECK(count["hop"] == static_cast<std::size_t>(r.hop_count()));
    CHECK(count["txn"] == 2 * static_cast<std::size_t>(r.transaction_count()));
    CHECK(count["launch"] ==
          static_cast<std::size_t>(
              std::count_if(launches.begin(), launches.end(), [](const Launch& l) { return l.start.has_value(); })));
    std::size_t counter_rows = 0;
    for (const Link& l : r.links()) counter_rows += r.link_counters(l.id).size();
    std::vector<const PbEvent*> counters;
    for (const PbEvent& e : pb.events)
        if (e.type == 4) counters.push_back(&e);
    CHECK(counters.size() == 3 * counter_rows);
    CHECK(pb.events.size() == 2 * begins.size() + counters.size());  // nothing but slices and counters

    // The JSON export of the same trace has as many slices, flows and counter samples.
    const json doc = perfetto_of(path);
    CHECK(events(doc, "X").size() == begins.size());
    CHECK(3 * events(doc, "C").size() == counters.size());

    // Each transaction: a flow from its source's track at inject to its destination's at arrive.
    std::map<std::uint64_t, const PbEvent*> starts, ends;
    for (const PbEvent& e : pb.events) {
        for (const std::uint64_t id : e.flows) CHECK(starts.emplace(id, &e).second);
        for (const std::uint64_t id : e.terminating_flows) CHECK(ends.emplace(id, &e).second);
    }
    CHECK(starts.size() == static_cast<std::size_t>(r.transaction_count()));
    CHECK(ends.size() == starts.size());
    CHECK(events(doc, "s").size() == starts.size());
    const auto num = [](std::int64_t v) { return static_cast<double>(v); };
    for (const Transaction& x : r.transactions(0, 100)) {
        const PbEvent& s = *starts.at(static_cast<std::uint64_t>(x.id));
        const PbEvent& f = *ends.at(static_cast<std::uint64_t>(x.id));
        CHECK(s.track == track_of(pb, kPePid, x.src));
        CHECK(f.track == track_of(pb, kPePid, x.dst));
        CHECK(s.ts == static_cast<std::uint64_t>(2 * x.inject));
        CHECK(f.ts == static_cast<std::uint64_t>(2 * x.arrive));
        CHECK(s.name == (x.kind.empty() ? "transaction" : x.kind));
        CHECK(s.category == "txn");
        CHECK(s.args == std::map<std::string, double>{{"txn", num(x.id)}, {"bytes", num(x.bytes)}, {"to", num(x.dst)}});
        CHECK(f.args ==
              std::map<std::string, double>{{"txn", num(x.id)}, {"bytes", num(x.bytes)}, {"from", num(x.src)}});
    }

    // Tracks as the JSON's: pid/tid and names.
    CHECK(pb.tracks.at(track_of(pb, kPePid, std::nullopt)).process_or_thread_name == "PEs");
    CHECK(pb.tracks.at(track_of(pb, kLinkPid, std::nullopt)).process_or_thread_name == "links");
    CHECK(pb.tracks.at(track_of(pb, kLaunchPid, std::nullopt)).process_or_thread_name == "launches");
    CHECK(pb.tracks.at(track_of(pb, kPePid, 3)).process_or_thread_name == "core 3");
    CHECK(pb.tracks.at(track_of(pb, kPePid, 7)).process_or_thread_name == "pe 7");
    CHECK(pb.tracks.at(track_of(pb, kLinkPid, kLinkTidBase + 10)).process_or_thread_name == "0->1, east (cmesh)");
    CHECK(pb.tracks.at(track_of(pb, kLaunchPid, kLaunchTidBase)).process_or_thread_name == "native");
    CHECK(pb.tracks.at(track_of(pb, kLaunchPid, kLaunchTidBase + 1)).process_or_thread_name == "sim");

    // Times are cycles x 2 ns: PE 3's barrier, the dma hop, the broadcast launch.
    for (const PbEvent* b : begins) {
        if (b->name == "barrier") CHECK(b->ts == 51);
        if (b->name == "dma" && b->category == "hop") {
            CHECK(b->ts == 63);
            CHECK(b->args == std::map<std::string, double>{{"txn", 2}});
        }
        if (b->name == "broadcast n=3") {
            CHECK(b->ts == 12200);
            CHECK(b->track == track_of(pb, kLaunchPid, kLaunchTidBase + 1));
            CHECK(b->args ==
                  std::map<std::string, double>{{"n", 3}, {"cycles", 6000.5}, {"bytes", 2048}, {"check_ok", 0}});
        }
    }
    const auto slice_end = [&](const PbEvent* b) {
        for (auto it = pb.events.begin() + (b - pb.events.data()) + 1; it != pb.events.end(); ++it)
            if (it->track == b->track) return it->ts;
        return std::uint64_t{0};
    };
    for (const PbEvent* b : begins)
        if (b->name == "broadcast n=3") CHECK(slice_end(b) == 24201);  // 6100 + 6000.5 cycles

    // Counters: link 10's first bucket (bytes 72, busy 9.5, stall 2) at 0, its second at 100 cycles.
    REQUIRE(counters.size() >= 4);
    for (const PbEvent* c : counters) {
        const PbTrack& t = pb.tracks.at(c->track);
        CHECK(t.counter);
        CHECK(t.parent == track_of(pb, kLinkPid, std::nullopt));
    }
    CHECK(pb.tracks.at(counters[0]->track).name == "0->1, east (cmesh) bytes");
    CHECK(pb.tracks.at(counters[1]->track).name == "0->1, east (cmesh) busy");
    CHECK(pb.tracks.at(counters[2]->track).name == "0->1, east (cmesh) stall");
    CHECK(counters[0]->counter == 72);
    CHECK(counters[1]->double_counter == 9.5);
    CHECK(counters[2]->double_counter == 2.0);
    CHECK(counters[0]->ts == 0);
    CHECK(counters[3]->ts == 200);
    CHECK(counters[3]->track == counters[0]->track);
}

TEST_CASE("perfetto protobuf export takes one microsecond per cycle without a clock", "[export][proto]") {
    TempDir dir;
    const auto path = dir / "pb-noclk.trace";
    Meta meta = sample_meta();
    meta.clock_hz = 0;
    write_small_trace(path, Detail::hops, meta);
    const PbTrace pb = perfetto_proto_of(path);
    CHECK(pb.problems == std::vector<std::string>{});
    bool seen = false;
    for (std::size_t i = 0; i < pb.events.size(); ++i) {
        const PbEvent& e = pb.events[i];
        if (e.type == 1 && e.name == "barrier") {  // PE 3, cycles 25.5 to 60
            CHECK(e.ts == 25500);
            REQUIRE(i + 1 < pb.events.size());
            CHECK(pb.events[i + 1].type == 2);
            CHECK(pb.events[i + 1].ts == 60000);
            seen = true;
        }
    }
    CHECK(seen);
}

TEST_CASE("perfetto protobuf export of a counters trace has only counter tracks", "[export][proto]") {
    TempDir dir;
    const auto path = dir / "pb-cnt.trace";
    write_small_trace(path, Detail::counters);
    std::size_t bytes = 0;
    const PbTrace pb = perfetto_proto_of(path, &bytes);
    CHECK(pb.problems == std::vector<std::string>{});
    REQUIRE(pb.events.size() == 3 * 3);  // link 10: buckets 0 and 1; link 11: bucket 0
    for (const PbEvent& e : pb.events) CHECK(e.type == 4);
    std::ostringstream js;
    export_perfetto(TraceReader(path), js);
    CHECK(bytes < js.str().size());
}
