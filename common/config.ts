// The run configuration: one zod schema shared by the CLI, the trainer host, the native addon
// wrapper and the config editor. Every field carries its default, unit and valid range (zod
// `.meta`), so the editor shows them and an invalid file gets a message that names the field,
// the value and the allowed range. Field names are snake_case, as in CleanRL / SB3 configs.
import { z } from 'zod';
import { problemLines } from './config-problems.ts';
import { headsProblems } from './heads.ts';

/** Metadata shown by the config editor next to a field. */
export type FieldMeta = {
  description: string;
  unit?: string;
  /** An optional field (no default): what leaving it out means, as the editor's help line says it ("lr throughout"). */
  absent?: string;
};

const int = (min: number, max: number, def: number, meta: FieldMeta) =>
  z.number().int().min(min).max(max).default(def).meta(meta);
const num = (min: number, max: number, def: number, meta: FieldMeta) =>
  z.number().min(min).max(max).default(def).meta(meta);

/** Where the training environments step (issue 24): the same fields for every env kind. */
const collectorFields = {
  collector: z.enum(['auto', 'host', 'device']).default('auto').meta({ description: 'where the training environments step: device (CUDA kernels acting from the GPU weights, transitions straight into the GPU replay; CUDA backend, GPU replay, CartPole or trading, whose evaluation walks step on the GPU too), host, or auto: for CartPole the device where it trains faster, from 256 copies (num_envs) and 256 env steps a training step (train_every) on, the host below that (run L44); trading on the host (not yet measured on the device); a run that cannot use the device steps on the host and says why' }),
  simulate_collector_oom: z.boolean().default(false).meta({ description: "test switch: act as if the device collector's allocation ran out of memory" }),
};

export const CartPoleEnvSchema = z.strictObject({
  kind: z.literal('cartpole'),
  num_envs: int(1, 4096, 8, { description: 'environment copies stepped together', unit: 'envs' }),
  max_episode_steps: int(1, 100_000, 500, { description: 'time limit; reaching it is a truncation, not a terminal', unit: 'env steps' }),
  ...collectorFields,
});

export const TradingEnvSchema = z.strictObject({
  kind: z.literal('trading'),
  data: z.string().min(1).meta({ description: 'OHLCV CSV file (timestamp,open,high,low,close,volume); relative paths resolve against the repository' }),
  bad_rows: z.enum(['refuse', 'skip']).default('refuse').meta({ description: 'what to do with a malformed CSV row: refuse the file, or skip the row and report it' }),
  num_envs: int(1, 4096, 8, { description: 'environment copies stepped together', unit: 'envs' }),
  episode_length: int(16, 1_000_000, 1024, { description: 'env steps (decisions, each holding decision_interval decision bars) per training episode before it is truncated (random start in the training span)', unit: 'steps' }),
  lags: int(1, 16, 7, { description: 'lags of each market feature in the observation (state_dim = 7 * lags + 2)', unit: 'bars' }),
  n_actions: int(3, 255, 45, { description: 'discrete target positions, evenly spaced in [-max_position, max_position]; must be odd so that the middle action is flat (0)', unit: 'actions' })
    .refine((n) => n % 2 === 1, { error: (issue) => `must be odd so that the middle action is the flat position (0); use ${Number(issue.input) - 1} or ${Number(issue.input) + 1}` }),
  max_position: num(0.01, 10, 1, { description: 'largest absolute position, as a multiple of current equity (1: fully invested, no leverage; 2: twice equity)', unit: 'x equity' }),
  cost_bps: num(0, 1000, 0.5, { description: 'cost per unit of position change', unit: 'basis points' }),
  reward_scale: num(1e-6, 1e9, 1e4, { description: 'training reward = reward_scale x (position x return - costs); 1e4 puts it in basis points (evaluation metrics stay in return units)' }),
  validation_fraction: num(0.05, 0.9, 0.2, { description: "fraction of the bars (of a fold's window) in the validation span, before the test span: what checkpoint selection and sweeps read", unit: 'fraction' }),
  test_fraction: num(0, 0.9, 0, { description: "fraction of the bars (of a fold's window) in the test span, the last by time: evaluated once at the end of a run, never read by selection; 0 = no test span", unit: 'fraction' }),
  embargo_bars: int(0, 1_000_000, 0, { description: 'bars between the training and validation spans and between validation and test, belonging to none (a feature window never crosses a span boundary)', unit: 'bars' }),
  folds: int(1, 64, 1, { description: 'walk-forward folds: windows rolling forward by one test span, each with its own training, validation and test spans (1 = one split of all bars; more needs test_fraction > 0)', unit: 'folds' }),
  fold: int(0, 63, 0, { description: 'the walk-forward fold this run trains and evaluates, 0 (earliest) to folds - 1 (latest)', unit: 'fold' }),
  max_gap_bars: num(1, 1e6, 5, { description: 'a step longer than this many nominal bars is a gap: features restart after it', unit: 'bars' }),
  gap_policy: z.enum(['hold', 'flat']).default('hold').meta({ description: 'at a gap: hold keeps the position and books its move over the gap and the warm-up bars after it; flat closes it (with its cost) before the gap and the agent reopens after it' }),
  decision_interval: int(1, 100_000, 1, { description: 'the agent acts every k decision bars and holds its units in between (frame skip, Mnih et al. 2015); 1 = every bar', unit: 'bars' }),
  change_penalty_bps: num(0, 1000, 0, { description: 'training reward only: a penalty per unit of equity traded, on top of cost_bps, so the agent learns to trade less (evaluation charges only the cost)', unit: 'basis points' }),
  action_space: z.enum(['target', 'step']).default('target').meta({ description: 'target: n_actions target positions; step: 4 actions around the current position on that grid (hold: trade nothing, step up, step down, flat)' }),
  financing_rate: num(0, 1, 0, { description: 'yearly rate charged on the part of a long position above 1x equity (borrowed cash) and on the whole of a short (borrowed stock), by calendar time', unit: 'fraction per year' }),
  ...collectorFields,
});

