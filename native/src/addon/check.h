// Argument checks for the N-API bindings: every value crossing into C++ is checked here,
// with a TypeError or RangeError that says what was expected (STYLE: inputs checked at the
// API boundary). Bindings only: no logic lives in addon/.
#pragma once
#include <napi.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dqn::addon {

[[noreturn]] inline void ThrowType(Napi::Env env, const std::string& msg) {
  throw Napi::TypeError::New(env, msg);
}
[[noreturn]] inline void ThrowRange(Napi::Env env, const std::string& msg) {
  throw Napi::RangeError::New(env, msg);
}

/// Shortest text that reads back as x ("1", "0.25", "9007199254740992", "NaN").
inline std::string Show(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, res.ptr);
}

/// "a" or "an" for a type name.
inline std::string Article(const char* name) {
  return std::string(std::strchr("AEIOaeio", name[0]) ? "an " : "a ") + name;
}

/// Largest array one binding call hands to JavaScript: V8 aborts the whole process (it does not
/// throw) when it cannot allocate an ArrayBuffer, so every output sized by a caller's numbers is
/// checked against this first.
inline constexpr double kMaxOutputBytes = 1024.0 * 1024.0 * 1024.0;

/// @throws RangeError "<what> would need N GiB, more than the 1 GiB one call may <verb>" (verb:
/// "return" for an output; "use" for scratch memory, which the kernel may hand out lazily and
/// take back with the process when touched).
inline void CheckOutputBytes(Napi::Env env, double bytes, const std::string& what, const char* verb = "return") {
  if (bytes <= kMaxOutputBytes) return;
  char gib[32];
  std::snprintf(gib, sizeof gib, "%.2f", bytes / kMaxOutputBytes);
  throw Napi::RangeError::New(env, what + " would need " + gib + " GiB, more than the 1 GiB one call may " + verb);
}

/// A finite number in [lo, hi]; `what` names the argument in the message.
inline double Number(const Napi::Value& v, const std::string& what, double lo, double hi) {
  if (!v.IsNumber()) {
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on the inlined
    // `"'" + std::string&&`, which inserts at the front of the temporary.
    std::string got = what + " must be a number, got ";
    if (v.IsString()) got.append("'").append(v.ToString().Utf8Value()).append("'");
    else got.append(v.ToString().Utf8Value());
    ThrowType(v.Env(), got);
  }
  double x = v.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(x)) ThrowRange(v.Env(), what + " must be a finite number, got " + Show(x));
  if (x < lo || x > hi) ThrowRange(v.Env(), what + " must be in [" + Show(lo) + ", " + Show(hi) + "], got " + Show(x));
  return x;
}

/// An integer in [lo, hi].
inline int64_t Integer(const Napi::Value& v, const std::string& what, int64_t lo, int64_t hi) {
  double x = Number(v, what, static_cast<double>(lo), static_cast<double>(hi));
  if (x != std::floor(x)) ThrowRange(v.Env(), what + " must be an integer, got " + Show(x));
  return static_cast<int64_t>(x);
}

template <typename T> struct TypedArrayKind;
template <> struct TypedArrayKind<float> { static constexpr napi_typedarray_type value = napi_float32_array; static constexpr const char* name = "Float32Array"; };
template <> struct TypedArrayKind<double> { static constexpr napi_typedarray_type value = napi_float64_array; static constexpr const char* name = "Float64Array"; };
template <> struct TypedArrayKind<int32_t> { static constexpr napi_typedarray_type value = napi_int32_array; static constexpr const char* name = "Int32Array"; };
template <> struct TypedArrayKind<uint32_t> { static constexpr napi_typedarray_type value = napi_uint32_array; static constexpr const char* name = "Uint32Array"; };
template <> struct TypedArrayKind<uint8_t> { static constexpr napi_typedarray_type value = napi_uint8_array; static constexpr const char* name = "Uint8Array"; };

