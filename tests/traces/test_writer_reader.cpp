// TraceWriter -> TraceReader round trips.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <thread>

#include "helpers.hpp"

using namespace trace_test;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_common_tables(const TraceReader& r) {
    REQUIRE(r.nodes().size() == 4);
    CHECK(r.nodes()[3] == Node{3, "core 3", "core", "[1,1]"});
    REQUIRE(r.links().size() == 2);
    CHECK(r.links()[0] == Link{10, "cmesh", 0, 1, "0->1, east"});
    CHECK(r.links()[1] == Link{11, "cmesh", 1, 3, "1->3"});
    const auto totals = r.link_totals();
    REQUIRE(totals.size() == 2);
    CHECK(totals[0] == LinkTotals{10, 88, 3, 11.5, 2});
    CHECK(totals[1] == LinkTotals{11, 8, 1, 1.5, 0.5});
    const auto buckets = r.link_counters(10);
    REQUIRE(buckets.size() == 2);
    CHECK(buckets[0] == LinkCounter{10, 0, 72, 2, 9.5, 2});
    CHECK(buckets[1] == LinkCounter{10, 1, 16, 1, 2, 0});
    CHECK(r.complete());
    CHECK(r.meta().at("machine") == "e16g301");
    CHECK(r.meta().at("seed") == "42");
    CHECK(r.clock_hz() == 600e6);
    CHECK(r.bucket_cycles() == 100);
}

}  // namespace

TEST_CASE("round trip at detail hops keeps every table", "[writer][reader]") {
    TempDir dir;
    const auto path = dir / "run.trace";
    write_small_trace(path, Detail::hops);
    const TraceReader r(path);
    CHECK(r.detail() == Detail::hops);
    check_common_tables(r);
    REQUIRE(r.transaction_count() == 2);
    const auto txns = r.transactions(1, 10);
    REQUIRE(txns.size() == 2);
    CHECK(txns[0] == Transaction{1, 0, 3, 8, 10.0, 25.5, "write"});
    CHECK(txns[1] == Transaction{2, 0, 1, 64, 30.0, 50.0, "dma"});
    REQUIRE(r.hop_count() == 3);
    const auto hops = r.hops(-kInf, kInf);
    REQUIRE(hops.size() == 3);
    CHECK(hops[0] == Hop{1, 10, 11.5, 13.0});
    CHECK(hops[1] == Hop{1, 11, 13.0, 14.5});
    CHECK(hops[2] == Hop{2, 10, 31.5, 39.5});
    CHECK(r.hops(10, -kInf, kInf).size() == 2);
    CHECK(r.pes() == std::vector<std::int64_t>{0, 3});
    const auto states = r.pe_states(-kInf, kInf);
    REQUIRE(states.size() == 4);
    CHECK(states[0] == PeStateSpan{0, PeState::compute, 0, 10});
    CHECK(states[3] == PeStateSpan{3, PeState::barrier, 25.5, 60});
}

TEST_CASE("round trip at detail transactions writes no hops", "[writer][reader]") {
    TempDir dir;
    const auto path = dir / "run.trace";
    write_small_trace(path, Detail::transactions);
    const TraceReader r(path);
    CHECK(r.detail() == Detail::transactions);
    check_common_tables(r);
    CHECK(r.transaction_count() == 2);
    CHECK(r.hop_count() == 0);
    CHECK(r.hops(-kInf, kInf).empty());
    CHECK(r.pe_states(-kInf, kInf).size() == 4);
}

TEST_CASE("round trip at detail counters writes no transactions hops or states", "[writer][reader]") {
    TempDir dir;
    const auto path = dir / "run.trace";
    write_small_trace(path, Detail::counters);
    const TraceReader r(path);
    CHECK(r.detail() == Detail::counters);
    check_common_tables(r);
    CHECK(r.transaction_count() == 0);
    CHECK(r.hop_count() == 0);
    CHECK(r.pes().empty());
    CHECK(r.pe_states(-kInf, kInf).empty());
}

TEST_CASE("calls below the detail level are no-ops", "[writer]") {
    TempDir dir;
    TraceWriter w(dir / "c.trace", sample_meta(), Detail::counters, quiet());
    CHECK_FALSE(w.records_transactions());
    CHECK_FALSE(w.records_hops());
    CHECK(w.add_transaction({0, 0, 1, 8, 0, 1, "write"}) == 0);
    // Even invalid values are not looked at when the level is off.
    CHECK_NOTHROW(w.add_hop({0, 1, 5, 1}));
    CHECK_NOTHROW(w.add_pe_state(0, PeState::compute, 5, 1));
    w.finish();
}

