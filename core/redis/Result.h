#pragma once

#include "core/redis/Error.h"

#include <functional>
#include <utility>
#include <variant>

namespace tollgate {

/// Placeholder value for operations that only succeed or fail.
struct Unit
{
};

/// A value or a typed Error (an expected-style result; errors never travel as exceptions).
template <typename T>
class [[nodiscard]] Result
{
public:
    Result(T value) : m_state(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : m_state(std::in_place_index<1>, std::move(error)) {}
    Result(ErrorKind kind, QString message)
        : m_state(std::in_place_index<1>, Error{kind, std::move(message)})
    {
    }

    bool ok() const { return m_state.index() == 0; }
    explicit operator bool() const { return ok(); }

    const T& value() const& { return std::get<0>(m_state); }
    T& value() & { return std::get<0>(m_state); }
    T&& value() && { return std::get<0>(std::move(m_state)); }
    const T* operator->() const { return &value(); }
    T* operator->() { return &value(); }
    // Non-const too, so std::move(*result) moves (it copied: a whole Reply tree per reply).
    const T& operator*() const& { return value(); }
    T& operator*() & { return value(); }
    T&& operator*() && { return std::move(*this).value(); }

    const Error& error() const { return std::get<1>(m_state); }

private:
    std::variant<T, Error> m_state;
};

using Status = Result<Unit>;

/// Completion callback of an asynchronous operation.
template <typename T>
using Callback = std::function<void(Result<T>)>;

} // namespace tollgate
