// Deterministic ids that look like the real API's (toolu_01…, msg_01…, req_01…).
// Derived from a hash of where they come from (scenario file, track, turn, index),
// so transcripts and snapshots are identical run after run. NOT random and NOT
// unique across scenarios that share a file name: that is the point.

import { createHash } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 22 base62 characters from the SHA-256 of the parts. */
function tail(parts: (string | number)[]): string {
  const digest = createHash('sha256').update(parts.map(String).join('\u0000')).digest();
  let n = BigInt('0x' + digest.toString('hex'));
  let out = '';
  for (let i = 0; i < 22; i++) {
    out += BASE62[Number(n % 62n)];
    n /= 62n;
  }
  return out;
}

export function toolUseId(file: string, track: string, turn: number, index: number): string {
  return `toolu_01${tail(['tool', file, track, turn, index])}`;
}

export function messageId(file: string, track: string, turn: number): string {
  return `msg_01${tail(['msg', file, track, turn])}`;
}

export function requestId(file: string, seq: number): string {
  return `req_01${tail(['req', file, seq])}`;
}
