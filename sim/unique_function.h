// UniqueFunction<R(Args...)>: a move-only, type-erased callable. Asio's
// completion handlers are move-only, so std::function cannot hold them. Small
// callables (every handler the kernel stores) live inline, without allocating.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace faultline::sim {

template <typename Signature>
class UniqueFunction;

template <typename R, typename... Args>
class UniqueFunction<R(Args...)> {
 public:
  // Room for an Asio awaitable handler (40 bytes) with a captured Status, and
  // for Asio's work_dispatcher around a handler (72 bytes): the kernel's hot
  // paths store nothing larger.
  static constexpr std::size_t kInlineBytes = 80;

  UniqueFunction() noexcept = default;

  template <typename F>
  requires(!std::is_same_v<std::decay_t<F>, UniqueFunction> &&
           std::is_invocable_r_v<R, std::decay_t<F>&, Args...>)
      UniqueFunction(F&& f) {  // NOLINT: implicit, like std::function.
    using Fn = std::decay_t<F>;
    if constexpr (kFitsInline<Fn>) {
      ::new (static_cast<void*>(storage_)) Fn(std::forward<F>(f));
      ops_ = &kInlineOps<Fn>;
    } else {
      *reinterpret_cast<Fn**>(storage_) = new Fn(std::forward<F>(f));
      ops_ = &kHeapOps<Fn>;
    }
  }

  UniqueFunction(UniqueFunction&& other) noexcept { MoveFrom(other); }

  UniqueFunction& operator=(UniqueFunction&& other) noexcept {
    if (this != &other) {
      Reset();
      MoveFrom(other);
    }
    return *this;
  }

  UniqueFunction(const UniqueFunction&) = delete;
  UniqueFunction& operator=(const UniqueFunction&) = delete;

  ~UniqueFunction() { Reset(); }

  explicit operator bool() const noexcept { return ops_ != nullptr; }

  // REQUIRES: holds a callable.
  R operator()(Args... args) { return ops_->invoke(storage_, std::forward<Args>(args)...); }

  // Destroys the held callable. The object is empty before the callable's
  // destructor runs, so a destructor that reaches back here sees it empty.
  void Reset() noexcept {
    if (const Ops* ops = std::exchange(ops_, nullptr)) ops->destroy(storage_);
  }

 private:
  struct Ops {
    R (*invoke)(void* storage, Args&&... args);
    void (*move)(void* from, void* to) noexcept;
    void (*destroy)(void* storage) noexcept;
  };

  template <typename Fn>
  static constexpr bool kFitsInline =
      sizeof(Fn) <= kInlineBytes &&
      alignof(Fn) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<Fn>;

  template <typename Fn>
  static constexpr Ops kInlineOps{
      [](void* s, Args&&... args) -> R {
        return (*std::launder(static_cast<Fn*>(s)))(std::forward<Args>(args)...);
      },
      [](void* from, void* to) noexcept {
        Fn* source = std::launder(static_cast<Fn*>(from));
        ::new (to) Fn(std::move(*source));
        source->~Fn();
      },
      [](void* s) noexcept { std::launder(static_cast<Fn*>(s))->~Fn(); },
  };

  template <typename Fn>
  static constexpr Ops kHeapOps{
      [](void* s, Args&&... args) -> R {
        return (**static_cast<Fn**>(s))(std::forward<Args>(args)...);
      },
      [](void* from, void* to) noexcept { *static_cast<Fn**>(to) = *static_cast<Fn**>(from); },
      [](void* s) noexcept { delete *static_cast<Fn**>(s); },
  };

  void MoveFrom(UniqueFunction& other) noexcept {
    if (other.ops_ == nullptr) return;
    other.ops_->move(other.storage_, storage_);
    ops_ = std::exchange(other.ops_, nullptr);
  }

  alignas(std::max_align_t) std::byte storage_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace faultline::sim
