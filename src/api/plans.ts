import type { Plan } from '../store/schema.js';

/** Which plans include the REST API (DESIGN §7: from `startup` up). */
export function planHasApi(plan: Plan): boolean {
  switch (plan) {
    case 'free':
      return false;
    case 'startup':
    case 'business':
      return true;
  }
}
