// `npm run package`: the desktop app as a folder a user can run, with the Electron fuses flipped.
//   1. electron-vite build (out/), unless --no-build;
//   2. out/, the native addon and resources/ (presets, bundled data) go into resources/app.asar,
//      the addon unpacked beside it (a .node file cannot be loaded from inside an archive);
//   3. a copy of Electron's dist folder around it (its default_app.asar removed);
//   4. the fuses of scripts/fuses.ts flipped in the copied binary.
// Result: dist/dqn-console-<platform>-<arch>/. Needs the Electron binary (see scripts/start.ts).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPackageWithOptions } from '@electron/asar';
import { findElectron, INSTALL_HINT } from './electron-binary.ts';
import { applyPackagedFuses } from './fuses.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** What packageApp needs: the repository (with out/ built), Electron's executable, the output folder. */
export interface PackageOptions {
  root: string;
  electronBinary: string;
  outDir: string;
}

/**
 * Packages the built app (see the file comment) into `outDir`, replacing what was there.
 * Resolves to the packaged executable's path.
 * @throws Error naming what is missing (out/main/index.js, the addon) or a fuse error.
 */
export async function packageApp({ root, electronBinary, outDir }: PackageOptions): Promise<string> {
  const addon = join(root, 'build', 'native', 'Release', 'dqn_native.node');
  for (const need of [join(root, 'out', 'main', 'index.js'), addon])
    if (!existsSync(need)) throw new Error(`cannot package: ${need} is missing (run \`npm run build\` and \`npm run build:native\` first)`);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string; description?: string };
  const stage = mkdtempSync(join(tmpdir(), 'dqn-package-'));
  try {
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify({ name: pkg.name, version: pkg.version, description: pkg.description, main: 'out/main/index.js', type: 'module' }, null, 2)}\n`);
    cpSync(join(root, 'out'), join(stage, 'out'), { recursive: true });
    cpSync(join(root, 'resources'), join(stage, 'resources'), { recursive: true });
    mkdirSync(join(stage, 'build', 'native', 'Release'), { recursive: true });
    cpSync(addon, join(stage, 'build', 'native', 'Release', 'dqn_native.node'));

    rmSync(outDir, { recursive: true, force: true });
    cpSync(dirname(electronBinary), outDir, { recursive: true });
    rmSync(join(outDir, 'resources', 'default_app.asar'), { force: true });
    await createPackageWithOptions(stage, join(outDir, 'resources', 'app.asar'), { unpack: '*.node' });
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  const executable = join(outDir, basename(electronBinary));
  await applyPackagedFuses(executable);
  return executable;
}

async function main(): Promise<void> {
  const found = findElectron(ROOT, process.env);
  if ('missing' in found) {
    console.error(`npm run package: the Electron binary is not installed (missing ${found.missing}): ${INSTALL_HINT}`);
    process.exit(1);
  }
  if (!process.argv.includes('--no-build')) {
    const built = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) process.exit(built.status ?? 1);
  }
  const outDir = join(ROOT, 'dist', `dqn-console-${process.platform}-${process.arch}`);
  const exe = await packageApp({ root: ROOT, electronBinary: found.path, outDir });
  console.log(`packaged ${exe} (fuses flipped: RunAsNode, NODE_OPTIONS and --inspect off, app.asar only)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main().catch((e: Error) => {
    console.error(`npm run package: ${e.message}`);
    process.exit(1);
  });
