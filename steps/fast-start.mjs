// Fast start for Node versions that cannot run TypeScript natively (before 22.18).
//
// The usual way, the tsx loader, costs a loader thread and a detour for every module
// (measured here: about 0.9 s and 137 MB to run a chapter demo). Instead, this file
// bundles the runner and every chapter snapshot into plain JavaScript once, keeps the
// result in node_modules/.cache, and hands back where to find it (about 0.5 s and
// 100 MB). The cache key is the node version plus every source file's
// path, size and modification time, so an edit simply builds a fresh copy.
//
// It is an optimisation, never a requirement: if anything here fails, run.mjs falls
// back to tsx, which is also what runs code that is not a snapshot (exercises, mutants).

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Every .ts file the runner and the snapshots are made of (not src/agent: it is all chapters at once). */
function sources(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) { if (full !== path.join(root, 'src', 'agent')) walk(full); }
      else if (entry.name.endsWith('.ts')) files.push(full);
    }
  };
  walk(path.join(root, 'src'));
  walk(path.join(root, 'steps'));
  return files.sort();
}

/** Build once per source state; returns the runner's URL and each snapshot folder's compiled chapter URL. */
export async function compiled(root) {
  const files = sources(root);
  // This file's own text is part of the key: a change to how bundles are built rebuilds them.
  const hash = createHash('sha256').update(`${process.version}\n`).update(readFileSync(fileURLToPath(import.meta.url)));
  for (const f of files) {
    const s = statSync(f);
    hash.update(`${path.relative(root, f)} ${s.size} ${s.mtimeMs}\n`);
  }
  const key = hash.digest('hex').slice(0, 16);
  const cacheRoot = path.join(root, 'node_modules', '.cache', 'subagents-run');
  const dir = path.join(cacheRoot, key);

  const snapshots = readdirSync(path.join(root, 'steps'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(root, 'steps', e.name, 'main.ts')))
    .map((e) => e.name);

  if (!existsSync(path.join(dir, 'cli.js'))) {
    // Build beside the final folder, then rename: two runs building at once never see half a cache.
    const scratch = `${dir}.${process.pid}.tmp`;
    const { build } = await import('esbuild');   // only on a miss: loading it costs time too
    const entryPoints = { cli: path.join(root, 'src', 'runner', 'cli.ts') };
    for (const name of snapshots) entryPoints[`chapter-${name}`] = path.join(root, 'steps', name, 'main.ts');
    await build({
      entryPoints, outdir: scratch, bundle: true, format: 'esm', platform: 'node', target: 'node20',
      // Packages go into the bundles as they ship, unmodified. The SDK matters most: as one
      // file it loads in about 70 ms, where its few hundred modules take about 270.
      logLevel: 'silent', outExtension: { '.js': '.js' },
    });
    try {
      renameSync(scratch, dir);
    } catch {
      rmSync(scratch, { recursive: true, force: true });   // another run got there first: use its copy
    }
    // Older builds are dead weight once nothing can still be using them (give a running
    // process ten minutes), and leftovers of interrupted builds likewise.
    for (const old of readdirSync(cacheRoot)) {
      const at = path.join(cacheRoot, old);
      if (old !== key && Date.now() - statSync(at).mtimeMs > 10 * 60_000) rmSync(at, { recursive: true, force: true });
    }
  }

  const chapters = new Map(snapshots.map((name) => [path.join(root, 'steps', name), pathToFileURL(path.join(dir, `chapter-${name}.js`)).href]));
  return { cli: pathToFileURL(path.join(dir, 'cli.js')).href, chapters };
}