TEST_CASE("meta records the run and its completeness", "[writer][reader]") {
    TempDir dir;
    const auto path = dir / "m.trace";
    Meta meta = sample_meta();
    meta.extra["host"] = "ci-runner";
    write_small_trace(path, Detail::hops, meta);
    const TraceReader r(path);
    const auto& m = r.meta();
    CHECK(m.at("schema_version") == std::to_string(kSchemaVersion));
    CHECK(m.at("hopsim_version") == "0.1.0");
    CHECK(m.at("git_revision") == "abc1234");
    CHECK(m.at("scenario") == meta.scenario);
    CHECK(m.at("mode") == "sim");
    CHECK(m.at("detail") == "hops");
    CHECK(m.at("complete") == "1");
    CHECK(m.at("host") == "ci-runner");
    CHECK(m.at("created").size() == 20);  // 2024-01-02T03:04:05Z
    CHECK(m.count("incomplete_reason") == 0);
    CHECK_FALSE(fs::exists(dir / "m.trace.partial"));
}

TEST_CASE("set_meta adds keys known only at the end, the last value kept; reserved keys refused", "[writer][reader]") {
    TempDir dir;
    const auto path = dir / "late.trace";
    {
        TraceWriter w(path, sample_meta(), Detail::hops, quiet());
        w.add_node({0, "core 0", "core", "[0,0]"});
        w.set_meta("instructions", "{\"0\": 5}");
        w.set_meta("instructions", "{\"0\": 811}");
        CHECK_THROWS_AS(w.set_meta("complete", "1"), TraceError);
        CHECK_THROWS_AS(w.set_meta("schema_version", "9"), TraceError);
        w.finish();
    }
    const TraceReader r(path);
    CHECK(r.meta().at("instructions") == "{\"0\": 811}");
    CHECK(r.meta().at("complete") == "1");
    CHECK(r.meta().at("schema_version") == std::to_string(kSchemaVersion));
}

TEST_CASE("mark_incomplete records the reason", "[writer][reader]") {
    TempDir dir;
    const auto path = dir / "dl.trace";
    std::vector<std::string> notices;
    {
        TraceWriter w(path, sample_meta(), Detail::hops, quiet(&notices));
        w.add_node({0, "core 0", "core", "[0,0]"});
        w.mark_incomplete("deadlock at cycle 900");
        CHECK(w.finish() == path);
    }
    const TraceReader r(path);
    CHECK_FALSE(r.complete());
    CHECK(r.meta().at("incomplete_reason") == "deadlock at cycle 900");
    REQUIRE(notices.size() == 1);
    CHECK_THAT(notices[0], Catch::Contains("incomplete") && Catch::Contains("deadlock"));
}

TEST_CASE("200000 hops in batches are all read back and windows are exact", "[writer][reader][volume]") {
    TempDir dir;
    const auto path = dir / "big.trace";
    constexpr int kHops = 200000;
    std::vector<Hop> all;
    all.reserve(kHops);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> jitter(0.0, 3.0);
    std::uniform_int_distribution<int> length(0, 12);
    {
        TraceWriter w(path, sample_meta(), Detail::hops, quiet(nullptr, 20000));
        for (int i = 0; i < kHops; ++i) {
            const double enter = i * 0.5 + jitter(rng);  // roughly in time order, as a simulator emits
            const Hop h{i / 4 + 1, i % 48, enter, enter + length(rng) * 0.5};
            w.add_hop(h);
            all.push_back(h);
        }
        w.finish();
    }
    const TraceReader r(path);
    REQUIRE(r.hop_count() == kHops);
    auto everything = r.hops(-kInf, kInf);
    REQUIRE(everything.size() == static_cast<std::size_t>(kHops));
    auto key = [](const Hop& h) { return std::tuple(h.enter, h.leave, h.link, h.txn); };
    auto by_key = [&](const Hop& a, const Hop& b) { return key(a) < key(b); };
    std::sort(everything.begin(), everything.end(), by_key);
    std::vector<Hop> expected_all = all;
    std::sort(expected_all.begin(), expected_all.end(), by_key);
    CHECK(everything == expected_all);

    const auto overlaps = [](const Hop& h, double t0, double t1) {
        return h.enter < t1 && (h.leave > t0 || h.enter >= t0);
    };
    for (const auto& [t0, t1] : {std::pair{1000.0, 1010.0}, std::pair{50000.0, 50000.5}, std::pair{99990.0, 2e5}}) {
        std::vector<Hop> expected;
        std::copy_if(all.begin(), all.end(), std::back_inserter(expected),
                     [&](const Hop& h) { return overlaps(h, t0, t1); });
        auto got = r.hops(t0, t1);
        CHECK(std::is_sorted(got.begin(), got.end(), [](const Hop& a, const Hop& b) { return a.enter < b.enter; }));
        std::sort(got.begin(), got.end(), by_key);
        std::sort(expected.begin(), expected.end(), by_key);
        REQUIRE_FALSE(expected.empty());
        CHECK(got == expected);

        std::vector<Hop> expected_link;
        std::copy_if(expected.begin(), expected.end(), std::back_inserter(expected_link),
                     [](const Hop& h) { return h.link == 5; });
        auto got_link = r.hops(5, t0, t1);
        std::sort(got_link.begin(), got_link.end(), by_key);
        CHECK(got_link == expected_link);
    }
}

