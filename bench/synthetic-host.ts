// Entry of a trainer host process driven by the synthetic session (bench/synthetic-session.ts),
// for `npm run bench -- dashboard --stream RATE`: the real TrainerHost and fork channel, made-up
// records at DQN_SYNTHETIC_RATE steps/s. Started by the benchmark's bridge server like
// main/trainer/host-entry.ts is by `npm run serve`.
import { TrainerHost } from '../main/trainer/host.ts';
import { serveOverFork } from '../main/trainer/host-ports.ts';
import { syntheticSession } from './synthetic-session.ts';

const rate = Number(process.env.DQN_SYNTHETIC_RATE);
const stepsPerEpoch = Number(process.env.DQN_SYNTHETIC_STEPS_PER_EPOCH ?? 500);
if (!process.send || !(rate > 0)) {
  console.error('synthetic-host: start it with child_process.fork and DQN_SYNTHETIC_RATE=<steps per second>');
  process.exit(2);
}
const host = new TrainerHost(syntheticSession({ stepsPerSec: rate, stepsPerEpoch }), { runsDir: '/synthetic' });
serveOverFork(host, process, () => process.exit(0));
console.log(`synthetic trainer host pid ${process.pid}: ${rate} steps/s, ${stepsPerEpoch}-step epochs`);
