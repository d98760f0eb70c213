import { createContext, useContext } from 'react';
import type { Me } from './types';

export interface SessionValue {
  me: Me;
  /** Loads /me again (after a plan or key change). */
  refresh: () => Promise<void>;
  logout: () => Promise<void>;
}

export const SessionContext = createContext<SessionValue | null>(null);

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside a signed-in page');
  return value;
}