/** One line per inconsistent combination of trading env fields: `[field, message]`. */
export function tradingEnvProblems(env: { validation_fraction: number; test_fraction: number; folds: number; fold: number }): [string, string][] {
  const out: [string, string][] = [];
  if (env.validation_fraction + env.test_fraction >= 1)
    out.push(['test_fraction', `validation_fraction + test_fraction (${env.validation_fraction} + ${env.test_fraction}) must be below 1: the rest is the training span`]);
  if (env.folds > 1 && env.test_fraction === 0) out.push(['folds', 'walk-forward (folds > 1) needs a test span: set test_fraction > 0 (each fold steps forward by its test span)']);
  if (env.fold >= env.folds) out.push(['fold', `must be below folds (${env.folds}): folds are numbered 0 to ${env.folds - 1}`]);
  return out;
}

export const EnvSchema = z.discriminatedUnion('kind', [CartPoleEnvSchema, TradingEnvSchema]);

export const NetworkSchema = z.strictObject({
  hidden: z.array(z.number().int().min(1).max(4096)).min(1).max(8).default([256, 256]).meta({ description: 'hidden layer widths of the MLP trunk', unit: 'units' }),
  dueling: z.boolean().default(true).meta({ description: 'dueling head: Q = V + A - mean(A) (Wang et al. 2016)' }),
  precision: z.enum(['tf32', 'bf16', 'fp32']).default('tf32').meta({ description: 'CUDA backend: inputs of the matrix products (FP32 accumulation always); the CPU backend computes in fp32' }),
});

/** A gradient-budget share: a fraction of optim.grad_clip, below 1 (the main head keeps the rest). */
const share = (def: number, description: string) => z.number().min(0).lt(1).default(def).meta({ description, unit: 'fraction of grad_clip' });

export const C51Schema = z.strictObject({
  atoms: int(2, 101, 51, { description: 'C51: atoms of the return distribution, evenly spaced on [v_min, v_max] (Bellemare et al. 2017)', unit: 'atoms' }),
  v_min: num(-1e6, 1e6, -10, { description: 'C51: lowest return on the support (returns below it are clamped to it)', unit: 'return units' }),
  v_max: num(-1e6, 1e6, 10, { description: 'C51: highest return on the support (returns above it are clamped to it)', unit: 'return units' }),
});

