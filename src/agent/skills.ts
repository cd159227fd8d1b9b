//> 9 skills-file
// Skills: prompt templates the user runs by name. `/release-notes 1.2.0` typed as a
// prompt finds .claude/skills/release-notes/SKILL.md, puts "1.2.0" where the template
// says $ARGUMENTS, and sends the result to the model as if the user had typed it.
//
// A SKILL.md is a few lines of frontmatter and a body:
//
//   ---
//   name: release-notes
//   description: Write RELEASE.md for a version
//   allowed-tools: [read_file, write_file]
//   ---
//   Write release notes for version $ARGUMENTS into RELEASE.md.
//
// `allowed-tools` PRE-APPROVES those tools while the skill's prompt runs: the permission
// gate (chapter 6) does not ask about them. It does not restrict anything: every other
// tool is still offered, and still asks as usual. Many write-ups say the opposite.
//
// Skills are read once, at session start, from the user's home (~/.claude/skills/) and the
// project: .claude/skills/ of the session's folder and of each folder above it, up to the
// project root (a session started in pkg/app reads pkg/app's, pkg's and the root's, not a
// sibling's). The user's personal skill wins over a project skill of the same name, and
// among the project's the nearer folder wins, as in Claude Code (both measured on 2.1.328;
// its skills docs, code.claude.com/docs/en/skills, give the order enterprise > personal >
// project > plugin). Agent files go the other way (chapter 14: the project's agent wins). A
// broken file is reported in one line and skipped; it never ends the session.
//
// Not here: `context: fork` and `agent:` (parsed and kept; chapter 14 runs such a skill
// as an isolated sub-agent), and the Skill tool with which Claude Code's model starts a
// skill by itself (here only the user starts one; the model is told which exist).

import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { AgentHost, Skill } from './types.ts';
import { projectTree, readWithin, type Tree } from './linked-files.ts';

/** Frontmatter values: a string, or a list (`[a, b]`, or `- item` lines under an empty key). */
export type Fields = Record<string, string | string[]>;

/**
 * A deliberately tiny frontmatter parser, not YAML: `key: value` lines between two `---`
 * lines; a value `[a, b]` or `- item` lines under `key:` make a list; blank lines and lines
 * starting with `#` are skipped; one pair of surrounding quotes is removed. Not supported:
 * nested maps, multi-line strings (`>` `|`), quoted commas inside `[...]`, escapes.
 * A line it cannot read throws one line saying which and why.
 */
export function parseFrontmatter(text: string): { fields: Fields; body: string } {
  //> 9 parse-frontmatter
  //! hint: No leading "---" line: no frontmatter, the whole text is the body.
  //! hint: Otherwise read "key: value" lines up to the closing "---"; "[a, b]" and "- item" lines (indented or not) are lists.
  //! hint: Anything else throws, naming the line: `line 3: expected "key: value", got "…"`, `line 4: "name" is
  //! hint: given twice`; so does a missing closing "---". Split on \r?\n: a file saved on Windows ends lines in \r\n.
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return { fields: {}, body: text };
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  if (end < 0) throw new Error('the frontmatter has no closing "---" line');
  const fields: Fields = {};
  let listKey: string | undefined;   // the key an empty value opened, waiting for "- item" lines
  for (let i = 1; i < end; i++) {
    const line = lines[i]!;
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const item = /^\s*-\s+(.*)$/.exec(line);
    if (item && listKey) {
      (fields[listKey] as string[]).push(unquote(item[1]!));
      continue;
    }
    const pair = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line);
    if (!pair) throw new Error(`line ${i + 1}: expected "key: value", got "${line.trim()}"`);
    const key = pair[1]!;
    // Given twice, one of the two values would be dropped without a word: which one the
    // writer meant is theirs to say.
    if (Object.hasOwn(fields, key)) throw new Error(`line ${i + 1}: "${key}" is given twice`);
    const value = pair[2]!.trim();
    listKey = undefined;
    if (value === '') {
      fields[key] = [];
      listKey = key;
    } else if (value.startsWith('[')) {
      if (!value.endsWith(']')) throw new Error(`line ${i + 1}: the list for "${key}" has no closing "]"`);
      fields[key] = value.slice(1, -1).split(',').map((s) => unquote(s.trim())).filter((s) => s !== '');
    } else {
      fields[key] = unquote(value);
    }
  }
  return { fields, body: lines.slice(end + 1).join('\n').trim() };
  //<
}

