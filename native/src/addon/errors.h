// Turns C++ exceptions of the logic layers (env/, replay/, ...) into JS exceptions, so a bad
// argument that only the logic can detect still becomes a readable JS error, never an abort.
#pragma once
#include <napi.h>

#include <stdexcept>
#include <utility>

namespace dqn::addon {

/// Runs f(); std::invalid_argument and std::out_of_range become RangeError, any other
/// std::exception an Error, with the same message. Napi::Error passes through.
template <typename F>
decltype(auto) Guard(Napi::Env env, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const Napi::Error&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw Napi::RangeError::New(env, e.what());
  } catch (const std::out_of_range& e) {
    throw Napi::RangeError::New(env, e.what());
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, e.what());
  }
}

}  // namespace dqn::addon
