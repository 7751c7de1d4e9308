#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <sys/mman.h>
#include <thread>

namespace tollgate::ui {

/// Maps the fresh pages of a large block on a thread of its own (madvise MADV_POPULATE_WRITE),
/// so the thread that fills the block does not take a page fault at each of its first writes.
/// A million-row index is 24 MB of pages written in random order: its first thousand rows each
/// faulted a page in, 20 us a row on the GUI thread while the first screenful loaded. Mapping a
/// page leaves its bytes as they are, so the owner may write the block meanwhile; destroying
/// the warmer stops and joins it before the block may be freed. Where the kernel cannot
/// (before Linux 5.14), the pages are faulted where they are first written, as without it.
class PageWarmer
{
public:
    PageWarmer(void* data, size_t bytes) : m_thread([this, data, bytes] { warm(data, bytes); }) {}
    ~PageWarmer()
    {
        m_stop = true;
        m_thread.join();
    }
    PageWarmer(const PageWarmer&) = delete;
    PageWarmer& operator=(const PageWarmer&) = delete;

    /// Blocks too small to be worth a thread.
    static constexpr size_t kMinBytes = size_t(4) << 20;

private:
    void warm(void* data, size_t bytes)
    {
#ifdef MADV_POPULATE_WRITE
        constexpr uintptr_t kPage = 4096;
        constexpr uintptr_t kStep = uintptr_t(1) << 20; // how soon a stop is noticed
        const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
        const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kPage - 1);
        for (uintptr_t at = begin; at < end && !m_stop; at += kStep) {
            const size_t length = size_t(end - at < kStep ? end - at : kStep);
            if (madvise(reinterpret_cast<void*>(at), length, MADV_POPULATE_WRITE) != 0)
                return;
        }
#else
        (void)data;
        (void)bytes;
#endif
    }

    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

} // namespace tollgate::ui
