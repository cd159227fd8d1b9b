#!/usr/bin/env node
// Runs a chapter: `node steps/run.mjs 11`. Plain Node on purpose, so it works before
// anything is built. Its only job is to make TypeScript importable, then hand over
// to src/runner/cli.ts. `node steps/run.mjs --help` lists everything it can do.
//
// Node >= 22.18 strips TypeScript types natively, so nothing is registered there.
// On older Node the tsx loader is registered, but only after the SDK has been
// imported natively: the SDK is hundreds of modules, and every one of them would
// otherwise pass through the loader (measured: about twice as slow to start).

const [major, minor] = process.versions.node.split('.').map(Number);
const nativeTypeScript = major > 22 || (major === 22 && minor >= 18);

if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`This project needs Node 20.19 or newer (found ${process.versions.node}).`);
  process.exit(2);
}

// Node >= 22.1 can cache compiled code between runs; it roughly halves start-up.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();

try {
  await import('@anthropic-ai/sdk');
  if (!nativeTypeScript) {
    const { register } = await import('tsx/esm/api');
    register();
  }
} catch (err) {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('Dependencies are missing: run `npm install` in the project folder first.');
    process.exit(2);
  }
  throw err;
}

// `node steps/run.mjs 11 | head` closes the pipe early: that is the reader's choice, not an
// error. The run goes on quietly (so it still cleans up its temp folder) and exits as usual.
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
  process.stdout.write = () => true;
});

const { main } = await import('../src/runner/cli.ts');
process.exitCode = await main(process.argv.slice(2));