TEST_CASE("concurrent producers lose no rows", "[writer]") {
    TempDir dir;
    const auto path = dir / "mt.trace";
    constexpr int kThreads = 4;
    constexpr int kEach = 10000;
    {
        TraceWriter w(path, sample_meta(), Detail::hops, quiet(nullptr, 1000));
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&w, t] {
                for (int i = 0; i < kEach; ++i) {
                    const auto id = w.add_transaction({0, t, t + 1, 8, double(i), double(i) + 4, "write"});
                    w.add_hop({id, t, double(i), double(i) + 1});
                    w.add_link_sample(t, i, 8, 1, 0);
                }
            });
        }
        for (auto& th : threads) th.join();
        w.finish();
    }
    const TraceReader r(path);
    CHECK(r.transaction_count() == kThreads * kEach);
    CHECK(r.hop_count() == kThreads * kEach);
    const auto txns = r.transactions(1, kThreads * kEach + 10);
    REQUIRE(txns.size() == static_cast<std::size_t>(kThreads * kEach));
    CHECK(txns.back().id == kThreads * kEach);  // ids are dense
    std::int64_t packets = 0;
    for (const auto& t : r.link_totals()) packets += t.packets;
    CHECK(packets == kThreads * kEach);
}

TEST_CASE("pe state window includes the state in progress", "[reader]") {
    TempDir dir;
    const auto path = dir / "pe.trace";
    {
        TraceWriter w(path, sample_meta(), Detail::transactions, quiet());
        w.add_pe_state(1, PeState::compute, 0, 1000);
        w.add_pe_state(1, PeState::barrier, 1000, 1200);
        w.add_pe_state(1, PeState::compute, 1200, 5000);
        w.add_pe_state(2, PeState::polling, 0, 100);
        w.add_pe_state(2, PeState::waiting, 3000, 3000);  // an instant
        w.finish();
    }
    const TraceReader r(path);
    const auto win = r.pe_states(1100, 3000.5);
    REQUIRE(win.size() == 3);
    CHECK(win[0] == PeStateSpan{1, PeState::barrier, 1000, 1200});
    CHECK(win[1] == PeStateSpan{1, PeState::compute, 1200, 5000});
    CHECK(win[2] == PeStateSpan{2, PeState::waiting, 3000, 3000});
    CHECK(r.pe_states(100, 200).size() == 1);  // PE 2's polling ended at 100: half-open
}

TEST_CASE("transactions page by id", "[reader]") {
    TempDir dir;
    const auto path = dir / "tx.trace";
    {
        TraceWriter w(path, sample_meta(), Detail::transactions, quiet(nullptr, 7));
        for (int i = 0; i < 25; ++i) CHECK(w.add_transaction({0, 0, 1, i, double(i), double(i) + 1, "read"}) == i + 1);
        w.finish();
    }
    const TraceReader r(path);
    const auto page = r.transactions(11, 5);
    REQUIRE(page.size() == 5);
    CHECK(page.front().id == 11);
    CHECK(page.back().bytes == 14);
    CHECK(r.transactions(24, 100).size() == 2);
}

