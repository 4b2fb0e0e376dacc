// Worker-thread entry of loadOhlcvOffThread (ohlcv.ts): loads one OHLCV file with loadOhlcv and
// posts the bars back (their buffers transferred) or the error's message and problems. Bundled
// as out/main/ohlcv-worker.js beside the module that starts it (electron.vite.config.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { loadOhlcv, OhlcvError, type LoadOhlcvOptions } from './ohlcv.ts';

const { path, options } = workerData as { path: string; options: LoadOhlcvOptions };
try {
  const loaded = loadOhlcv(path, options);
  parentPort!.postMessage({ ok: true, loaded }, Object.values(loaded.bars).map((a: Float64Array) => a.buffer as ArrayBuffer));
} catch (err) {
  parentPort!.postMessage({ ok: false, message: (err as Error).message, problems: err instanceof OhlcvError ? err.problems : [] });
}
