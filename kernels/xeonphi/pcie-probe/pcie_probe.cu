// pcie_probe: the copy paths and the doorbell of a real PCIe accelerator,
// measured the way hopsim's offload-path model (models/xeonphi) predicts
// them, so that `hopsim xeonphi pcie --against` can put the two side by side.
//
// Measured (CUDA runtime, one GPU):
//   copy      h2d|d2h  pinned|pageable  4 KiB .. 256 MiB: cudaMemcpy, then
//             cudaDeviceSynchronize, timed on the host's steady clock (the
//             time from the call until the host knows the data arrived, as
//             the model's copy_in/copy_out);
//   latency   h2d|d2h  pinned|pageable  8 B: the same for one small copy;
//   flag-round-trip  mapped  8 B: a host thread writes a counter into mapped
//             host memory, a running one-thread kernel polls it and answers
//             in a second mapped word, the host polls that: the analogue of
//             the SCIF doorbell round trip HAM-Offload's calls ride on.
// and, to take those apart:
//   mapped-read  device-host-device  mapped  8 B: one load by a running
//             kernel from mapped host memory (a chain of dependent loads,
//             timed on the GPU's global timer): a PCIe read round trip;
//   copy-event h2d|d2h  pinned  8 B .. 64 MiB: the same copies timed by CUDA
//             events on the device (the DMA's own time, without the host's
//             call and completion overheads);
//   host-memcpy  h2h  pageable  4 KiB .. 256 MiB: memcpy between two host
//             buffers on one host thread (the copy a pageable transfer adds).
//
// Output: CSV on standard output, '#' lines describe the machine; the format
// is what `hopsim import --format pcie` reads:
//   test,direction,memory,bytes,runs,median_ns,min_ns,mean_ns,median_GBps
// Every copy's data are checked (a pattern through the device and back).
// Exit 0 on success, 1 on a CUDA error or a failed check, 2 on bad arguments.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(call)                                                                                  \
  do {                                                                                               \
    const cudaError_t err_ = (call);                                                                 \
    if (err_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "pcie_probe: %s failed: %s (line %d)\n", #call, cudaGetErrorString(err_), \
                   __LINE__);                                                                        \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

namespace {

using Clock = std::chrono::steady_clock;

double ns_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}

struct Stats {
  double median = 0, min = 0, mean = 0;
  std::size_t runs = 0;
};

Stats summarise(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  s.runs = n;
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.min = v.front();
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(n);
  return s;
}

void row(const char* test, const char* direction, const char* memory, std::size_t bytes, const Stats& s) {
  // bytes per ns is GB/s (1e9 B/s).
  std::printf("%s,%s,%s,%zu,%zu,%.1f,%.1f,%.1f,%.4f\n", test, direction, memory, bytes, s.runs, s.median, s.min,
              s.mean, static_cast<double>(bytes) / s.median);
  std::fflush(stdout);
}

// Fills with a pattern that depends on the seed and the offset.
void fill(unsigned char* p, std::size_t n, unsigned seed) {
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>((i * 131u + seed * 17u) % 251u);
}

// Times `runs` copies of `bytes` (after `warmup` untimed ones).
Stats time_copies(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, int runs, int warmup) {
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(runs));
  for (int r = 0; r < warmup + runs; ++r) {
    const auto t0 = Clock::now();
    CHECK(cudaMemcpy(dst, src, bytes, kind));
    CHECK(cudaDeviceSynchronize());
    const double ns = ns_since(t0);
    if (r >= warmup) t.push_back(ns);
  }
  return summarise(std::move(t));
}

int runs_for(std::size_t bytes) {
  // About 1 GiB moved per cell, at least 10 and at most 200 copies.
  const std::size_t r = (std::size_t{1} << 30) / bytes;
  return static_cast<int>(std::clamp<std::size_t>(r, 10, 200));
}

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Answers each value the host writes into *ping by writing it into *pong.
// Gives up (status 1) when the host stays silent for timeout_ns.
__global__ void responder(const volatile unsigned long long* ping, volatile unsigned long long* pong,
                          unsigned long long n, unsigned long long timeout_ns, unsigned* status) {
  unsigned long long last = global_ns();
  for (unsigned long long i = 1; i <= n; ++i) {
    while (*ping != i) {
      if (global_ns() - last > timeout_ns) {
        *status = 1;
        return;
      }
    }
    *pong = i;
    __threadfence_system();
    last = global_ns();
  }
  *status = 0;
}

// Follows a chain of `n` indices through mapped host memory; each load
// depends on the last. Writes the elapsed global-timer ns and the end index.
__global__ void chase(const volatile unsigned long long* next, unsigned n, unsigned long long* out) {
  unsigned long long i = 0;
  const unsigned long long t0 = global_ns();
  for (unsigned k = 0; k < n; ++k) i = next[i];
  const unsigned long long t1 = global_ns();
  out[0] = t1 - t0;
  out[1] = i;
}

