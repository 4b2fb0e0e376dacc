#!/bin/bash
# Builds and runs the CUDA backend's checks, tests and benchmarks (replay and learner) on a GPU
# machine that has nvcc, cmake and python3+torch but no Node and no network: the caller ships
# the source tree, a tarball of the few node_modules needed (nm.tgz) and the Node binary
# (node.xz) in one folder (SHIP, default .device/ beside the tree's root; make it with
#   mkdir -p .device && tar czf .device/nm.tgz node_modules/{tsx,esbuild,@esbuild,zod,commander,csv-parse,\
#     node-addon-api,node-api-headers,ws} && xz -c "$(which node)" > .device/node.xz
# and carry .device).
#   usage: bash bench/cuda-device.sh STEP...   (run from that source tree's root)
#   The device tool brings back only a few files of its $OUT: point OUT elsewhere and end with
#   the pack step, e.g.  OUT=/tmp/o PACK=$OUT/logs.tgz bash bench/cuda-device.sh build learner-check pack
#   replay steps:  build check tests sanitize sanitize-bench bench profile torch
#   learner steps: learner-check (CHECK_RUNS times, default 20; STOP_ON_FAIL=1 stops at the first failure) learner-sanitize learner-bench learner-group-bench learner-group-profile learner-epoch learner-profile learner-tests
#                  train-cartpole cartpole-collectors cartpole-seeds cartpole-group train-deterministic train-trading torch-dqn
#                  wgmma-probe (one 64 x 64 x 128 3xTF32 product on one SM, mma.sync against wgmma: bench/wgmma_probe.cu)
#                  tile-probe (one learner tile's K loop on wgmma: register prefetch + proxy fence against bulk copies: bench/tile_probe.cu)
#                  tile-probe-ncu (after tile-probe: Nsight Compute's warp stalls on main's tile alone, 48 blocks)
#   collector steps: env-check (device CartPole and trading against the host's, bit for bit: `env_cuda_tool check`)
#                    env-trading-check (the trading half alone: device trading copies against the host's trading env on
#                    resources/data/6EH4_cme_1m_2024-01.csv, or $DQN_TRADING_CSV, and synthetic bars, 1 to 1,000 copies) env-bench
#                    collect-check (the GPU collector against the host's collection, CartPole and trading) collect-bench collect-epoch jax-collect
#                    eval-check (the GPU evaluation walk against the host's evaluation env: `collect_cuda_tool check-eval`, CHECK_RUNS times)
#   pack:          every log in $OUT (build.log aside) into one tarball, $PACK
# Logs go to $OUT (default /tmp/replay-cuda-out). Exit status: the first failing step's.
set -o pipefail
OUT=${OUT:-/tmp/replay-cuda-out}
mkdir -p "$OUT"
HERE=$PWD
SHIP=${SHIP:-$HERE/.device}
status=0
step() { echo "=== $1 ($(date -u +%H:%M:%S))"; }
# memcheck and racecheck on TOOL's small check; logs $OUT/PREFIX-<tool>.log.
sanitize() {
  for tool in memcheck racecheck; do
    DQN_SANITIZE=1 DQN_CHECK_SMALL=1 compute-sanitizer --tool $tool --error-exitcode 3 ./build/native/$1 check \
      > "$OUT/$2-$tool.log" 2>&1; rc=$?
    echo "$tool: exit $rc"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|CHECK|Error" "$OUT/$2-$tool.log" | tail -4
    [ $rc = 0 ] || status=$rc
  done
}
# Runs CHECK_RUNS times (default $2) `./build/native/$3 ${@:4}`, each run's log in
# $OUT/$1-<i>.log, and says how many passed (a GPU check counts only at 20 of 20). With
# STOP_ON_FAIL set it stops at the first failure. TAIL lines of the first log are shown.
repeat_check() {
  local name=$1 runs=${CHECK_RUNS:-$2} tool=$3 passed=0 i
  shift 3
  for i in $(seq "$runs"); do
    "./build/native/$tool" "$@" > "$OUT/$name-$i.log" 2>&1 && passed=$((passed + 1))
    [ -n "${STOP_ON_FAIL:-}" ] && [ "$passed" != "$i" ] && { echo "stopped at the first failure (run $i)"; runs=$i; break; }
  done
  [ -n "${TAIL:-}" ] && tail -"$TAIL" "$OUT/$name-1.log"
  grep -hE "FAIL|ERROR" "$OUT/$name"-*.log | head -20
  echo "$name: $passed of $runs passed"; [ "$passed" = "$runs" ] || status=1
}
for s in "$@"; do
  case $s in
    build)
      step build
      tar xzf "$SHIP/nm.tgz" && xz -dc "$SHIP/node.xz" > /tmp/node && chmod +x /tmp/node
      cmake -S native -B build/native -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DCMAKE_JS_INC="$HERE/node_modules/node-api-headers/include;$HERE/node_modules/node-addon-api" \
        -DCMAKE_LIBRARY_OUTPUT_DIRECTORY="$HERE/build/native/Release" -DNODE_RUNTIME=node > "$OUT/build.log" 2>&1 &&
        make -C build/native -j16 dqn_native replay_cuda_tool learner_cuda_tool env_cuda_tool collect_cuda_tool >> "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
      grep -E "warning|error" "$OUT/build.log" | head -20 ;;
    check)
      step check
      ./build/native/replay_cuda_tool check 2>&1 | tee "$OUT/check.log" || status=1 ;;
    tests)
      step tests
      PATH=/tmp:$PATH node scripts/run-tests.mjs native/test/replay > "$OUT/tests.log" 2>&1; rc=$?
      grep -E "^# (tests|pass|fail|skipped)|^not ok|skip" "$OUT/tests.log" | head -40; [ $rc = 0 ] || status=$rc ;;
    sanitize)
      step sanitize
      sanitize replay_cuda_tool sanitize ;;
    sanitize-bench)
      step sanitize-bench
      DQN_BENCH_CAPACITIES=${SAN_CAPACITY:-10000000} DQN_BENCH_FANLOGS=5 DQN_BENCH_BATCHES=256,4096 DQN_BENCH_ITERS=2 \
        compute-sanitizer --tool memcheck --error-exitcode 3 ./build/native/replay_cuda_tool bench > "$OUT/sanitize-bench.log" 2>&1; rc=$?
      echo "memcheck on the bench: exit $rc"; grep -E "ERROR SUMMARY|Invalid|ERROR:" "$OUT/sanitize-bench.log" | head -8
      [ $rc = 0 ] || status=$rc ;;
    bench)
      step bench
      nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw --format=csv -lms 200 > "$OUT/clocks.log" 2>&1 &
      smi=$!
      ./build/native/replay_cuda_tool bench 2>&1 | tee "$OUT/bench.log" | grep -v '^JSON'
      kill $smi ;;
    profile)
      # Nsight Compute on the K=32 steps of `replay_cuda_tool profile` (1e6, batch 256, eager):
      # warp-state samples every 32 cycles, per SASS instruction (the source page, as CSV).
      step profile
      ncu -k 'regex:SampleKernel|UpdateKernel' --launch-skip 10 --launch-count 8 --set full --warp-sampling-interval 0 \
        --cache-control none --clock-control none -f -o "$OUT/profile" ./build/native/replay_cuda_tool profile > "$OUT/profile.log" 2>&1 ||
        { tail -5 "$OUT/profile.log"; status=1; }
      ncu -i "$OUT/profile.ncu-rep" --page source --csv --print-source sass > "$OUT/profile-sass.csv" 2>&1
      ncu -i "$OUT/profile.ncu-rep" --page details > "$OUT/profile-details.txt" 2>&1
      grep -E "Duration|Registers|Warp Cycles Per Issued|Stall" "$OUT/profile-details.txt" | head -40 ;;
    env-check)
      step env-check
      ./build/native/env_cuda_tool check 2>&1 | tee "$OUT/env-check.log" | tail -32; [ "${PIPESTATUS[0]}" = 0 ] || status=1 ;;
    env-trading-check)
      step env-trading-check
      ./build/native/env_cuda_tool check-trading 2>&1 | tee "$OUT/env-trading-check.log" | tail -24; [ "${PIPESTATUS[0]}" = 0 ] || status=1 ;;
    env-bench)
      step env-bench
      ./build/native/env_cuda_tool bench 2>&1 | tee "$OUT/env-bench.log" | grep -v '^JSON' ;;
    collect-check)
      # The GPU collector against the host's collection (CHECK_RUNS times, default 1 here: set 20
      # for a check that counts).
      step collect-check
      TAIL=8 repeat_check collect-check 1 collect_cuda_tool check ;;
    eval-check)
      # The GPU evaluation walk against the host's evaluation env (CHECK_RUNS times, default 1 here).
      step eval-check
      TAIL=40 repeat_check eval-check 1 collect_cuda_tool check-eval ;;
    collect-bench)
      step collect-bench
      ./build/native/collect_cuda_tool bench 2>&1 | tee "$OUT/collect-bench.log" | grep -v '^JSON' ;;
    collect-epoch)
      # GPU idle fraction inside an epoch of training with the device collector (1, 16, 256 envs).
      step collect-epoch
      ./build/native/collect_cuda_tool epoch 2>&1 | tee "$OUT/collect-epoch.log" | grep -v '^JSON' ;;
    jax-collect)
      # The JAX anchor of the collector (bench/jax_collect.py), in the same command as collect-bench.
      step jax-collect
      python3 bench/jax_collect.py 2>&1 | tee "$OUT/jax-collect.log" | grep -v '^JSON' ;;
    learner-check)
      # The learner check CHECK_RUNS times (default 20: a GPU check counts only at 20 of 20).
      step learner-check
      repeat_check learner-check 20 learner_cuda_tool check ;;
    learner-sanitize)
      step learner-sanitize
      sanitize learner_cuda_tool learner-sanitize ;;
    learner-bench)
      step learner-bench
      ./build/native/learner_cuda_tool bench 2>&1 | tee "$OUT/learner-bench.log" | grep -v '^JSON' ;;
    learner-group-bench)
      step learner-group-bench
      ./build/native/learner_cuda_tool group-bench 2>&1 | tee "$OUT/learner-group-bench.log" | grep -v '^JSON' ;;
    learner-epoch)
      step learner-epoch
      ./build/native/learner_cuda_tool epoch 2>&1 | tee "$OUT/learner-epoch.log" | grep -v '^JSON' ;;
    learner-profile)
      step learner-profile
      ./build/native/learner_cuda_tool profile 2>&1 | tee "$OUT/learner-profile.log" ;;
    learner-group-profile)
      step learner-group-profile
      ./build/native/learner_cuda_tool group-profile 2>&1 | tee "$OUT/learner-group-profile.log" ;;
    learner-ncu)
      # Nsight Compute on one eager step's learner kernel (B = 256, TF32): duration, clocks,
      # occupancy and warp stalls, and the source page (SASS, per-instruction stall samples) as CSV.
      step learner-ncu
      DQN_PROFILE_BATCHES=256 ncu --clock-control none -k 'regex:CoreKernel' --launch-skip 60 --launch-count 1 \
        --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SourceCounters \
        --warp-sampling-interval 0 -f -o "$OUT/learner-ncu" ./build/native/learner_cuda_tool profile > "$OUT/learner-ncu.log" 2>&1 || status=1
      ncu -i "$OUT/learner-ncu.ncu-rep" --page details > "$OUT/learner-ncu.txt" 2>&1
      ncu -i "$OUT/learner-ncu.ncu-rep" --page source --csv --print-source sass > "$OUT/learner-ncu-sass.csv" 2>&1
      grep -E "Duration|Warp Cycles Per Issued|Stall|Achieved Occupancy|Grid Size|Registers|Issued Warp|L2 Hit|Memory Throughput" "$OUT/learner-ncu.txt" | cut -c1-120 | head -60
      python3 bench/ncu_stalls.py "$OUT/learner-ncu-sass.csv" 60 > "$OUT/learner-ncu-stalls.txt" 2>&1 || head -c 4000 "$OUT/learner-ncu-sass.csv"
      head -50 "$OUT/learner-ncu-stalls.txt"; gzip -f "$OUT/learner-ncu-sass.csv"; rm -f "$OUT/learner-ncu.ncu-rep" ;;
    learner-tests)
      step learner-tests
      PATH=/tmp:$PATH node scripts/run-tests.mjs native/test/trainer-cuda native/test/system-cuda native/test/trainer.test native/test/trainer-group > "$OUT/learner-tests.log" 2>&1; rc=$?
      grep -E "^# (tests|pass|fail|skipped)|^not ok" "$OUT/learner-tests.log" | head -40; [ $rc = 0 ] || status=$rc ;;
    train-cartpole)
      step train-cartpole
      for p in tf32 bf16; do
        PATH=/tmp:$PATH node --import tsx main/cli/train.ts --preset cartpole --backend cuda --precision $p --runs-dir /tmp/runs --json \
          > "$OUT/train-cartpole-$p.log" 2>&1 || status=1
        tail -1 "$OUT/train-cartpole-$p.log"
      done ;;
    cartpole-collectors)
      # The cartpole preset on the GPU with its environments on the device and on the host
      # (env.collector), seeds SEEDS (default 1-3) each, with the config fields of OVERRIDES (a
      # JSON object merged into the preset, e.g. '{"env":{"num_envs":64}}'; TAG names the case in
      # the logs): the command's wall time, steps/s, the final return and the first epoch whose
      # greedy mean return reached 475 with the training time up to it (its epochs' times summed).
      # All epochs (target_return null, as in the rows of sessions 18-19) unless OVERRIDES sets one.
      step cartpole-collectors
      for c in ${COLLECTORS:-device host}; do
        for seed in ${SEEDS:-1 2 3}; do
          PATH=/tmp:$PATH node -e "
            const merge = (a, b) => { for (const [k, v] of Object.entries(b)) a[k] = v && typeof v === 'object' && !Array.isArray(v) ? merge(a[k] ?? {}, v) : v; return a; };
            const p = merge(merge(require('./resources/presets/cartpole.json'), { schedule: { target_return: null } }), JSON.parse(process.env.OVERRIDES || '{}'));
            p.env.collector = '$c'; p.seed = $seed; process.stdout.write(JSON.stringify(p))" > /tmp/cartpole-$c.json
          log="$OUT/cartpole-${TAG:-preset}-$c-$seed.log"
          t0=$(date +%s.%N)
          PATH=/tmp:$PATH node --import tsx main/cli/train.ts --config /tmp/cartpole-$c.json --backend cuda --runs-dir /tmp/runs-$c --json \
            > "$log" 2>&1 || status=1
          t1=$(date +%s.%N)
          solved=$(awk '/^epoch / { t += $(NF-6) + 0; if ($(NF-3) + 0 >= 475) { print $2 " after " t " s of epochs"; exit } }' "$log")
          echo "${TAG:-preset} collector $c seed $seed: $(python3 -c "print(round($t1 - $t0, 2))") s; $(grep -o 'environments: [a-z]*' "$log" | head -1); $(grep -oE '"(steps_per_s|eval_mean_return|wall_s)":[0-9.]+' "$log" | tr '\n' ' ')475 at epoch ${solved:-never}"
        done
      done ;;
    cartpole-seeds)
      # The cartpole preset on the GPU over seeds (SEEDS, default 1-8) in each precision (PRECISIONS,
      # default tf32 bf16), PAR runs at a time (default 4): greedy mean return of each run's last epoch.
      step cartpole-seeds
      for p in ${PRECISIONS:-tf32 bf16}; do
        for seed in ${SEEDS:-1 2 3 4 5 6 7 8}; do
          echo "$p $seed"
        done
      done | xargs -P "${PAR:-4}" -n 2 sh -c 'PATH=/tmp:$PATH node --import tsx main/cli/train.ts --preset cartpole --backend cuda \
          --precision $0 --seed $1 --runs-dir /tmp/runs-seeds --json > "'"$OUT"'/cartpole-$0-seed$1.log" 2>&1'
      for f in "$OUT"/cartpole-*-seed*.log; do
        printf "%s: %s\n" "$(basename "$f" .log)" "$(tail -1 "$f" | grep -o '"eval_mean_return":[^,]*')"
      done ;;
    cartpole-group)
      # The cartpole preset in deterministic mode, its seeds 1..N (GROUP_SEEDS, default 8) trained
      # at once as one GPU seed group per precision (PRECISIONS, default tf32 bf16): wall time, and
      # each seed's greedy mean return after every epoch (metrics.jsonl). Every epoch: no
      # target_return (with one, each member leaves the group at its own epoch).
      step cartpole-group
      sed -e 's/"schedule": {/"schedule": {\n    "deterministic": true,/' -e 's/"target_return": [0-9.]*/"target_return": null/' resources/presets/cartpole.json > /tmp/cartpole-group.json
      for p in ${PRECISIONS:-tf32 bf16}; do
        t0=$(date +%s%N)
        PATH=/tmp:$PATH node --import tsx main/cli/train.ts --config /tmp/cartpole-group.json --backend cuda --precision $p \
          --seeds "${GROUP_SEEDS:-8}" --runs-dir /tmp/runs-group-$p --json > "$OUT/cartpole-group-$p.log" 2>&1 || status=1
        echo "$p: ${GROUP_SEEDS:-8} seeds in $(( ($(date +%s%N) - t0) / 1000000 )) ms; greedy mean return per epoch:"
        for d in /tmp/runs-group-$p/*/; do
          [ -f "$d/metrics.jsonl" ] && echo "  $(basename "$d"): $(grep -o '"eval_mean_return":[0-9.]*' "$d/metrics.jsonl" | cut -d: -f2 | tr '\n' ' ')"
        done
      done ;;
    train-deterministic)
      # schedule.deterministic's cost: the cartpole preset on cuda (TF32), free-running and then
      # deterministic, each REPEAT times (default 3), all epochs (no target_return, so that both
      # modes train as long); wall seconds from command to prompt.
      step train-deterministic
      for mode in false true; do
        sed -e 's/"schedule": {/"schedule": {\n    "deterministic": '$mode',/' -e 's/"target_return": [0-9.]*/"target_return": null/' resources/presets/cartpole.json > /tmp/cartpole-det-$mode.json
        for i in $(seq "${REPEAT:-3}"); do
          t0=$(date +%s%N)
          PATH=/tmp:$PATH node --import tsx main/cli/train.ts --config /tmp/cartpole-det-$mode.json --backend cuda --runs-dir /tmp/runs-det \
            --json > "$OUT/train-det-$mode-$i.log" 2>&1 || status=1
          t1=$(date +%s%N)
          printf "deterministic=%s run %s: %d ms %s\n" $mode $i $(( (t1 - t0) / 1000000 )) "$(tail -1 "$OUT/train-det-$mode-$i.log" | grep -oE '"(eval_mean_return|steps_per_s|last_epoch_steps_per_s)":[^,]*' | tr '\n' ' ')"
        done
      done ;;
    train-trading)
      step train-trading
      PATH=/tmp:$PATH node --import tsx main/cli/train.ts --preset trading-6e --backend cuda --epochs 1 --runs-dir /tmp/runs --json \
        > "$OUT/train-trading.log" 2>&1 || status=1
      tail -1 "$OUT/train-trading.log" ;;
    wgmma-probe)
      # Whether Hopper's warpgroup MMA shortens the learner tile's K loop (bench/wgmma_probe.cu).
      step wgmma-probe
      nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 bench/wgmma_probe.cu -o /tmp/wgmma_probe > "$OUT/wgmma-probe.log" 2>&1 &&
        /tmp/wgmma_probe 2>&1 | tee -a "$OUT/wgmma-probe.log" || status=1 ;;
    tile-probe)
      # What the learner tile's K loop waits on with wgmma: register prefetch + proxy fence against
      # async-proxy bulk copies, 1 / 48 / 132 tiles at once (bench/tile_probe.cu).
      step tile-probe
      nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 --expt-relaxed-constexpr -I. -Inative/src bench/tile_probe.cu -o /tmp/tile_probe > "$OUT/tile-probe.log" 2>&1 &&
        /tmp/tile_probe 2>&1 | tee -a "$OUT/tile-probe.log" || status=1 ;;
    tile-probe-ncu)
      # Nsight Compute on the tile probe's main learner tile alone, 48 blocks (after tile-probe):
      # warp stalls per SASS instruction, to set beside learner-ncu's (the tile inside the kernel).
      step tile-probe-ncu
      ncu --clock-control none -k 'regex:LearnerTileKernel' --launch-skip 13 --launch-count 1 --section WarpStateStats \
        --section SourceCounters --warp-sampling-interval 0 -f -o "$OUT/tile-ncu" /tmp/tile_probe > "$OUT/tile-ncu.log" 2>&1 || status=1
      ncu -i "$OUT/tile-ncu.ncu-rep" --page source --csv --print-source sass > "$OUT/tile-ncu-sass.csv" 2>&1
      python3 bench/ncu_stalls.py "$OUT/tile-ncu-sass.csv" 40 > "$OUT/tile-ncu-stalls.txt" 2>&1
      head -40 "$OUT/tile-ncu-stalls.txt"; gzip -f "$OUT/tile-ncu-sass.csv"; rm -f "$OUT/tile-ncu.ncu-rep" ;;
    torch-dqn)
      step torch-dqn
      python3 bench/torch_dqn_step.py ${TORCH_ARGS:-} 2>&1 | tee "$OUT/torch-dqn.log" | grep -v '^JSON' ;;
    pack)
      tar czf "${PACK:?set PACK to the tarball to write}" -C "$OUT" --exclude build.log --exclude "$(basename "$PACK")" . ;;
    torch)
      step torch
      python3 bench/torch_per.py 2>&1 | tee "$OUT/torch.log" | grep -v '^JSON' ;;
  esac
done
exit $status
