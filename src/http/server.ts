import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { registerApi } from '../api/index.js';
import { appApi } from '../app/index.js';
import { createCaptureHandler, isCaptureUrl } from '../capture/handler.js';
import type { Role } from '../config.js';
import { registerOpsRoutes } from '../ops/routes.js';
import type { Services } from '../services.js';
import { installErrorHandler } from './errors.js';
import { registerDashboard } from './static.js';

/** Explicit limits so a slow or hostile sender cannot pin the process (DESIGN §3). */
export const SERVER_LIMITS = {
  /** Headers larger than this are answered 431. */
  maxHeaderSize: 32 * 1024,
  /** Headers must be complete within this, else 408. */
  headersTimeoutMs: 15_000,
  /** The whole request (headers and body) must arrive within this, else 408. */
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 30_000,
} as const;

export interface HttpExtensions {
  /** Each role's routes: the api and app issues add theirs here. */
  register?: (app: FastifyInstance, roles: ReadonlySet<Role>) => Promise<void>;
}

/**
 * Builds the HTTP app and never listens (that is the service's job). Capture requests
 * are handled on the bare Node server before Fastify sees them; everything else is Fastify.
 */
export async function buildHttp(
  services: Services,
  extensions: HttpExtensions = {},
): Promise<FastifyInstance> {
  const { config } = services;
  const capture = config.roles.has('capture')
    ? createCaptureHandler({
        config,
        clock: services.clock,
        cache: services.endpointCache,
        writer: services.captureWriter,
        metrics: services.metrics,
        logger: services.logger,
      })
    : null;

  const app = Fastify({
    loggerInstance: services.logger as FastifyBaseLogger,
    // No per-request log lines: they would cost more than the capture itself.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    serverFactory: (handler) => {
      const server = createServer(
        {
          maxHeaderSize: SERVER_LIMITS.maxHeaderSize,
          headersTimeout: SERVER_LIMITS.headersTimeoutMs,
          requestTimeout: SERVER_LIMITS.requestTimeoutMs,
          keepAliveTimeout: SERVER_LIMITS.keepAliveTimeoutMs,
        },
        (req: IncomingMessage, res: ServerResponse) => {
          if (capture && isCaptureUrl(req.url)) void capture(req, res);
          else handler(req, res);
        },
      );
      return server;
    },
  });
  installErrorHandler(app);
  registerOpsRoutes(app, services);
  if (config.roles.has('app')) {
    await app.register((scope) => appApi(scope, services), { prefix: '/app/api' });
    await registerDashboard(app, config.baseUrl);
  }
  if (config.roles.has('api')) await registerApi(app, services);
  await extensions.register?.(app, config.roles);
  return app;
}