// One load of mapped host memory by the device, timed over chains of loads
// that each touch a new 4 KiB page (no line is read twice in a chain).
void mapped_read(unsigned chains, unsigned n) {
  using Word = unsigned long long;
  const std::size_t stride = 4096 / sizeof(Word);
  const std::size_t words = stride * (n + 1);
  Word* host = nullptr;
  CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host), words * sizeof(Word), cudaHostAllocMapped));
  for (std::size_t k = 0; k <= n; ++k) host[k * stride] = (k + 1) * stride;
  Word* d_host = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_host), host, 0));
  Word* out = nullptr;
  CHECK(cudaMalloc(reinterpret_cast<void**>(&out), 2 * sizeof(Word)));
  std::vector<double> t;
  for (unsigned c = 0; c < chains + 2; ++c) {
    chase<<<1, 1>>>(d_host, n, out);
    CHECK(cudaGetLastError());
    Word r[2] = {0, 0};
    CHECK(cudaMemcpy(r, out, sizeof(r), cudaMemcpyDeviceToHost));
    if (r[1] != static_cast<Word>(n) * stride) {
      std::fprintf(stderr, "pcie_probe: mapped read chain ended at %llu, expected %llu\n", r[1],
                   static_cast<Word>(n) * stride);
      std::exit(1);
    }
    if (c >= 2) t.push_back(static_cast<double>(r[0]) / n);
  }
  row("mapped-read", "device-host-device", "mapped", sizeof(Word), summarise(std::move(t)));
  CHECK(cudaFree(out));
  CHECK(cudaFreeHost(host));
}

// Device-side time of copies (CUDA events around cudaMemcpyAsync).
void copy_events(unsigned char* dev, unsigned char* pinned, std::size_t max_bytes) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (std::size_t bytes : {std::size_t{8}, std::size_t{4096}, std::size_t{65536}, std::size_t{1} << 20,
                            std::size_t{16} << 20, std::size_t{64} << 20}) {
    if (bytes > max_bytes) break;
    for (int d = 0; d < 2; ++d) {
      std::vector<double> t;
      for (int r = 0; r < 3 + 50; ++r) {
        CHECK(cudaEventRecord(a, 0));
        if (d == 0)
          CHECK(cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, 0));
        else
          CHECK(cudaMemcpyAsync(pinned, dev, bytes, cudaMemcpyDeviceToHost, 0));
        CHECK(cudaEventRecord(b, 0));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 3) t.push_back(static_cast<double>(ms) * 1e6);
      }
      row("copy-event", d == 0 ? "h2d" : "d2h", "pinned", bytes, summarise(std::move(t)));
    }
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
}

// memcpy between two touched host buffers on this thread.
void host_memcpy(unsigned char* dst, const unsigned char* src, std::size_t max_bytes) {
  for (std::size_t bytes = 4096; bytes <= max_bytes; bytes *= 4) {
    std::vector<double> t;
    const int runs = runs_for(bytes);
    for (int r = 0; r < 3 + runs; ++r) {
      const auto t0 = Clock::now();
      std::memcpy(dst, src, bytes);
      const double ns = ns_since(t0);
      if (std::memcmp(dst, src, 64) != 0) std::exit(1);
      if (r >= 3) t.push_back(ns);
    }
    row("host-memcpy", "h2h", "pageable", bytes, summarise(std::move(t)));
  }
}