TEST_CASE("writer rejects invalid records and meta", "[writer]") {
    TempDir dir;
    SECTION("bad meta") {
        Meta bad = sample_meta();
        bad.scenario = "{not json";
        CHECK_THROWS_AS(TraceWriter(dir / "a.trace", bad, Detail::hops, quiet()), TraceError);
        bad = sample_meta();
        bad.bucket_cycles = 0;
        CHECK_THROWS_AS(TraceWriter(dir / "a.trace", bad, Detail::hops, quiet()), TraceError);
        bad = sample_meta();
        bad.extra["complete"] = "1";
        CHECK_THROWS_WITH(TraceWriter(dir / "a.trace", bad, Detail::hops, quiet()), Catch::Contains("reserved"));
        CHECK_FALSE(fs::exists(dir / "a.trace.partial"));
    }
    SECTION("bad records") {
        TraceWriter w(dir / "b.trace", sample_meta(), Detail::hops, quiet());
        w.add_node({1, "n", "core", "[0,1]"});
        CHECK_THROWS_WITH(w.add_node({1, "again", "core", "[0,2]"}), Catch::Contains("duplicate node id 1"));
        CHECK_THROWS_WITH(w.add_node({2, "n2", "core", "0,2"}), Catch::Contains("JSON array"));
        w.add_link({5, "cmesh", 1, 2, "l"});
        CHECK_THROWS_WITH(w.add_link({5, "cmesh", 1, 2, "l"}), Catch::Contains("duplicate link id 5"));
        CHECK_THROWS_AS(w.add_hop({1, 5, 10, 9}), TraceError);
        CHECK_THROWS_AS(w.add_transaction({0, 1, 2, 8, 10, 9, "write"}), TraceError);
        CHECK_THROWS_AS(w.add_pe_state(1, PeState::compute, 3, 2), TraceError);
        w.finish();
        CHECK_THROWS_WITH(w.add_hop({1, 5, 1, 2}), Catch::Contains("closed"));
    }
}

TEST_CASE("launches of both modes round trip at every detail level", "[writer][reader]") {
    for (const Detail d : {Detail::counters, Detail::transactions, Detail::hops}) {
        TempDir dir;
        const auto path = dir / "run.trace";
        {
            TraceWriter w(path, sample_meta(), d, quiet());
            w.add_launch({"native", "unicast", 3, 2.5e-3, 1.5e6, 4096, true});
            w.add_launch({"sim", "unicast", 3, 1.0e-5, 6000, 4096, false, 120.5});
            CHECK_THROWS_AS(w.add_launch({"sim", "bad", 1, -1, 0, 0, true}), TraceError);
            w.finish();
        }
        const TraceReader r(path);
        const auto l = r.launches();
        REQUIRE(l.size() == 2);
        CHECK(l[0] == Launch{"native", "unicast", 3, 2.5e-3, 1.5e6, 4096, true});
        CHECK(l[1] == Launch{"sim", "unicast", 3, 1.0e-5, 6000, 4096, false, 120.5});
        CHECK_FALSE(l[0].start.has_value());
    }
}

TEST_CASE("a trace of schema version 1 (launches without a start) reads its launches", "[reader]") {
    TempDir dir;
    const auto path = dir / "v1.trace";
    {
        TraceWriter w(path, sample_meta(), Detail::counters, quiet());
        w.add_launch({"sim", "unicast", 3, 1.0e-5, 6000, 4096, true, 10.0});
        w.finish();
    }
    {
        hopsim::traces::sql::Db db(path, hopsim::traces::sql::OpenMode::create);
        db.exec("ALTER TABLE launches DROP COLUMN start");
        db.exec("UPDATE meta SET value = '1' WHERE key = 'schema_version'");
    }
    const TraceReader r(path);
    CHECK(r.schema_version() == 1);
    const auto l = r.launches();
    REQUIRE(l.size() == 1);
    CHECK(l[0] == Launch{"sim", "unicast", 3, 1.0e-5, 6000, 4096, true});
}

TEST_CASE("a trace written before the launches table reads as having none", "[reader]") {
    TempDir dir;
    const auto path = dir / "old.trace";
    write_small_trace(path, Detail::transactions);
    {
        hopsim::traces::sql::Db db(path, hopsim::traces::sql::OpenMode::create);
        db.exec("DROP TABLE launches");
    }
    const TraceReader r(path);
    CHECK(r.launches().empty());
    CHECK(r.transaction_count() == 2);
}