export const IqnSchema = z.strictObject({
  n: int(1, 256, 8, { description: "IQN: quantile fractions of the online network at s (the paper's N)", unit: 'fractions' }),
  n_prime: int(1, 256, 8, { description: "IQN: quantile fractions of the target network at s' (N')", unit: 'fractions' }),
  k: int(1, 1024, 32, { description: 'IQN: quantile fractions averaged to act (K)', unit: 'fractions' }),
  embedding: int(1, 1024, 64, { description: 'IQN: size of the cosine embedding of each fraction, cos(pi i tau) (Dabney et al. 2018)', unit: 'features' }),
  kappa: z.number().gt(0).max(1e6).default(1).meta({ description: 'IQN: threshold of the quantile Huber loss', unit: 'return units' }),
  auxiliary: z.boolean().default(false).meta({ description: 'train an IQN head beside a q or c51 main head (its loss shapes the trunk; it does not act)' }),
  share: share(0.2, 'auxiliary IQN head: its share of the gradient budget'),
});

export const EnsembleSchema = z.strictObject({
  heads: int(0, 32, 0, { description: 'extra Q heads on the trunk, each trained on its own bootstrap mask (Bootstrapped DQN, Osband et al. 2016); 0 = off', unit: 'heads' }),
  bootstrap_p: z.number().gt(0).max(1).default(0.5).meta({ description: "probability that a transition is in one ensemble head's bootstrap sample", unit: 'probability' }),
  share: share(0.1, 'ensemble: its share of the gradient budget'),
});

export const CqlSchema = z.strictObject({
  alpha: num(0, 1e6, 0, { description: 'CQL(H) weight: alpha x mean(logsumexp_a Q(s, a) - Q(s, a_data)) (Kumar et al. 2020); 0 = off' }),
  share: share(0.1, 'CQL: its share of the gradient budget'),
});

export const SpectralSchema = z.strictObject({
  sigma_max: num(0, 1e6, 0, { description: 'spectral normalisation: bound on the largest singular value of each normalised weight matrix, one power iteration per step (Miyato et al. 2018); 0 = off' }),
  trunk: z.boolean().default(true).meta({ description: "spectral normalisation applies to the trunk's weight matrices" }),
  heads: z.boolean().default(false).meta({ description: "spectral normalisation applies to the heads' weight matrices" }),
});

export const HeadsSchema = z.strictObject({
  main: z.enum(['q', 'c51', 'iqn']).default('q').meta({ description: 'the head that acts and whose loss is the main loss: q (expected Q-values), c51 (categorical distribution) or iqn (implicit quantiles); network.dueling applies to its output layer' }),
  c51: C51Schema.default(C51Schema.parse({})),
  iqn: IqnSchema.default(IqnSchema.parse({})),
  ensemble: EnsembleSchema.default(EnsembleSchema.parse({})),
  cql: CqlSchema.default(CqlSchema.parse({})),
  spectral: SpectralSchema.default(SpectralSchema.parse({})),
});

export const ReplaySchema = z.strictObject({
  capacity: int(64, 100_000_000, 100_000, { description: 'transitions kept (ring buffer)', unit: 'transitions' }),
  sampler: z.enum(['proportional', 'rank', 'uniform']).default('proportional').meta({ description: 'PER sampler: proportional (sum tree), rank-based, or uniform (PER off)' }),
  alpha: num(0, 1, 0.6, { description: 'priority exponent: P(i) ∝ p_i^alpha' }),
  beta0: num(0, 1, 0.4, { description: 'initial IS-weight exponent, annealed linearly to 1' }),
  beta_steps: int(1, 1e12, 100_000, { description: 'steps over which beta anneals from beta0 to 1 (then clamped)', unit: 'steps' }),
  eps: num(0, 1, 1e-6, { description: 'added to |TD error| so no priority is zero' }),
  p_clip: num(1e-6, 1e12, 1e6, { description: 'cap on |TD error| before it becomes a priority' }),
  is_normalization: z.enum(['buffer', 'batch']).default('buffer').meta({ description: 'divide IS weights by the buffer-wide max (as in the paper) or by the batch max' }),
  rank_sort_interval: int(1, 1_000_000, 1000, { description: 'rank-based sampler: re-sort every K steps', unit: 'steps' }),
  device: z.enum(['auto', 'cpu', 'cuda']).default('auto').meta({ description: 'where the replay buffer lives; auto follows the compute backend' }),
  state_dtype: z.enum(['f32', 'bf16']).default('f32').meta({ description: 'storage type of states on the GPU (bf16 halves the memory)' }),
  simulate_oom: z.boolean().default(false).meta({ description: 'test switch: act as if the GPU replay allocation ran out of memory' }),
});

