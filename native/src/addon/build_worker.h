// An AsyncWorker that builds something large off the JS thread (a trainer, a seed group) and
// settles a promise with it: the subclass builds in Build() (worker thread) and resolves in
// OnOK() (JS thread). A failure rejects as CallNative maps C++ exceptions: std::invalid_argument
// and std::out_of_range with RangeError (a config the core refuses), std::bad_alloc with "out of
// memory in the native addon (<what>)", anything else with Error.
#pragma once
#include <napi.h>

#include <new>
#include <stdexcept>
#include <string>

namespace dqn::addon {

class BuildWorker : public Napi::AsyncWorker {
 public:
  /// `what` names the work in messages ("building the trainer").
  BuildWorker(Napi::Env env, const char* resource, std::string what)
      : Napi::AsyncWorker(env, resource), deferred_(Napi::Promise::Deferred::New(env)), what_(std::move(what)) {}
  Napi::Promise promise() const { return deferred_.Promise(); }

 protected:
  /// The work, on the worker thread; throws on failure.
  virtual void Build() = 0;

  void Execute() override {
    try {
      Build();
    } catch (const std::invalid_argument& e) {
      range_ = true;
      SetError(e.what());
    } catch (const std::out_of_range& e) {
      range_ = true;
      SetError(e.what());
    } catch (const std::bad_alloc&) {
      SetError("out of memory in the native addon (" + what_ + ")");
    } catch (const std::exception& e) {
      SetError(e.what());
    } catch (...) {
      SetError(what_ + " failed with an unknown native error");
    }
  }
  void OnError(const Napi::Error& e) override {
    deferred_.Reject(range_ ? Napi::RangeError::New(Env(), e.Message()).Value() : e.Value());
  }

  Napi::Promise::Deferred deferred_;

 private:
  std::string what_;
  bool range_ = false;
};

}  // namespace dqn::addon
