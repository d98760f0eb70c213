#!/usr/bin/env -S node --min-semi-space-size=16
import { Command, InvalidArgumentError } from 'commander';
import { hashPassword, MIN_PASSWORD_LENGTH } from './app/passwords.js';
import { systemClock } from './clock.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { startService } from './service.js';
import { openStore } from './store/db.js';
import { migrate } from './store/migrations/index.js';
import { PLANS, type Plan } from './store/schema.js';
import { createUser, setUserPlan } from './store/users.js';

function config(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`hookwatch: configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

function plan(value: string): Plan {
  if (!(PLANS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${PLANS.join(', ')}`);
  }
  return value as Plan;
}

async function withStore<T>(fn: (store: ReturnType<typeof openStore>) => Promise<T>): Promise<T> {
  const store = openStore(config().databaseUrl);
  try {
    await migrate(store);
    return await fn(store);
  } finally {
    await store.close();
  }
}

function fail(message: string): never {
  process.stderr.write(`hookwatch: ${message}\n`);
  process.exit(1);
}

const program = new Command('hookwatch').description(
  'Self-hostable service for incoming webhooks. Configuration comes from the environment (see README).',
);

program
  .command('serve')
  .description('run the service (what npm start runs)')
  .action(async () => {
    const service = await startService(config());
    const shutdown = (signal: string) => {
      service.services.logger.info({ signal }, 'stopping');
      service.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          service.services.logger.error({ err: error }, 'unclean stop');
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });

program
  .command('migrate')
  .description('bring the database schema up to date (serve does this too)')
  .action(async () => {
    const store = openStore(config().databaseUrl);
    try {
      const applied = await migrate(store);
      process.stdout.write(
        applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n',
      );
    } finally {
      await store.close();
    }
  });

const user = program.command('user').description('manage accounts');

user
  .command('create')
  .description('create an account')
  .requiredOption('--email <email>', 'login email')
  .requiredOption('--password <password>', `password (at least ${MIN_PASSWORD_LENGTH} characters)`)
  .option('--plan <plan>', `one of ${PLANS.join(', ')}`, plan, 'free' as Plan)
  .action(async (opts: { email: string; password: string; plan: Plan }) => {
    if (opts.password.length < MIN_PASSWORD_LENGTH) {
      fail(`--password must be at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    const created = await withStore(async (store) =>
      createUser(store, {
        email: opts.email,
        passwordHash: await hashPassword(opts.password),
        plan: opts.plan,
        now: systemClock.nowMicros(),
      }),
    );
    if (!created) fail(`an account with email ${opts.email} already exists`);
    process.stdout.write(`created user ${created.id} <${created.email}> on plan ${created.plan}\n`);
  });

user
  .command('plan')
  .description("change an account's plan (takes effect at once on the running service)")
  .requiredOption('--email <email>', 'the account')
  .requiredOption('--plan <plan>', `one of ${PLANS.join(', ')}`, plan)
  .action(async (opts: { email: string; plan: Plan }) => {
    const changed = await withStore((store) => setUserPlan(store, opts.email, opts.plan));
    if (!changed) fail(`no account with email ${opts.email}`);
    process.stdout.write(`${opts.email} is now on plan ${opts.plan}\n`);
  });

program.parseAsync().catch((error: unknown) => fail((error as Error).message));
