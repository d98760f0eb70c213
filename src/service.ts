import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { EndpointCache } from './capture/endpointCache.js';
import { type CommitBatch, CaptureWriter } from './capture/groupCommit.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { buildHttp } from './http/server.js';
import { type BackgroundLoop, createBackgroundLoops } from './loops.js';
import { createMetrics } from './ops/metrics.js';
import type { Services } from './services.js';
import { type BusMessage, openBus } from './store/bus.js';
import { type CapturedEvent, insertCapturedEvents } from './store/capture.js';
import { openStore } from './store/db.js';
import { migrate } from './store/migrations/index.js';

export interface RunningService {
  services: Services;
  app: FastifyInstance;
  /** The URL the service answers on. */
  url: string;
  loops: BackgroundLoop[];
  /** Graceful stop: no new requests, in-flight captures committed, loops stopped, database closed. */
  stop(): Promise<void>;
}

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({
    level: config.logLevel,
    // Signing secrets and session cookies never reach the logs.
    redact: [
      'req.headers.cookie',
      'req.headers.authorization',
      '*.signing_secret',
      'signing_secret',
    ],
  });
}

export async function startService(
  config: Config,
  options: { clock?: Clock; logger?: Logger } = {},
): Promise<RunningService> {
  const logger = options.logger ?? createLogger(config);
  const clock = options.clock ?? systemClock;
  const store = openStore(config.databaseUrl);
  const applied = await migrate(store);
  if (applied.length > 0) logger.info({ applied }, 'database migrated');
  const bus = await openBus(store, (error) =>
    logger.warn({ err: error }, 'notification channel error'),
  );
  const metrics = createMetrics();
  const endpointCache = new EndpointCache(store, bus);
  // What a committed batch tells the live feed and the delivery worker, here and (through
  // the capture statement itself, on PostgreSQL) on the other instances.
  const announcements = (events: readonly CapturedEvent[]): BusMessage[] => {
    const endpoints = [...new Set(events.map((e) => e.endpointId))].join(',');
    const messages: BusMessage[] = [{ channel: 'event_captured', payload: endpoints }];
    if (events.some((e) => e.firstAttemptUrl !== null)) {
      messages.push({ channel: 'attempt_due', payload: '' });
    }
    return messages;
  };
  const commit: CommitBatch = (events) =>
    insertCapturedEvents(store, events, bus.noticesFor(announcements(events)));
  const captureWriter = new CaptureWriter(commit, {
    maxInFlight: store.dialect === 'postgres' ? 4 : 1,
    onCommit: ({ events, ids }) => {
      metrics.captureBatchSize.observe(events.length);
      // Once per batch: counted per request, prom-client's label hashing took 0.75 % of
      // capture's CPU samples. A deleted endpoint's events (null ids) were not stored.
      const stored = ids.filter((id) => id !== null).length;
      if (stored > 0) metrics.captures.inc({ outcome: 'stored' }, stored);
      for (const { channel, payload } of announcements(events)) bus.emitLocally(channel, payload);
    },
  });
  const services: Services = {
    config,
    store,
    clock,
    logger,
    bus,
    metrics,
    endpointCache,
    captureWriter,
  };

  const loops: BackgroundLoop[] = createBackgroundLoops(services);
  const app = await buildHttp(services);
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (config.baseUrlFromPort) config.baseUrl = `http://localhost:${port}`;
  for (const loop of loops) loop.start();

  if (config.smtpUrl === null && config.roles.has('worker')) {
    logger.info(
      'SMTP_URL is not set: email alerts are off (alerts are still recorded and sent to alert webhooks)',
    );
  }
  logger.info(
    { url: config.baseUrl, database: store.dialect, roles: [...config.roles] },
    `Hookwatch is up at ${config.baseUrl}`,
  );

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      // Order matters: stop taking requests, commit what was acknowledged-to-be,
      // let the loops finish or hand back their work, and close the database last.
      // Keep-alive connections that go idle after their last answer would otherwise hold
      // the close open until their timeout; in-flight requests still get their answer.
      const closing = app.close();
      const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
      app.server.closeIdleConnections();
      await closing.finally(() => clearInterval(sweep));
      await captureWriter.flush();
      for (const loop of [...loops].reverse()) await loop.stop();
      endpointCache.close();
      await bus.close();
      await store.close();
      logger.info('Hookwatch stopped');
    })();
    return stopping;
  };
  return { services, app, url: config.baseUrl, loops, stop };
}