export const TargetUpdateSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('hard'), interval: int(1, 10_000_000, 1000, { description: 'copy online to target every C steps', unit: 'steps' }) }),
  z.strictObject({ kind: z.literal('polyak'), tau: num(1e-6, 1, 0.005, { description: 'Polyak averaging rate per step' }) }),
]);

export const OptimSchema = z.strictObject({
  lr: z.number().gt(0).max(1).default(2.5e-4).meta({ description: 'Adam learning rate', unit: '1/step' }),
  lr_end: z.number().gt(0).max(1).optional().meta({ description: 'learning rate reached after lr_decay_steps (linear schedule); absent: lr throughout', unit: '1/step', absent: 'lr throughout' } satisfies FieldMeta),
  lr_decay_steps: int(0, 1e12, 0, { description: 'steps over which the learning rate moves linearly from lr to lr_end (0: constant lr)', unit: 'steps' }),
  adam_eps: num(1e-12, 1, 1e-8, { description: 'Adam epsilon' }),
  grad_clip: num(0, 1e6, 10, { description: 'global gradient-norm clip (0 disables)' }),
  batch_size: int(1, 65_536, 256, { description: 'transitions per gradient step', unit: 'transitions' }),
  gamma: num(0, 1, 0.99, { description: 'discount factor' }),
  n_step: int(1, 32, 1, { description: 'n-step returns; they stop at a terminal, a truncation and the write head', unit: 'env steps' }),
  double_dqn: z.boolean().default(true).meta({ description: 'Double DQN target: argmax by the online net, value by the target net (van Hasselt et al. 2016)' }),
  huber_delta: num(1e-6, 1e6, 1, { description: 'Huber loss threshold' }),
  target_update: TargetUpdateSchema.default({ kind: 'hard', interval: 1000 }),
});

export const ExplorationSchema = z.strictObject({
  eps_start: num(0, 1, 1, { description: 'initial epsilon of epsilon-greedy' }),
  eps_end: num(0, 1, 0.05, { description: 'final epsilon' }),
  eps_decay_steps: int(1, 1e12, 50_000, { description: 'env steps over which epsilon decays linearly', unit: 'env steps' }),
});