/// A typed array of element type T with exactly `length` elements (length < 0: any length).
/// Throws TypeError for another type, RangeError for another length.
template <typename T>
inline Napi::TypedArrayOf<T> Typed(const Napi::Value& v, const std::string& what, int64_t length = -1) {
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != TypedArrayKind<T>::value)
    ThrowType(v.Env(), what + " must be " + Article(TypedArrayKind<T>::name));
  auto arr = v.As<Napi::TypedArrayOf<T>>();
  if (length >= 0 && static_cast<int64_t>(arr.ElementLength()) != length)
    ThrowRange(v.Env(), what + " must be " + Article(TypedArrayKind<T>::name) + " of length " + std::to_string(length) +
                            ", got length " + std::to_string(arr.ElementLength()));
  return arr;
}

/// An object; `what` names the argument in the TypeError.
inline Napi::Object Obj(const Napi::Value& v, const std::string& what) {
  if (!v.IsObject()) ThrowType(v.Env(), what + " must be an object");
  return v.As<Napi::Object>();
}

/// A boolean; `what` names the argument in the TypeError.
inline bool Bool(const Napi::Value& v, const std::string& what) {
  if (!v.IsBoolean()) ThrowType(v.Env(), what + " must be a boolean");
  return v.As<Napi::Boolean>().Value();
}

/// A required property of an options object.
inline Napi::Value Prop(const Napi::Object& o, const char* key, const std::string& where) {
  if (!o.Has(key)) ThrowType(o.Env(), where + "." + key + " is required");
  return o.Get(key);
}

/// The properties of an options object, all read at construction, before any is checked: getters
/// and proxy traps (caller code) run there and nowhere later, so none can detach or shrink a
/// typed array between its check and the native code's use of it (a resizable ArrayBuffer shrunk
/// by the getter of a later key segfaulted insertBatch and adamUpdate).
class Fields {
 public:
  Fields(const Napi::Object& o, std::initializer_list<const char*> keys, std::string where) : env_(o.Env()), where_(std::move(where)) {
    for (const char* k : keys) {
      const bool present = o.Has(k);
      values_.push_back({k, present, present ? o.Get(k) : env_.Undefined()});
    }
  }
  /// The value of `key` (checked by the caller, undefined included). @throws TypeError
  /// "<where>.<key> is required" when the object has no such key.
  Napi::Value required(const char* key) const {
    const Field& f = get(key);
    if (!f.present) ThrowType(env_, where_ + "." + key + " is required");
    return f.value;
  }
  /// The value of `key`, undefined when missing.
  Napi::Value optional(const char* key) const { return get(key).value; }
  Napi::Env env() const { return env_; }

 private:
  struct Field {
    const char* key;
    bool present;
    Napi::Value value;
  };
  const Field& get(const char* key) const {
    for (const Field& f : values_)
      if (std::strcmp(f.key, key) == 0) return f;
    throw Napi::Error::New(env_, std::string("internal error: the binding did not read ") + where_ + "." + key);
  }
  Napi::Env env_;
  std::string where_;
  std::vector<Field> values_;
};

/// A string property equal to one of `choices`; returns its position in `choices`.
/// Throws TypeError for a non-string, RangeError naming the choices for another string.
inline size_t OneOf(const Napi::Value& v, const std::string& what, std::initializer_list<const char*> choices) {
  if (!v.IsString()) ThrowType(v.Env(), what + " must be a string");
  const std::string s = v.As<Napi::String>().Utf8Value();
  std::string listed;
  size_t i = 0;
  for (const char* c : choices) {
    if (s == c) return i;
    listed += (i++ ? ", '" : "'") + std::string(c) + "'";
  }
  ThrowRange(v.Env(), what + " must be one of " + listed + ", got '" + s + "'");
}

/// Runs a call into the C++ core and maps its exceptions to JS ones: std::invalid_argument and
/// std::out_of_range -> RangeError, std::bad_alloc -> Error("out of memory ..."), any other std::exception -> Error,
/// all with the C++ message. JS exceptions thrown by the call pass through unchanged.
template <typename F>
inline auto CallNative(Napi::Env env, F&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const Napi::Error&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw Napi::RangeError::New(env, e.what());
  } catch (const std::out_of_range& e) {
    throw Napi::RangeError::New(env, e.what());
  } catch (const std::bad_alloc&) {
    throw Napi::Error::New(env, "out of memory in the native addon");
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, e.what());
  }
}

}  // namespace dqn::addon
