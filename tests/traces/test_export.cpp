// Perfetto and CSV exports.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
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
