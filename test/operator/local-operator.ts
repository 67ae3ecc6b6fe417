/**
 * The operator with the local driver, in the test process: agents run as real
 * sandboxed child processes against the test's control-plane server. One way
 * to start it for every single-machine test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger } from '../../common/logger.js';
import { loadOperatorConfig, type OperatorConfig } from '../../operator/src/config.js';
import { LocalDriver, type ScheduleClock } from '../../operator/src/drivers/local/local-driver.js';
import { OperatorManager } from '../../operator/src/manager.js';
import type { TestServer } from '../apiserver/control-plane-server.js';

/** A running local operator. */
export interface LocalOperator {
  cfg: OperatorConfig;
  driver: LocalDriver;
  /** The driver's state directory (builds, runs, logs), removed by {@link stop}. */
  dir: string;
  manager(): OperatorManager;
  /** Stops the manager and starts a new one over the same driver (an operator restart). */
  restartManager(stopped?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

/** Options of {@link startLocalOperator}. */
export interface LocalOperatorOptions {
  /** Environment of the operator's configuration besides its internal secret. */
  env?: NodeJS.ProcessEnv;
  /** Settings over the configuration the test server implies. */
  overrides?: Partial<OperatorConfig>;
  clock?: ScheduleClock;
  /** The driver's state directory (default: a new temporary one); removed by stop(). */
  dir?: string;
  /** Where the driver and manager log (default: nowhere). */
  log?: Logger;
}

/** Starts the local driver and the manager, reconciling only the namespaces `namespaces` accepts. */
export async function startLocalOperator(
  server: TestServer,
  namespaces: (namespace: string) => boolean,
  options: LocalOperatorOptions = {},
): Promise<LocalOperator> {
  const log = options.log ?? createLogger('operator', 'silent');
  const cfg: OperatorConfig = {
    ...loadOperatorConfig({ ...options.env, SVC_INTERNAL_SECRET: server.internalSecret }),
    internalApiUrl: server.base,
    publicApiUrl: server.base,
    ...options.overrides,
  };
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'svc-local-'));
  const driver = await new LocalDriver(server.kc, cfg, dir, log, options.clock).init();
  const start = async () => {
    const started = new OperatorManager({ kc: server.kc, cfg, driver, log, namespaces });
    await started.start();
    return started;
  };
  let manager = await start();
  return {
    cfg,
    driver,
    dir,
    manager: () => manager,
    restartManager: async (stopped) => {
      await manager.stop();
      await stopped?.();
      manager = await start();
    },
    stop: async () => {
      await manager.stop();
      await driver.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
