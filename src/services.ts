import type { Logger } from 'pino';
import type { EndpointCache } from './capture/endpointCache.js';
import type { CaptureWriter } from './capture/groupCommit.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Metrics } from './ops/metrics.js';
import type { Bus } from './store/bus.js';
import type { Store } from './store/db.js';

/** What the HTTP layer and the background loops share within one process. */
export interface Services {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  bus: Bus;
  metrics: Metrics;
  endpointCache: EndpointCache;
  captureWriter: CaptureWriter;
}