function unquote(s: string): string {
  return /^(["']).*\1$/.test(s) ? s.slice(1, -1) : s;
}

/** A field as a string, or undefined. A list where one string belongs is a mistake. */
function text(fields: Fields, key: string): string | undefined {
  const v = fields[key];
  if (Array.isArray(v) && v.length === 0) throw new Error(`"${key}" has no value`);   // "key:" and nothing after it
  if (Array.isArray(v)) throw new Error(`"${key}" must be a single value, not a list`);
  return v;
}

/** A field as a list. Claude Code writes allowed-tools space-separated, so a plain string splits on spaces and commas. */
function list(fields: Fields, key: string): string[] {
  const v = fields[key];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : v.split(/[\s,]+/).filter((s) => s !== '');
}

/** One SKILL.md into a Skill, or a thrown one-line reason. The folder name is the default name. */
export function parseSkill(source: string, folder: string, shown: string): Skill {
  const { fields, body } = parseFrontmatter(source);
  const name = text(fields, 'name') ?? folder;
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`name "${name}" may use lowercase letters, digits and - only`);
  if (body === '') throw new Error('the skill has no body: nothing to send');
  return {
    name,
    // Without a description, the first line of the body stands in: the model needs something to go on.
    description: text(fields, 'description') ?? body.split('\n')[0]!.replace(/^#+\s*/, ''),
    allowedTools: list(fields, 'allowed-tools'),
    context: text(fields, 'context'),
    agent: text(fields, 'agent'),
    body,
    file: shown,
  };
}

/**
 * The project's folders of `kind` (.claude/skills, later .claude/agents), nearest first: the
 * session's folder's, then each one above it up to the project root, each shown by its path
 * from the root (`pkg/app/.claude/skills`; the root's is `.claude/skills`). Every file in
 * them must stay inside the project's tree.
 */
export function projectPlaces(cwd: string, kind: 'skills' | 'agents'): { dir: string; shown: string; tree: Tree }[] {
  //> 9 project-places
  //! hint: projectTree(cwd) gives the project root (tree.dir). Start at cwd and go up one folder at a time
  //! hint: (path.dirname), adding FOLDER/.claude/KIND each time, shown relative to the root with "/" between
  //! hint: parts; stop after adding the root's own (or at the file system's root, where dirname changes nothing).
  const tree = projectTree(cwd);
  const places: { dir: string; shown: string; tree: Tree }[] = [];
  for (let folder = cwd; ; folder = path.dirname(folder)) {
    const dir = path.join(folder, '.claude', kind);
    places.push({ dir, shown: path.relative(tree.dir, dir).split(path.sep).join('/'), tree });
    if (folder === tree.dir || folder === path.dirname(folder)) break;
  }
  return places;
  //<
}

/**
 * Every skill of the user and of the project, by name; the user's personal folder first, so
 * its skill wins over the project's of the same name (Claude Code 2.1.328, measured: the
 * personal one is what reaches the model), then the project's, nearest first, so the
 * session's own folder wins over the root's (measured likewise). A file that cannot be read
 * or parsed is reported on the terminal and skipped.
 */
export async function loadSkills(host: AgentHost): Promise<Skill[]> {
  const places = [
    { dir: path.join(host.home, '.claude', 'skills'), shown: '~/.claude/skills', tree: undefined as Tree | undefined },
    ...projectPlaces(host.cwd, 'skills'),
  ];
  const skills: Skill[] = [];
  for (const { dir, shown, tree } of places) {
    let folders: string[];
    try {
      // Folders, or links (to a folder: a link to anything else has no SKILL.md in it).
      folders = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory() || e.isSymbolicLink()).map((e) => e.name).sort();
    } catch {
      continue;   // no skills folder here: nothing to load
    }
    for (const folder of folders) {
      const file = `${shown}/${folder}/SKILL.md`;
      // A folder without a SKILL.md is not a skill; one whose SKILL.md leads out of its tree is not read.
      const source = await readWithin(path.join(dir, folder, 'SKILL.md'), tree, `skill ${file}`, host.terminal);
      if (source === undefined) continue;
      try {
        const skill = parseSkill(source, folder, file);
        // Two folders of one place naming one skill: a mistake, said, and the first (by folder) kept.
        const twin = skills.find((s) => s.name === skill.name && s.file.startsWith(`${shown}/`));
        if (twin) throw new Error(`${twin.file} already defines /${skill.name}`);
        if (!skills.some((s) => s.name === skill.name)) skills.push(skill);   // personal first: it wins
      } catch (err) {
        // One broken file costs one skill, not the session.
        host.terminal.write(`✖ skill ${file} skipped: ${(err as Error).message}\n`);
      }
    }
  }
  return skills;
}

/** The template with the arguments in place. No $ARGUMENTS in it: they are appended, as Claude Code does. */
export function expandSkill(skill: Skill, args: string): string {
  //> 9 expand-skill
  //! hint: Replace every "$ARGUMENTS" in skill.body with args (a function replacement keeps "$&" in args literal).
  //! hint: A body without $ARGUMENTS still gets the arguments: append "ARGUMENTS: <args>" when args is not empty.
  if (skill.body.includes('$ARGUMENTS')) return skill.body.replaceAll('$ARGUMENTS', () => args);
  return args === '' ? skill.body : `${skill.body}\n\nARGUMENTS: ${args}`;
  //<
}

/** What a typed `/name args` becomes: the prompt to send and the tools it pre-approves, or why not. */
export type SkillRun = { prompt: string; allowedTools: string[] } | { error: string };

/** `/name args` → the skill's prompt; undefined when the text is not a command at all. */
export function skillCommand(prompt: string, skills: Skill[]): SkillRun | undefined {
  const m = /^\/([a-z0-9][a-z0-9-]*)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (!m) return undefined;   // "/etc/hosts is odd" is a question about a path, not a command
  const skill = skills.find((s) => s.name === m[1]);
  if (!skill) {
    const known = skills.length > 0 ? skills.map((s) => `/${s.name}`).join(', ') : 'none (add .claude/skills/NAME/SKILL.md)';
    return { error: `unknown command /${m[1]}. Skills: ${known}` };
  }
  // A list of this run's own, not the skill's: the gate keeps it for this prompt only.
  return { prompt: expandSkill(skill, (m[2] ?? '').trim()), allowedTools: [...skill.allowedTools] };
}

/** The system prompt's list of skills, so the model can suggest one; '' when there are none. */
export function skillsSection(skills: Skill[]): string {
  if (skills.length === 0) return '';
  const lines = skills.map((s) => `- /${s.name}: ${s.description}`);
  return `# Skills\nThe user can run these prompt templates by typing /name and arguments. When one fits what the user wants, suggest it.\n${lines.join('\n')}`;
}
//<
