// Status and Result<T>: how simulated operations report failures that a caller
// is expected to handle (timeouts, cancellations, injected faults). Programmer
// errors are assertions (sim/assert.h), never a Status.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace faultline::sim {

enum class StatusCode : unsigned char {
  kOk,
  kCancelled,
  kTimedOut,
  kIoError,
  kUnavailable,
  kNotFound,
  kAlreadyExists,
  kInvalidArgument,
  kCorruption,
  kInternal,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;

  static Status Ok() { return Status(); }
  static Status Cancelled(std::string message) {
    return {StatusCode::kCancelled, std::move(message)};
  }
  static Status TimedOut(std::string message) {
    return {StatusCode::kTimedOut, std::move(message)};
  }
  static Status IoError(std::string message) { return {StatusCode::kIoError, std::move(message)}; }
  static Status Unavailable(std::string message) {
    return {StatusCode::kUnavailable, std::move(message)};
  }
  static Status NotFound(std::string message) {
    return {StatusCode::kNotFound, std::move(message)};
  }
  static Status AlreadyExists(std::string message) {
    return {StatusCode::kAlreadyExists, std::move(message)};
  }
  static Status InvalidArgument(std::string message) {
    return {StatusCode::kInvalidArgument, std::move(message)};
  }
  static Status Corruption(std::string message) {
    return {StatusCode::kCorruption, std::move(message)};
  }
  static Status Internal(std::string message) {
    return {StatusCode::kInternal, std::move(message)};
  }
  static Status FromCode(StatusCode code, std::string message) {
    return {code, std::move(message)};
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  bool IsCancelled() const { return code_ == StatusCode::kCancelled; }
  bool IsTimedOut() const { return code_ == StatusCode::kTimedOut; }
  bool IsIoError() const { return code_ == StatusCode::kIoError; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "OK", or "TimedOut: <message>".
  std::string ToString() const;

  // Discards the status on purpose, where a failure truly does not matter.
  void IgnoreError() const {}

  friend bool operator==(const Status&, const Status&) = default;

 private:
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design.
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design.

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  // REQUIRES: ok().
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;  // Ok when value_ holds a value.
};

}  // namespace faultline::sim
