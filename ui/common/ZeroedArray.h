#pragma once

#include "ui/common/PageWarmer.h"

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace tollgate::ui {

/// A fixed-size array of T that starts as all zero bytes, from calloc: a large block is fresh
/// pages the kernel maps on first touch, so allocating a 24 MB hash table costs nothing up
/// front. Filling one with std::vector took about 100 ms of page faults in one go, too long for
/// the GUI thread; here the faults spread over the writes that use the slots. T must be
/// trivially copyable, and all zero bytes must be its empty value. A large one has its pages
/// mapped ahead on a thread of its own (PageWarmer), so even the first writes seldom fault.
template <typename T>
class ZeroedArray
{
    static_assert(std::is_trivially_copyable_v<T>, "calloc'd memory holds T as bytes");

public:
    ZeroedArray() = default;
    explicit ZeroedArray(size_t size)
        : m_data(static_cast<T*>(std::calloc(size, sizeof(T)))), m_size(size)
    {
        if (size > 0 && !m_data)
            throw std::bad_alloc();
        if (size * sizeof(T) >= PageWarmer::kMinBytes)
            m_warmer = std::make_unique<PageWarmer>(m_data.get(), size * sizeof(T));
    }

    ZeroedArray(ZeroedArray&& other) noexcept
        : m_data(std::move(other.m_data)), m_size(std::exchange(other.m_size, 0)),
          m_warmer(std::move(other.m_warmer))
    {
    }
    ZeroedArray& operator=(ZeroedArray&& other) noexcept
    {
        m_warmer.reset(); // joined before the block it maps is freed
        m_data = std::move(other.m_data);
        m_size = std::exchange(other.m_size, 0);
        m_warmer = std::move(other.m_warmer);
        return *this;
    }

    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    T* data() { return m_data.get(); }
    const T* data() const { return m_data.get(); }
    T& operator[](size_t i) { return m_data[i]; }
    const T& operator[](size_t i) const { return m_data[i]; }

private:
    struct Free
    {
        void operator()(T* data) const { std::free(data); }
    };
    std::unique_ptr<T[], Free> m_data;
    size_t m_size = 0;
    std::unique_ptr<PageWarmer> m_warmer; // declared last: destroyed (joined) before m_data
};

} // namespace tollgate::ui
