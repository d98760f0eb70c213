import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per service instance, so several services in one test process stay apart. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    captures: new Counter({
      name: 'hookwatch_captures_total',
      help: 'Requests captured and committed, by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    captureLatency: new Histogram({
      name: 'hookwatch_capture_duration_seconds',
      help: 'From request arrival to the 200 after commit',
      buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    captureBatchSize: new Histogram({
      name: 'hookwatch_capture_batch_size',
      help: 'Events committed per group-commit transaction',
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500],
      registers: [registry],
    }),
    attempts: new Counter({
      name: 'hookwatch_delivery_attempts_total',
      help: 'Delivery attempts finished, by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'hookwatch_delivery_queue_due',
      help: 'Scheduled attempts that are due now',
      registers: [registry],
    }),
    oldestDueAge: new Gauge({
      name: 'hookwatch_delivery_oldest_due_age_seconds',
      help: 'Age of the oldest due attempt (0 when none)',
      registers: [registry],
    }),
    alertsSent: new Counter({
      name: 'hookwatch_alerts_sent_total',
      help: 'Alert notices sent, by channel and outcome',
      labelNames: ['channel', 'outcome'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