TEST_CASE("link totals of a time window sum the buckets it overlaps", "[reader]") {
    TempDir dir;
    const auto path = dir / "small.trace";
    write_small_trace(path, Detail::hops);
    const TraceReader r(path);
    CHECK(r.bucket_window(0, 100) == std::pair<std::int64_t, std::int64_t>{0, 0});
    CHECK(r.bucket_window(100, 200) == std::pair<std::int64_t, std::int64_t>{1, 1});
    CHECK(r.bucket_window(99.5, 100.5) == std::pair<std::int64_t, std::int64_t>{0, 1});
    const auto first = r.link_totals(0, 100);
    REQUIRE(first.size() == 2);
    CHECK(first[0] == LinkTotals{10, 72, 2, 9.5, 2});
    CHECK(first[1] == LinkTotals{11, 8, 1, 1.5, 0.5});
    const auto second = r.link_totals(150, 160);
    REQUIRE(second.size() == 1);
    CHECK(second[0] == LinkTotals{10, 16, 1, 2, 0});
    CHECK(r.link_totals(99.5, 100.5) == r.link_totals());
    CHECK(r.link_totals(300, 400).empty());
    CHECK(r.link_totals(50, 50).empty());
    CHECK(r.link_totals(-kInf, kInf) == r.link_totals());
}

TEST_CASE("a node's link totals count only its own transactions' hops", "[reader]") {
    TempDir dir;
    const auto path = dir / "small.trace";
    write_small_trace(path, Detail::hops);
    const TraceReader r(path);
    // Transaction 1 goes 0 -> 3 (8 bytes) over links 10 and 11; transaction 2 goes 0 -> 1 (64 bytes) over 10.
    const auto to3 = r.node_link_totals(3, -kInf, kInf);
    REQUIRE(to3.size() == 2);
    CHECK(to3[0] == LinkTotals{10, 8, 1, 1.5, 0});
    CHECK(to3[1] == LinkTotals{11, 8, 1, 1.5, 0});
    const auto to1 = r.node_link_totals(1, -kInf, kInf);
    REQUIRE(to1.size() == 1);
    CHECK(to1[0] == LinkTotals{10, 64, 1, 8, 0});
    const auto from0_late = r.node_link_totals(0, 30, 40);
    REQUIRE(from0_late.size() == 1);
    CHECK(from0_late[0] == LinkTotals{10, 64, 1, 8, 0});
    CHECK(r.node_link_totals(2, -kInf, kInf).empty());

    const auto path2 = dir / "txns.trace";
    write_small_trace(path2, Detail::transactions);
    CHECK(TraceReader(path2).node_link_totals(3, -kInf, kInf).empty());
}

TEST_CASE("time range spans every recorded activity", "[reader]") {
    TempDir dir;
    const auto path = dir / "small.trace";
    write_small_trace(path, Detail::hops);
    CHECK(TraceReader(path).time_range() == std::pair<double, double>{0, 200});  // counters reach bucket 1
    const auto empty = dir / "empty.trace";
    {
        TraceWriter w(empty, sample_meta(), Detail::hops, quiet());
        w.add_node({0, "a", "core", "[0,0]"});
        w.add_pe_state(0, PeState::compute, 5, 7.5);
        w.finish();
    }
    CHECK(TraceReader(empty).time_range() == std::pair<double, double>{5, 7.5});
    const auto none = dir / "none.trace";
    TraceWriter(none, sample_meta(), Detail::hops, quiet()).finish();
    CHECK(TraceReader(none).time_range() == std::pair<double, double>{0, 0});
}

