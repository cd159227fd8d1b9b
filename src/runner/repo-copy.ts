// A repository git made, kept in memory and written again for the next workspace that
// holds the same files. git-repo.ts's makeRepository uses it: a test process makes the
// same few scenario repositories dozens of times, and `git init`, `git add` and
// `git commit` cost about 35 ms of CPU together, mostly in starting the processes.
//
// The copy is the repository git would have made: every file of .git byte for byte (the
// objects, refs, reflog and config hold nothing of the folder they are in, and the first
// commit's author and date are fixed), except the index's record of each file's
// timestamps, inode and size, which is written again from the new workspace's files as
// git writes it. readGitFolder proves that on this machine: it keeps a repository only
// when the index it would write for the original workspace is the very index git wrote
// there. Anything it does not know (an index version other than 2, a symbolic link, a
// workspace already holding .git) is left to git.
//
// Not here: deciding what the first commit holds (git-repo.ts), or any git command.

import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The .git folder of a repository, as it was read: folders first, parents before children. */
export interface GitFolder {
  dirs: { rel: string; mode: number }[];
  files: { rel: string; mode: number; data: Buffer }[];
}

/**
 * A key for what git would make of `dir` with these `settings` (the first commit's author,
 * message and configuration): the files' paths, executable bits and contents, and the file
 * system (git init probes it). Undefined when the folder holds something other than plain
 * files and folders, or a .git already.
 */
export function workspaceKey(dir: string, settings: string): string | undefined {
  const hash = createHash('sha256').update(settings).update('\0').update(String(statSync(dir).dev)).update('\0');
  const walk = (rel: string): boolean => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const child = rel === '' ? name : `${rel}/${name}`;
      if (child === '.git') return false;
      const st = lstatSync(path.join(dir, child));
      if (st.isDirectory()) {
        if (!walk(child)) return false;
      } else if (st.isFile()) {
        hash.update(`${child}\0${st.mode & 0o111 ? 'x' : '-'}\0${st.size}\0`).update(readFileSync(path.join(dir, child)));
      } else {
        return false;
      }
    }
    return true;
  };
  return walk('') ? hash.digest('hex') : undefined;
}

/**
 * The .git folder git just made in `dir`, to be written again by writeGitFolder; undefined
 * when its index cannot be written again exactly as git writes it (see the header).
 */
export function readGitFolder(dir: string): GitFolder | undefined {
  const gitDir = path.join(dir, '.git');
  const folder: GitFolder = { dirs: [], files: [] };
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(gitDir, rel)).sort()) {
      const child = rel === '' ? name : `${rel}/${name}`;
      const st = lstatSync(path.join(gitDir, child));
      if (st.isDirectory()) {
        folder.dirs.push({ rel: child, mode: st.mode & 0o7777 });
        walk(child);
      } else if (st.isFile()) {
        folder.files.push({ rel: child, mode: st.mode & 0o7777, data: readFileSync(path.join(gitDir, child)) });
      } else {
        throw new Error(`not a plain file: .git/${child}`);
      }
    }
  };
  try {
    walk('');
  } catch {
    return undefined;
  }
  const index = folder.files.find((f) => f.rel === 'index');
  if (!index) return undefined;
  const again = indexFor(index.data, dir);
  return again?.equals(index.data) ? folder : undefined;
}

/** Write `folder` as `dir`/.git, its index made for the files in `dir`. False (and no .git left) if that fails. */
export function writeGitFolder(dir: string, folder: GitFolder): boolean {
  const gitDir = path.join(dir, '.git');
  try {
    mkdirSync(gitDir);
    for (const d of folder.dirs) {
      mkdirSync(path.join(gitDir, d.rel));
      chmodSync(path.join(gitDir, d.rel), d.mode);
    }
    // The index last: written after every other file, as git writes it after the objects.
    for (const f of [...folder.files.filter((f) => f.rel !== 'index'), ...folder.files.filter((f) => f.rel === 'index')]) {
      const data = f.rel === 'index' ? indexFor(f.data, dir) : f.data;
      if (!data) throw new Error('the index cannot be written for this workspace');
      writeFileSync(path.join(gitDir, f.rel), data);
      chmodSync(path.join(gitDir, f.rel), f.mode);
    }
    return true;
  } catch {
    rmSync(gitDir, { recursive: true, force: true });
    return false;
  }
}

/**
 * `index` (git's index file, version 2) with each entry's stat data taken from the file
 * of that path in `dir`, as git records it (seconds and nanoseconds of ctime and mtime,
 * device, inode, uid, gid, size, each cut to 32 bits), and its checksum made again.
 * Undefined for any other index version or for entries with extended flags.
 */
function indexFor(index: Buffer, dir: string): Buffer | undefined {
  if (index.length < 32 || index.toString('latin1', 0, 4) !== 'DIRC' || index.readUInt32BE(4) !== 2) return undefined;
  const out = Buffer.from(index);
  const count = out.readUInt32BE(8);
  const u32 = (n: bigint) => Number(BigInt.asUintN(32, n));
  let at = 12;
  for (let i = 0; i < count; i++) {
    if (at + 62 > out.length - 20 || (out.readUInt16BE(at + 60) & 0x4000) !== 0) return undefined;
    const nameEnd = out.indexOf(0, at + 62);
    if (nameEnd < 0) return undefined;
    const st = lstatSync(path.join(dir, out.toString('utf8', at + 62, nameEnd)), { bigint: true });
    const second = 1_000_000_000n;
    const fields = [st.ctimeNs / second, st.ctimeNs % second, st.mtimeNs / second, st.mtimeNs % second, st.dev, st.ino];
    fields.forEach((v, k) => out.writeUInt32BE(u32(v), at + 4 * k));
    // at + 24 is the mode git recorded (100644, 100755): the key holds the executable bits.
    out.writeUInt32BE(u32(st.uid), at + 28);
    out.writeUInt32BE(u32(st.gid), at + 32);
    out.writeUInt32BE(u32(st.size), at + 36);
    at += (nameEnd - at + 8) & ~7;
  }
  createHash('sha1').update(out.subarray(0, out.length - 20)).digest().copy(out, out.length - 20);
  return out;
}
