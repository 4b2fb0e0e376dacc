// The Electron fuses a packaged DQN Console flips (the Electron security checklist, "Flip the
// fuses"): options compiled into the Electron binary that no environment variable or argument
// can turn back on. Applied by scripts/package.ts to the copied Electron binary, never to the
// one in node_modules (`npm start` keeps a development Electron).
import { flipFuses, FuseV1Options, FuseVersion, type FuseV1Config } from '@electron/fuses';

/**
 * The fuses, each with why:
 * - RunAsNode off: ELECTRON_RUN_AS_NODE cannot turn the app into a plain Node with our privileges.
 * - NODE_OPTIONS and --inspect / --inspect-brk off: no code injection through the environment or
 *   a debugger port.
 * - OnlyLoadAppFromAsar on: the app runs only from resources/app.asar, not a folder beside it.
 * - GrantFileProtocolExtraPrivileges off: the renderer is served from app:// (main/app-protocol.ts),
 *   so file:// needs none of its legacy privileges.
 * - Cookie encryption on (the app keeps no cookies; it costs nothing).
 * - Embedded asar integrity validation stays off: it needs the packager to embed the asar
 *   header's hash (macOS Info.plist, Windows resources), which this packaging step does not do
 *   yet, and it has no effect on Linux.
 */
export const PACKAGED_FUSES: FuseV1Config = {
  version: FuseVersion.V1,
  [FuseV1Options.RunAsNode]: false,
  [FuseV1Options.EnableCookieEncryption]: true,
  [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
  [FuseV1Options.EnableNodeCliInspectArguments]: false,
  [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: false,
  [FuseV1Options.OnlyLoadAppFromAsar]: true,
  [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
};

/**
 * Flips PACKAGED_FUSES in the Electron binary at `electronPath` (the executable, or a macOS
 * .app bundle). Resolves to the number of fuse wires written (2 for a universal macOS binary).
 * @throws Error from @electron/fuses when the file has no fuse wire (not Electron >= 12).
 */
export async function applyPackagedFuses(electronPath: string): Promise<number> {
  const resetAdHocDarwinSignature = process.platform === 'darwin' && process.arch === 'arm64';
  return await flipFuses(electronPath, { ...PACKAGED_FUSES, resetAdHocDarwinSignature });
}
