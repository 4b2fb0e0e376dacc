// Loads the native addon (Node-API, so the same build loads in Node and Electron) and types
// the parts of it that every module shares. Each native class has its typed wrapper in its
// own file beside this one (replay.ts, trainer.ts, ...).
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Byte layout of the scalar block, exported by the addon (native/src/train/scalar_block.h). */
export interface ScalarLayout {
  size: number;
  fields: Record<string, { offset: number; type: 'f64' | 'i64' | 'i32' | 'u32'; length: number }>;
  nanFlagNames: string[];
}

/** What the addon says about the CUDA backend. */
export interface BackendInfo {
  cudaCompiled: boolean;
  cudaAvailable: boolean;
  /** Why CUDA is not used ('' when it is available). */
  reason: string;
  deviceName?: string;
  computeCapability?: string;
  freeBytes?: number;
  totalBytes?: number;
}

/**
 * GPU readings from NVML, which the addon loads at run time (native/src/addon/nvml_binding.cpp):
 * `available: false` with the reason where NVML is absent or fails. A reading the device does
 * not support is left out.
 */
export interface NvmlReading {
  available: boolean;
  /** Why there are no readings ('' when available). */
  reason: string;
  utilPercent?: number;
  memUsedBytes?: number;
  memTotalBytes?: number;
  temperatureC?: number;
  powerW?: number;
}

/** The raw addon exports; typed wrappers narrow the class constructors. */
export interface NativeAddon {
  scalarLayout: ScalarLayout;
  backendInfo(): BackendInfo;
  /** Host synchronizations of the CUDA backend so far in this process (0 without CUDA). */
  cudaSyncCount(): number;
  /** NVML readings of GPU `deviceIndex` (default 0); never throws for an absent NVML. */
  nvmlSample?(deviceIndex?: number): NvmlReading;
  [name: string]: unknown;
}

const here = dirname(fileURLToPath(import.meta.url));

/** Where the addon is looked for: $DQN_ADDON_PATH, then the cmake-js build folder. */
export function addonPath(): string {
  return process.env.DQN_ADDON_PATH ?? resolve(here, '..', 'build', 'native', 'Release', 'dqn_native.node');
}

let cached: NativeAddon | undefined;

/**
 * Loads the addon once.
 * @throws Error naming the path and the build command when the addon is missing.
 */
export function loadAddon(): NativeAddon {
  if (cached) return cached;
  const path = addonPath();
  if (!existsSync(path)) {
    throw new Error(`native addon not found at ${path}: build it with 'npm run build:native' (or set DQN_ADDON_PATH)`);
  }
  const require = createRequire(join(here, 'addon.ts'));
  cached = require(path) as NativeAddon;
  return cached;
}