bool flag_round_trip(unsigned n, unsigned warmup) {
  using Word = unsigned long long;  // an 8-byte flag, as the model's flag_bytes
  Word* words = nullptr;
  CHECK(cudaHostAlloc(reinterpret_cast<void**>(&words), 4096, cudaHostAllocMapped));
  std::memset(words, 0, 4096);
  volatile Word* ping = words;       // written by the host
  volatile Word* pong = words + 16;  // written by the device, 128 bytes further (another cache line)
  Word* d_words = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_words), words, 0));
  unsigned* d_status = nullptr;
  CHECK(cudaMalloc(reinterpret_cast<void**>(&d_status), sizeof(unsigned)));
  CHECK(cudaMemset(d_status, 0xff, sizeof(unsigned)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const Word total = n + warmup;
  responder<<<1, 1, 0, stream>>>(d_words, d_words + 16, total, 5'000'000'000ull, d_status);
  CHECK(cudaGetLastError());
  std::vector<double> t;
  t.reserve(n);
  bool ok = true;
  for (Word i = 1; i <= total && ok; ++i) {
    const auto t0 = Clock::now();
    *ping = i;
    for (unsigned spins = 1; *pong != i; ++spins) {
      if (spins % 4096 == 0 && ns_since(t0) > 5e9) {
        std::fprintf(stderr, "pcie_probe: flag round trip %llu: no answer from the device in 5 s\n", i);
        ok = false;
        break;
      }
    }
    if (ok && i > warmup) t.push_back(ns_since(t0));
  }
  CHECK(cudaStreamSynchronize(stream));
  unsigned status = 2;
  CHECK(cudaMemcpy(&status, d_status, sizeof(unsigned), cudaMemcpyDeviceToHost));
  if (ok && status != 0) {
    std::fprintf(stderr, "pcie_probe: the responder kernel ended with status %u\n", status);
    ok = false;
  }
  if (ok) row("flag-round-trip", "host-device-host", "mapped", sizeof(Word), summarise(std::move(t)));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(d_status));
  CHECK(cudaFreeHost(words));
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t max_bytes = std::size_t{256} << 20;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--max-bytes" && i + 1 < argc) {
      char* end = nullptr;
      const unsigned long long v = std::strtoull(argv[++i], &end, 10);
      if (*end != '\0' || v < 4096 || v % 4096 != 0) {
        std::fprintf(stderr, "pcie_probe: --max-bytes: '%s' is not a multiple of 4096 bytes\n", argv[i]);
        return 2;
      }
      max_bytes = static_cast<std::size_t>(v);
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: pcie_probe [--max-bytes N]\n  copies 4 KiB .. N bytes (default 268435456), small-copy "
                  "latency and a flag round trip; CSV on standard output\n");
      return 0;
    } else {
      std::fprintf(stderr, "pcie_probe: unknown argument '%s' (try --help)\n", a.c_str());
      return 2;
    }
  }

  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("# hopsim pcie probe 1\n");
  std::printf("# device: %s, PCI %04x:%02x:%02x, %d SMs, %.1f GiB, CUDA driver %d, runtime %d\n", prop.name,
              prop.pciDomainID, prop.pciBusID, prop.pciDeviceID, prop.multiProcessorCount,
              static_cast<double>(prop.totalGlobalMem) / (1u << 30), driver, runtime);
  std::printf("# timing: host steady clock around cudaMemcpy + cudaDeviceSynchronize; medians over runs\n");
  std::printf("test,direction,memory,bytes,runs,median_ns,min_ns,mean_ns,median_GBps\n");
  std::fflush(stdout);

  unsigned char* pinned = nullptr;
  CHECK(cudaMallocHost(reinterpret_cast<void**>(&pinned), max_bytes));
  auto* pageable = static_cast<unsigned char*>(std::aligned_alloc(4096, max_bytes));
  auto* back = static_cast<unsigned char*>(std::aligned_alloc(4096, max_bytes));
  if (!pageable || !back) {
    std::fprintf(stderr, "pcie_probe: cannot allocate %zu bytes of host memory\n", max_bytes);
    return 1;
  }
  unsigned char* dev = nullptr;
  CHECK(cudaMalloc(reinterpret_cast<void**>(&dev), max_bytes));
  std::memset(back, 0, max_bytes);  // touch every page before timing

  int failed = 0;
  auto check = [&](const unsigned char* expect, std::size_t bytes, const char* what) {
    if (std::memcmp(expect, back, bytes) != 0) {
      std::fprintf(stderr, "pcie_probe: data check failed: %s, %zu bytes\n", what, bytes);
      ++failed;
    }
  };

  unsigned seed = 1;
  for (std::size_t bytes = 4096; bytes <= max_bytes; bytes *= 2) {
    const int runs = runs_for(bytes);
    const int warmup = 3;
    for (int m = 0; m < 2; ++m) {
      unsigned char* host = m == 0 ? pinned : pageable;
      const char* mem = m == 0 ? "pinned" : "pageable";
      fill(host, bytes, ++seed);
      row("copy", "h2d", mem, bytes, time_copies(dev, host, bytes, cudaMemcpyHostToDevice, runs, warmup));
      // The device now holds host's pattern: every d2h copy must bring it back.
      unsigned char* dst = m == 0 ? pinned : back;
      std::vector<unsigned char> expect(host, host + bytes);
      row("copy", "d2h", mem, bytes, time_copies(dst, dev, bytes, cudaMemcpyDeviceToHost, runs, warmup));
      if (m == 0) {
        std::memcpy(back, pinned, bytes);
      }
      check(expect.data(), bytes, mem);
    }
  }

  for (int m = 0; m < 2; ++m) {
    unsigned char* host = m == 0 ? pinned : pageable;
    const char* mem = m == 0 ? "pinned" : "pageable";
    row("latency", "h2d", mem, 8, time_copies(dev, host, 8, cudaMemcpyHostToDevice, 2000, 50));
    row("latency", "d2h", mem, 8, time_copies(host, dev, 8, cudaMemcpyDeviceToHost, 2000, 50));
  }

  if (!flag_round_trip(20000, 200)) ++failed;
  mapped_read(20, 1000);
  copy_events(dev, pinned, max_bytes);
  host_memcpy(back, pageable, max_bytes);

  CHECK(cudaFree(dev));
  CHECK(cudaFreeHost(pinned));
  std::free(pageable);
  std::free(back);
  if (failed) {
    std::fprintf(stderr, "pcie_probe: %d check(s) failed\n", failed);
    return 1;
  }
  return 0;
}
