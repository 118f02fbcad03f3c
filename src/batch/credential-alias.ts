/**
 * A batch belongs to the quota project of the key that created it, so it is reached with that key again: the log keeps
 * the key's alias (`key-2 …x7Qa`, never the key). Aliases number keys in the order given, so a keys file reordered
 * since gives the same key another number; its last characters still tell it.
 */
import type { Credential } from '../providers/contract.js';

/** The credential of `alias`: the same alias, else the one credential with the same last characters; undefined: none. */
export function credentialByAlias(credentials: readonly Credential[], alias: string): Credential | undefined {
  const exact = credentials.find((k) => k.alias === alias);
  if (exact) return exact;
  const tail = alias.split(' ').at(-1);
  const same = credentials.filter((k) => k.alias.split(' ').at(-1) === tail);
  return same.length === 1 ? same[0] : undefined;
}
