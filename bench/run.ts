// `npm run bench`: every benchmark in one run, each printing its own table with ratios
// against a baseline measured in the same run. Loopback only; bounded; stops by itself.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));
const only = process.argv.slice(2);
for (const name of ['capture.ts', 'verification.ts', 'delivery.ts', 'api.ts']) {
  if (only.length > 0 && !only.some((o) => name.startsWith(o))) continue;
  if (!existsSync(here(name))) continue;
  console.log(`\n### bench/${name}\n`);
  execFileSync(process.execPath, ['--import', 'tsx', here(name)], { stdio: 'inherit' });
}
