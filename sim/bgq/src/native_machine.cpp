// Native BG/Q: every rank is a host thread; a descriptor is carried out at
// once by the injecting thread (real copies into the target's memory and an
// atomic store-add on its counter, or real queue appends for memory-FIFO
// packets). Time is the host's steady clock scaled to the A2 clock.
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "machine.hpp"

namespace hopsim::bgq {

namespace {

// Thrown in ranks blocked on others once one rank failed.
struct Aborted {};

class NativeMachine final : public Machine {
 public:
  NativeMachine(const model::Params& p, const nlohmann::json& args) : Machine(p, args) {}
  Mode mode() const override { return Mode::native; }
  TransportUse transport_use() const override { return {"threads", "threads", ""}; }

  void run(void (*entry)()) override {
    t0_ = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(size()));
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(size()));
    for (int r = 0; r < size(); ++r) {
      threads.emplace_back([this, r, entry, &errors] {
        set_current(this, r);
        try {
          entry();
        } catch (const Aborted&) {
        } catch (...) {
          errors[static_cast<std::size_t>(r)] = std::current_exception();
          abort_.store(true);
          mail_cv_all();
        }
        set_current(nullptr, -1);
      });
    }
    for (auto& t : threads) t.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

  std::uint64_t timebase() override {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    return static_cast<std::uint64_t>(s * params().clock_hz);
  }

  void inject(std::uint32_t, const MUHWI_Descriptor_t& d) override {
    execute(static_cast<std::uint32_t>(current_rank()), d);
  }

  // Carries out descriptor `d` of node r's MU at once.
  void execute(std::uint32_t r, const MUHWI_Descriptor_t& d) {
    auto& st = rank(static_cast<int>(r));
    const std::uint32_t dst = check_descriptor(d, torus(), r);
    const auto pk = model::packetise(d.Message_Length);
    st.packets += pk.packets;
    st.bytes += d.Message_Length;
    auto& mu = rank(static_cast<int>(dst)).mu;
    const auto* src = reinterpret_cast<const std::uint8_t*>(d.Pa_Payload);
    const auto type = model::packet_type(d);
    for (std::uint64_t i = 0; i < pk.packets; ++i) {
      const std::uint32_t pay = model::packet_payload(d.Message_Length, i);
      const std::uint64_t off = i * MUHWI_PACKET_MAX_PAYLOAD;
      if (type == MUHWI_PACKET_TYPE_PUT)
        receive_direct_put(mu, dst, r, d, off, src + off, pay, true);
      else if (type == MUHWI_PACKET_TYPE_FIFO)
        receive_memory_fifo(mu, dst, r, d, off, src + off, pay);
      else
        remote_get(mu, dst, r, d, off, src + off, pay);
    }
  }

  // The destination's MU runs the descriptors in the payload, now.
  void remote_get(model::NodeMu& mu, std::uint32_t dst, std::uint32_t src, const MUHWI_Descriptor_t& d, std::uint64_t,
                  const std::uint8_t* data, std::uint32_t bytes) {
    remote_get_fifo(mu, dst, src, d);
    for (std::uint32_t k = 0; k + sizeof(MUHWI_Descriptor_t) <= bytes; k += sizeof(MUHWI_Descriptor_t)) {
      MUHWI_Descriptor_t inner;
      std::memcpy(&inner, data + k, sizeof inner);
      execute(dst, inner);
    }
  }

  void spin() override {
    if (abort_.load(std::memory_order_relaxed)) throw Aborted{};
    std::this_thread::yield();
  }
  void rec_sync() override {}
  void compute(std::uint64_t elements, int threads) override { (void)compute_cycles(elements, threads); }

  void gi_enter() override { enter(gi_, self().gi_target); }
  void gi_wait() override { wait(gi_, self().gi_target); }
  void mpi_barrier() override {
    enter(mb_, self().mpi_target);
    wait(mb_, self().mpi_target);
  }

  void mpi_send(int dst, int tag, const void* data, std::size_t bytes) override {
    auto& box = rank(dst);
    MpiMessage m{current_rank(), tag, {}, 0};
    const auto* b = static_cast<const std::uint8_t*>(data);
    m.data.assign(b, b + bytes);
    {
      std::lock_guard<std::mutex> lock(box.mail_mutex);
      box.mail.push_back(std::move(m));
    }
    box.mail_cv.notify_all();
  }

  void mpi_recv(int src, int tag, void* data, std::size_t bytes) override {
    auto& st = self();
    std::unique_lock<std::mutex> lock(st.mail_mutex);
    while (!take_mail(st, src, tag, data, bytes)) {
      if (abort_.load()) throw Aborted{};
      st.mail_cv.wait_for(lock, std::chrono::milliseconds(20));
    }
  }

 private:
  struct Barrier {
    std::mutex m;
    int entered = 0;
    std::atomic<std::uint64_t> generation{0};
  };
  void enter(Barrier& b, std::uint64_t& target) {
    std::lock_guard<std::mutex> lock(b.m);
    target = b.generation.load() + 1;
    if (++b.entered == size()) {
      b.entered = 0;
      b.generation.fetch_add(1, std::memory_order_acq_rel);
    }
  }
  void wait(Barrier& b, std::uint64_t target) {
    while (b.generation.load(std::memory_order_acquire) < target) spin();
  }
  void mail_cv_all() {
    for (int r = 0; r < size(); ++r) rank(r).mail_cv.notify_all();
  }

  std::chrono::steady_clock::time_point t0_;
  std::atomic<bool> abort_{false};
  Barrier gi_, mb_;
};

}  // namespace

std::unique_ptr<Machine> make_native_machine(const model::Params& p, const nlohmann::json& args) {
  return std::make_unique<NativeMachine>(p, args);
}

}  // namespace hopsim::bgq