TEST_CASE("a window records only the detail that overlaps it, clipping PE states", "[writer][reader]") {
    TempDir dir;
    const auto path = dir / "w.trace";
    auto o = quiet();
    o.window_begin = 100;
    o.window_end = 200;
    {
        TraceWriter w(path, sample_meta(), Detail::hops, o);
        w.add_node({0, "a", "core", "[0,0]"});
        w.add_node({1, "b", "core", "[0,1]"});
        w.add_link({5, "cmesh", 0, 1, "a->b"});
        CHECK(w.add_transaction({0, 0, 1, 8, 10, 50, "write"}) == 0);       // before
        const auto in = w.add_transaction({0, 0, 1, 8, 90, 110, "write"});  // straddles the start
        CHECK(in == 1);
        CHECK(w.add_transaction({0, 0, 1, 8, 150, 160, "write"}) == 2);  // inside
        CHECK(w.add_transaction({0, 0, 1, 8, 200, 210, "write"}) == 0);  // from the end on
        w.add_hop({0, 5, 10, 20});
        w.add_hop({in, 5, 95, 105});
        w.add_hop({0, 5, 250, 260});
        w.add_pe_state(0, PeState::compute, 0, 150);    // clipped to [100, 150)
        w.add_pe_state(0, PeState::waiting, 150, 300);  // clipped to [150, 200)
        w.add_pe_state(1, PeState::compute, 0, 99);     // outside
        w.add_link_sample(5, 10, 8, 1, 0);              // counters cover the whole run
        w.add_link_sample(5, 250, 8, 1, 0);
        w.finish();
    }
    const TraceReader r(path);
    CHECK(r.meta().at("window") == "100:200");
    CHECK(r.transaction_count() == 2);
    const auto txns = r.transactions(1, 10);
    REQUIRE(txns.size() == 2);
    CHECK(txns[0].inject == 90);
    CHECK(txns[1].inject == 150);
    const auto hops = r.hops(-kInf, kInf);
    REQUIRE(hops.size() == 1);
    CHECK(hops[0] == Hop{1, 5, 95, 105});
    const auto states = r.pe_states(-kInf, kInf);
    REQUIRE(states.size() == 2);
    CHECK(states[0] == PeStateSpan{0, PeState::compute, 100, 150});
    CHECK(states[1] == PeStateSpan{0, PeState::waiting, 150, 200});
    std::int64_t packets = 0;
    for (const auto& t : r.link_totals(-kInf, kInf)) packets += t.packets;
    CHECK(packets == 2);
}

TEST_CASE("a trace that reaches its size limit stops recording detail and says from when", "[writer][reader]") {
    TempDir dir;
    const auto path = dir / "s.trace";
    std::vector<std::string> notices;
    auto o = quiet(&notices, 1000);
    o.max_bytes = 200000;
    o.max_queued_batches = 1000;  // the producer runs far ahead of the writer thread
    const int n = 20000;
    {
        TraceWriter w(path, sample_meta(), Detail::transactions, o);
        w.add_node({0, "a", "core", "[0,0]"});
        w.add_node({1, "b", "core", "[0,1]"});
        w.add_link({5, "cmesh", 0, 1, "a->b"});
        for (int i = 0; i < n; ++i) {
            (void)w.add_transaction({0, 0, 1, 8, double(i), double(i) + 1, "write"});
            w.add_link_sample(5, i, 8, 1, 0);
        }
        w.add_launch({"sim", "m", 1, 1e-3, double(n), 8, true, 0.0});
        w.finish();
    }
    const TraceReader r(path);
    REQUIRE(r.meta().count("detail_stopped_at") == 1);
    const double stopped = std::stod(r.meta().at("detail_stopped_at"));
    CHECK(r.meta().at("max_bytes") == "200000");
    // The transactions recorded are exactly those before the limit, and the limit was passed.
    CHECK(r.transaction_count() > 0);
    CHECK(r.transaction_count() < n);
    CHECK(double(r.transaction_count()) == Approx(stopped).margin(1));
    // The limit holds within a batch, queued batches included (the indexes come on top).
    INFO("file bytes " << fs::file_size(path));
    CHECK(fs::file_size(path) < 2 * o.max_bytes);
    // Counters and launches go on to the end.
    std::int64_t packets = 0;
    for (const auto& t : r.link_totals(-kInf, kInf)) packets += t.packets;
    CHECK(packets == n);
    CHECK(r.launches().size() == 1);
    REQUIRE(notices.size() == 1);
    CHECK(notices[0].find("reached its size limit") != std::string::npos);
}

TEST_CASE("no window and no limit record everything and say nothing of either", "[writer][reader]") {
    TempDir dir;
    const auto path = dir / "n.trace";
    write_small_trace(path, Detail::hops);
    const TraceReader r(path);
    CHECK(r.meta().count("window") == 0);
    CHECK(r.meta().count("max_bytes") == 0);
    CHECK(r.meta().count("detail_stopped_at") == 0);
}
