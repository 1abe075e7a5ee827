#pragma once
// Message buffers of the host benchmarks: private, page-aligned, zero-filled
// anonymous mappings, optionally advised to use transparent huge pages.
//
// Why huge pages matter here: a CMA call pins the other process's pages one
// by one (get_user_pages), and every 4 KiB page costs the call time; with
// 2 MiB pages the per-page part falls by half or more (this project's
// machine: process_vm_writev of 1 MiB 35-45 us on 4 KiB pages, 24-25 us on
// huge pages; docs/host-copy.md). A system with THP "always"
// gives any large malloc'ed buffer huge pages; "madvise" (Debian's default)
// only to mappings that ask, which is what `huge` does.
#include <cstddef>
#include <string>

namespace hopsim::host {

// The kernel's transparent-huge-page mode for anonymous memory: the word in
// brackets of /sys/kernel/mm/transparent_hugepage/enabled ("always",
// "madvise", "never"), or "absent" when the kernel has no THP.
[[nodiscard]] std::string thp_mode();

class MessageBuffer {
 public:
  // `bytes` usable bytes (0: no mapping). With `huge`, the mapping is
  // rounded up to whole 2 MiB pages, aligned to 2 MiB and advised
  // MADV_HUGEPAGE, so even a 64 KiB buffer can sit in one huge page; the
  // kernel may still give 4 KiB pages (THP "never", no huge page free).
  // Every byte is touched (zero) before this returns. Throws Error if the
  // mapping fails.
  MessageBuffer(std::size_t bytes, bool huge);
  MessageBuffer(const MessageBuffer&) = delete;
  MessageBuffer& operator=(const MessageBuffer&) = delete;
  MessageBuffer(MessageBuffer&&) = delete;
  MessageBuffer& operator=(MessageBuffer&&) = delete;
  ~MessageBuffer();

  [[nodiscard]] std::byte* data() const { return p_; }
  [[nodiscard]] std::size_t size() const { return n_; }
  // KiB of the buffer's mapping that huge pages back now (the kernel's
  // /proc/self/smaps AnonHugePages); -1 when it cannot be read.
  [[nodiscard]] long huge_kib() const;

 private:
  std::byte* p_ = nullptr;  // first usable byte
  void* map_ = nullptr;     // the whole mapping (alignment slack included)
  std::size_t map_len_ = 0;
  std::size_t n_ = 0;
};

}  // namespace hopsim::host