export const ScheduleSchema = z.strictObject({
  epochs: int(1, 1_000_000, 10, { description: 'epochs to run', unit: 'epochs' }),
  steps_per_epoch: int(1, 1e9, 10_000, { description: 'gradient steps per epoch', unit: 'steps' }),
  learning_starts: int(0, 1e9, 1000, { description: 'env steps collected before the first gradient step', unit: 'env steps' }),
  train_every: int(1, 1024, 1, { description: 'env steps (all copies together) collected per gradient step', unit: 'env steps' }),
  eval_episodes: int(1, 100_000, 10, { description: 'greedy evaluation episodes at each epoch end', unit: 'episodes' }),
  q_stats_interval: int(1, 1e9, 100, { description: 'take Q-stats every N steps', unit: 'steps' }),
  causal_interval: int(1, 1e9, 1000, { description: 'take causal sensitivity every N steps', unit: 'steps' }),
  actor_sync_interval: int(1, 1e9, 50, { description: 'CUDA backend: refresh the host copy of the online weights that acts every N steps (asynchronously)', unit: 'steps' }),
  deterministic: z.boolean().default(false).meta({ description: 'CUDA backend: reproducible bit for bit from the seed on the same GPU and build (the acting weights change at fixed steps; one host wait per actor_sync_interval steps). The CPU backend is always deterministic' }),
  checkpoint_every: int(1, 1_000_000, 1, { description: 'write a checkpoint every N epochs', unit: 'epochs' }),
  checkpoint_keep: int(1, 1000, 3, { description: 'keep the last N checkpoints (stop checkpoints included) plus the best by evaluation mean return', unit: 'checkpoints' }),
  // Early stopping on the evaluation, as Stable-Baselines3's StopTrainingOnRewardThreshold callback does; CartPole-v1
  // counts as solved at a mean return of 475 (Gym's reward_threshold, Brockman et al. 2016). Compared with the
  // epoch's eval_mean_return, the figure checkpoint selection reads (never the test span).
  target_return: z.number().nullable().default(null).meta({
    description:
      "end the run after the first epoch whose evaluation mean return (eval_mean_return: CartPole's greedy evaluation episodes; trading's validation walk, reward_scale x its return, i.e. basis points of equity at reward_scale 1e4) is >= this; that epoch ends the run as a last epoch does (its checkpoint, and the one walk of a trading run's test span). null (empty): off, every epoch runs. As Stable-Baselines3's StopTrainingOnRewardThreshold; CartPole-v1 counts as solved at 475 (Brockman et al. 2016)",
    unit: 'return units',
  }),
});

export const RunConfigSchema = z
  .strictObject({
    name: z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'use letters, digits, ".", "_" and "-" only').default('run'),
    seed: int(0, 2 ** 31 - 1, 1, { description: 'seed of every random stream (envs, exploration, replay, init)' }),
    backend: z.enum(['auto', 'cpu', 'cuda']).default('auto').meta({ description: 'compute backend; auto picks CUDA when a device is present' }),
    env: EnvSchema,
    network: NetworkSchema.default(NetworkSchema.parse({})),
    heads: HeadsSchema.default(HeadsSchema.parse({})),
    replay: ReplaySchema.default(ReplaySchema.parse({})),
    optim: OptimSchema.default(OptimSchema.parse({})),
    exploration: ExplorationSchema.default(ExplorationSchema.parse({})),
    schedule: ScheduleSchema.default(ScheduleSchema.parse({})),
  })
  .superRefine((c, ctx) => {
    if (c.exploration.eps_end > c.exploration.eps_start)
      ctx.addIssue({ code: 'custom', path: ['exploration', 'eps_end'], message: `eps_end (${c.exploration.eps_end}) must not exceed eps_start (${c.exploration.eps_start})` });
    if (c.optim.batch_size > c.replay.capacity)
      ctx.addIssue({ code: 'custom', path: ['optim', 'batch_size'], message: `batch_size (${c.optim.batch_size}) must not exceed replay.capacity (${c.replay.capacity})` });
    for (const p of headsProblems(c.heads)) ctx.addIssue({ code: 'custom', path: ['heads', ...p.path], message: p.message });
    if (c.env.kind === 'trading') for (const [field, message] of tradingEnvProblems(c.env)) ctx.addIssue({ code: 'custom', path: ['env', field], message });
  });

/** The `heads` section, defaults filled in (mirrors native/src/model/heads_config.h). */
export type HeadsConfig = z.output<typeof HeadsSchema>;
/** A validated run configuration, defaults filled in. */
export type RunConfig = z.output<typeof RunConfigSchema>;
/** A run configuration as written in a file (defaults optional). */
export type RunConfigInput = z.input<typeof RunConfigSchema>;

/**
 * Parses a run configuration and fills defaults.
 * @throws ConfigError whose message lists every invalid field as `path: problem`, in the words the
 * config editor shows under the field (config-problems.ts: its range and unit, the value given
 * and what to change).
 */
export function parseRunConfig(input: unknown): RunConfig {
  const result = RunConfigSchema.safeParse(input);
  if (result.success) return result.data;
  throw new ConfigError(problemLines(RunConfigSchema, input, result.error.issues));
}

/** An invalid configuration; `problems` holds one line per invalid field. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid config:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}
