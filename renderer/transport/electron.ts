// Desktop transport: the preload's `window.dqn` bridge, which holds a MessagePort straight to
// the trainer host and parses every message before it reaches us.
import type { DqnBridgeApi } from '../../common/bridge-api.ts';
import type { Transport } from './transport.ts';

/** Wraps the preload API as a Transport. */
export function createElectronTransport(api: DqnBridgeApi): Transport {
  return {
    kind: 'electron',
    send: (cmd) => {
      switch (cmd.type) {
        case 'start':
          return api.trainer.start(cmd.config);
        case 'resume':
          return api.trainer.resume(cmd.runDir);
        case 'stop':
          return api.trainer.stop();
        case 'hello':
          return api.trainer.hello();
        case 'listRuns':
          return api.trainer.listRuns();
        case 'openRun':
          return api.trainer.openRun(cmd.runDir);
      }
    },
    subscribe: (l) => api.trainer.onMessage(l),
    // The port is set up by main before the page loads and replaced on each host restart.
    onConnection: (l) => {
      l('open');
      return () => undefined;
    },
    listPresets: () => api.presets.list(),
    savePreset: (name, config) => api.presets.save(name, config),
    restartHost: () => api.trainer.restartHost(),
  };
}
