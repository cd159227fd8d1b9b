import { performance } from 'node:perf_hooks';
let t = performance.now();
await import('@anthropic-ai/sdk'); console.log('sdk', performance.now() - t); t = performance.now();
const { register } = await import('tsx/esm/api'); register(); console.log('tsx', performance.now() - t); t = performance.now();
const m = await import('./tt/a.ts'); console.log('a', m.x, performance.now() - t);
