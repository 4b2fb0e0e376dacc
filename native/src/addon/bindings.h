// One Init function per binding file; addon.cpp calls them all at module load.
#pragma once
#include <napi.h>

namespace dqn::addon {
void InitScalars(Napi::Env env, Napi::Object exports);
void InitBackend(Napi::Env env, Napi::Object exports);
void InitEnv(Napi::Env env, Napi::Object exports);
void InitReplay(Napi::Env env, Napi::Object exports);
}  // namespace dqn::addon
