//> 2 plain-files-file
// Reading and writing a file by a name the model chose, when the name may stand for
// something that is not a file. A named pipe (one `mkfifo` away, now that the model has a
// shell) makes open() wait for a process at its other end. None ever comes: the tool call
// would wait for ever, the run with it, and Node could not even exit, since it waits for
// the thread stuck in that open(). So a file is opened without waiting (O_NONBLOCK), and
// what was opened is looked at before a byte is read or written: only a regular file is.
// This series' own rule: Claude Code 2.1.328's Read waits on a pipe (measured by hand, the
// x-ray driving a Read of one made with Bash: no next request within 90 s).
//
// Not here: whether the path may be touched at all (permissions.ts, chapter 6), but for what
// no path shows: from chapter 6, a file with a second name (a hard link) is refused, and so is
// one that was opened elsewhere than the gate saw (a link changed in between).
//> 6 plain-files-header-folders
// The same goes for the folders write_file makes and list_files reads: each is opened and
// looked at too, and whatever the tool made outside before it saw so is removed again.
//<

import { constants, type Stats } from 'node:fs';
//> 2-5 plain-files-imports
import { open, type FileHandle } from 'node:fs/promises';
//<
//> 6 plain-files-imports-within
import { lstat, mkdir, open, readdir, readlink, realpath, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { existsSync, type Dirent } from 'node:fs';
//<
//> 3 plain-files-import-path
import path from 'node:path';
//<

// Windows has no named pipes among its files, and no O_NONBLOCK: there it is 0.
const NO_WAIT = constants.O_NONBLOCK ?? 0;
//> 6 plain-files-directory
// Opens a folder only (a name that turned into a file or a pipe fails at once); Windows has no such flag.
const DIRECTORY = constants.O_DIRECTORY ?? 0;
//<

//> 2 read-plain-file
/** The text of `file`; throws, reading nothing, when it is a folder, a pipe, a device or a socket. */
//> 2-5 read-plain-file-signature
export async function readPlainFile(file: string): Promise<string> {
//<
//> 6 read-plain-file-signature-within
export async function readPlainFile(file: string, within?: string, judged?: string): Promise<string> {
//<
  const handle = await open(file, constants.O_RDONLY | NO_WAIT);
  try {
    //> 2-5 read-plain-file-check
    await mustBePlain(handle, file);
    //<
    //> 6 read-plain-file-check-within
    await mustBePlain(handle, file, within, false, judged);
    //<
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
//<

/** Write `content` to `file`, made if missing; throws, writing nothing, when what is there is not a regular file. */
//> 2-5 write-plain-file-signature
export async function writePlainFile(file: string, content: string): Promise<void> {
//<
//> 6 write-plain-file-signature-within
export async function writePlainFile(file: string, content: string, within?: string, judged?: string): Promise<void> {
//<
  let handle: FileHandle;
  //> 6 write-plain-file-made
  let made = false;   // whether this call's own open created the file
  //<
  try {
    //> 2-5 write-plain-file-open
    // Not truncated yet (O_TRUNC would empty a file before it is looked at).
    handle = await open(file, constants.O_WRONLY | constants.O_CREAT | NO_WAIT, 0o666);
    //<
    //> 6 write-plain-file-open-within
    ({ handle, made } = await openToWrite(file));
    //<
  } catch (err) {
    // A pipe nobody reads refuses a write-only open at once (ENXIO) rather than wait for a reader.
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') throw new Error(`${file} is a named pipe, not a regular file`);
    throw err;
  }
  try {
    //> 2-5 write-plain-file-check
    await mustBePlain(handle, file);
    //<
    //> 6 write-plain-file-check-within
    await mustBePlain(handle, file, within, made, judged);
    //<
    await handle.truncate(0);
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}

//> 2-5 must-be-plain-signature
async function mustBePlain(handle: FileHandle, file: string): Promise<void> {
//<
//> 6 must-be-plain-signature-within
async function mustBePlain(handle: FileHandle, file: string, within?: string, made = false, judged?: string): Promise<void> {
//<
  const stats = await handle.stat();
  if (!stats.isFile()) throw new Error(`${file} is ${kindOf(stats)}, not a regular file`);
  //> 6 plain-files-hard-links
  // A file with more than one name (a hard link, `ln ~/.ssh/id_rsa key`) may be a file outside
  // the workspace under a name inside it, and no path tells which: the gate compares where
  // paths lead, and each name of it leads to itself. So such a file is neither read nor written.
  if (stats.nlink > 1) throw new Error(`${file} has ${stats.nlink} names (hard links): one may lie outside the workspace, so it is not used here`);
  if (within !== undefined) await openedWithin(handle, stats, file, within, made, judged);
  //<
}
//> 6 open-to-write

/**
 * Open `file` to write, and say whether this very open created it. Only O_EXCL says so: it
 * creates or fails, so a file that was there before is never taken for one this call made
 * (and removed, should it lie outside). O_EXCL does not follow a link, and writing through a
 * link that points at nothing yet makes its target: such a link is followed here, a step at
 * a time, as open() would.
 */
async function openToWrite(file: string): Promise<{ handle: FileHandle; made: boolean }> {
  let target = file;
  for (let hops = 0; hops <= 40; hops++) {
    try {
      // Not truncated yet (O_TRUNC would empty a file before it is looked at).
      return { handle: await open(target, constants.O_WRONLY | NO_WAIT), made: false };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    try {
      return { handle: await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_WAIT, 0o666), made: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    // Something is there after all: a link to nothing yet, or a file made in between (the next
    // round opens it). A link's target is joined to its folder as text, as the kernel reads it.
    const to = await readlink(target).catch(() => undefined);
    if (to !== undefined) target = path.isAbsolute(to) ? to : `${path.dirname(target)}${path.sep}${to}`;
  }
  throw new Error(`${file} leads through too many links`);
}
//<
//> 6 make-folders

/**
 * Make `dir` and the folders missing above it (mkdir -p), one at a time, each opened and
 * checked once made: a link on the way, swapped after the gate's check, would have mkdir make
 * it outside the workspace. The folder above is opened and checked first, and on Linux the new
 * one is made and opened through it (/proc/self/fd/N/NAME names NAME in that very folder), so
 * no link swapped meanwhile, or swapped back after, leads it anywhere else: nothing is made
 * outside, even for a moment. Elsewhere it is made by its path, and one made outside is
 * removed before the refusal.
 */
export async function makeFolders(dir: string, within: string): Promise<void> {
  const missing: string[] = [];
  for (let at = dir; !(await stat(at).then(() => true, () => false)); at = path.dirname(at)) missing.unshift(at);
  for (const folder of missing) {
    const above = await open(path.dirname(folder), constants.O_RDONLY | DIRECTORY);
    try {
      await openedWithin(above, await above.stat(), path.dirname(folder), within);
      const name = FD_NAMES ? `/proc/self/fd/${above.fd}/${path.basename(folder)}` : folder;
      // Already there (made in between by someone else): checked all the same, never removed.
      const made = await mkdir(name).then(() => true, (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') return false;
        throw err;
      });
      const handle = await open(name, constants.O_RDONLY | DIRECTORY);
      try {
        await openedWithin(handle, await handle.stat(), folder, within, made);
      } finally {
        await handle.close();
      }
    } finally {
      await above.close();
    }
  }
}

/** Whether this system names an open file by its descriptor (Linux: /proc/self/fd/N). */
const FD_NAMES = existsSync('/proc/self/fd');
//<
//> 6 read-folder

/**
 * The entries of `folder`, read only once the folder opened is seen to lie in `within`: a
 * link swapped after the gate's check would have list_files name the files of a folder outside.
 */
export async function readFolder(folder: string, within: string): Promise<Dirent[]> {
  const handle = await open(folder, constants.O_RDONLY | DIRECTORY | NO_WAIT);
  try {
    await openedWithin(handle, await handle.stat(), folder, within);
    // Read through the folder opened, not by its path again, which a link may lead elsewhere by
    // now: Linux names it /proc/self/fd/N. Where there is no such name, the path it is.
    return await readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
      return readdir(folder, { withFileTypes: true });
    });
  } finally {
    await handle.close();
  }
}
//<
//> 6 opened-within

/**
 * Whether the file really opened lies in `within` (the workspace). The gate looked at where the
 * path led a moment before the open, and open() follows links as they are then: a link swapped
 * in between (a shell command the user allowed can keep swapping one) would have it open a file
 * elsewhere. Linux names an open file's path (/proc/self/fd); elsewhere the path is resolved
 * again after the open, and must still name this very file. `judged`: where the gate found the
 * path led (Decision.path); the file opened must be that one, not merely one inside: a swap
 * that stays inside could still lead an edit the gate let through into .git. `made`: this call
 * created it (the open or a mkdir), so a refusal removes it again.
 */
async function openedWithin(handle: FileHandle, stats: Stats, file: string, within: string, made = false, judged?: string): Promise<void> {
  let where = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (where === undefined) {
    where = await realpath(file);
    const now = await stat(where);
    if (now.dev !== stats.dev || now.ino !== stats.ino) throw new Error(`${file} changed while it was opened, so it is not used`);
  }
  if (leaves(await realpath(within), where)) {
    if (made) await removeMade(where, stats);
    throw new Error(`${file} led outside the workspace when it was opened (a link changed after the check), so it is not used`);
  }
  if (judged !== undefined && where !== judged) {
    if (made) await removeMade(where, stats);
    throw new Error(`${file} led to another file when it was opened than when the permission check looked (a link changed after the check), so it is not used`);
  }
}

/**
 * Remove what this call made outside the workspace (a file its open created, a folder its mkdir
 * made), so that a refusal leaves nothing behind there: only while that name is still the very
 * thing made, and a folder only while empty (rmdir removes nothing else).
 */
async function removeMade(where: string, made: Stats): Promise<void> {
  const now = await lstat(where).catch(() => undefined);
  if (now?.dev !== made.dev || now.ino !== made.ino) return;
  await (now.isDirectory() ? rmdir(where) : unlink(where)).catch(() => undefined);
}
//<
//> 3 plain-files-leaves

/** True when `target` is not `root` or below it: the one test of "outside" that every workspace check shares. */
export function leaves(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
}
//<

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isSocket()) return 'a socket';
  return 'a device';
}
//<
