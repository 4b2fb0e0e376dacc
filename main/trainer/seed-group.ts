// A seed group's members as the session's trainers (issue 27 item 4): N sessions (one run
// directory each, as `--seeds` always had) train N seeds concurrently on one GPU, their
// trainers the members of one native seed group (native/src/train/trainer_group.h), which one
// launch of the step kernel trains together. A member's run(steps) waits until every member
// still in the group has asked for the same steps, then one group run trains them all; a member
// leaves the group when its session closes its trainer (finished, stopped, halted, or moved to
// the CPU after a lost GPU). Everything else (evaluate, checkpoints, scalars) is the member's own.
import type { RunConfig } from '../../common/config.ts';
import { buildTrainer, buildTrainerGroup, type NativeTrainer, type NativeTrainerGroup, type RunResult, type TrainerOptions } from '../../native/trainer.ts';
import { chooseBackend } from './backend-choice.ts';
import { REPO_ROOT } from './paths.ts';
import { resolveDataPath } from './paths-policy.ts';
import { defaultDeps, type SessionDeps } from './session.ts';

/** Most seeds one GPU seed group trains at once (the learner kernel's bound, kMaxGroup). */
export const MAX_GPU_GROUP = 16;

interface Waiting {
  steps: number;
  resolve: (r: RunResult) => void;
  reject: (e: Error) => void;
}

/** Lockstep scheduling of a seed group's members: see the file comment. */
export class SeedGroupRunner {
  private readonly waiting = new Map<number, Waiting>();
  private readonly left = new Set<number>();
  private running = false;

  constructor(private readonly group: NativeTrainerGroup) {}

  /** Members in the group. */
  get size(): number {
    return this.group.members.length;
  }

  /**
   * The session's createTrainer for member k: a CUDA trainer is member k of the group (once;
   * a second CUDA request, after the member left, is refused), a CPU trainer (the fallback after
   * a lost GPU) is a trainer of its own.
   */
  createTrainer(k: number): (options: TrainerOptions) => Promise<NativeTrainer> {
    let handedOut = false;
    return async (options) => {
      if (options.backend === 'cpu') return await buildTrainer(options);
      if (handedOut) throw new Error(`seed group member ${k} has left the group: it cannot rejoin`);
      handedOut = true;
      return this.member(k);
    };
  }

  /** Member k as a NativeTrainer whose run() is the group's and whose close() leaves the group. */
  member(k: number): NativeTrainer {
    const own = this.group.members[k];
    if (!own) throw new RangeError(`seed group member ${k} does not exist (the group has ${this.size})`);
    return {
      get info() {
        return own.info;
      },
      get scalars() {
        return own.scalars;
      },
      get closed() {
        return own.closed;
      },
      run: (steps) => this.request(k, steps),
      stop: () => this.group.stop(),
      evaluate: (episodes) => own.evaluate(episodes),
      saveState: () => own.saveState(),
      loadState: (state) => own.loadState(state),
      close: () => {
        own.close();
        this.leave(k);
      },
    };
  }

  private request(k: number, steps: number): Promise<RunResult> {
    if (this.left.has(k)) return Promise.reject(new Error(`seed group member ${k} has left the group`));
    if (this.waiting.has(k)) return Promise.reject(new Error(`seed group member ${k}: a run() is in progress`));
    return new Promise<RunResult>((resolve, reject) => {
      this.waiting.set(k, { steps, resolve, reject });
      this.next();
    });
  }

  private leave(k: number): void {
    if (this.left.has(k)) return;
    this.left.add(k);
    this.group.retire(k);
    const w = this.waiting.get(k);
    if (w) {
      this.waiting.delete(k);
      w.reject(new Error(`seed group member ${k} left the group during its run`));
    }
    this.next();
  }

  /** One group run once every member still in the group waits: the fewest steps asked, members asking more refused. */
  private next(): void {
    if (this.running || this.waiting.size === 0 || this.waiting.size < this.size - this.left.size) return;
    const asks = [...this.waiting.entries()];
    this.waiting.clear();
    const steps = Math.min(...asks.map(([, w]) => w.steps));
    for (const [k, w] of asks)
      if (w.steps !== steps) w.reject(new Error(`seed group member ${k} asked for ${w.steps} steps while the others asked for ${steps}: the members of a seed group train in lockstep`));
    const members = asks.filter(([, w]) => w.steps === steps);
    let run: Promise<Awaited<ReturnType<NativeTrainerGroup['run']>>>;
    try {
      run = this.group.run(steps);
    } catch (e) {
      for (const [, w] of members) w.reject(e as Error);
      return;
    }
    this.running = true;
    run.then(
      (results) => {
        this.running = false;
        for (const [k, w] of members) {
          const r = results[k]!;
          if (r.error) w.reject(new Error(r.error));
          else w.resolve({ steps: r.steps, stopped: r.stopped, episodeReturns: r.episodeReturns, episodeEnvSteps: r.episodeEnvSteps });
        }
        this.next();
      },
      (e: unknown) => {
        this.running = false;
        for (const [, w] of members) w.reject(e as Error);
        this.next();
      },
    );
  }
}

/**
 * The session deps of `seeds` trained at once as one GPU seed group (deps[k] for seeds[k]: the
 * member's createTrainer, the market loaded once, and the memory measured before the group took
 * its share, against which each member's own estimate is checked), or why they train one after
 * another instead: the backend is not CUDA, more seeds than MAX_GPU_GROUP, or the group does not
 * build ("out of memory: N learners need X GiB, Y GiB free").
 * `config` is the resolved config of the run (its seed is ignored).
 */
export async function seedGroupDeps(config: RunConfig, seeds: number[], deps: SessionDeps = defaultDeps): Promise<{ deps: SessionDeps[] } | { reason: string }> {
  const addon = deps.addon();
  let choice: { backend: 'cpu' | 'cuda'; reason: string };
  try {
    choice = chooseBackend(config.backend, config.heads, () => addon.backendInfo());
  } catch (e) {
    return { reason: (e as Error).message };
  }
  // Why the CPU: backend 'cpu' asked for, or 'auto' without a usable GPU (choice.reason says why).
  if (choice.backend !== 'cuda') return { reason: `a GPU seed group needs the CUDA backend, and these seeds train on the CPU (${choice.reason || "backend 'cpu'"})` };
  if (seeds.length < 2) return { reason: 'one seed' };
  if (seeds.length > MAX_GPU_GROUP) return { reason: `a GPU seed group trains at most ${MAX_GPU_GROUP} seeds at once, ${seeds.length} were asked` };
  const memory = deps.memory(addon);
  const loaded = config.env.kind === 'trading' ? await deps.loadMarket(resolveDataPath(config.env.data, REPO_ROOT, undefined), config.env.bad_rows) : undefined;
  let group: NativeTrainerGroup;
  try {
    group = await buildTrainerGroup({ config, market: loaded?.bars, backend: 'cuda' }, seeds);
  } catch (e) {
    return { reason: `the ${seeds.length} seeds do not train as one GPU seed group: ${(e as Error).message}` };
  }
  const runner = new SeedGroupRunner(group);
  return {
    deps: seeds.map((_, k) => ({ ...deps, createTrainer: runner.createTrainer(k), memory: () => memory, ...(loaded ? { loadMarket: () => loaded } : {}) })),
  };
}
